#pragma once
// What this process runs on, for start-up reports and bug reports.

#include <string>

namespace cgraph {

struct cuda_versions {
  int driver = 0;   // CUDA version the driver supports, e.g. 13000 (0: no driver)
  int runtime = 0;  // the CUDA runtime cgraph was built with
  int nvrtc = 0;    // NVRTC, when it can be loaded (0 otherwise)
  int max_ptx_isa = 0;  // the newest PTX ISA the driver loads, e.g. 90 for 9.0 (0: newer than cgraph knows)
};

cuda_versions versions();
std::string to_string(const cuda_versions& v);  // "driver 13.0, runtime 13.0, NVRTC 13.0, PTX ISA ≤ 9.0"

}  // namespace cgraph

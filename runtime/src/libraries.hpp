#pragma once
// Kernels from `module` files (cubin, fatbin, PTX) and from `source` blocks compiled with
// NVRTC, loaded with the context-independent library API and cached per program.

#include "check.hpp"

#include <cgraph/runtime/backend/handle.hpp>

#include <cgraph/compiler/ir.hpp>

#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace cgraph::detail {

struct program_state;

struct loaded_library {
  backend::library_handle handle;
  std::map<std::string, std::string> lowered_names;  // NVRTC: name expression → mangled name
};

struct library_cache {
  std::mutex lock;
  std::map<std::string, std::shared_ptr<loaded_library>> loaded;  // by library index and path
};

// The kernel `kernel` of program `p` declared `from LIB`, as a cudaKernel_t usable wherever
// CUDA takes a kernel function. Relative module paths are resolved against `directory`.
// `allow_outside`: load module paths that leave `directory` (build_options).
const void* library_kernel(const program_state& p, std::uint32_t kernel, const std::string& directory,
                           bool allow_outside);

// The largest PTX ISA version a driver can load (e.g. 90 for 9.0 with driver 13000); 0 when
// the driver is newer than the table (it then loads everything cgraph knows).
int max_ptx_isa(int driver_version);

}  // namespace cgraph::detail

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
#include <optional>
#include <string>
#include <vector>

namespace cgraph::detail {

struct program_state;

// The byte size of each parameter of a library's kernel, or nullopt where the driver cannot say.
using param_sizes = std::optional<std::vector<std::size_t>>;

struct loaded_library {
  backend::library_handle handle;
  std::map<std::string, std::string> lowered_names;  // NVRTC: name expression → mangled name
  // By symbol, asked once for as long as the library stays loaded (its handles name these
  // kernels only until then): every build of the program, whatever its options, shares them.
  std::map<std::string, param_sizes, std::less<>> params;
};

struct library_cache {
  std::mutex lock;
  std::map<std::string, std::shared_ptr<loaded_library>> loaded;  // by library index and path
};

// The kernel `kernel` of program `p` declared `from LIB`, as a cudaKernel_t usable wherever
// CUDA takes a kernel function, with its parameters' sizes as the driver tells them
// (cudaFuncGetParamInfo, driver 12.4+). Relative module paths are resolved against
// `directory`. `allow_outside`: load module paths that leave `directory` (build_options).
struct library_kernel_info {
  const void* function = nullptr;
  const param_sizes* params = nullptr;  // owned by the program's loaded library
};
library_kernel_info library_kernel(const program_state& p, std::uint32_t kernel, const std::string& directory,
                                   bool allow_outside);

// The largest PTX ISA version a driver can load (e.g. 90 for 9.0 with driver 13000); 0 when
// the driver is newer than the table (it then loads everything cgraph knows).
int max_ptx_isa(int driver_version);

}  // namespace cgraph::detail

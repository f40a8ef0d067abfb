#include <cgraph/runtime/versions.hpp>

#include "libraries.hpp"
#include "nvrtc.hpp"

#include <cuda_runtime_api.h>

#include <fmt/format.h>

namespace cgraph {

cuda_versions versions() {
  cuda_versions v;
  if (cudaDriverGetVersion(&v.driver) != cudaSuccess) v.driver = 0;
  if (cudaRuntimeGetVersion(&v.runtime) != cudaSuccess) v.runtime = 0;
  (void)cudaGetLastError();
  v.nvrtc = detail::nvrtc_version();
  v.max_ptx_isa = v.driver ? detail::max_ptx_isa(v.driver) : 0;
  return v;
}

std::string to_string(const cuda_versions& v) {
  auto version = [](int x) { return x ? fmt::format("{}.{}", x / 1000, x % 1000 / 10) : std::string("none"); };
  std::string ptx = v.max_ptx_isa ? fmt::format("{}.{}", v.max_ptx_isa / 10, v.max_ptx_isa % 10)
                    : v.driver    ? std::string("any")
                                  : std::string("none");
  return fmt::format("driver {}, runtime {}, NVRTC {}, PTX ISA up to {}", version(v.driver), version(v.runtime),
                     version(v.nvrtc), ptx);
}

}  // namespace cgraph

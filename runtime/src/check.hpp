#pragma once
// Checking CUDA calls. Every failure throws cuda_error naming the call and, when a node is
// being built or updated, its .cgraph location (formatted only when something failed).

#include <cgraph/runtime/error.hpp>
#include <cgraph/source.hpp>

#include <cuda_runtime_api.h>

#include <string>
#include <string_view>

namespace cgraph::gen {
struct site;
}

namespace cgraph::detail {

// A place in a .cgraph file, or nowhere.
struct where {
  const source_file* file = nullptr;
  source_range range{};

  std::string str() const { return file ? file->position(range.begin) : std::string(); }
};

// The fault-injection seam (cgraph/runtime/testing.hpp): true when the CUDA call about to be
// made should fail instead of being made.
bool inject_fault() noexcept;

// `api` may be a whole call expression: only the function name is kept.
inline void check(cudaError_t status, std::string_view api, const where& at = {}) {
  if (status != cudaSuccess) {
    (void)cudaGetLastError();  // clear a non-sticky error so the next call starts clean
    throw cuda_error(status, std::string(api.substr(0, api.find('('))), at.str());
  }
}

// The same for generated code, whose places are gen::sites (generated.cpp).
void check(cudaError_t status, std::string_view api, const gen::site& at);

// Every CUDA call cgraph makes while building, instantiating or updating goes through here.
#define CGRAPH_CUDA(call, at) \
  ::cgraph::detail::check(::cgraph::detail::inject_fault() ? cudaErrorNotPermitted : (call), #call, (at))

}  // namespace cgraph::detail

#pragma once
// Checking CUDA calls. Every failure throws cuda_error naming the call and, when a node is
// being built or updated, its .cgraph location (formatted only when something failed).

#include <cgraph/runtime/error.hpp>
#include <cgraph/source.hpp>

#include <cuda_runtime_api.h>

#include <string>

namespace cgraph::detail {

// A place in a .cgraph file, or nowhere.
struct where {
  const source_file* file = nullptr;
  source_range range{};

  std::string str() const { return file ? file->position(range.begin) : std::string(); }
};

inline void check(cudaError_t status, const char* api, const where& at = {}) {
  if (status != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky-free error so the next call starts clean
    throw cuda_error(status, api, at.str());
  }
}

#define CGRAPH_CUDA(call, at) ::cgraph::detail::check((call), #call, (at))

}  // namespace cgraph::detail

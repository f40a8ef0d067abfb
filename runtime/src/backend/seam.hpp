#pragma once
// The checked-call seam: every CUDA call the backend makes goes through CGRAPH_CUDA (failure
// throws cuda_error naming the call and the .cgraph site) or CGRAPH_CUDA_STATUS (the caller
// handles the failure: an update path that falls back). It is also the fault-injection point of
// cgraph/runtime/testing.hpp.

#include <cgraph/runtime/backend/site.hpp>
#include <cgraph/runtime/error.hpp>

#include <cuda_runtime_api.h>

#include <string_view>

namespace cgraph::backend {

// True when the CUDA call about to be made should fail instead (testing::fail_cuda_call_at).
bool inject_fault() noexcept;

// Throws cuda_error for a failed call; `api` may be a whole call expression (the name is kept).
[[noreturn]] void cuda_failed(cudaError_t status, std::string_view api, const site& at);

inline void check(cudaError_t status, std::string_view api, const site& at) {
  if (status != cudaSuccess) cuda_failed(status, api, at);
}

// Streams a capture left capturing after its cleanup: a bug, counted for the fault tests.
void count_left_capturing() noexcept;

}  // namespace cgraph::backend

#define CGRAPH_CUDA_STATUS(call) (::cgraph::backend::inject_fault() ? cudaErrorNotPermitted : (call))
#define CGRAPH_CUDA(call, at) ::cgraph::backend::check(CGRAPH_CUDA_STATUS(call), #call, (at))

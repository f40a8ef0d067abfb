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

// A CUDA call's status through the seam: the injected failure instead of the call, when due.
// For calls whose failure cgraph handles itself (an update path that falls back).
#define CGRAPH_CUDA_STATUS(call) (::cgraph::detail::inject_fault() ? cudaErrorNotPermitted : (call))

// Every CUDA call cgraph makes while building, instantiating or updating goes through here.
#define CGRAPH_CUDA(call, at) ::cgraph::detail::check(CGRAPH_CUDA_STATUS(call), #call, (at))

// The ledger behind testing::live_handles(): every CUDA object cgraph keeps past one call is
// counted when made and when destroyed, so tests can prove a failure leaked none.
enum class owned : unsigned { graph, exec, event, device_memory, library, capture_stream, capture_event, kinds };
void ledger(owned kind, long delta) noexcept;

// Destroy (or free) an object cgraph owns and take it off the ledger; a null handle is nothing.
void destroy_owned(cudaGraph_t graph) noexcept;
void destroy_owned(cudaGraphExec_t exec) noexcept;
void free_owned(void* device_memory) noexcept;

// Launch fences: records `event` on `stream` after a launch, creating it on first use.
void record_fence(cudaEvent_t& event, cudaStream_t stream);
// Waits for the last fenced launch, then destroys the event (null: nothing).
void release_fence(cudaEvent_t& event) noexcept;

}  // namespace cgraph::detail

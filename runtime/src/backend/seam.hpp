#pragma once
// The checked-call seam: every CUDA call the backend makes goes through CGRAPH_CUDA (failure
// throws cuda_error naming the call and the .cgraph site) or CGRAPH_CUDA_STATUS (the caller
// handles the failure: an update path that falls back). It is also where tests hook in: fault
// injection, update refusals and the handle ledger call `test_hooks`, which only the test
// programs install (tests/support/testing.cpp).

#include <cgraph/runtime/backend/handle.hpp>
#include <cgraph/runtime/backend/site.hpp>
#include <cgraph/runtime/graph.hpp>
#include <cgraph/runtime/error.hpp>

#include <cuda_runtime_api.h>

#include <string_view>

namespace cgraph::backend {

// What tests observe and steer. Not installed in users' programs: every hook point is then a
// null test, and no test code is linked into them.
class test_hooks {
public:
  virtual bool fail_call() noexcept = 0;              // make the CUDA call about to be made fail
  virtual bool refuse(update_path path) noexcept = 0;  // report that CUDA refused an update path
  virtual void count(owned kind, long delta) noexcept = 0;  // the handle ledger
  virtual void left_capturing() noexcept = 0;         // a stream found capturing after cleanup

protected:
  ~test_hooks() = default;
};

// The installed hooks, or null. Installed once, before any CUDA object exists.
extern test_hooks* installed_hooks;
void install_test_hooks(test_hooks* hooks) noexcept;

// True when the CUDA call about to be made should fail instead.
inline bool inject_fault() noexcept { return installed_hooks && installed_hooks->fail_call(); }

// Whether the installed hooks refuse an update path.
inline bool refused_by_test(update_path path) noexcept { return installed_hooks && installed_hooks->refuse(path); }

// Throws cuda_error for a failed call; `api` may be a whole call expression (the name is kept).
[[noreturn]] void cuda_failed(cudaError_t status, std::string_view api, const site& at);

inline void check(cudaError_t status, std::string_view api, const site& at) {
  if (status != cudaSuccess) cuda_failed(status, api, at);
}

// Streams a capture left capturing after its cleanup: a bug, counted for the fault tests.
inline void count_left_capturing() noexcept {
  if (installed_hooks) installed_hooks->left_capturing();
}

}  // namespace cgraph::backend

#define CGRAPH_CUDA_STATUS(call) (::cgraph::backend::inject_fault() ? cudaErrorNotPermitted : (call))
// `at` is evaluated only when the call fails: a site worked out from the program (a run-time
// build keeps none, graph_state::step_site) costs nothing on the way to success.
#define CGRAPH_CUDA(call, at)                                                          \
  do {                                                                                 \
    if (const cudaError_t cgraph_status_ = CGRAPH_CUDA_STATUS(call); cgraph_status_ != cudaSuccess) \
      ::cgraph::backend::cuda_failed(cgraph_status_, #call, (at));                     \
  } while (false)

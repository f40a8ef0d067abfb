#pragma once
// Test hooks, compiled into the test programs only (tests/support/testing.cpp installs them in
// the backend's seam before main; users' programs have none, and each hook point there is one
// test of a null pointer). They make graph_exec::update() behave as if CUDA refused a path, so
// tests can prove each fallback (no parameter change the language allows makes CUDA 13 refuse
// both per-node setters and cudaGraphExecUpdate on one GPU), inject CUDA failures, and count
// the CUDA objects cgraph holds.

namespace cgraph::testing {

struct update_refusals {
  bool node_params = false;  // per-node exec setters report a refusal
  bool whole_graph = false;  // cudaGraphExecUpdate reports a refusal
};

// Sets the refusals for the calling thread's updates; returns the previous ones.
update_refusals refuse_updates(update_refusals r);

// How many programs NVRTC has compiled in this process (cached sources are not recompiled).
unsigned nvrtc_compilations();

// Fault injection, for the calling thread: the CUDA call with index `n` (0 = the next one)
// among those cgraph makes through its checked-call seam fails with cudaErrorNotPermitted
// instead of being made; a negative n turns injection off. Resets the call counter.
void fail_cuda_call_at(long n);
// The same, but call n and every call after it fail (CUDA gone bad for good); negative: off.
void fail_cuda_calls_from(long n);
// How many seam calls were made since the last fail_cuda_call_at.
long cuda_calls_made();

// How many streams a capture builder found still capturing after its cleanup (should be 0).
unsigned streams_left_capturing();

// CUDA objects cgraph holds right now (process-wide): compare before and after an operation
// to prove it leaked nothing. Capture streams are pooled, and a thread parks its last
// session's: these count the ones an open capture session has taken.
struct handle_counts {
  long graphs = 0;
  long execs = 0;
  long events = 0;
  long device_allocations = 0;
  long libraries = 0;
  long capture_streams = 0;
  friend bool operator==(const handle_counts&, const handle_counts&) = default;
};
handle_counts live_handles();

}  // namespace cgraph::testing

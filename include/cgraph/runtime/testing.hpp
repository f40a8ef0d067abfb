#pragma once
// Test hooks, not for production use: make graph_exec::update() behave as if CUDA refused a
// path, so tests can prove each fallback (no parameter change the language allows makes
// CUDA 13 refuse both per-node setters and cudaGraphExecUpdate on one GPU). Process-wide.

namespace cgraph::testing {

struct update_refusals {
  bool node_params = false;  // per-node exec setters report a refusal
  bool whole_graph = false;  // cudaGraphExecUpdate reports a refusal
};

// Sets the refusals for the calling thread's updates; returns the previous ones.
update_refusals refuse_updates(update_refusals r);

// How many programs NVRTC has compiled in this process (cached sources are not recompiled).
unsigned nvrtc_compilations();

}  // namespace cgraph::testing

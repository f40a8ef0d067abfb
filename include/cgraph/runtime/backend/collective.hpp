#pragma once
// NCCL collectives in graphs (LANGUAGE.md §15), for the run-time path and generated code alike.
// A collective node's work is captured into a graph of its own, which both strategies embed as
// a child graph node (as captured routines are): NCCL issues its kernels on a stream, and only a
// capture turns them into nodes. A `group` of collectives on several devices is one capture
// spanning a stream per device, forked from the first device's stream and joined back.
//
// NCCL connects peers lazily, at the first collective that needs them, and cannot do so while
// a stream is capturing; so each capture is preceded by a warm-up: every collective once, with
// one element, on scratch buffers, in the same grouping, outside any capture.
//
// Built without NCCL (CGRAPH_HAVE_NCCL 0), capture_collectives throws a build_error saying so.

#include <cgraph/dsl/collectives.hpp>
#include <cgraph/compiler/ir.hpp>
#include <cgraph/runtime/backend/handle.hpp>
#include <cgraph/runtime/backend/list.hpp>
#include <cgraph/runtime/backend/site.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

struct ncclComm;  // nccl.h's ncclComm_t is a ncclComm*: no NCCL header is needed here

namespace cgraph::backend {

struct collective_call {
  dsl::collective_op op = dsl::collective_op::all_reduce;
  dsl::reduction reduction = dsl::reduction::sum;
  ir::scalar element = ir::scalar::f32;
  const void* send = nullptr;  // null where the collective takes no send buffer (recv)
  void* recv = nullptr;        // null where it takes no receive buffer (send)
  std::size_t count = 0;
  int peer = 0;                // the root (broadcast, reduce) or the peer (send, recv)
  ncclComm* comm = nullptr;
  int device = -1;             // a [[device]] given to the node: checked against the comm's
  site at;                     // the statement
};

// Whether this build of cgraph has NCCL.
bool have_nccl() noexcept;

// Warms up, then captures `calls` (between ncclGroupStart and ncclGroupEnd when there are
// several) into a new graph; errors name `at` (the node) or the call's own site.
graph_handle capture_collectives(list<collective_call> calls, cudaStreamCaptureMode mode, const site& at);

}  // namespace cgraph::backend

#pragma once
// One stream capture of a graph and its conditional bodies, for the run-time capture builder
// and for generated code alike. Each body (the root first) is captured on one CUDA stream of
// its own. A body of several streams keeps them as dependency sets on that one stream: before
// the session issues on stream k it sets the real stream's capture dependencies to k's
// (cudaStreamUpdateCaptureDependencies), keeping the set it replaces; a step another stream
// waits for is recorded as the nodes it left, and a wait adds them. No other stream and no
// event takes part, which builds wide graphs in 0.56-0.74 of the time of a stream and an event
// a branch (bench/capture_join_bench, docs/performance.md, run 73). Real streams come from a
// process-wide pool, and a thread keeps its last session's for its next. A failure anywhere
// ends every open capture, innermost first, and the destructor keeps the streams for the
// thread, so no stream is left capturing.

#include <cgraph/runtime/backend/graph_state.hpp>
#include <cgraph/runtime/backend/list.hpp>
#include <cgraph/runtime/backend/thread_spare.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace cgraph::backend {

class capture_session {
public:
  capture_session(graph_state& g, const site& at, cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal);
  capture_session(const capture_session&) = delete;
  capture_session& operator=(const capture_session&) = delete;
  ~capture_session();

  void begin(unsigned streams);                           // the root graph
  void end(list<std::uint32_t> joins);                    // g.graph becomes the captured graph
  void enter_body(std::uint32_t body, unsigned streams);  // body graph `body` of the conditional just added
  void leave_body(list<std::uint32_t> joins);

  cudaGraph_t graph() const;                              // the graph of the body being captured
  cudaGraph_t root() const;                               // the root graph being captured
  // The body's stream, holding stream k's dependencies, for a call that issues work on k.
  cudaStream_t stream(unsigned k) {
    frame& f = top();
    if (k != f.current) [[unlikely]]
      switch_to(f, k);
    f.current_kept = false;  // the caller issues on it: what sets[current] holds is old
    return f.stream;
  }
  void wait(unsigned k, std::uint32_t step);              // stream k waits for step's nodes
  void wait(unsigned k, list<std::uint32_t> steps);       // … for each of steps' nodes
  void record(unsigned k, std::uint32_t step);            // step's nodes: what stream k depends on now

  // For node_ops: the node the last call on stream k made becomes step's node, read back now.
  void captured(unsigned k, std::uint32_t step, const site& at);
  // The same for a kernel launch, which always makes exactly one node: its handle is read with
  // the rest of its graph's nodes when the graph is instantiated (graph_state::defer_reads), so
  // a build makes no call that a hand-written capture does not. Read now where the graph has
  // programmatic edges: adding a node with edge data looks up the nodes it depends on while
  // the capture is open. Inline: every captured kernel calls it, and as a call it was about 25
  // instructions of each (host_work_bench, run 46).
  [[gnu::always_inline]] void launched(unsigned k, std::uint32_t step, const site& at) {
    if (!g_.port_edges.empty()) return captured(k, step, at);
    made_.push_back({step, made_tag_});
  }
  // For node_ops: nodes without a stream call are added to the capturing graph after stream k's
  // dependencies (`add(graph, deps)` returns the node), then made its only dependency.
  template <typename Add>
  void add_node(unsigned k, std::uint32_t step, const site& at, Add add) {
    cudaGraph_t graph = nullptr;
    list<cudaGraphNode_t> deps = dependencies(k, graph, at);
    depend_on(k, step, add(graph, deps), at);
  }
  // add_node for a node made by cudaGraphAddNode from `p`, in one call: a conditional node's
  // three CUDA calls were three calls of the session's, about 40 instructions of frames a
  // conditional (host_work_bench, run 63). CUDA fills `p`'s outputs (a conditional's bodies).
  void add_graph_node(unsigned k, std::uint32_t step, cudaGraphNodeParams& p, const site& at);
  graph_state& state() { return g_; }

private:
  // Stream k's capturing graph and its current dependencies: CUDA's own array, valid until the
  // next call that operates on the stream (cudaStreamGetCaptureInfo), so not copied. add_node's
  // `add` reads it before any such call: it makes one node in the graph (a device scope's
  // cudaSetDevice operates on no stream), and only depend_on then updates the stream.
  list<cudaGraphNode_t> dependencies(unsigned k, cudaGraph_t& graph, const site& at);
  // `node` becomes step's node and stream k's only dependency.
  void depend_on(unsigned k, std::uint32_t step, cudaGraphNode_t node, const site& at);
  void depend_on_inline(cudaStream_t s, std::uint32_t step, cudaGraphNode_t node, const site& at);  // its body, on stream s
  void fork(unsigned streams);
  cudaGraph_t close_frame(list<std::uint32_t> joins);
  [[gnu::noinline]] void leave_joined_body(list<std::uint32_t> joins);  // leave_body, for a body of more streams or joins
  cudaStream_t take_stream();
  void take_more();  // take_stream's, where no stream is free: parked or pooled ones
  void abort() noexcept;

  graph_state& g_;
  site at_;
  cudaStreamCaptureMode mode_;
  // A body being captured: its one stream, and its streams' dependency sets. A frame used again
  // keeps its sets' storage: a conditional's body costs no allocation once warm.
  struct frame {
    cudaStream_t stream = nullptr;  // the real stream: begins and ends the body's capture
    unsigned width = 1;             // how many streams the body has
    unsigned current = 0;           // the stream whose dependencies `stream` holds now
    bool current_kept = true;       // sets[current] holds them too (no call issued on it since)
    bool is_body = false;           // a body's graph belongs to its node: never destroyed here
    std::uint32_t made_tag = 0;     // made_node::tag_of its graph
    // sets[k]: stream k's dependencies while another stream is current (sets[0, width) used).
    std::vector<std::vector<cudaGraphNode_t>> sets;
  };
  // The nodes made in the capture's graphs, in the order they were made: a step, its graph and
  // whether its handle is known yet (launched() leaves it unread). Handed to the graph state as
  // the root's capture ends.
  using made_node = graph_state::made_node;
  // What a session fills, kept by the thread for its next session (thread_spare): a session of
  // a 10-node graph spent about 1 000 instructions, a tenth of its build, allocating and
  // freeing these (host_work_bench, run 48). The streams too stay with the thread (parked):
  // giving them back to the process's pool and taking them again cost each build a second device
  // query and two locks (run 75). The pool handed a thread the same streams in the same roles
  // anyway, the last given back being the first taken.
  struct lists {
    lists() = default;
    lists(const lists&) = delete;
    lists& operator=(const lists&) = delete;
    ~lists() { give_back_parked(); }
    void give_back_parked() noexcept;       // the parked streams to the process's pool
    // The open bodies, innermost last: frames[0, open_). A frame closed keeps its lists'
    // storage for the next body, so a conditional's body costs no allocation.
    std::vector<frame> frames;
    std::vector<cudaStream_t> taken;        // parked or pooled, parked again by the destructor
    std::vector<cudaStream_t> free;         // taken and not capturing now
    // The last session's streams, none capturing, for the thread's next session: the ledger
    // counts them as given back. Of parked_device.
    std::vector<cudaStream_t> parked;
    int parked_device = -1;
    // The nodes each recorded step left on its stream: step_nodes[step] indexes `recorded`
    // (first, count), {0, 0} for a step not recorded.
    std::vector<cudaGraphNode_t> recorded;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> step_nodes;
    std::vector<cudaGraphNode_t> joining;   // close_frame's: the joins' nodes, for one call
    std::vector<made_node> made;
  };
  thread_spare<lists> lists_;
  std::vector<frame>& frames_ = lists_->frames;
  std::vector<cudaStream_t>& taken_ = lists_->taken;
  std::vector<cudaStream_t>& free_ = lists_->free;
  std::vector<cudaGraphNode_t>& recorded_ = lists_->recorded;
  std::vector<std::pair<std::uint32_t, std::uint32_t>>& step_nodes_ = lists_->step_nodes;
  std::vector<cudaGraphNode_t>& joining_ = lists_->joining;
  std::vector<made_node>& made_ = lists_->made;
  std::size_t open_ = 0;
  int device_ = -1;  // the current device, asked as the first stream is taken: its streams' device
  frame& top() { return frames_[open_ - 1]; }
  frame& push(cudaStream_t stream, bool is_body, std::uint32_t graph);  // graph: as made_node numbers it
  [[gnu::noinline]] void switch_to(frame& f, unsigned k);  // stream(k)'s, where k's set is not on the stream
  void keep_current(frame& f);                             // sets[current] := the stream's dependencies
  void pop() { --open_; }
  std::uint32_t made_tag_ = 0;          // the innermost open graph's frame::made_tag
  mutable cudaGraph_t root_ = nullptr;  // root(), asked for once
  bool ended_ = false;                  // end() succeeded: no stream can be capturing
};

// While alive, this thread may make calls an open capture forbids (cudaMalloc, another capture):
// a `call` that passes a cond of the graph being captured builds its child graph then, once the
// handle exists, with allocations and captures of its own that are no part of the open capture.
class relaxed_capture_mode {
public:
  relaxed_capture_mode() noexcept { cudaThreadExchangeStreamCaptureMode(&mode_); }
  ~relaxed_capture_mode() { cudaThreadExchangeStreamCaptureMode(&mode_); }
  relaxed_capture_mode(const relaxed_capture_mode&) = delete;
  relaxed_capture_mode& operator=(const relaxed_capture_mode&) = delete;

private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;  // the thread's own while alive
};

// Captures `issue` (a library call sequence: cuBLAS, cuFFT, …) on a side stream into a new graph,
// which callers embed as a child graph node. Ends the capture whatever `issue` does.
graph_handle capture_routine(const std::function<void(cudaStream_t)>& issue, cudaStreamCaptureMode mode, const site& at);

}  // namespace cgraph::backend

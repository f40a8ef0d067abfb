// The capture session (capture_session.hpp) and its process-wide pool of streams.

#include "seam.hpp"

#include <cgraph/runtime/backend/capture_session.hpp>

#include <algorithm>
#include <map>
#include <mutex>

namespace cgraph::backend {

namespace {

// Streams for captures, kept for the process and shared by every thread: creating them per
// build cost more than a small graph's whole capture (runtime_bench). Per device; never
// destroyed (they may outlive CUDA's own teardown at exit). A thread keeps its last session's
// streams (capture_session::lists::parked) and comes here only for more, or to give back those
// of another device.
class capture_pool {
public:
  static capture_pool& instance() {
    static auto* pool = new capture_pool;
    return *pool;
  }

  // Appends `n` streams of `device` (the current one) to `out`: the pool's first, under one
  // lock, then new ones. Each counts as taken once it is in `out`, so a failure midway leaves
  // `out` holding exactly what must be given back.
  void streams(std::size_t n, int device, std::vector<cudaStream_t>& out, const site& at) {
    // Room first, before anything is taken, so the appends below cannot throw; grown as a
    // vector grows (to the exact size, every take would move the list).
    if (out.capacity() < out.size() + n) out.reserve(std::max(out.size() + n, 2 * out.capacity()));
    std::size_t pooled = 0;
    {
      std::lock_guard<std::mutex> guard(lock_);
      auto& free = streams_[device];
      pooled = std::min(n, free.size());
      out.insert(out.end(), free.end() - static_cast<std::ptrdiff_t>(pooled), free.end());
      free.resize(free.size() - pooled);
    }
    ledger(owned::capture_stream, static_cast<long>(pooled));
    for (std::size_t k = pooled; k < n; ++k) {
      cudaStream_t made = nullptr;
      CGRAPH_CUDA(cudaStreamCreateWithFlags(&made, cudaStreamNonBlocking), at);
      out.push_back(made);
      ledger(owned::capture_stream, 1);
    }
  }

  // Takes back streams of `device` that the ledger no longer counts. Never throws: it runs in
  // cleanup, at a thread's exit too, and makes no CUDA call, so CUDA may be torn down by then.
  void give_back(int device, const std::vector<cudaStream_t>& streams) noexcept {
    std::lock_guard<std::mutex> guard(lock_);
    auto& free = streams_[device];
    free.insert(free.end(), streams.begin(), streams.end());
  }

private:
  std::mutex lock_;
  std::map<int, std::vector<cudaStream_t>> streams_;
};

}  // namespace

capture_session::capture_session(graph_state& g, const site& at, cudaStreamCaptureMode mode)
    : g_(g), at_(at), mode_(mode) {
  // The lease's lists are empty here (a session empties them as it ends). Where one of these
  // throws, nothing needs undoing: each leaves its list as it was, reserving changes no
  // contents, and the step nodes recorded before are recorded again by the next session.
  step_nodes_.assign(g.nodes.size(), {0, 0});
  made_.reserve(g.nodes.size());  // at most one entry a node: no growth while capturing
  frames_.reserve(4);               // bodies nest this deep in most programs
  taken_.reserve(4);
  free_.reserve(4);
}

// push, take_stream and close_frame are inline: a conditional's body calls each once, and as
// calls their frames cost a body about 60 instructions (host_work_bench, run 46).
[[gnu::always_inline]] inline capture_session::frame& capture_session::push(cudaStream_t stream, bool is_body,
                                                                            std::uint32_t graph) {
  if (open_ == frames_.size()) frames_.emplace_back();
  frame& f = frames_[open_++];
  f.stream = stream;
  f.width = 1;
  f.current = 0;
  f.current_kept = true;  // a capture begins with no dependencies
  if (f.sets.empty()) f.sets.emplace_back();
  f.sets[0].clear();
  f.is_body = is_body;
  f.made_tag = made_tag_ = made_node::tag_of(graph);
  return f;
}

capture_session::~capture_session() {
  // After a clean end nothing is open and no call failed, so there is no error to clear: the
  // two cudaGetLastError calls are left out of every build (a few percent of a 10-node graph's
  // capture, runtime_bench, run 74).
  if (!ended_) {
    abort();
    // A stream still capturing here is a bug (every path above ends its captures): count it
    // for the fault tests, and end the capture so no stream is parked capturing. Not asked after a
    // clean end: ending the root capture leaves no stream of the session capturing.
    for (cudaStream_t s : taken_) {
      cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
      if (cudaStreamIsCapturing(s, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
        count_left_capturing();
        cudaGraph_t partial = nullptr;
        cudaStreamEndCapture(s, &partial);
        if (partial) cudaGraphDestroy(partial);
      }
    }
    (void)cudaGetLastError();
  }
  // The streams stay with the thread for its next session, which takes them without the pool's
  // lock, or with the pool if the thread drops these lists (lists::~lists).
  // Every capture of theirs has ended (above, or by end()), as the pool asks. Taken before
  // (take_more), the parked list is empty here, so a swap parks them: no copy, and nothing
  // that could fail in a destructor.
  if (!taken_.empty()) {
    ledger(owned::capture_stream, -static_cast<long>(taken_.size()));
    lists_->parked.swap(taken_);
    lists_->parked_device = device_;
  }
  // Empty, with their storage kept (a frame keeps its sets too), for the thread's next
  // session: lists_ hands them back as this one ends.
  taken_.clear();
  free_.clear();
  recorded_.clear();
  step_nodes_.clear();
  made_.clear();
}

// A session's first stream, and each it needs beyond those it has: the thread's parked ones
// where they are of the current device, else from the pool two at a time (a graph with a
// conditional needs a second stream for its first body, and one pool call, a lock, for both
// costs less than two).
[[gnu::always_inline]] inline cudaStream_t capture_session::take_stream() {
  if (free_.empty()) [[unlikely]]
    take_more();
  cudaStream_t s = free_.back();
  free_.pop_back();
  return s;
}

void capture_session::take_more() {
  std::vector<cudaStream_t>& parked = lists_->parked;
  if (device_ < 0) {
    check(cudaGetDevice(&device_), "cudaGetDevice", at_);
    if (!parked.empty() && lists_->parked_device == device_) {
      ledger(owned::capture_stream, static_cast<long>(parked.size()));
      taken_.insert(taken_.end(), parked.begin(), parked.end());  // taken first: parked again if the next throws
      free_.insert(free_.end(), parked.begin(), parked.end());
      parked.clear();
      return;
    }
  }
  lists_->give_back_parked();  // another device's, if any
  capture_pool::instance().streams(2, device_, taken_, at_);
  free_.insert(free_.end(), taken_.end() - 2, taken_.end());
}

void capture_session::lists::give_back_parked() noexcept {
  if (parked.empty()) return;
  capture_pool::instance().give_back(parked_device, parked);
  parked.clear();
}

namespace {
cudaGraph_t capturing_graph(cudaStream_t s, const site& at) {
  cudaStreamCaptureStatus status{};
  cudaGraph_t graph = nullptr;
  CGRAPH_CUDA(cudaStreamGetCaptureInfo(s, &status, nullptr, &graph, nullptr, nullptr, nullptr), at);
  return graph;
}

// The stream's capture dependencies: CUDA's own array, valid until the stream's next call.
[[gnu::always_inline]] inline list<cudaGraphNode_t> capture_dependencies(cudaStream_t s, cudaGraph_t* graph,
                                                                         const site& at) {
  cudaStreamCaptureStatus status{};
  const cudaGraphNode_t* deps = nullptr;
  std::size_t count = 0;
  CGRAPH_CUDA(cudaStreamGetCaptureInfo(s, &status, nullptr, graph, &deps, nullptr, &count), at);
  return {deps, count};
}
}  // namespace

cudaGraph_t capture_session::graph() const { return capturing_graph(frames_[open_ - 1].stream, at_); }

// Asked for only by the nodes that need it (host nodes' user objects), not by every capture.
cudaGraph_t capture_session::root() const {
  if (!root_) root_ = capturing_graph(frames_[0].stream, at_);
  return root_;
}

// The body's other streams begin with no dependencies, as the body does: nothing has been
// captured in it yet (fork is called only where a body begins).
void capture_session::fork(unsigned streams) {
  frame& f = top();
  if (streams <= 1) return;
  if (f.sets.size() < streams) f.sets.resize(streams);  // kept with the frame: grown once
  for (unsigned k = 1; k < streams; ++k) f.sets[k].clear();
  f.width = streams;
}

void capture_session::keep_current(frame& f) {
  const list<cudaGraphNode_t> deps = capture_dependencies(f.stream, nullptr, at_);
  f.sets[f.current].assign(deps.data(), deps.data() + deps.size());
  f.current_kept = true;
}

// Nodes the stream's dependencies lose here are no error at the capture's end (CUDA reports
// unjoined work only for nodes a stream still depends on): each stays in its stream's set.
void capture_session::switch_to(frame& f, unsigned k) {
  if (!f.current_kept) keep_current(f);
  std::vector<cudaGraphNode_t>& set = f.sets[k];
  CGRAPH_CUDA(cudaStreamUpdateCaptureDependencies(f.stream, set.data(), nullptr, set.size(),
                                                  cudaStreamSetCaptureDependencies), at_);
  f.current = k;
  f.current_kept = true;  // sets[k] holds what the stream now depends on
}

void capture_session::begin(unsigned streams) {
  cudaStream_t origin = take_stream();
  CGRAPH_CUDA(cudaStreamBeginCapture(origin, mode_), at_);
  push(origin, false, 0);
  fork(streams);
}

// Stream 0 waits for the joins' nodes, in one call, and the body's capture ends.
[[gnu::always_inline]] inline cudaGraph_t capture_session::close_frame(list<std::uint32_t> joins) {
  frame& f = top();
  if (f.current != 0) switch_to(f, 0);
  if (joins.size() != 0) {
    joining_.clear();
    for (auto step : joins) {
      const auto [first, count] = step_nodes_[step];
      joining_.insert(joining_.end(), recorded_.begin() + first, recorded_.begin() + first + count);
    }
    CGRAPH_CUDA(cudaStreamUpdateCaptureDependencies(f.stream, joining_.data(), nullptr, joining_.size(),
                                                    cudaStreamAddCaptureDependencies), at_);
  }
  cudaGraph_t result = nullptr;
  CGRAPH_CUDA(cudaStreamEndCapture(f.stream, &result), at_);
  free_.push_back(f.stream);
  return result;  // the caller pops the frame: if ending failed, abort() must end it
}

// The frame is popped by end() and leave_body().
void capture_session::end(list<std::uint32_t> joins) {
  g_.graph_site = at_;
  g_.graph = graph_handle::adopt(close_frame(joins));
  pop();
  g_.defer_reads(made_);
  ended_ = true;
}

void capture_session::enter_body(std::uint32_t body, unsigned streams) {
  cudaStream_t s = take_stream();
  CGRAPH_CUDA(cudaStreamBeginCaptureToGraph(s, g_.bodies[body], nullptr, nullptr, 0, mode_), at_);
  push(s, true, body + 1);
  if (streams > 1) fork(streams);
}

// A body of one stream that waits for no step at its end (an `if` around a launch or two) ends
// with its one CUDA call; close_frame's loop in the same function cost every such body about
// 15 instructions of saved registers (host_work_generated, run 71).
void capture_session::leave_body(list<std::uint32_t> joins) {
  frame& f = top();
  if (f.width > 1 || joins.size() != 0) [[unlikely]]
    return leave_joined_body(joins);
  cudaGraph_t body = nullptr;
  CGRAPH_CUDA(cudaStreamEndCapture(f.stream, &body), at_);
  free_.push_back(f.stream);
  pop();
  made_tag_ = top().made_tag;
}

void capture_session::leave_joined_body(list<std::uint32_t> joins) {
  close_frame(joins);
  pop();
  made_tag_ = top().made_tag;
}

// Stream k's set gains step's nodes: on the stream itself where k is current, one call.
void capture_session::wait(unsigned k, std::uint32_t step) {
  frame& f = top();
  const auto [first, count] = step_nodes_[step];
  if (count == 0) return;  // a step not recorded leaves nothing to wait for
  cudaGraphNode_t* nodes = recorded_.data() + first;
  std::vector<cudaGraphNode_t>& set = f.sets[k];
  if (k != f.current) {
    set.insert(set.end(), nodes, nodes + count);
    return;
  }
  CGRAPH_CUDA(cudaStreamUpdateCaptureDependencies(f.stream, nodes, nullptr, count, cudaStreamAddCaptureDependencies),
              g_.step_site(step));
  if (f.current_kept) set.insert(set.end(), nodes, nodes + count);
}

void capture_session::wait(unsigned k, list<std::uint32_t> steps) {
  for (std::uint32_t step : steps) wait(k, step);
}

// What stream k depends on now: read from the stream where k is current (and kept as k's set,
// so switching away needs no second read), from k's set where it is not.
void capture_session::record(unsigned k, std::uint32_t step) {
  frame& f = top();
  if (k == f.current && !f.current_kept) keep_current(f);
  const std::vector<cudaGraphNode_t>& set = f.sets[k];
  step_nodes_[step] = {static_cast<std::uint32_t>(recorded_.size()), static_cast<std::uint32_t>(set.size())};
  recorded_.insert(recorded_.end(), set.begin(), set.end());
}

void capture_session::captured(unsigned k, std::uint32_t step, const site& at) {
  const list<cudaGraphNode_t> deps = capture_dependencies(stream(k), nullptr, at);
  g_.nodes[step] = deps.size() == 1 ? deps.data()[0] : nullptr;
  made_.push_back({step, made_tag_ | 1});
}

// dependencies and depend_on, inline into add_graph_node and out of line for add_node.
[[gnu::always_inline]] inline void capture_session::depend_on_inline(cudaStream_t s, std::uint32_t step,
                                                                     cudaGraphNode_t node, const site& at) {
  g_.nodes[step] = node;
  made_.push_back({step, made_tag_ | 1});
  CGRAPH_CUDA(cudaStreamUpdateCaptureDependencies(s, &g_.nodes[step], nullptr, 1, cudaStreamSetCaptureDependencies), at);
}

list<cudaGraphNode_t> capture_session::dependencies(unsigned k, cudaGraph_t& graph, const site& at) {
  return capture_dependencies(stream(k), &graph, at);
}

void capture_session::depend_on(unsigned k, std::uint32_t step, cudaGraphNode_t node, const site& at) {
  depend_on_inline(stream(k), step, node, at);
}

void capture_session::add_graph_node(unsigned k, std::uint32_t step, cudaGraphNodeParams& p, const site& at) {
  const cudaStream_t s = stream(k);
  cudaGraph_t graph = nullptr;
  const list<cudaGraphNode_t> deps = capture_dependencies(s, &graph, at);
  cudaGraphNode_t node = nullptr;
  CGRAPH_CUDA(cudaGraphAddNode(&node, graph, deps.data(), nullptr, deps.size(), &p), at);
  depend_on_inline(s, step, node, at);
}

// Ends every open capture, innermost first. Errors are ignored: this runs while another error
// is on its way out (or after a successful end, when nothing is open).
void capture_session::abort() noexcept {
  while (open_ != 0) {
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(top().stream, &partial);
    if (partial && !top().is_body) cudaGraphDestroy(partial);
    pop();
  }
  (void)cudaGetLastError();
}

graph_handle capture_routine(const std::function<void(cudaStream_t)>& issue, cudaStreamCaptureMode mode, const site& at) {
  cudaStream_t side = nullptr;
  CGRAPH_CUDA(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking), at);
  cudaGraph_t graph = nullptr;
  cudaError_t status = CGRAPH_CUDA_STATUS(cudaStreamBeginCapture(side, mode));
  if (status == cudaSuccess) {
    try {
      issue(side);
    } catch (...) {
      cudaStreamEndCapture(side, &graph);  // never leave the stream capturing
      if (graph) cudaGraphDestroy(graph);
      cudaStreamDestroy(side);
      throw;
    }
    status = CGRAPH_CUDA_STATUS(cudaStreamEndCapture(side, &graph));
  }
  cudaStreamDestroy(side);
  if (status != cudaSuccess && graph) cudaGraphDestroy(graph);
  check(status, "cudaStreamEndCapture (captured routine)", at);
  return graph_handle::adopt(graph);
}

}  // namespace cgraph::backend

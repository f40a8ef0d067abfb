// The capture session (capture_session.hpp) and its process-wide pool of streams and events.

#include "seam.hpp"

#include <cgraph/runtime/backend/capture_session.hpp>

#include <algorithm>
#include <map>
#include <mutex>

namespace cgraph::backend {

namespace {

// Streams and events for captures, kept for the process and shared by every build: a wide
// graph needs as many streams as branches, and creating them per build cost more than the
// whole capture (runtime_bench, fork-join). Per device; never destroyed (they may outlive
// CUDA's own teardown at exit).
class capture_pool {
public:
  static capture_pool& instance() {
    static auto* pool = new capture_pool;
    return *pool;
  }

  // Appends `n` streams (events) of the current device to `out`: the pool's first, under one
  // lock, then new ones. Each counts as taken once it is in `out`, so a failure midway leaves
  // `out` holding exactly what must be given back.
  void streams(std::size_t n, std::vector<cudaStream_t>& out, const site& at) {
    take_or_make(streams_, owned::capture_stream, n, out, at, [&](cudaStream_t& made) {
      CGRAPH_CUDA(cudaStreamCreateWithFlags(&made, cudaStreamNonBlocking), at);
    });
  }

  void events(std::size_t n, std::vector<cudaEvent_t>& out, const site& at) {
    take_or_make(events_, owned::capture_event, n, out, at, [&](cudaEvent_t& made) {
      CGRAPH_CUDA(cudaEventCreateWithFlags(&made, cudaEventDisableTiming), at);
    });
  }

  // Returns handles taken on the current device. Never throws: it runs in cleanup. Without a
  // current device (CUDA torn down) the handles are dropped, and the ledger keeps them.
  void give_back(const std::vector<cudaStream_t>& streams, const std::vector<cudaEvent_t>& events) noexcept {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) {
      (void)cudaGetLastError();
      return;
    }
    ledger(owned::capture_stream, -static_cast<long>(streams.size()));
    ledger(owned::capture_event, -static_cast<long>(events.size()));
    std::lock_guard<std::mutex> guard(lock_);
    streams_[device].insert(streams_[device].end(), streams.begin(), streams.end());
    events_[device].insert(events_[device].end(), events.begin(), events.end());
  }

private:
  // `n` handles of the current device, pooled ones first, then new ones from `make`, appended
  // to `out` and counted as taken: one device query and one lock for all of them (a wide body
  // takes hundreds; one at a time, the queries and locks were a tenth of its capture's work).
  template <typename Handle, typename Make>
  void take_or_make(std::map<int, std::vector<Handle>>& pool, owned kind, std::size_t n, std::vector<Handle>& out,
                    const site& at, Make make) {
    if (n == 0) return;  // a fork whose streams all came from the session's own free ones
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice", at);
    // Room first, before anything is taken, so the appends below cannot throw; grown as a
    // vector grows (to the exact size, every one-handle take would move the list).
    if (out.capacity() < out.size() + n) out.reserve(std::max(out.size() + n, 2 * out.capacity()));
    std::size_t pooled = 0;
    {
      std::lock_guard<std::mutex> guard(lock_);
      auto& free = pool[device];
      pooled = std::min(n, free.size());
      out.insert(out.end(), free.end() - static_cast<std::ptrdiff_t>(pooled), free.end());
      free.resize(free.size() - pooled);
    }
    ledger(kind, static_cast<long>(pooled));
    for (std::size_t k = pooled; k < n; ++k) {
      Handle h = nullptr;
      make(h);
      out.push_back(h);
      ledger(kind, 1);
    }
  }

  std::mutex lock_;
  std::map<int, std::vector<cudaStream_t>> streams_;
  std::map<int, std::vector<cudaEvent_t>> events_;
};

}  // namespace

capture_session::capture_session(graph_state& g, const site& at, cudaStreamCaptureMode mode)
    : g_(g), at_(at), mode_(mode) {
  // The lease's lists are empty here (a session empties them as it ends). Where one of these
  // throws, nothing needs undoing: each leaves its list as it was, reserving changes no
  // contents, and the step events assigned before are assigned again by the next session.
  step_events_.assign(g.nodes.size(), nullptr);
  made_.reserve(g.nodes.size());  // at most one entry a node: no growth while capturing
  frames_.reserve(4);               // bodies nest this deep in most programs
  taken_.reserve(4);
  free_.reserve(4);
}

// push, take_stream and close_frame are inline: a conditional's body calls each once, and as
// calls their frames cost a body about 60 instructions (host_work_bench, run 46).
[[gnu::always_inline]] inline capture_session::frame& capture_session::push(cudaStream_t stream0, bool is_body,
                                                                            std::uint32_t graph) {
  if (open_ == frames_.size()) frames_.emplace_back();
  frame& f = frames_[open_++];
  if (f.streams.empty()) {  // the frame's first use
    f.streams.push_back(stream0);
    f.joined.push_back(true);
  } else {
    f.streams[0] = stream0;
  }
  f.width = 1;
  f.fork = nullptr;
  f.is_body = is_body;
  f.made_tag = made_tag_ = made_node::tag_of(graph);
  return f;
}

capture_session::~capture_session() {
  abort();
  // A stream still capturing here is a bug (every path above ends its captures): count it for
  // the fault tests, and end the capture so the pool stays clean. Not asked after a clean end:
  // ending the root capture ends it on every stream that joined it (CUDA fails the end where
  // one has not joined back), so no stream can be capturing then.
  for (cudaStream_t s : taken_) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if (!ended_ && cudaStreamIsCapturing(s, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
      count_left_capturing();
      cudaGraph_t partial = nullptr;
      cudaStreamEndCapture(s, &partial);
      if (partial) cudaGraphDestroy(partial);
    }
  }
  capture_pool::instance().give_back(taken_, events_);
  // Empty, with their storage kept (a frame keeps its lists too), for the thread's next
  // session: lists_ hands them back as this one ends.
  taken_.clear();
  free_.clear();
  events_.clear();
  step_events_.clear();
  made_.clear();
  (void)cudaGetLastError();
}

[[gnu::always_inline]] inline cudaStream_t capture_session::take_stream() {
  if (!free_.empty()) {
    cudaStream_t s = free_.back();
    free_.pop_back();
    return s;
  }
  capture_pool::instance().streams(1, taken_, at_);
  return taken_.back();
}

// From the pool in growing batches (1, 2, 4 … 64 events): one lock for many, and never more than
// twice what the build uses. The destructor gives back the unused ones with the rest. Inline,
// as event_of: a wide body asks three times a branch, and as calls their frames were about 45
// instructions of each branch (host_work_bench, fork-join captured, run 46).
[[gnu::noinline]] void capture_session::more_events() {
  capture_pool::instance().events(std::clamp<std::size_t>(events_.size(), 1, 64), events_, at_);
}

[[gnu::always_inline]] inline cudaEvent_t capture_session::take_event() {
  if (used_events_ == events_.size()) [[unlikely]]
    more_events();
  return events_[used_events_++];
}

[[gnu::always_inline]] inline cudaEvent_t capture_session::event_of(std::uint32_t step) {
  if (!step_events_[step]) step_events_[step] = take_event();
  return step_events_[step];
}

namespace {
cudaGraph_t capturing_graph(cudaStream_t s, const site& at) {
  cudaStreamCaptureStatus status{};
  cudaGraph_t graph = nullptr;
  CGRAPH_CUDA(cudaStreamGetCaptureInfo(s, &status, nullptr, &graph, nullptr, nullptr, nullptr), at);
  return graph;
}
}  // namespace

cudaGraph_t capture_session::graph() const { return capturing_graph(frames_[open_ - 1].streams[0], at_); }

// Asked for only by the nodes that need it (host nodes' user objects), not by every capture.
cudaGraph_t capture_session::root() const {
  if (!root_) root_ = capturing_graph(frames_[0].streams[0], at_);
  return root_;
}

// The frame's other streams, not yet joined. Nothing has been captured on stream 0 when the
// fork event is recorded, so waiting for it adds no dependency: a stream whose first call is
// a wait for a step needs no fork at all.
void capture_session::fork(unsigned streams) {
  frame& f = top();
  if (streams <= 1) return;
  f.fork = take_event();
  CGRAPH_CUDA(cudaEventRecord(f.fork, f.streams[0]), at_);
  f.streams.resize(1);
  f.streams.reserve(streams);  // one allocation, not one per doubling (a wide body has hundreds)
  f.joined.assign(streams, false);
  f.joined[0] = true;
  // The session's free streams first, then the rest from the pool in one batch.
  const std::size_t reused = std::min<std::size_t>(streams - 1, free_.size());
  f.streams.insert(f.streams.end(), free_.end() - static_cast<std::ptrdiff_t>(reused), free_.end());
  free_.resize(free_.size() - reused);
  const std::size_t first = taken_.size();
  capture_pool::instance().streams(streams - 1 - reused, taken_, at_);
  f.streams.insert(f.streams.end(), taken_.begin() + static_cast<std::ptrdiff_t>(first), taken_.end());
  f.width = streams;
}

void capture_session::join(unsigned k) {
  frame& f = top();
  CGRAPH_CUDA(cudaStreamWaitEvent(f.streams[k], f.fork, 0), at_);
  f.joined[k] = true;
}

void capture_session::begin(unsigned streams) {
  cudaStream_t origin = take_stream();
  CGRAPH_CUDA(cudaStreamBeginCapture(origin, mode_), at_);
  push(origin, false, 0);
  fork(streams);
}

// Joins the body's streams into its stream 0 and ends its capture.
[[gnu::always_inline]] inline cudaGraph_t capture_session::close_frame(list<std::uint32_t> joins) {
  frame& f = top();
  for (auto step : joins) CGRAPH_CUDA(cudaStreamWaitEvent(f.streams[0], event_of(step), 0), at_);
  free_.reserve(taken_.size());  // every stream taken may come back here: one allocation a build at most
  if (f.width > 1) free_.insert(free_.end(), f.streams.begin() + 1, f.streams.end());
  cudaGraph_t result = nullptr;
  CGRAPH_CUDA(cudaStreamEndCapture(f.streams[0], &result), at_);
  free_.push_back(f.streams[0]);
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
// with its one CUDA call; close_frame's loop and stream lists in the same function cost every
// such body about 15 instructions of saved registers (host_work_generated, run 71).
void capture_session::leave_body(list<std::uint32_t> joins) {
  frame& f = top();
  if (f.width > 1 || joins.size() != 0) [[unlikely]]
    return leave_joined_body(joins);
  cudaGraph_t body = nullptr;
  CGRAPH_CUDA(cudaStreamEndCapture(f.streams[0], &body), at_);
  free_.push_back(f.streams[0]);
  pop();
  made_tag_ = top().made_tag;
}

void capture_session::leave_joined_body(list<std::uint32_t> joins) {
  close_frame(joins);
  pop();
  made_tag_ = top().made_tag;
}

[[gnu::always_inline]] inline void capture_session::wait_for(frame& f, unsigned k, std::uint32_t step) {
  CGRAPH_CUDA(cudaStreamWaitEvent(f.streams[k], event_of(step), 0), g_.step_site(step));
}

void capture_session::wait(unsigned k, std::uint32_t step) {
  frame& f = top();
  f.joined[k] = true;  // this wait joins the stream (see fork)
  wait_for(f, k, step);
}

// One call for a node's waits: a join's are a wide body's branches, and one call each cost
// every branch about 20 instructions of frame (host_work_bench, fork-join captured, run 46).
void capture_session::wait(unsigned k, list<std::uint32_t> steps) {
  frame& f = top();
  f.joined[k] = true;
  for (std::uint32_t step : steps) wait_for(f, k, step);
}

void capture_session::record(unsigned k, std::uint32_t step) {
  CGRAPH_CUDA(cudaEventRecord(event_of(step), stream(k)), g_.step_site(step));
}

void capture_session::captured(unsigned k, std::uint32_t step, const site& at) {
  cudaStreamCaptureStatus status{};
  const cudaGraphNode_t* deps = nullptr;
  std::size_t count = 0;
  CGRAPH_CUDA(cudaStreamGetCaptureInfo(stream(k), &status, nullptr, nullptr, &deps, nullptr, &count), at);
  g_.nodes[step] = count == 1 ? deps[0] : nullptr;
  made_.push_back({step, made_tag_ | 1});
}

// dependencies and depend_on, inline into add_graph_node and out of line for add_node.
namespace {
[[gnu::always_inline]] inline list<cudaGraphNode_t> capture_dependencies(cudaStream_t s, cudaGraph_t& graph,
                                                                         const site& at) {
  cudaStreamCaptureStatus status{};
  const cudaGraphNode_t* deps = nullptr;
  std::size_t count = 0;
  CGRAPH_CUDA(cudaStreamGetCaptureInfo(s, &status, nullptr, &graph, &deps, nullptr, &count), at);
  return {deps, count};
}
}  // namespace

[[gnu::always_inline]] inline void capture_session::depend_on_inline(cudaStream_t s, std::uint32_t step,
                                                                     cudaGraphNode_t node, const site& at) {
  g_.nodes[step] = node;
  made_.push_back({step, made_tag_ | 1});
  CGRAPH_CUDA(cudaStreamUpdateCaptureDependencies(s, &g_.nodes[step], nullptr, 1, cudaStreamSetCaptureDependencies), at);
}

list<cudaGraphNode_t> capture_session::dependencies(unsigned k, cudaGraph_t& graph, const site& at) {
  return capture_dependencies(stream(k), graph, at);
}

void capture_session::depend_on(unsigned k, std::uint32_t step, cudaGraphNode_t node, const site& at) {
  depend_on_inline(stream(k), step, node, at);
}

void capture_session::add_graph_node(unsigned k, std::uint32_t step, cudaGraphNodeParams& p, const site& at) {
  const cudaStream_t s = stream(k);
  cudaGraph_t graph = nullptr;
  const list<cudaGraphNode_t> deps = capture_dependencies(s, graph, at);
  cudaGraphNode_t node = nullptr;
  CGRAPH_CUDA(cudaGraphAddNode(&node, graph, deps.data(), nullptr, deps.size(), &p), at);
  depend_on_inline(s, step, node, at);
}

// Ends every open capture, innermost first. Errors are ignored: this runs while another error
// is on its way out (or after a successful end, when nothing is open).
void capture_session::abort() noexcept {
  while (open_ != 0) {
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(top().streams[0], &partial);
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

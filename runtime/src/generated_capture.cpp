// The capture strategy of generated code: the steps of a capture plan, printed as calls on a
// capture_session, issued on pooled streams (the run-time builder's pool) during stream capture.
// Same technique as capture_builder.cpp: nodes without a stream call (memset of any element
// size, child graphs, conditionals) are added to the capturing graph and made the stream's
// dependency; conditional bodies are captured into their body graphs.

#include "capture_resources.hpp"

#include <cgraph/generated.hpp>

namespace cgraph::gen {

namespace {

// A stream that is not capturing: one this session freed, else one from the pool.
cudaStream_t take_stream(std::vector<cudaStream_t>& free, std::vector<cudaStream_t>& taken, const site& at) {
  if (!free.empty()) {
    cudaStream_t s = free.back();
    free.pop_back();
    return s;
  }
  cudaStream_t s = detail::capture_resources::instance().stream(at);
  taken.push_back(s);
  return s;
}

}  // namespace

capture_session::capture_session(graph_state& g, const site& at, cudaStreamCaptureMode mode)
    : g_(g), at_(at), mode_(mode), step_events_(g.nodes.size(), nullptr) {}

capture_session::~capture_session() {
  abort();
  detail::capture_resources::instance().give_back(taken_, events_);
  (void)cudaGetLastError();
}

cudaStream_t capture_session::stream(unsigned k) const { return frames_.back()[k]; }

cudaGraph_t capture_session::root() const { return root_; }

cudaGraph_t capture_session::graph() const {
  cudaStreamCaptureStatus status{};
  cudaGraph_t graph = nullptr;
  check(CGRAPH_CUDA_STATUS(cudaStreamGetCaptureInfo(stream(0), &status, nullptr, &graph, nullptr, nullptr, nullptr)), "cudaStreamGetCaptureInfo",
        at_);
  return graph;
}

void capture_session::fork(unsigned streams) {
  auto& frame = frames_.back();
  if (streams <= 1) return;
  cudaEvent_t fork = detail::capture_resources::instance().event(at_);
  events_.push_back(fork);
  check(CGRAPH_CUDA_STATUS(cudaEventRecord(fork, frame[0])), "cudaEventRecord", at_);
  for (unsigned k = 1; k < streams; ++k) {
    cudaStream_t s = take_stream(free_, taken_, at_);
    frame.push_back(s);
    check(CGRAPH_CUDA_STATUS(cudaStreamWaitEvent(s, fork, 0)), "cudaStreamWaitEvent", at_);
  }
}

void capture_session::join(std::initializer_list<std::uint32_t> joins) {
  for (auto step : joins) check(CGRAPH_CUDA_STATUS(cudaStreamWaitEvent(stream(0), event_of(step), 0)), "cudaStreamWaitEvent", at_);
  auto& frame = frames_.back();
  free_.insert(free_.end(), frame.begin() + 1, frame.end());
}

void capture_session::begin(unsigned streams) {
  cudaStream_t origin = take_stream(free_, taken_, at_);
  check(CGRAPH_CUDA_STATUS(cudaStreamBeginCapture(origin, mode_)), "cudaStreamBeginCapture", at_);
  frames_.push_back({origin});
  frame_is_body_.push_back(false);
  root_ = graph();
  fork(streams);
}

// Joins the body's streams into its stream 0 and ends its capture.
cudaGraph_t capture_session::close_frame(std::initializer_list<std::uint32_t> joins) {
  join(joins);
  cudaGraph_t result = nullptr;
  check(CGRAPH_CUDA_STATUS(cudaStreamEndCapture(stream(0), &result)), "cudaStreamEndCapture", at_);
  free_.push_back(stream(0));
  frames_.pop_back();  // only now: if ending failed, abort() must end it
  frame_is_body_.pop_back();
  return result;
}

void capture_session::end(std::initializer_list<std::uint32_t> joins) {
  g_.graph_site = at_;
  g_.graph = close_frame(joins);
  detail::ledger(detail::owned::graph, 1);
}

void capture_session::enter_body(std::uint32_t body, unsigned streams) {
  cudaStream_t s = take_stream(free_, taken_, at_);
  check(CGRAPH_CUDA_STATUS(cudaStreamBeginCaptureToGraph(s, g_.bodies[body], nullptr, nullptr, 0, mode_)), "cudaStreamBeginCaptureToGraph", at_);
  frames_.push_back({s});
  frame_is_body_.push_back(true);
  fork(streams);
}

// The body graph belongs to its conditional node: nothing to keep.
void capture_session::leave_body(std::initializer_list<std::uint32_t> joins) { close_frame(joins); }

cudaEvent_t capture_session::event_of(std::uint32_t step) {
  if (!step_events_[step]) {
    step_events_[step] = detail::capture_resources::instance().event(at_);
    events_.push_back(step_events_[step]);
  }
  return step_events_[step];
}

void capture_session::wait(unsigned k, std::uint32_t step) {
  check(CGRAPH_CUDA_STATUS(cudaStreamWaitEvent(stream(k), event_of(step), 0)), "cudaStreamWaitEvent", g_.sites[step]);
}

void capture_session::record(unsigned k, std::uint32_t step) {
  check(CGRAPH_CUDA_STATUS(cudaEventRecord(event_of(step), stream(k))), "cudaEventRecord", g_.sites[step]);
}

void capture_session::captured(unsigned k, std::uint32_t step, const site& at) {
  cudaStreamCaptureStatus status{};
  const cudaGraphNode_t* deps = nullptr;
  std::size_t count = 0;
  check(CGRAPH_CUDA_STATUS(cudaStreamGetCaptureInfo(stream(k), &status, nullptr, nullptr, &deps, nullptr, &count)), "cudaStreamGetCaptureInfo", at);
  g_.nodes[step] = count == 1 ? deps[0] : nullptr;
}

template <typename Add>
void capture_session::add_node(unsigned k, std::uint32_t step, const site& at, Add add) {
  mark(g_, step, at);
  cudaStreamCaptureStatus status{};
  cudaGraph_t graph = nullptr;
  const cudaGraphNode_t* deps = nullptr;
  std::size_t count = 0;
  check(CGRAPH_CUDA_STATUS(cudaStreamGetCaptureInfo(stream(k), &status, nullptr, &graph, &deps, nullptr, &count)), "cudaStreamGetCaptureInfo",
        at);
  std::vector<cudaGraphNode_t> copy(deps, deps + count);  // valid only until the next call
  add(graph, copy);
  check(CGRAPH_CUDA_STATUS(cudaStreamUpdateCaptureDependencies(stream(k), &g_.nodes[step], nullptr, 1, cudaStreamSetCaptureDependencies)),
        "cudaStreamUpdateCaptureDependencies", at);
}

void capture_session::launch_repeat(unsigned k, std::uint32_t step, repeat_call call, const site& at) {
  mark(g_, step, at);
  cudaKernelNodeParams* p = call.params();
  check(CGRAPH_CUDA_STATUS(cudaLaunchKernel(p->func, p->gridDim, p->blockDim, p->kernelParams, 0, stream(k))), "cudaLaunchKernel", at);
  captured(k, step, at);
}

void capture_session::memcpy(unsigned k, std::uint32_t step, memcpy_call call, const site& at) {
  mark(g_, step, at);
  check(CGRAPH_CUDA_STATUS(cudaMemcpyAsync(call.dst, call.src, call.bytes, cudaMemcpyDefault, stream(k))), "cudaMemcpyAsync", at);
  captured(k, step, at);
}

void capture_session::host(unsigned k, std::uint32_t step, const cudaHostNodeParams& call, const site& at) {
  mark(g_, step, at);
  check(CGRAPH_CUDA_STATUS(cudaLaunchHostFunc(stream(k), call.fn, call.userData)), "cudaLaunchHostFunc", at);
  captured(k, step, at);
}

void capture_session::memset(unsigned k, std::uint32_t step, const cudaMemsetParams& call, const site& at) {
  add_node(k, step, at, [&](cudaGraph_t graph, const std::vector<cudaGraphNode_t>& deps) {
    check(CGRAPH_CUDA_STATUS(cudaGraphAddMemsetNode(&g_.nodes[step], graph, deps.data(), deps.size(), &call)), "cudaGraphAddMemsetNode", at);
  });
}

void capture_session::child(unsigned k, std::uint32_t step, state_ptr child, const site& at) {
  add_node(k, step, at, [&](cudaGraph_t graph, const std::vector<cudaGraphNode_t>& deps) {
    check(CGRAPH_CUDA_STATUS(cudaGraphAddChildGraphNode(&g_.nodes[step], graph, deps.data(), deps.size(), child->graph)),
          "cudaGraphAddChildGraphNode", at);
  });
  g_.children[step] = std::move(child);
}

void capture_session::conditional(unsigned k, std::uint32_t step, cudaGraphNodeParams p, std::uint32_t first_body,
                                  const site& at) {
  add_node(k, step, at, [&](cudaGraph_t graph, const std::vector<cudaGraphNode_t>& deps) {
    check(CGRAPH_CUDA_STATUS(cudaGraphAddNode(&g_.nodes[step], graph, deps.data(), nullptr, deps.size(), &p)), "cudaGraphAddNode", at);
  });
  keep_bodies(g_, step, first_body, p);
}

// Ends every open capture, innermost first. Errors are ignored: this runs while another error
// is on its way out (or after a successful end, when nothing is open).
void capture_session::abort() noexcept {
  while (!frames_.empty()) {
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(frames_.back()[0], &partial);
    if (partial && !frame_is_body_.back()) cudaGraphDestroy(partial);
    frames_.pop_back();
    frame_is_body_.pop_back();
  }
  (void)cudaGetLastError();
}

}  // namespace cgraph::gen

// The capture strategy: the steps of a capture plan issued on streams during stream capture.
// Kernels, memcpys and host callbacks are captured as the calls users write
// (cudaLaunchKernel, cudaMemcpyAsync, cudaLaunchHostFunc); memsets of any element size, child
// graphs and conditional nodes are added to the capturing graph and made the stream's
// dependency (cudaStreamGetCaptureInfo → add → cudaStreamUpdateCaptureDependencies); each
// conditional body is captured into its body graph with cudaStreamBeginCaptureToGraph.
//
// The builder is a state machine (not started → capturing → ended → closed). Every failure
// path ends every open capture, innermost first, and destroys what was made, so no stream is
// left capturing and the next build starts clean.

#include "build_steps.hpp"
#include "capture_resources.hpp"
#include "node_params.hpp"
#include "repeat_counter.hpp"

#include <cgraph/runtime/testing.hpp>

#include <atomic>
#include <map>

#include <fmt/format.h>

namespace cgraph::testing {
namespace {
std::atomic<unsigned> left_capturing{0};
}
unsigned streams_left_capturing() { return left_capturing.load(); }
}  // namespace cgraph::testing

namespace cgraph::detail {

namespace {

class capture_builder : step_builder {
public:
  enum class state { not_started, capturing, ended, closed };

  explicit capture_builder(built_graph& out) : step_builder(out), plan_(out.capture()), mode_(out.symbols->capture_mode) {}

  capture_builder(const capture_builder&) = delete;
  capture_builder& operator=(const capture_builder&) = delete;
  ~capture_builder() { close(); }

  void run() {
    prepare();
    materialize();
    try {
      cudaStream_t origin = acquire_stream();
      CGRAPH_CUDA(cudaStreamBeginCapture(origin, mode_), g_.at(ir_.range));
      state_ = state::capturing;  // before anything else can fail
      open_.push_back({origin, false});
      cudaGraph_t graph = capturing_graph(origin, g_.at(ir_.range));
      capture_body(0, origin, plan::location{}, graph);
      cudaGraph_t result = nullptr;
      CGRAPH_CUDA(cudaStreamEndCapture(origin, &result), g_.at(ir_.range));
      open_.pop_back();  // only now: if ending failed, abort() must end it
      g_.graph = result;
      ledger(owned::graph, 1);
      state_ = state::ended;
    } catch (...) {
      abort();
      throw;
    }
    close();
  }

private:
  struct open_capture {
    cudaStream_t stream;
    bool into_body;  // a conditional body's graph belongs to its node: never destroyed here
  };

  // Everything that may allocate, load or capture on its own is done before the capture
  // begins: in thread-local mode (the default) a thread with an open capture may not call
  // cudaMalloc, load a library, or run a routine that does (cuBLAS allocates a workspace).
  void materialize() {
    for (std::uint32_t i = 0; i < step_builder::plan_.steps.size(); ++i) {
      const ir::node& n = *step_builder::plan_.steps[i].node;
      node_record& r = g_.records[i];
      where at = g_.at(n.range);
      switch (n.kind) {
        case ir::node_kind::repeat_init: repeat_count(n, at); break;
        case ir::node_kind::kernel:
          if (const captured_routine* routine = routine_of(n)) {
            // Cond handles do not exist yet: a routine gets 0 for a cond argument.
            r.values = compute_values(*g_.program, g_.graph_index, n, g_.values, g_.conds, true);
            routines_[i] = capture_routine(*routine, r.values, mode_, at);
          } else {
            kernel_function(*g_.program, *g_.symbols, n.callee, at);
          }
          break;
        case ir::node_kind::child_graph:
          r.values = compute_values(*g_.program, g_.graph_index, n, g_.values, g_.conds);
          r.child = build_child(n, r.values);
          break;
        default: break;
      }
    }
  }

  // ---- streams and events -------------------------------------------------------------------

  cudaStream_t acquire_stream() {
    if (!free_.empty()) {
      cudaStream_t s = free_.back();
      free_.pop_back();
      return s;
    }
    cudaStream_t s = capture_resources::instance().stream(g_.at(ir_.range));
    streams_.push_back(s);
    return s;
  }

  cudaEvent_t new_event() {
    cudaEvent_t e = capture_resources::instance().event(g_.at(ir_.range));
    events_.push_back(e);
    return e;
  }

  cudaEvent_t event_of(std::uint32_t step) {
    if (step_events_.empty()) step_events_.assign(step_builder::plan_.steps.size(), nullptr);
    if (!step_events_[step]) step_events_[step] = new_event();
    return step_events_[step];
  }


  // ---- capture -------------------------------------------------------------------------------

  static cudaGraph_t capturing_graph(cudaStream_t s, const where& at) {
    cudaStreamCaptureStatus status{};
    cudaGraph_t graph = nullptr;
    CGRAPH_CUDA(cudaStreamGetCaptureInfo(s, &status, nullptr, &graph, nullptr, nullptr, nullptr), at);
    return graph;
  }

  // The node the last call on `s` captured (the stream's only dependency now).
  static cudaGraphNode_t last_node(cudaStream_t s, const where& at) {
    cudaStreamCaptureStatus status{};
    const cudaGraphNode_t* deps = nullptr;
    std::size_t count = 0;
    CGRAPH_CUDA(cudaStreamGetCaptureInfo(s, &status, nullptr, nullptr, &deps, nullptr, &count), at);
    return count == 1 ? deps[0] : nullptr;
  }

  // Adds a node to the capturing graph after the stream's current dependencies, then makes
  // it the stream's only dependency: how nodes without a stream call join a capture.
  template <typename Add>
  cudaGraphNode_t add_to_capture(cudaStream_t s, const where& at, Add add) {
    cudaStreamCaptureStatus status{};
    cudaGraph_t graph = nullptr;
    const cudaGraphNode_t* deps = nullptr;
    std::size_t count = 0;
    CGRAPH_CUDA(cudaStreamGetCaptureInfo(s, &status, nullptr, &graph, &deps, nullptr, &count), at);
    std::vector<cudaGraphNode_t> copy(deps, deps + count);  // valid only until the next call
    cudaGraphNode_t node = add(graph, copy);
    CGRAPH_CUDA(cudaStreamUpdateCaptureDependencies(s, &node, nullptr, 1, cudaStreamSetCaptureDependencies), at);
    return node;
  }

  void capture_body(std::uint32_t index, cudaStream_t origin, plan::location where, cudaGraph_t graph) {
    const plan::capture_body& body = plan_.bodies[index];
    create_conds(where, graph);
    std::vector<cudaStream_t> streams{origin};
    if (body.streams > 1) {
      cudaEvent_t fork = new_event();
      CGRAPH_CUDA(cudaEventRecord(fork, origin), g_.at(ir_.range));
      for (std::uint32_t k = 1; k < body.streams; ++k) {
        streams.push_back(acquire_stream());
        CGRAPH_CUDA(cudaStreamWaitEvent(streams.back(), fork, 0), g_.at(ir_.range));
      }
    }
    for (const auto& cn : body.nodes) {
      cudaStream_t s = streams[cn.stream];
      const ir::node& n = *step_builder::plan_.steps[cn.step].node;
      for (auto w : cn.waits) CGRAPH_CUDA(cudaStreamWaitEvent(s, event_of(w), 0), g_.at(n.range));
      issue(cn, s);
      if (cn.record_event) CGRAPH_CUDA(cudaEventRecord(event_of(cn.step), s), g_.at(n.range));
    }
    for (auto j : body.joins) CGRAPH_CUDA(cudaStreamWaitEvent(origin, event_of(j), 0), g_.at(ir_.range));
    for (std::size_t k = 1; k < streams.size(); ++k) free_.push_back(streams[k]);
  }

  void issue(const plan::capture_node& cn, cudaStream_t s) {
    const ir::node& n = *step_builder::plan_.steps[cn.step].node;
    node_record& r = g_.records[cn.step];
    where at = g_.at(n.range);
    r.values = compute_values(*g_.program, g_.graph_index, n, g_.values, g_.conds, routine_of(n) != nullptr);
    switch (n.kind) {
      case ir::node_kind::kernel: {
        if (routine_of(n)) {
          r.handle = add_child(s, routines_.at(cn.step), at);
          break;
        }
        const void* function = kernel_function(*g_.program, *g_.symbols, n.callee, at);
        std::vector<void*> pointers;
        auto p = kernel_params(function, r.values, pointers);
        CGRAPH_CUDA(cudaLaunchKernel(p.func, p.gridDim, p.blockDim, p.kernelParams, p.sharedMemBytes, s), at);
        r.handle = last_node(s, at);
        break;
      }
      case ir::node_kind::repeat_init:
      case ir::node_kind::repeat_counter: {
        auto p = repeat_params(n, r.values, g_.repeat_counts, g_.conds);
        cudaKernelNodeParams* k = p.params();
        CGRAPH_CUDA(cudaLaunchKernel(k->func, k->gridDim, k->blockDim, k->kernelParams, 0, s), at);
        r.handle = last_node(s, at);
        break;
      }
      case ir::node_kind::memcpy: {
        const auto& a = r.values.args;
        CGRAPH_CUDA(cudaMemcpyAsync(as_pointer(a[0]), as_pointer(a[1]), a[2].as_u64(), cudaMemcpyDefault, s), at);
        r.handle = last_node(s, at);
        break;
      }
      case ir::node_kind::memset: {
        // cudaMemsetAsync writes bytes only; a memset node takes 2- and 4-byte elements too.
        cudaMemsetParams p = memset_params(n, r.values);
        r.handle = add_to_capture(s, at, [&](cudaGraph_t g, const std::vector<cudaGraphNode_t>& deps) {
          cudaGraphNode_t node = nullptr;
          CGRAPH_CUDA(cudaGraphAddMemsetNode(&node, g, deps.data(), deps.size(), &p), at);
          return node;
        });
        break;
      }
      case ir::node_kind::host:
        r.slot = make_host_slot(n, r.values, capturing_graph(open_.front().stream, at), at);
        CGRAPH_CUDA(cudaLaunchHostFunc(s, gen::run_host_slot, as_user_data(r.slot)), at);
        r.handle = last_node(s, at);
        break;
      case ir::node_kind::child_graph:
        r.handle = add_child(s, r.child->graph, at);  // built by materialize()
        break;
      case ir::node_kind::conditional: {
        cudaGraphNodeParams p = conditional_params(n);
        r.handle = add_to_capture(s, at, [&](cudaGraph_t g, const std::vector<cudaGraphNode_t>& deps) {
          cudaGraphNode_t node = nullptr;
          CGRAPH_CUDA(cudaGraphAddNode(&node, g, deps.data(), nullptr, deps.size(), &p), at);
          return node;
        });
        g_.bodies[cn.step].assign(p.conditional.phGraph_out, p.conditional.phGraph_out + n.bodies.size());
        for (std::uint32_t k = 0; k < n.bodies.size(); ++k) {
          cudaGraph_t body = g_.bodies[cn.step][k];
          cudaStream_t b = acquire_stream();
          CGRAPH_CUDA(cudaStreamBeginCaptureToGraph(b, body, nullptr, nullptr, 0, mode_), at);
          open_.push_back({b, true});
          capture_body(cn.bodies[k], b, plan::location{cn.step, k}, body);
          cudaGraph_t ended = nullptr;
          CGRAPH_CUDA(cudaStreamEndCapture(b, &ended), at);
          open_.pop_back();  // only now: if ending failed, abort() must end it
          free_.push_back(b);
        }
        break;
      }
    }
  }

  cudaGraphNode_t add_child(cudaStream_t s, cudaGraph_t child, const where& at) {
    return add_to_capture(s, at, [&](cudaGraph_t g, const std::vector<cudaGraphNode_t>& deps) {
      cudaGraphNode_t node = nullptr;
      CGRAPH_CUDA(cudaGraphAddChildGraphNode(&node, g, deps.data(), deps.size(), child), at);
      return node;
    });
  }

  // ---- cleanup ---------------------------------------------------------------------------------

  // Ends every open capture, innermost first. Errors are ignored: this runs while another
  // error is on its way out.
  void abort() noexcept {
    while (!open_.empty()) {
      auto c = open_.back();
      open_.pop_back();
      cudaGraph_t partial = nullptr;
      cudaStreamEndCapture(c.stream, &partial);
      if (partial && !c.into_body) cudaGraphDestroy(partial);
    }
    (void)cudaGetLastError();
    state_ = state::ended;
  }

  void close() noexcept {
    if (state_ == state::closed) return;
    if (state_ == state::capturing) abort();
    for (cudaStream_t s : streams_) {
      cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
      if (cudaStreamIsCapturing(s, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
        ++testing::left_capturing;  // a bug: counted so the fault-injection test can see it
        cudaGraph_t partial = nullptr;
        cudaStreamEndCapture(s, &partial);
        if (partial) cudaGraphDestroy(partial);
      }
    }
    capture_resources::instance().give_back(streams_, events_);
    for (auto& [step, routine] : routines_) destroy_owned(routine);  // child nodes hold clones
    routines_.clear();
    (void)cudaGetLastError();
    streams_.clear();
    events_.clear();
    state_ = state::closed;
  }

  const plan::capture_plan& plan_;
  cudaStreamCaptureMode mode_;
  state state_ = state::not_started;
  std::vector<open_capture> open_;
  std::vector<cudaStream_t> streams_;  // every stream made, destroyed by close()
  std::vector<cudaStream_t> free_;     // made and not capturing now
  std::vector<cudaEvent_t> events_;
  std::vector<cudaEvent_t> step_events_;
  std::map<std::uint32_t, cudaGraph_t> routines_;  // captured routines by step, made before the capture
};

}  // namespace

void capture_graph(built_graph& g) { capture_builder(g).run(); }

}  // namespace cgraph::detail

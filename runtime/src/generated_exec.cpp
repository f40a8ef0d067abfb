// Execs of generated graphs: instantiation with the run-time path's error mapping, launches
// fenced while the exec points at a graph other than its origin, per-node updates, and the
// whole-graph fallbacks.

#include "check.hpp"
#include "exec_state.hpp"

#include <cgraph/generated.hpp>
#include <cgraph/runtime/testing.hpp>

#include <utility>

namespace cgraph::gen {

exec_core::exec_core(state_ptr from, const instantiate_options& options)
    : options_(options), origin_(from), current_(std::move(from)) {
  exec_ = detail::instantiate_graph(origin_->graph, options_,
                                    [this](cudaGraphNode_t node) {
                                      // The node CUDA blamed, or else the graph.
                                      std::string s = origin_->site_of(node);
                                      return s.empty() ? origin_->graph_site.str() : s;
                                    });
}

exec_core::exec_core(exec_core&& other) noexcept
    : exec_(std::exchange(other.exec_, nullptr)), options_(other.options_), origin_(std::move(other.origin_)),
      current_(std::move(other.current_)), last_launch_(std::exchange(other.last_launch_, nullptr)) {}

exec_core& exec_core::operator=(exec_core&& other) noexcept {
  if (this != &other) {
    release();
    exec_ = std::exchange(other.exec_, nullptr);
    options_ = other.options_;
    origin_ = std::move(other.origin_);
    current_ = std::move(other.current_);
    last_launch_ = std::exchange(other.last_launch_, nullptr);
  }
  return *this;
}

exec_core::~exec_core() { release(); }

void exec_core::release() noexcept {
  detail::release_fence(last_launch_);
  detail::destroy_owned(exec_);
  exec_ = nullptr;
}

void exec_core::upload(cudaStream_t stream) { detail::check(cudaGraphUpload(exec_, stream), "cudaGraphUpload"); }

void exec_core::launch(cudaStream_t stream) {
  detail::check(cudaGraphLaunch(exec_, stream), "cudaGraphLaunch");
  // After a whole-graph update the exec reads memory `current_` owns, which a later update
  // frees: fence launches so that update can wait for them.
  if (current_ != origin_) detail::record_fence(last_launch_, stream);
}

update_path exec_core::replace(state_ptr rebuilt) {
  cudaGraphExecUpdateResultInfo info{};
  if (refused_by_test(update_path::whole_graph) ||
      CGRAPH_CUDA_STATUS(cudaGraphExecUpdate(exec_, rebuilt->graph, &info)) != cudaSuccess) {
    (void)cudaGetLastError();
    exec_core fresh(rebuilt, options_);
    *this = std::move(fresh);  // waits for launches of the old exec before destroying it
    return update_path::reinstantiated;
  }
  if (last_launch_) detail::check(cudaEventSynchronize(last_launch_), "cudaEventSynchronize");
  current_ = std::move(rebuilt);
  return update_path::whole_graph;
}

bool refused_by_test(update_path path) {
  const testing::update_refusals& r = detail::test_refusals();
  return path == update_path::node_params ? r.node_params : r.whole_graph;
}

void node_updater::finish(cudaError_t status) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();
  refused_ = true;  // the exec is then updated as a whole, which also covers what was applied
}

void node_updater::repeat(std::uint32_t step, repeat_call call) {
  if (!start()) return;
  finish(CGRAPH_CUDA_STATUS(cudaGraphExecKernelNodeSetParams(exec_.get(), exec_.origin().nodes[step], call.params())));
}

void node_updater::memcpy(std::uint32_t step, memcpy_call call) {
  if (!start()) return;
  finish(CGRAPH_CUDA_STATUS(cudaGraphExecMemcpyNodeSetParams1D(exec_.get(), exec_.origin().nodes[step], call.dst,
                                                               call.src, call.bytes, cudaMemcpyDefault)));
}

void node_updater::memset(std::uint32_t step, const cudaMemsetParams& call) {
  if (!start()) return;
  finish(CGRAPH_CUDA_STATUS(cudaGraphExecMemsetNodeSetParams(exec_.get(), exec_.origin().nodes[step], &call)));
}

}  // namespace cgraph::gen

// The exec core (exec_core.hpp): instantiation, launch fences, and whole-graph updates.

#include "seam.hpp"

#include <cgraph/runtime/backend/exec_core.hpp>
#include <cgraph/runtime/backend/node_ops.hpp>

#include <utility>

namespace cgraph::backend {

namespace {

const char* instantiate_result_name(cudaGraphInstantiateResult r) {
  switch (r) {
    case cudaGraphInstantiateSuccess: return "success";
    case cudaGraphInstantiateError: return "instantiation error";
    case cudaGraphInstantiateInvalidStructure: return "invalid structure (a cycle, or a node in two graphs)";
    case cudaGraphInstantiateNodeOperationNotSupported: return "a node's operation is not supported";
    case cudaGraphInstantiateMultipleDevicesNotSupported: return "nodes on several devices";
    case cudaGraphInstantiateConditionalHandleUnused: return "a conditional handle is not used by any conditional node";
  }
  return "unknown result";
}

exec_handle instantiate(const graph_state& g, const instantiate_options& o) {
  // The node handles a capture left unread are read here, by the thread that instantiates:
  // a `graph` is used by one thread at a time, while its execs may be updated on others, and
  // CUDA does not let two threads call into one graph at once. An exec's updates then never
  // touch the graph.
  g.resolve_nodes();
  cudaGraphInstantiateParams p{};
  p.flags = (o.upload ? cudaGraphInstantiateFlagUpload : 0) | (o.auto_free_on_launch ? cudaGraphInstantiateFlagAutoFreeOnLaunch : 0) |
            (o.device_launch ? cudaGraphInstantiateFlagDeviceLaunch : 0) |
            (o.use_node_priority || g.node_priorities ? cudaGraphInstantiateFlagUseNodePriority : 0);
  p.uploadStream = o.upload_stream;
  cudaGraphExec_t exec = nullptr;
  cudaError_t status = CGRAPH_CUDA_STATUS(cudaGraphInstantiateWithParams(&exec, g.graph, &p));
  if (status != cudaSuccess || p.result_out != cudaGraphInstantiateSuccess) {
    // Nothing was wrapped: after a failure `exec` may not be a valid handle. The error names
    // the node CUDA blamed, or else the graph: it always points somewhere in the file.
    (void)cudaGetLastError();
    std::string where = g.site_of(p.errNode_out);
    std::string detail = instantiate_result_name(p.result_out);
    // CUDA says only "operation not supported" when a graph that may have one exec at a time
    // gets a second: say which rule that is, and what to do.
    if (status == cudaErrorNotSupported && g.live_execs.load() > 0 && g.one_exec_at_a_time())
      detail += "; this graph has conditional or memory nodes, which CUDA lets have one exec at a time, and "
                "another exec of it exists: destroy that exec first, or build the graph again for a second one";
    throw cuda_error(status != cudaSuccess ? status : cudaErrorInvalidValue, "cudaGraphInstantiateWithParams",
                     where.empty() ? g.graph_site.str() : where, detail);
  }
  exec_handle made = exec_handle::adopt(exec);
  apply_enabled(made.get(), g, g);
  return made;
}

}  // namespace

// Each node of `values` with `[[enabled(…)]]` as it says, on the exec's node (`origin`'s).
void apply_enabled(cudaGraphExec_t exec, const graph_state& origin, const graph_state& values) {
  for (const auto& [step, on] : values.enabled) {
    cudaGraphNode_t node = origin.nodes[step];  // read by instantiate()
    if (!node) cuda_failed(cudaErrorInvalidValue, "cudaGraphNodeSetEnabled (its capture's node list could not be read)", values.step_site(step));
    CGRAPH_CUDA(cudaGraphNodeSetEnabled(exec, node, on ? 1 : 0), values.step_site(step));
  }
}

exec_core::exec_core(state_ptr from, const instantiate_options& options)
    : exec_(instantiate(*from, options)), options_(options), origin_(from), current_(std::move(from)) {
  ++origin_->live_execs;  // given back by release()
}

exec_core::exec_core(exec_core&& other) noexcept = default;

exec_core& exec_core::operator=(exec_core&& other) noexcept {
  if (this != &other) {
    release();
    exec_ = std::move(other.exec_);
    options_ = other.options_;
    origin_ = std::move(other.origin_);
    current_ = std::move(other.current_);
    settled_ = other.settled_;
    kept_ = std::move(other.kept_);
    retired_ = std::move(other.retired_);
    fence_ = std::move(other.fence_);
  }
  return *this;
}

exec_core::~exec_core() { release(); }

// The fence first (it waits for the last launch), then what launches read.
void exec_core::release() noexcept {
  fence_.reset();
  if (exec_ && origin_) --origin_->live_execs;  // a moved-from core holds neither
  exec_.reset();
  retired_.clear();
  kept_.clear();
}

void exec_core::upload(cudaStream_t stream) { CGRAPH_CUDA(cudaGraphUpload(exec_, stream), origin_->graph_site); }

void exec_core::launch(cudaStream_t stream) {
  CGRAPH_CUDA(cudaGraphLaunch(exec_, stream), origin_->graph_site);
  // The exec reads memory that only this object keeps alive (objects of per-node updates, or
  // a graph newer than its origin) and a later update frees: fence launches so it can wait.
  if (kept_.empty() && current_ == origin_ && !origin_->enabled_memsets) return;
  if (!fence_) {
    cudaEvent_t e = nullptr;
    CGRAPH_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), origin_->graph_site);
    fence_ = event_handle::adopt(e);
  }
  CGRAPH_CUDA(cudaEventRecord(fence_, stream), origin_->graph_site);
}

bool exec_core::set_enabled(std::uint32_t step, bool on) const {
  if (origin_->enabled_memsets && fence_ && CGRAPH_CUDA_STATUS(cudaEventSynchronize(fence_)) != cudaSuccess) return false;
  return set_exec_enabled(exec_.get(), node(step), on);
}

void exec_core::keep(std::uint32_t step, std::shared_ptr<void> object) {
  auto& slot = kept_[step];
  if (slot) retired_.push_back(std::move(slot));
  slot = std::move(object);
  // Launches are fenced in order: once the newest has finished, no launch can read a retired one.
  if (!fence_ || cudaEventQuery(fence_) == cudaSuccess) retired_.clear();
  (void)cudaGetLastError();  // cudaEventQuery's cudaErrorNotReady is not an error here
}

bool exec_core::node_path_open() const noexcept { return settled_ && !refused_by_test(update_path::node_params); }

update_path exec_core::replace(state_ptr rebuilt) {
  cudaGraphExecUpdateResultInfo info{};
  if (refused_by_test(update_path::whole_graph) || !rebuilt->allocations.empty() ||
      CGRAPH_CUDA_STATUS(cudaGraphExecUpdate(exec_, rebuilt->graph, &info)) != cudaSuccess) {
    (void)cudaGetLastError();
    exec_core fresh(std::move(rebuilt), options_);
    *this = std::move(fresh);  // waits for launches of the old exec before freeing what they read
    return update_path::reinstantiated;
  }
  // Launches queued before the update may still read what the old values point at.
  if (fence_) CGRAPH_CUDA(cudaEventSynchronize(fence_), origin_->graph_site);
  apply_enabled(exec_.get(), *origin_, *rebuilt);  // an exec update leaves nodes as they were
  current_ = std::move(rebuilt);
  kept_.clear();
  retired_.clear();
  return update_path::whole_graph;
}

}  // namespace cgraph::backend

// Instantiation and update of execs.

#include "build_steps.hpp"
#include "exec_state.hpp"
#include "nvrtc.hpp"
#include "node_params.hpp"
#include "repeat_counter.hpp"

#include <cgraph/runtime/testing.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <functional>
#include <utility>

#include <fmt/format.h>

namespace cgraph::testing {
namespace {
thread_local update_refusals refusals;
}
update_refusals refuse_updates(update_refusals r) { return std::exchange(refusals, r); }
unsigned nvrtc_compilations() { return detail::nvrtc_compile_count(); }

namespace {
thread_local long fault_at = -1;
thread_local bool fault_persists = false;  // every call from fault_at on fails
thread_local long calls = 0;
}  // namespace
void fail_cuda_call_at(long n) {
  fault_at = n;
  fault_persists = false;
  calls = 0;
}
void fail_cuda_calls_from(long n) {
  fail_cuda_call_at(n);
  fault_persists = true;
}
long cuda_calls_made() { return calls; }

namespace {
std::array<std::atomic<long>, static_cast<std::size_t>(detail::owned::kinds)> live{};
}
handle_counts live_handles() {
  auto n = [](detail::owned k) { return live[static_cast<std::size_t>(k)].load(); };
  using detail::owned;
  return {n(owned::graph),   n(owned::exec),           n(owned::event),        n(owned::device_memory),
          n(owned::library), n(owned::capture_stream), n(owned::capture_event)};
}
}  // namespace cgraph::testing

namespace cgraph::detail {

const testing::update_refusals& test_refusals() { return testing::refusals; }

bool inject_fault() noexcept {
  long call = testing::calls++;
  return call == testing::fault_at || (testing::fault_persists && testing::fault_at >= 0 && call > testing::fault_at);
}

void ledger(owned kind, long delta) noexcept { testing::live[static_cast<std::size_t>(kind)] += delta; }

void destroy_owned(cudaGraph_t graph) noexcept {
  if (!graph) return;
  cudaGraphDestroy(graph);
  ledger(owned::graph, -1);
}

void destroy_owned(cudaGraphExec_t exec) noexcept {
  if (!exec) return;
  cudaGraphExecDestroy(exec);
  ledger(owned::exec, -1);
}

void free_owned(void* device_memory) noexcept {
  if (!device_memory) return;
  cudaFree(device_memory);
  ledger(owned::device_memory, -1);
}

void record_fence(cudaEvent_t& event, cudaStream_t stream) {
  if (!event) {
    check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    ledger(owned::event, 1);
  }
  check(cudaEventRecord(event, stream), "cudaEventRecord");
}

void release_fence(cudaEvent_t& event) noexcept {
  if (!event) return;
  cudaEventSynchronize(event);  // a queued launch may still read what the caller frees next
  cudaEventDestroy(event);
  ledger(owned::event, -1);
  event = nullptr;
}

exec_state::~exec_state() {
  release_fence(last_launch);
  destroy_owned(exec);
}

void exec_state::replace_slot(std::uint32_t step, std::unique_ptr<host_slot> slot) {
  auto& current_slot = updated_slots[step];
  if (current_slot) retired_slots.push_back(std::move(current_slot));
  current_slot = std::move(slot);
  // Launches are fenced in order: once the newest has finished, no launch can still read a
  // retired slot.
  if (!last_launch || cudaEventQuery(last_launch) == cudaSuccess) retired_slots.clear();
  (void)cudaGetLastError();  // cudaEventQuery's cudaErrorNotReady is not an error here
}

void exec_state::launched(cudaStream_t stream) {
  if (needs_fence()) record_fence(last_launch, stream);
}

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

// The .cgraph location of a node of `g` (or of a child graph it embeds).
where find_node(const built_graph& g, cudaGraphNode_t node) {
  if (!node) return {};
  const auto& steps = g.plan().steps;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (g.records[i].handle == node) return g.at(steps[i].node->range);
    if (g.records[i].child)
      if (auto w = find_node(*g.records[i].child, node); w.file) return w;
  }
  return {};
}

// Applies the changed steps with per-node exec setters, in order, until CUDA refuses one;
// returns how many it applied (the caller then updates the whole graph, which also covers the
// ones already applied). `fresh[k]` holds the new values of step changed[k].
std::size_t apply_node_params(exec_state& s, const std::vector<std::uint32_t>& changed, std::vector<node_values>& fresh) {
  if (testing::refusals.node_params) return 0;
  const built_graph& cur = *s.current;
  const auto& steps = cur.plan().steps;
  std::vector<void*> pointers;
  for (std::size_t k = 0; k < changed.size(); ++k) {
    std::uint32_t i = changed[k];
    const ir::node& n = *steps[i].node;
    cudaGraphNode_t node = s.origin->records[i].handle;
    node_values& v = fresh[k];
    cudaError_t status = cudaSuccess;
    switch (n.kind) {
      case ir::node_kind::kernel: {
        if (const captured_routine* routine = cur.symbols->routines[n.callee].get()) {
          cudaGraph_t child = capture_routine(*routine, v, cur.symbols->capture_mode, cur.at(n.range));
          status = CGRAPH_CUDA_STATUS(cudaGraphExecChildGraphNodeSetParams(s.exec, node, child));
          destroy_owned(child);
          break;
        }
        auto p = kernel_params(kernel_function(*cur.program, *cur.symbols, n.callee, cur.at(n.range)), v, pointers);
        status = CGRAPH_CUDA_STATUS(cudaGraphExecKernelNodeSetParams(s.exec, node, &p));
        break;
      }
      case ir::node_kind::repeat_init:
      case ir::node_kind::repeat_counter: {
        auto p = repeat_params(n, v, cur.repeat_counts, cur.conds);
        status = CGRAPH_CUDA_STATUS(cudaGraphExecKernelNodeSetParams(s.exec, node, p.params()));
        break;
      }
      case ir::node_kind::memcpy:
        status = CGRAPH_CUDA_STATUS(cudaGraphExecMemcpyNodeSetParams1D(
            s.exec, node, as_pointer(v.args[0]), as_pointer(v.args[1]), v.args[2].as_u64(), cudaMemcpyDefault));
        break;
      case ir::node_kind::memset: {
        cudaMemsetParams p = memset_params(n, v);
        status = CGRAPH_CUDA_STATUS(cudaGraphExecMemsetNodeSetParams(s.exec, node, &p));
        break;
      }
      case ir::node_kind::host: {
        auto slot = std::make_unique<host_slot>(cur.records[i].slot->function, v.values);
        cudaHostNodeParams p{gen::run_host_slot, as_user_data(slot.get())};
        status = CGRAPH_CUDA_STATUS(cudaGraphExecHostNodeSetParams(s.exec, node, &p));
        if (status == cudaSuccess) s.replace_slot(i, std::move(slot));
        break;
      }
      case ir::node_kind::child_graph: {
        std::vector<std::optional<ir::value>> child_params(v.values.begin(), v.values.end());
        child_params.resize(cur.program->program.graphs[n.callee].params.size());
        auto child = build_graph(cur.program, cur.symbols, n.callee, std::move(child_params));
        status = CGRAPH_CUDA_STATUS(cudaGraphExecChildGraphNodeSetParams(s.exec, node, child->graph));
        if (status == cudaSuccess) s.children[i] = std::move(child);
        break;
      }
      case ir::node_kind::conditional: break;
    }
    if (status != cudaSuccess) {
      (void)cudaGetLastError();
      return k;
    }
  }
  return changed.size();
}

}  // namespace

cudaGraphExec_t instantiate_graph(cudaGraph_t graph, const instantiate_options& o,
                                  const std::function<std::string(cudaGraphNode_t)>& locate) {
  cudaGraphInstantiateParams p{};
  p.flags = (o.upload ? cudaGraphInstantiateFlagUpload : 0) | (o.auto_free_on_launch ? cudaGraphInstantiateFlagAutoFreeOnLaunch : 0) |
            (o.device_launch ? cudaGraphInstantiateFlagDeviceLaunch : 0) |
            (o.use_node_priority ? cudaGraphInstantiateFlagUseNodePriority : 0);
  p.uploadStream = o.upload_stream;
  cudaGraphExec_t exec = nullptr;
  cudaError_t status = CGRAPH_CUDA_STATUS(cudaGraphInstantiateWithParams(&exec, graph, &p));
  if (status != cudaSuccess || p.result_out != cudaGraphInstantiateSuccess) {
    // Nothing was wrapped: after a failure `exec` may not be a valid handle.
    (void)cudaGetLastError();
    throw cuda_error(status != cudaSuccess ? status : cudaErrorInvalidValue, "cudaGraphInstantiateWithParams",
                     locate(p.errNode_out), instantiate_result_name(p.result_out));
  }
  ledger(owned::exec, 1);
  return exec;
}

cudaGraphExec_t instantiate(const built_graph& g, const instantiate_options& o) {
  // The node CUDA blamed, or else the graph: a failure always points somewhere in the file.
  return instantiate_graph(g.graph, o, [&](cudaGraphNode_t node) {
    where w = find_node(g, node);
    return (w.file ? w : g.at(g.ir().range)).str();
  });
}

update_result update(exec_state& s, const args& values) {
  const built_graph& cur = *s.current;
  const program_state& prog = *cur.program;
  const graph_dependencies& deps = prog.dependencies[cur.graph_index];
  const ir::graph& g = cur.ir();
  auto params = bind_params(prog, cur.graph_index, values, s.params);
  const auto& steps = cur.plan().steps;
  if (s.children.size() != steps.size()) s.children.resize(steps.size());

  // Only what the changed parameters reach is re-evaluated and compared: an update that
  // changes one node of 10 000 costs about one node.
  std::vector<std::uint32_t> exprs, touched;
  bool defaults_touched = false;
  for (std::uint32_t p = 0; p < params.size(); ++p) {
    if (params[p] == s.params[p]) continue;
    const auto& e = deps.exprs.exprs_by_param[p];
    exprs.insert(exprs.end(), e.begin(), e.end());
    touched.insert(touched.end(), deps.steps_by_param[p].begin(), deps.steps_by_param[p].end());
    defaults_touched = defaults_touched || deps.cond_defaults_by_param[p];
  }
  touched.insert(touched.end(), s.unsettled.begin(), s.unsettled.end());
  update_result result{update_path::unchanged, 0};
  if (exprs.empty() && touched.empty()) {
    s.params = std::move(params);
    return result;
  }
  for (auto* list : {&exprs, &touched}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  // Re-evaluate in place, keeping the old values to put back if anything below throws:
  // every value is computed and checked before anything is applied.
  std::vector<ir::value> saved;
  saved.reserve(exprs.size());
  for (auto i : exprs) saved.push_back(s.pool[i]);
  auto restore = [&] {
    for (std::size_t k = 0; k < exprs.size(); ++k) s.pool[exprs[k]] = saved[k];
  };
  std::vector<node_values> fresh;
  std::vector<std::uint32_t> changed;
  bool defaults_changed = false;
  try {
    if (auto error = ir::reevaluate(g, params, exprs, s.pool)) throw build_error(prog.source.position(error->range.begin), error->message);
    for (auto i : touched) {
      const ir::node& n = *steps[i].node;
      bool routine = n.kind == ir::node_kind::kernel && cur.symbols->routines[n.callee];
      node_values v = compute_values(prog, cur.graph_index, n, s.pool, cur.conds, routine);
      if (v.fingerprint != s.applied(i).fingerprint) {
        changed.push_back(i);
        fresh.push_back(std::move(v));
      }
    }
    // A cond's launch value is fixed when its handle is created: only a new graph changes it.
    defaults_changed = defaults_touched && cond_defaults(prog, cur.graph_index, s.pool) != cur.cond_defaults;
  } catch (...) {
    restore();
    throw;
  }
  result.nodes_changed = changed.size();
  if (changed.empty() && !defaults_changed) {
    s.params = std::move(params);
    s.unsettled.clear();  // they were compared: each holds what `params` gives
    return result;
  }

  std::size_t applied = defaults_changed ? 0 : apply_node_params(s, changed, fresh);
  if (!defaults_changed && applied == changed.size()) {
    for (std::size_t k = 0; k < changed.size(); ++k) s.updated_values[changed[k]] = std::move(fresh[k]);
    s.params = std::move(params);
    s.unsettled.clear();
    result.path = update_path::node_params;
    return result;
  }
  // If the whole-graph paths below fail too, the exec keeps the old parameters but holds the
  // new values in the nodes applied before the refusal: record them, and have the next update
  // compare those nodes whatever it changes, so it puts them right.
  auto fail = [&] {
    restore();
    for (std::size_t k = 0; k < applied; ++k) {
      s.updated_values[changed[k]] = std::move(fresh[k]);
      s.unsettled.push_back(changed[k]);
    }
  };

  std::shared_ptr<built_graph> rebuilt;
  try {
    rebuilt = build_graph(cur.program, cur.symbols, cur.graph_index, params);
  } catch (...) {
    fail();
    throw;
  }
  cudaGraphExecUpdateResultInfo info{};
  if (!testing::refusals.whole_graph && CGRAPH_CUDA_STATUS(cudaGraphExecUpdate(s.exec, rebuilt->graph, &info)) == cudaSuccess) {
    result.path = update_path::whole_graph;
  } else {
    (void)cudaGetLastError();
    cudaGraphExec_t exec = nullptr;
    try {
      exec = instantiate(*rebuilt, s.options);
    } catch (...) {
      fail();
      throw;
    }
    destroy_owned(s.exec);
    s.exec = exec;
    s.origin = rebuilt;
    result.path = update_path::reinstantiated;
  }
  s.current = rebuilt;
  s.params = std::move(params);
  s.pool = rebuilt->values;
  for (auto& [step, slot] : s.updated_slots) s.retired_slots.push_back(std::move(slot));
  s.updated_slots.clear();
  s.updated_values.clear();  // `rebuilt` holds them all
  s.unsettled.clear();
  s.children.assign(steps.size(), nullptr);
  return result;
}

}  // namespace cgraph::detail

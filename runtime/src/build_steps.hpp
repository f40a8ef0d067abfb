#pragma once
// What both run-time walkers (builder.cpp: explicit, capture_builder.cpp: capture) do the same
// way before they hand a node to the backend: values, cond handles, host slots, child graphs,
// captured routines and repeat counters.

#include "built_graph.hpp"
#include "node_params.hpp"
#include "backend/placement.hpp"

#include <cgraph/runtime/backend/handle.hpp>
#include <cgraph/runtime/backend/thread_spare.hpp>

namespace cgraph::detail {

// What a build uses only while it runs: its shared conversions, the values of the step being
// built, its argument pointers and dependency handles. A thread keeps one between builds
// (backend::thread_spare), so a warm build allocates none of it: four allocations, 6% of a
// 10-node build's host work (docs/performance.md, run 27).
struct build_scratch {
  conversion_memo memo;
  node_values values;
  std::vector<void*> pointers;
  std::vector<cudaGraphNode_t> deps;
};

// The child graph of `g`'s `call` node `n` with `v`'s arguments (the callee's other parameters
// take their defaults), built with the same strategy. Building and per-node updates both call it.
std::shared_ptr<built_graph> build_child(const built_graph& g, const ir::node& n, const node_values& v);

class step_builder {
protected:
  explicit step_builder(built_graph& out);

  // Evaluates parameters; call first.
  void prepare();
  // The handles of every cond whose conditional node lives in graph `n` (0 the root, b + 1 body
  // b, as step_row::graph numbers them; the plan's graph_conds), which is `graph`. Most bodies
  // hold none, which is told inline (out of line, a body without conds cost 35 instructions).
  bool holds_conds(std::uint32_t n) const {
    const std::uint32_t* first = plan_.conds_by_graph.first.data();
    return first[n] != first[n + 1];
  }
  void create_conds(std::uint32_t n, cudaGraph_t graph) {
    if (holds_conds(n)) create_conds_of(n, graph);
  }
  void create_conds_of(std::uint32_t n, cudaGraph_t graph);  // create_conds, once it holds some
  // The statement of a step's node.
  where site_of(const step_row& r) const { return where::in(g_.program->source, r.source); }
  // A host node's parameters: a new slot holding step `step`'s values `v`, owned by a user
  // object retained by `owner` (the root graph being built).
  cudaHostNodeParams host_params(std::uint32_t step, const node_values& v, cudaGraph_t owner);
  // Sets the kernels of plan_.late_readers again, now that every cond handle exists; call once
  // the graph is complete.
  void refresh_late_readers();
  // Kernel priorities and clusters, and the `[[enabled(…)]]` values for the exec, once the
  // graph is complete (both strategies).
  void apply_attributes();
  // The routine registered for a kernel node, or null.
  const captured_routine* routine_of(const ir::node& n) const { return routine_of(n.kind, n.callee); }
  const captured_routine* routine_of(ir::node_kind kind, std::uint32_t callee) const {
    return g_.symbols->any_routine && kind == ir::node_kind::kernel ? g_.symbols->routines[callee].get() : nullptr;
  }
  // The launch of kernel step `step` (of IR kernel `callee`, without a captured routine) and, in
  // `device`, its GPU. Where its template covers it (value_template::launch_in_place), every argument's
  // address is in the template's constants or this build's conversion memo, so no value is
  // copied; otherwise from compute(). Valid until the next step.
  [[gnu::always_inline]] cudaKernelNodeParams kernel_launch(std::uint32_t step, std::uint32_t callee, const where& at, int& device) {
    // The function first: where a node's kernel is missing and one of its values is bad too,
    // the missing kernel is reported (taking it after the values cost 30 instructions a node).
    const void* function = kernel_function(*g_.program, *g_.symbols, callee, at);
    const graph_templates& templates = *g_.templates;
    const value_template& t = templates.steps[step];
    if (!t.launch_in_place) {
      node_values& v = compute(step, false);
      device = v.device;
      return kernel_params(function, v, pointers_);
    }
    device = t.device;
    void* const* fixed = templates.argument_pointers.data() + t.arguments.first;
    // The driver only reads through kernelParams: it is non-const for its type alone.
    if (t.dynamic.count == 0) return gen::launch_params(function, t.grid, t.block, t.shared_bytes, const_cast<void**>(fixed));
    if (pointers_.size() < t.arguments.count) pointers_.resize(t.arguments.count);
    std::copy_n(fixed, t.arguments.count, pointers_.data());
    for (const dynamic_part& d : templates.dynamic_parts(t)) {
      if (!memo_.known(d.memo)) {  // the build's first node to need it converts it (and reports a failure)
        values_.args.resize(t.arguments.count);
        convert_part(g_, step, g_.values, values_, d, memo_);
      }
      pointers_[d.part.index] = const_cast<std::byte*>(memo_.bytes(d.memo).bytes.data());
    }
    return gen::launch_params(function, t.grid, t.block, t.shared_bytes, pointers_.data());
  }
  // Makes step i, of row `s`, at `place` (backend/placement.hpp: added to a graph, or issued on
  // a capture stream): the one dispatch by node kind of both walks. A kernel and a conditional
  // are made from their step's row alone; other kinds read their IR node (make_other). A kernel
  // whose launch is known (its row says: plan::launch_memory) skips the launch check. Of
  // a conditional only the node is made, then `made_conditional()` runs: each walk begins its
  // bodies its own way.
  template <typename Place, typename ChildOf, typename MadeConditional>
  [[gnu::always_inline]] void make_node(std::uint32_t i, const step_row& s, const Place& place, ChildOf&& child_of,
                                        MadeConditional&& made_conditional) {
    const where at = site_of(s);
    const captured_routine* routine = routine_of(s.kind, s.callee);
    if (s.kind == ir::node_kind::kernel && !routine) {
      int device = -1;
      const cudaKernelNodeParams p = kernel_launch(i, s.callee, at, device);
      if (s.known_launch) place.template make<backend::known_kernel_node>(i, p, at);
      else place.template make<backend::kernel_node>(i, p, at, device);
      return;
    }
    if (s.kind == ir::node_kind::conditional) {  // its values are its cond's, made with the graph
      const backend::conditional_node::spec spec{g_.conds[s.callee], s.cond_kind, s.bodies};
      place.template make<backend::conditional_node>(i, spec, s.body, at);
      made_conditional();
      return;
    }
    make_other(i, routine, place, at, child_of);
  }
  // make_node's other kinds. The graph a captured routine's or a collective's child node
  // embeds comes from child_of(step, node, values, routine, at), the walk's: made there
  // (explicit) or before the capture began. `place` by value: by reference, the placement was
  // written to memory for every node, kernels included (3 instructions a node of a chain).
  template <typename Place, typename ChildOf>
  void make_other(std::uint32_t i, const captured_routine* routine, Place place, const where& at,
                  ChildOf& child_of) {
    const ir::node& n = *plan_.steps[i].node;
    node_values& v = compute(i, routine != nullptr);
    switch (n.kind) {
      case ir::node_kind::kernel:  // with a captured routine
      case ir::node_kind::collective:
        place.template make<backend::child_node>(i, child_of(i, n, v, routine, at), at);
        break;
      case ir::node_kind::repeat_init:
      case ir::node_kind::repeat_counter:
        backend::repeat_count(g_, n.cond, at);  // a capture made it before it began: found
        place.template make<backend::kernel_node>(i, repeat_params(n, v, g_).params(), at);
        break;
      case ir::node_kind::memcpy: place.template make<backend::memcpy_node>(i, memcpy_params(v), at, v.device); break;
      case ir::node_kind::memset: place.template make<backend::memset_node>(i, memset_params(n, v), at, v.device); break;
      case ir::node_kind::host: place.template make<backend::host_node>(i, host_params(i, v, place.root()), at); break;
      case ir::node_kind::event_record: place.template make<backend::event_record_node>(i, event_params(v), at); break;
      case ir::node_kind::event_wait: place.template make<backend::event_wait_node>(i, event_params(v), at); break;
      case ir::node_kind::mem_alloc:
        place.template make<backend::alloc_node>(i, n.callee, v.args[0].as_u64(), at);
        resolve_allocations(g_);  // its address exists now: the nodes after it read it
        break;
      case ir::node_kind::mem_free: place.template make<backend::free_node>(i, n.callee, at); break;
      case ir::node_kind::child_graph:
        // Made here in the explicit walk; a capture made it before it began, but for a call given
        // its own graph's cond or an allocation, which the capture makes (plan::built_during_capture).
        if (!g_.child_at(i)) {
          if constexpr (Place::capturing) {
            backend::relaxed_capture_mode aside;
            g_.set_child(i, build_child(g_, n, v));
          } else {
            g_.set_child(i, build_child(g_, n, v));
          }
        }
        place.template make<backend::child_node>(i, g_.child_at(i)->graph.get(), at);
        break;
      case ir::node_kind::conditional: break;  // made by make_node
    }
  }
  // Step `step`'s values (`kernel_values` as compute_values takes it), valid until the next
  // call: one buffer serves every step of the build.
  node_values& compute(std::uint32_t step, bool kernel_values) {
    compute_values(g_, step, g_.values, values_, kernel_values, memo_);
    return values_;
  }

  built_graph& g_;
  const ir::graph& ir_;
  const plan::explicit_plan& plan_;
  backend::thread_spare<build_scratch> scratch_;  // the thread's, or a new one in a nested build
  conversion_memo& memo_ = scratch_->memo;                 // this build's shared conversions (reset by prepare)
  node_values& values_ = scratch_->values;                 // the step being built's (compute)
  std::vector<void*>& pointers_ = scratch_->pointers;      // a kernel's argument addresses
  std::vector<cudaGraphNode_t>& deps_ = scratch_->deps;    // a step's dependencies (explicit)
};

// A host node's slot holding `v`'s values, after checking the registered callable against the
// declaration. Building and per-node updates both make slots here.
std::unique_ptr<host_slot> make_host_slot(const built_graph& g, const ir::node& n, const node_values& v, const where& at);

// Captures `routine` with `v`'s values into a new graph; both strategies embed it as a child
// graph node (CUDA clones it), and a per-node update sets it.
backend::graph_handle capture_routine(const captured_routine& routine, const node_values& v, cudaStreamCaptureMode mode,
                                      const where& at);

// Captures collective node `n` of `g` with `v`'s values into a new graph (backend/collective.hpp);
// both strategies embed it as a child graph node, and an update sets it in the exec.
backend::graph_handle capture_collectives(const built_graph& g, const ir::node& n, const node_values& v, const where& at);

// Builds with the capture strategy (capture_builder.cpp).
void capture_graph(built_graph& g);

}  // namespace cgraph::detail

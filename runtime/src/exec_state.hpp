#pragma once
// The run-time path's exec: the backend's exec core (instantiate, launch, update policy and
// recovery) plus what the run-time path needs to tell which nodes an update changes.

#include "built_graph.hpp"
#include "step_slots.hpp"

#include <cgraph/runtime/backend/exec_core.hpp>

#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace cgraph::detail {

struct exec_state {
  // The core made in place: a core made apart and moved in cost an instantiation about a
  // tenth of cgraph's host work (a move, then the moved-from core's destructor).
  exec_state(backend::state_ptr from, const instantiate_options& options) : core(std::move(from), options) {}

  backend::exec_core core;
  param_values params;  // the parameter values last applied
  ir::layered_pool pool;                         // the expression pool evaluated with them
  // Values a per-node update applied since the current graph was built: step s's are
  // updated[updated_slot.find(s)] where it has a slot, and any other step holds the values that
  // graph was built with, which follow from its pool (built_values). Copied only when changed:
  // copying every node's values at instantiation cost 10% on top of CUDA's own instantiate.
  // Looked up by index, not hashed: a one-node update spent a fifth of its host work in a hash
  // map.
  step_slots updated_slot;
  std::vector<node_values> updated;
  // Changes whenever `updated` gains, swaps or drops values: what points into them (a direct
  // plan's nodes) holds while it is the same. Starts above direct_param::epoch's 0.
  std::uint64_t values_epoch = 1;
  // The values the next apply() gives: params, plus what update() or parameter handles set.
  param_values staged;
  // The parameters staged since the last apply() (each once): apply() compares only these with
  // params, not every parameter of the graph.
  std::vector<std::uint32_t> staged_list;
  // Stages `v` for parameter `p` (already checked against its type).
  void stage(std::uint32_t p, const ir::value& v) {
    staged.set(p, v);
    // Mostly the first (a handle's assignment before its apply()): no search.
    if (staged_list.empty() || std::find(staged_list.begin(), staged_list.end(), p) == staged_list.end())
      staged_list.push_back(p);
  }
  // Stages the applied values of `ps` again: what was staged for them is dropped.
  void unstage(std::span<const std::uint32_t> ps) {
    for (std::uint32_t p : ps) staged.copy(p, params);
  }
  // Drops what was staged: the next apply() gives params again.
  void drop_staged() {
    unstage(staged_list);
    staged_list.clear();
  }
  // Where each parameter reaches nodes, when every node takes it whole as an argument
  // (`k<<<…>>>(p, n)`, a memcpy's size): an update of that parameter alone converts its value
  // once per target type and writes it into those arguments of the values last applied, in
  // place, which is what evaluating and refilling the nodes would give, at a fraction of the
  // cost (exec.cpp, direct_values). Worked out on the parameter's first update; by parameter.
  struct direct_argument {
    std::uint32_t node, arg;   // index in direct_param::nodes, argument index
    std::uint32_t conversion;  // index in direct_param::conversions
  };
  struct direct_conversion {
    ir::type target;
    ir::check check;
    // The target is the parameter's own integer type, unchecked: the staged value (checked
    // against that type when it was staged) is stored as it is (ir::store_integer), with no
    // conversion to run.
    bool stored = false;
  };
  // What setting a reached node needs beside its values, so that applying reads one small
  // record per node rather than its plan step and IR node (an all-node update of 1 000 nodes
  // read five or six cache lines per node between two CUDA calls).
  struct direct_node {
    std::uint32_t step;
    ir::node_kind kind;           // kernel, memcpy or memset
    std::uint32_t element_size;   // a memset's
    const void* function;         // a kernel's, resolved
    // Valid while direct_param::epoch is values_epoch (bind_direct, exec.cpp): the exec's own
    // values of the step, and a kernel's CUDA parameters pointing into them. An update writes
    // the new arguments into those values and hands CUDA these parameters as they are, so a
    // handle's update costs about a hand-written setter's work (docs/performance.md, run 45).
    node_values* values = nullptr;
    cudaKernelNodeParams params{};
  };
  struct direct_param {
    enum class state : std::uint8_t { unknown, direct, general } s = state::unknown;
    std::vector<direct_node> nodes;              // in plan order
    std::vector<direct_argument> args;           // grouped by node, in plan order
    std::vector<direct_conversion> conversions;  // distinct: mostly one
    std::uint64_t epoch = 0;                     // the values_epoch `nodes` point into
    std::vector<void*> pointers;                 // the kernels' argument addresses, node after node
    // The expressions that take the parameter whole: the program's list (graph_dependencies),
    // which every graph this exec holds shares.
    std::span<const std::uint32_t> exprs;
  };
  std::vector<direct_param> direct;

  // What an update computes, kept between updates so that a warm one allocates nothing.
  struct scratch {
    std::vector<std::uint32_t> params, exprs, touched, changed;  // params: those that changed
    std::vector<ir::value> saved;
    std::vector<node_values> fresh;  // fresh[k]: the new values of step changed[k]
    std::vector<ir::converted_bytes> converted;  // a direct update's, by direct_param::conversions
    std::vector<std::uint32_t> changed_direct;   // a direct update's changed nodes, by direct_param::nodes
    std::vector<void*> pointers;
    conversion_memo memo;  // the update's shared conversions
    node_values built;     // applied()'s values of a step without values of the exec's own
    // The conversions of the current graph's pool, for built_values, and the graph they were
    // made for: a weak reference, so the address cannot name another graph while it is held.
    conversion_memo built_memo;
    std::weak_ptr<const backend::graph_state> built_memo_for;
  } work;

  // The graph whose values the exec holds now.
  const built_graph& current() const { return static_cast<const built_graph&>(*core.current()); }
  // Step `step`'s values of the exec's own, or null.
  node_values* own_values(std::uint32_t step) {
    const std::uint32_t slot = updated_slot.find(step);
    return slot == step_slots::none ? nullptr : &updated[slot];
  }
  // The values last applied to plan step `step`; a step without values of the exec's own gives
  // them in a buffer that the next call reuses.
  const node_values& applied(std::uint32_t step) {
    if (node_values* own = own_values(step)) return *own;
    built_values(step, work.built);
    return work.built;
  }
  // The exec's own copy of step `step`'s values, to change in place: made from the built
  // graph's on first use (the built graph is shared, and stays as it was built).
  node_values& owned(std::uint32_t step) {
    if (node_values* own = own_values(step)) return *own;
    node_values& v = new_own(step);
    built_values(step, v);
    return v;
  }
  // The values step `step` was built with, into `out`: computed again from the current graph's
  // pool, which gives what its build gave (exec.cpp).
  void built_values(std::uint32_t step, node_values& out);
  // A slot of the exec's own for step `step`, which has none yet: empty values (exec.cpp).
  node_values& new_own(std::uint32_t step);
};

// Stages `values` (by name) and applies everything staged. A failure drops what was staged.
update_result update(exec_state& s, const args& values);
update_result update(exec_state& s, std::span<const named_arg> values);
// Applies the staged values by the cheapest path; on a throw the staged values are dropped
// and the exec keeps the parameters it had.
update_result apply(exec_state& s);

}  // namespace cgraph::detail

// Updates of run-time execs: what a parameter change reaches, re-evaluated and compared, then
// applied through the backend's update policy (backend/exec_core.hpp) with the backend's setters.

#include "build_steps.hpp"
#include "exec_state.hpp"
#include "node_params.hpp"

#include <cgraph/runtime/backend/node_ops.hpp>

#include <algorithm>
#include <optional>
#include <span>
#include <utility>

namespace cgraph::detail {

node_values& exec_state::new_own(std::uint32_t step) {
  // The values first, then their slot: a slot never names values that were not made.
  node_values& v = updated.emplace_back();
  updated_slot.add(step, static_cast<std::uint32_t>(updated.size() - 1), current().plan().steps.size());
  ++values_epoch;  // the vector may have moved the others
  return v;
}

void exec_state::built_values(std::uint32_t step, node_values& out) {
  const built_graph& cur = current();
  if (work.built_memo_for.lock() != core.current()) {
    work.built_memo.reset(cur.templates->memo_slots);
    work.built_memo_for = core.current();
  }
  // Without a routine's values: comparisons and setters read only what CUDA is handed.
  compute_values(cur, step, cur.values, out, false, work.built_memo);
}

namespace {

// Sets a kernel (with its resolved function), memcpy or memset node's values on the exec: the
// same kinds on the full path, and a direct update's memcpy and memset nodes.
bool set_plain_node(cudaGraphExec_t exec, cudaGraphNode_t node, ir::node_kind kind, const void* function,
                    std::uint32_t element_size, node_values& v, std::vector<void*>& pointers) {
  switch (kind) {
    case ir::node_kind::kernel: return backend::kernel_node::set(exec, node, kernel_params(function, v, pointers));
    case ir::node_kind::memcpy: return backend::memcpy_node::set(exec, node, memcpy_params(v));
    case ir::node_kind::memset: return backend::memset_node::set(exec, node, memset_params(element_size, v));
    default: return false;
  }
}

// After a node's setter: its new `[[enabled]]` state where it `flips`; false (with CUDA's error
// cleared) where either was refused. A node whose state stays is not turned on or off again:
// a setter leaves it as it was, and exec_core::set_enabled may wait for the last launch.
bool settle_node(exec_state& s, std::uint32_t step, const node_values& v, bool applied, bool flips) {
  if (applied && flips) applied = s.core.set_enabled(step, v.enabled != 0);
  if (!applied) (void)cudaGetLastError();
  return applied;
}

// Applies the changed steps with the backend's per-node setters, in order; false at the first
// refusal (the exec core then updates the whole graph, which also covers the ones applied).
// `fresh[k]` holds the new values of step changed[k].
bool apply_node_params(exec_state& s, const std::vector<std::uint32_t>& changed, std::vector<node_values>& fresh) {
  const built_graph& cur = s.current();
  const auto& steps = cur.plan().steps;
  cudaGraphExec_t exec = s.core.get();
  std::vector<void*>& pointers = s.work.pointers;
  for (std::size_t k = 0; k < changed.size(); ++k) {
    std::uint32_t i = changed[k];
    const ir::node& n = *steps[i].node;
    cudaGraphNode_t node = s.core.node(i);
    node_values& v = fresh[k];
    where at = cur.at(n.range);
    bool applied = true;
    const node_values& was = s.applied(i);
    // A node moved to another device is a new node: only a new graph (and exec) has it.
    if (v.device != was.device) return false;
    const bool flips = v.enabled != was.enabled;
    if (flips && same_setter_values(v, was)) {  // only turned on or off: its values stay set
      if (!settle_node(s, i, v, true, true)) return false;
      continue;
    }
    switch (n.kind) {
      case ir::node_kind::kernel:
        if (const captured_routine* routine = cur.symbols->routines[n.callee].get()) {
          auto child = capture_routine(*routine, v, cur.symbols->capture_mode, at);  // the exec takes a copy
          applied = backend::child_node::set(exec, node, child);
        } else {
          applied = set_plain_node(exec, node, n.kind, kernel_function(*cur.program, *cur.symbols, n.callee, at), 0, v,
                                   pointers);
        }
        break;
      case ir::node_kind::repeat_init:
      case ir::node_kind::repeat_counter:
        applied = backend::kernel_node::set(exec, node, repeat_params(n, v, cur).params());
        break;
      case ir::node_kind::memcpy:
      case ir::node_kind::memset: applied = set_plain_node(exec, node, n.kind, nullptr, n.element_size, v, pointers); break;
      case ir::node_kind::event_record: applied = backend::event_record_node::set(exec, node, event_params(v)); break;
      case ir::node_kind::event_wait: applied = backend::event_wait_node::set(exec, node, event_params(v)); break;
      case ir::node_kind::mem_alloc:  // a size is fixed in its exec: a new graph, a new exec
      case ir::node_kind::mem_free: applied = false; break;
      case ir::node_kind::host: {
        // A new slot: launches already queued keep the arguments they were given.
        std::shared_ptr<host_slot> slot = make_host_slot(cur, n, v, at);
        applied = backend::host_node::set(exec, node, backend::borrow_host_slot(slot.get()));
        if (applied) s.core.keep(i, std::move(slot));
        break;
      }
      case ir::node_kind::child_graph: {
        auto child = build_child(cur, n, v);
        applied = backend::child_node::set(exec, node, child->graph);
        if (applied) s.core.keep(i, std::move(child));
        break;
      }
      case ir::node_kind::collective: {
        auto child = capture_collectives(cur, n, v, at);  // the exec takes a copy
        applied = backend::child_node::set(exec, node, child);
        break;
      }
      case ir::node_kind::conditional: break;  // its values are its cond's: see defaults_changed
    }
    if (!settle_node(s, i, v, applied, flips)) return false;
  }
  return true;
}

// apply_node_params for a direct update (direct_values): the nodes `changed` names in
// `d.nodes`, whose values were written in place. Only their arguments changed: a direct plan
// never holds a parameter that a launch dimension reads (direct_plan), so each kernel keeps
// the launch configuration it was checked with, and is handed the parameters bind_direct made.
bool apply_direct_nodes(exec_state& s, const exec_state::direct_param& d, const std::vector<std::uint32_t>& changed) {
  cudaGraphExec_t exec = s.core.get();
  for (std::uint32_t k : changed) {
    const exec_state::direct_node& n = d.nodes[k];
    cudaGraphNode_t node = s.core.node(n.step);
    const bool applied = n.kind == ir::node_kind::kernel
                             ? backend::kernel_node::set_arguments(exec, node, n.params)
                             : set_plain_node(exec, node, n.kind, nullptr, n.element_size, *n.values, s.work.pointers);
    // No direct parameter reaches an attribute (direct_plan): nothing flips.
    if (!settle_node(s, n.step, *n.values, applied, false)) return false;
  }
  return true;
}

// Points `d`'s nodes at the exec's own values of their steps (made where the exec has none
// yet) and makes each kernel's CUDA parameters from them, once for as long as those values stay
// where they are (exec_state::values_epoch): a direct update then writes and hands over what
// is already there.
void bind_direct(exec_state& s, exec_state::direct_param& d) {
  if (d.epoch == s.values_epoch) return;
  for (const exec_state::direct_node& n : d.nodes) (void)s.owned(n.step);  // may move the others: first
  std::size_t pointers = 0;
  for (exec_state::direct_node& n : d.nodes) {
    n.values = s.own_values(n.step);
    if (n.kind == ir::node_kind::kernel) pointers += n.values->args.size();
  }
  d.pointers.resize(pointers);
  void** out = d.pointers.data();
  for (exec_state::direct_node& n : d.nodes) {
    if (n.kind != ir::node_kind::kernel) continue;
    n.params = kernel_params(n.function, *n.values, out);
    out += n.values->args.size();
  }
  d.epoch = s.values_epoch;
}

// Works out where parameter `p` reaches the nodes, if each node takes it whole as an argument
// (exec_state::direct_param). Not for a parameter that any expression computes with, that a
// cond's launch value or a launch dimension or attribute reads, or that reaches a node whose
// values are not a template's (host, child graph, struct arguments, a captured routine) or
// that has its own setter inputs (repeat counters, events, collectives). Called once per
// parameter, on its first update (direct_values reads the plan after that).
exec_state::direct_param& direct_plan(exec_state& s, std::uint32_t p) {
  using state = exec_state::direct_param::state;
  const built_graph& cur = s.current();
  const graph_dependencies& deps = cur.program->dependencies[cur.graph_index];
  if (s.direct.empty()) s.direct.resize(deps.steps_by_param.size());
  exec_state::direct_param& d = s.direct[p];
  const ir::graph& g = cur.ir();
  auto whole = [&](std::uint32_t e) { return g.exprs[e].op == ir::op::param && g.exprs[e].index == p; };
  const auto& exprs = deps.exprs.exprs_by_param[p];
  d.exprs = exprs;
  d.s = !deps.cond_defaults_by_param[p] && std::all_of(exprs.begin(), exprs.end(), whole) ? state::direct : state::general;
  for (std::uint32_t step : deps.steps_by_param[p]) {
    if (d.s != state::direct) break;
    const ir::node& n = *cur.plan().steps[step].node;
    const value_template& t = cur.templates->steps[step];
    const bool plain = n.kind == ir::node_kind::memcpy || n.kind == ir::node_kind::memset ||
                       (n.kind == ir::node_kind::kernel && !cur.symbols->routines[n.callee]);
    if (!plain || !t.usable) {
      d.s = state::general;
      break;
    }
    const auto node = static_cast<std::uint32_t>(d.nodes.size());
    d.nodes.push_back({step, n.kind, n.element_size,
                       n.kind == ir::node_kind::kernel ? kernel_function(*cur.program, *cur.symbols, n.callee, cur.at(n.range))
                                                       : nullptr});
    for (const dynamic_part& part : cur.templates->dynamic_parts(t)) {
      const ir::argument& a = part.argument;
      if (a.expr >= g.exprs.size()) continue;
      const auto& reads = deps.exprs.expr_params[a.expr];
      if (!std::binary_search(reads.begin(), reads.end(), p)) continue;
      if (part.part.k != value_part::kind::argument || a.target.is_struct()) {
        d.s = state::general;
        break;
      }
      auto conversion = std::find_if(d.conversions.begin(), d.conversions.end(), [&](const auto& c) {
        return c.target == a.target && c.check == a.check;
      });
      if (conversion == d.conversions.end())
        conversion = d.conversions.insert(
            conversion, {a.target, a.check, a.target.is_integer() && a.target == g.params[p].t && a.check == ir::check::any});
      d.args.push_back({node, part.part.index, static_cast<std::uint32_t>(conversion - d.conversions.begin())});
    }
  }
  if (d.s != state::direct) {
    const state general = d.s;
    d = {};
    d.s = general;
  }
  return d;
}

// The new values of the nodes parameter `p` reaches, when it is the only parameter that
// changed and it reaches them whole (direct_plan): `p`'s new value, converted once per target
// type, written into those arguments of the exec's own values (exec_state::owned), in place.
// False, with nothing changed, where the plan does not hold or a conversion fails (the full
// path then reports it at its argument).
//
// Written in place, the values run ahead of the exec until the setters have run. That is
// safe: the exec core is unsettled from the moment it starts applying until it succeeds
// (backend/exec_core.hpp), so after any failure the next update replaces the whole graph and
// drops these values with it.
bool direct_values(exec_state& s, std::uint32_t p, exec_state::direct_param& d) {
  if (d.s != exec_state::direct_param::state::direct || !s.staged[p]) return false;
  const ir::value& v = *s.staged[p];
  exec_state::scratch& t = s.work;
  // Through pointers read once, as below: the conversion's stores may alias the vectors' sizes.
  // One conversion (nearly always) goes to the stack, not through the scratch vector's resize.
  const std::size_t conversions = d.conversions.size();
  ir::converted_bytes one;
  if (conversions > 1) t.converted.resize(conversions);
  const exec_state::direct_conversion* const to = d.conversions.data();
  ir::converted_bytes* const into = conversions > 1 ? t.converted.data() : &one;
  for (std::size_t c = 0; c < conversions; ++c)
    if (to[c].stored ? !ir::store_integer(v.i, to[c].target.s, into[c])
                     : ir::convert_to(v, to[c].target, to[c].check, into[c]) != ir::convert_problem::fits)
      return false;
  t.changed_direct.clear();
  bind_direct(s, d);
  const exec_state::direct_argument* a = d.args.data();
  const exec_state::direct_argument* const end = a + d.args.size();
  const ir::converted_bytes* const converted = into;
  while (a != end) {
    const std::uint32_t node = a->node;
    ir::converted_bytes* args = d.nodes[node].values->args.data();
    bool changed = false;  // only the arguments written here can differ from what was applied
    for (; a != end && a->node == node; ++a) {
      ir::converted_bytes& arg = args[a->arg];
      const ir::converted_bytes& fresh = converted[a->conversion];
      if (same_bytes(arg, fresh)) continue;
      arg = fresh;
      changed = true;
    }
    if (changed) t.changed_direct.push_back(node);
  }
  return true;
}

// After an update held: what the exec keeps. A per-node update leaves the pool and values as
// the update wrote them; a whole-graph update brings every value with its graph.
void keep_update(exec_state& s, update_path path) {
  if (path == update_path::node_params || path == update_path::unchanged) return;
  s.pool = s.current().values;
  s.updated_slot.clear();
  s.updated.clear();
  ++s.values_epoch;
}

// The update of one changed parameter `p` that every node it reaches takes whole
// (direct_values): nothing re-evaluated, no node compared whole, no pool value saved to put
// back (the pool takes the new value only once the update holds). False, with nothing
// changed, where that does not hold: the general path then runs, and reports any problem
// where it always did. A parameter handle's update is this, so it is kept to the few steps
// it needs (docs/performance.md, "update one"). `d` is `p`'s direct plan (apply() reads it
// once); its expressions take the value.
bool apply_direct(exec_state& s, std::uint32_t p, exec_state::direct_param& d, update_result& result) {
  if (!direct_values(s, p, d)) return false;
  const auto& changed = s.work.changed_direct;
  result = {update_path::unchanged, changed.size()};
  if (!changed.empty() || !s.core.settled()) {
    try {
      result.path = s.core.update([&] { return apply_direct_nodes(s, d, changed); }, [&] {
        const built_graph& cur = s.current();
        return build_graph(cur.program, cur.symbols, cur.graph_index, s.staged);
      });
    } catch (...) {
      s.unstage({&p, 1});  // the exec core is unsettled if it applied anything: the next update puts it right
      throw;
    }
  }
  s.params.copy(p, s.staged);
  const ir::value& v = *s.staged[p];
  for (std::uint32_t e : d.exprs) s.pool.own(e) = v;
  keep_update(s, result.path);
  return true;
}

// The same, for a parameter whose plan may not be worked out yet (the general path's): nullopt
// where it does not hold.
std::optional<update_result> apply_direct(exec_state& s, std::uint32_t p) {
  // Worked out once per parameter: every later update only reads it.
  const bool known = p < s.direct.size() && s.direct[p].s != exec_state::direct_param::state::unknown;
  exec_state::direct_param& d = known ? s.direct[p] : direct_plan(s, p);
  update_result result;
  if (!apply_direct(s, p, d, result)) return std::nullopt;
  return result;
}

}  // namespace

namespace {

// Stages each value by name (args, or a braced list's named_args), then applies them.
template <typename Named>
update_result update_by_name(exec_state& s, const Named& values) {
  const built_graph& cur = s.current();
  try {
    for (const auto& [name, a] : values) {
      std::uint32_t param = find_param(*cur.program, cur.graph_index, name);
      s.stage(param, checked_param(*cur.program, cur.graph_index, param, a));
    }
  } catch (...) {
    s.drop_staged();
    throw;
  }
  return apply(s);
}

}  // namespace

update_result update(exec_state& s, const args& values) { return update_by_name(s, values); }
update_result update(exec_state& s, std::span<const named_arg> values) { return update_by_name(s, values); }

update_result apply(exec_state& s) {
  // One staged parameter that changed and that every node takes whole (a parameter handle's
  // update, mostly) takes its short path before anything else is read or cleared.
  if (s.staged_list.size() == 1) {
    const std::uint32_t p = s.staged_list[0];
    if (p < s.direct.size()) {
      exec_state::direct_param& d = s.direct[p];
      if (d.s == exec_state::direct_param::state::direct && s.staged[p] != s.params[p]) {
        s.staged_list.clear();  // the update's from here on: a failure drops it (apply_direct)
        update_result result;
        if (apply_direct(s, p, d, result)) return result;
        s.staged_list.push_back(p);  // not taken (a conversion failed): the full path reports it
      }
    }
  }
  const built_graph& cur = s.current();
  const program_state& prog = *cur.program;
  const graph_dependencies& deps = prog.dependencies[cur.graph_index];
  const ir::graph& g = cur.ir();
  const auto& params = s.staged;
  const auto& steps = cur.plan().steps;
  exec_state::scratch& t = s.work;  // reused: an update allocates nothing once warm
  // Only the parameters staged since the last apply() can differ; from here on they are the
  // update's, and a failure drops them (the staged values are the applied ones again).
  t.params.clear();
  bool defaults_touched = false;
  for (std::uint32_t p : s.staged_list) {
    if (params[p] == s.params[p]) continue;
    t.params.push_back(p);
    defaults_touched = defaults_touched || deps.cond_defaults_by_param[p];
  }
  s.staged_list.clear();
  // One changed parameter that every node takes whole (a parameter handle's update, mostly)
  // takes its short path before the rest of the scratch is touched.
  if (t.params.size() == 1)
    if (auto direct = apply_direct(s, t.params[0])) return *direct;
  t.exprs.clear();
  t.touched.clear();
  t.changed.clear();
  t.saved.clear();

  // Only what the changed parameters reach is re-evaluated and compared: an update that
  // changes one node of 10 000 costs about one node. One changed parameter (the common case,
  // and a parameter handle's) uses the program's lists as they are, sorted and unique.
  std::span<const std::uint32_t> exprs, touched;
  if (t.params.size() == 1) {
    const std::uint32_t p = t.params[0];
    exprs = deps.exprs.exprs_by_param[p];  // not a direct update: that was tried above
    touched = deps.steps_by_param[p];
  } else if (t.params.size() > 1) {
    for (std::uint32_t p : t.params) {
      const auto& e = deps.exprs.exprs_by_param[p];
      t.exprs.insert(t.exprs.end(), e.begin(), e.end());
      t.touched.insert(t.touched.end(), deps.steps_by_param[p].begin(), deps.steps_by_param[p].end());
    }
    for (auto* list : {&t.exprs, &t.touched}) {
      std::sort(list->begin(), list->end());
      list->erase(std::unique(list->begin(), list->end()), list->end());
    }
    exprs = t.exprs;
    touched = t.touched;
  }
  // The exec keeps the staged values once the update holds: the changed parameters' (the
  // others are equal), without copying the rest.
  auto keep_staged = [&] {
    for (std::uint32_t p : t.params) s.params.copy(p, s.staged);
  };
  if (exprs.empty() && touched.empty() && s.core.settled()) {
    keep_staged();  // parameters that reach nothing (or none changed)
    return {update_path::unchanged, 0};
  }
  // Re-evaluate in place, keeping the old values to put back if anything below throws
  // (every value is computed and checked before anything is applied); the staged values are
  // then dropped, so the exec keeps the parameters it had.
  for (auto i : exprs) t.saved.push_back(s.pool[i]);
  auto restore = [&] {
    for (std::size_t k = 0; k < exprs.size(); ++k) s.pool.own(exprs[k]) = t.saved[k];
    s.unstage(t.params);
  };
  bool defaults_changed = false;
  try {
    if (auto error = ir::reevaluate(g, params.view(), exprs, s.pool)) throw build_error(prog.source.position(error->range.begin), error->message);
    t.memo.reset(cur.templates->memo_slots);
    for (auto i : touched) {
      const ir::node& n = *steps[i].node;
      bool routine = n.kind == ir::node_kind::kernel && cur.symbols->routines[n.callee];
      if (t.fresh.size() == t.changed.size()) t.fresh.emplace_back();
      node_values& v = t.fresh[t.changed.size()];  // its buffers are reused from earlier updates
      compute_values(cur, i, s.pool, v, routine, t.memo);
      if (!(v == s.applied(i))) t.changed.push_back(i);
    }
    // A cond's launch value is fixed when its handle is created: only a new graph changes it.
    defaults_changed = defaults_touched && cond_defaults(prog, cur.graph_index, s.pool) != cur.cond_defaults;
  } catch (...) {
    restore();
    throw;
  }
  update_result result{update_path::unchanged, t.changed.size()};
  if (t.changed.empty() && !defaults_changed && s.core.settled()) {
    keep_staged();
    return result;
  }
  try {
    result.path = s.core.update([&] { return !defaults_changed && apply_node_params(s, t.changed, t.fresh); },
                                [&] { return build_graph(cur.program, cur.symbols, cur.graph_index, params); });
  } catch (...) {
    restore();  // the exec core is unsettled if it applied anything: the next update puts it right
    throw;
  }
  keep_staged();
  if (result.path == update_path::node_params) {
    // Swapped, not copied: the old values' buffers go to the scratch for the next update.
    for (std::size_t k = 0; k < t.changed.size(); ++k) {
      const std::uint32_t step = t.changed[k];
      node_values* own = s.own_values(step);
      (own ? *own : s.new_own(step)).swap(t.fresh[k]);
    }
    ++s.values_epoch;  // the swapped values' buffers are others now
  }
  keep_update(s, result.path);
  return result;
}

}  // namespace cgraph::detail

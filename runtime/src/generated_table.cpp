// The table form of generated code (cgraph/runtime/generated.hpp, "the table form"): one loop
// that adds, or sets again, every node of a graph that cgraphc wrote as constant arrays.

#include "backend/placement.hpp"

#include <cgraph/compiler/emit_cpp.hpp>
#include <cgraph/compiler/eval.hpp>
#include <cgraph/runtime/backend/capture_session.hpp>
#include <cgraph/runtime/backend/node_ops.hpp>
#include <cgraph/runtime/generated.hpp>

#include <array>
#include <bit>
#include <span>

namespace cgraph::gen {

namespace {

// One node's CUDA parameters, made from its list entries; reused from node to node (no
// allocation per node once the largest node has been seen). A constant that cgraphc converted
// is read where the table keeps it. A slot is converted here; consecutive nodes mostly share
// their launch configuration and some arguments (a pointer, a count), so a conversion already
// made for the same slot and target is not made again.
class node_params {
public:
  node_params(const node_table& t, const std::vector<value>& computed) : t_(t), computed_(computed) {}
  node_params(const node_params&) = delete;  // its pointers name its own lists
  node_params& operator=(const node_params&) = delete;

  // Made in place: consecutive nodes mostly share their kernel and launch configuration, which
  // then stay as the node before left them, and only the argument pointers are written. Valid
  // until the next call.
  // Inline in build_from_table's loop: called, its frame's setup and teardown were a fifth of
  // its instructions (host_work_generated, run 46). What a node seldom needs is out of line.
  [[gnu::always_inline]] const cudaKernelNodeParams& kernel(const table_node& n, const site& at) {
    const void* function = t_.functions.data()[n.function];
    if (n.config != config_list_) [[unlikely]]
      convert_config(n.config, at);
    params_.func = const_cast<void*>(function);
    const table_shape& shape = t_.shapes.data()[n.shape];
    if (room_ < shape.count) [[unlikely]]
      grow(shape.count);
    // Locals, not members, in the loop, and one compare a cached conversion: read through `this`
    // the lists were loaded again after every store, and a conversion's entry and argument were
    // compared apart (6 host instructions a two-argument kernel of 240, host_work_generated).
    void** const pointers = pointers_;
    converted* const cache = converted_;
    const std::uint32_t* const entries = t_.slot_lists.data() + n.args;
    const std::uint64_t* const constants = t_.converted.data();
    const std::uint64_t shape_key = std::uint64_t{n.shape} << 32;
    for (std::uint32_t k = 0, count = shape.count; k < count; ++k) {
      const std::uint32_t e = entries[k];
      if (table_entry_is_converted(e)) {  // the driver only reads what the pointer names
        pointers[k] = const_cast<std::uint64_t*>(&constants[table_entry_index(e)]);
        continue;
      }
      converted& c = cache[k];
      if (c.key != (shape_key | e)) [[unlikely]]
        c = {argument(n, k, at), shape_key | e};  // little-endian, from the first byte
      pointers[k] = &c.bytes;
    }
    params_.kernelParams = pointers;
    return params_;
  }
  memcpy_call copy(const table_node& n, const site& at) {
    return {reinterpret_cast<void*>(argument(n, 0, at)), reinterpret_cast<const void*>(argument(n, 1, at)), argument(n, 2, at)};
  }

  cudaMemsetParams set(const table_node& n, const site& at) {
    return memset_call(reinterpret_cast<void*>(argument(n, 0, at)), static_cast<unsigned>(argument(n, 1, at)),
                       n.element_size, argument(n, 2, at));
  }

  // An alloc row's byte count.
  std::uint64_t bytes(const table_node& n, const site& at) const { return argument(n, 0, at); }

  // A repeat's init or counter node, in graph `g` (its counter's memory and its cond's handle):
  // the counter's one argument is the iteration count.
  repeat_call repeat(const table_node& n, const graph_state& g, const site& at) const {
    const bool init = n.kind == ir::node_kind::repeat_init;
    return {g.repeat_counts[n.config].get(), init ? 0u : static_cast<unsigned>(argument(n, 0, at)), g.conds[n.config], init};
  }

private:
  // The launch configuration of list `list`, converted into params_.
  [[gnu::noinline]] void convert_config(std::uint32_t list, const site& at) {
    static constexpr const char* config_what[] = {"grid dimension x",  "grid dimension y",  "grid dimension z",
                                                  "block dimension x", "block dimension y", "block dimension z",
                                                  "dynamic shared memory bytes"};
    std::array<unsigned, 7> c;
    for (std::size_t k = 0; k < 7; ++k)
      c[k] = static_cast<unsigned>(entry(list, k, table_launch_type, table_launch_check(k), at, config_what[k]));
    params_.gridDim = dim3(c[0], c[1], c[2]);
    params_.blockDim = dim3(c[3], c[4], c[5]);
    params_.sharedMemBytes = c[6];
    config_list_ = list;
  }

  // Room for a kernel of `count` arguments, more than the lists in the object hold. What was
  // converted is converted again.
  [[gnu::noinline]] void grow(std::size_t count) {
    grown_converted_.assign(count, converted{});
    grown_pointers_.resize(count);
    converted_ = grown_converted_.data();
    pointers_ = grown_pointers_.data();
    room_ = count;
  }

  // Argument k of a node, converted to its shape's target (memcpy and memset nodes have shapes
  // too: a memset's value takes the destination's element type).
  std::uint64_t argument(const table_node& n, std::size_t k, const site& at) const {
    const table_argument& a = t_.arguments.data()[t_.shapes.data()[n.shape].first + k];
    return entry(n.args, k, a.target, a.check, at, a.what);
  }

  // Entry k of list `list` as `target` takes it.
  std::uint64_t entry(std::uint32_t list, std::size_t k, ir::type target, ir::check check, const site& at,
                      const char* what) const {
    const std::uint32_t e = t_.slot_lists.data()[list + k], s = table_entry_index(e);
    if (table_entry_is_converted(e)) return t_.converted.data()[s];
    const auto constants = static_cast<std::uint32_t>(t_.constant_bits.size());
    return convert(s < constants ? constant(s) : computed_[s - constants], target, check, at, what);
  }

  // Constant slot k as a value.
  value constant(std::uint32_t k) const {
    const std::uint64_t bits = t_.constant_bits.data()[k];
    switch (t_.constant_kinds[k]) {
      case 'i': return value::integer(static_cast<std::int64_t>(bits));
      case 'f': return value::floating(std::bit_cast<double>(bits));
      case 'b': return value::boolean(bits != 0);
      default: return value::pointer(bits);
    }
  }

  // Without a message (ir::convert_to); ir::convert words a problem.
  static std::uint64_t convert(const value& v, ir::type target, ir::check check, const site& at, const char* what) {
    ir::converted_bytes c;
    if (ir::convert_to(v, target, check, c) != ir::convert_problem::fits)
      value_failed(at, what, ir::convert(v, target, check).error);
    return c.as_u64();
  }

  const node_table& t_;
  const std::vector<value>& computed_;
  // One kernel argument's bytes, converted, and what from: the node's shape (the argument k of
  // it names the target) in the high half of key, the entry in the low half. An entry's low bit
  // is 0 for a slot (table_entry_is_converted), so ~0 matches none.
  struct converted {
    std::uint64_t bytes = 0;
    std::uint64_t key = ~std::uint64_t{0};
  };
  // One kernel's converted arguments and their addresses: in the object for kernels of up to
  // 16 arguments, else in the grown_ lists. Lists grown per build were about 450 instructions
  // of a 10-node build (run 48).
  static constexpr std::size_t inline_arguments = 16;
  std::array<converted, inline_arguments> inline_converted_{};
  std::array<void*, inline_arguments> inline_pointers_;
  converted* converted_ = inline_converted_.data();
  void** pointers_ = inline_pointers_.data();
  std::size_t room_ = inline_arguments;
  std::vector<converted> grown_converted_;
  std::vector<void*> grown_pointers_;
  std::uint32_t config_list_ = ~0u;  // the launch list params_'s configuration was converted from
  cudaKernelNodeParams params_{};
};

// Whether one of the `count` entries of list `list` reads a computed slot whose value differs
// between two builds' values (converted constants and constant slots never do).
bool reads_changed(const node_table& t, std::uint32_t list, std::uint32_t count, const std::vector<value>& before,
                   const std::vector<value>& now) {
  const auto constants = static_cast<std::uint32_t>(t.constant_bits.size());
  for (std::uint32_t k = 0; k < count; ++k) {
    const std::uint32_t e = t.slot_lists.data()[list + k], s = table_entry_index(e);
    if (!table_entry_is_converted(e) && s >= constants && !(before[s - constants] == now[s - constants])) return true;
  }
  return false;
}

constexpr const char* unknown_row =
    "the table form holds kernel, memcpy, memset, conditional, repeat, alloc and free nodes only";

// What a conditional row makes (table_node: its values in the kernel's fields).
backend::conditional_node::spec conditional_spec(const graph_state& g, const table_node& n) {
  return {g.conds[n.config], static_cast<ir::cond_kind>(n.element_size), n.function};
}

// A memcpy or memset row, out of line: inline, its three arguments' conversions took registers
// that the kernel rows' walk then kept on the stack (1 host instruction a node of a chain of
// kernels, 3 of a fork-join, 4 of conditionals; host_work_generated).
template <typename Place>
[[gnu::noinline]] void make_copy_or_set(Place place, node_params& make, std::uint32_t step, const table_node& n,
                                        const site& at) {
  if (n.kind == ir::node_kind::memcpy) place.template make<backend::memcpy_node>(step, make.copy(n, at), at);
  else place.template make<backend::memset_node>(step, make.set(n, at), at);
}

// Puts the address of allocation `index` of `g` into the computed slot that names it, if any
// (node_table::allocation_slots): known only once its node is made.
void fill_allocation_slot(const graph_state& g, const node_table& t, std::vector<value>& computed, std::uint32_t index) {
  const std::uint32_t slot = index < t.allocation_slots.size() ? t.allocation_slots.data()[index] : ir::none;
  if (slot != ir::none) computed[slot] = value::pointer(reinterpret_cast<std::uintptr_t>(g.allocations[index]));
}

// What repeat row `n` makes, or the row refused where it is not a repeat's.
repeat_call repeat_row(const graph_state& g, const node_table& t, const std::vector<value>& computed,
                       const table_node& n, const site& at) {
  if (n.kind != ir::node_kind::repeat_init && n.kind != ir::node_kind::repeat_counter) value_failed(at, "", unknown_row);
  return node_params(t, computed).repeat(n, g, at);
}
// Row `step`, a repeat's init or counter, an alloc or a free (any other kind is refused), made
// at `place`, out of line and with its own values but the placement: a repeat inline, or a call
// that took more of the loop's values (its site and node_params), ran 5 to 7 instructions a node
// more on a chain of kernels (host_work_generated, run 56); the memory rows share the one case.
// `place` by value: by reference, the placement was written to memory for every row. params()
// points into `call`, so the call is made while it lives. An alloc's address goes into its slot
// before any row after it reads it: the rows are made in step order.
template <typename Place>
[[gnu::noinline]] void make_rare_row(Place place, const graph_state& g, const node_table& t, std::vector<value>& computed,
                                     std::uint32_t step) {
  const table_node& n = t.nodes.data()[step];
  const site at = row_site(t, n);
  if (n.kind == ir::node_kind::mem_free) {
    place.template make<backend::free_node>(step, n.config, at);
  } else if (n.kind == ir::node_kind::mem_alloc) {
    place.template make<backend::alloc_node>(step, n.config, node_params(t, computed).bytes(n, at), at);
    fill_allocation_slot(g, t, computed, n.config);
  } else {
    repeat_call call = repeat_row(g, t, computed, n, at);
    place.template make<backend::kernel_node>(step, call.params(), at);
  }
}

// Row `step`, `n` (of statement `at`), made at `place` (backend/placement.hpp): the one
// dispatch by kind of the build's loop and the capture's. A kernel whose launch an earlier row
// made (its element_size: the compiler marks them) skips the launch check.
template <typename Place>
[[gnu::always_inline]] inline void make_row(const Place& place, const graph_state& g, const node_table& t,
                                            std::vector<value>& computed, node_params& make, std::uint32_t step,
                                            const table_node& n, const site& at) {
  switch (n.kind) {
    case ir::node_kind::kernel: {
      const cudaKernelNodeParams& p = make.kernel(n, at);
      if (n.element_size != 0) place.template make<backend::known_kernel_node>(step, p, at);
      else place.template make<backend::kernel_node>(step, p, at);
      break;
    }
    case ir::node_kind::memcpy:
    case ir::node_kind::memset: make_copy_or_set(place, make, step, n, at); break;
    case ir::node_kind::conditional:
      place.template make<backend::conditional_node>(step, conditional_spec(g, n), n.args, at);
      break;
    default: make_rare_row(place, g, t, computed, step);
  }
}

// Puts the handles of `g`'s conds into the computed slots that name them (node_table::cond_slots):
// made with the graph, they are known only once its conds are.
void fill_cond_slots(const graph_state& g, const node_table& t, std::vector<value>& computed) {
  for (const table_cond_slot& c : t.cond_slots) computed[c.slot] = value::cond(g.conds[c.cond]);
}

}  // namespace

std::vector<value> table_slots(std::size_t computed) { return std::vector<value>(computed); }

void build_from_table(graph_state& g, const node_table& t, std::vector<value>& computed) {
  fill_cond_slots(g, t, computed);
  node_params make(t, computed);
  std::vector<cudaGraphNode_t> gathered;
  for (std::uint32_t i = 0; i < t.nodes.size(); ++i) {
    const table_node& n = t.nodes.data()[i];
    const site at = row_site(t, n);
    const backend::add_to_graph place{g, g.graph_numbered(n.graph), g.step_nodes(t.deps.data() + n.deps, n.dep_count, gathered)};
    make_row(place, g, t, computed, make, i, n, at);
  }
}

// The capture's loop: one row a node or a body's start or end, as the readable capture form
// issues them (emit_cpp.cpp, capture_body), through the same backend calls and the walk the
// run-time capture makes (backend::walk_capture_rows). Its rows are the steps in order (plan.hpp),
// so a kernel row's known launch holds here as in build_from_table.
void capture_from_table(graph_state& g, const node_table& t, const capture_table& ct, std::vector<value>& computed,
                        const site& graph_at) {
  node_params make(t, computed);
  backend::capture_session c(g, graph_at);
  c.begin(ct.streams);
  create_conds(g, c.graph(), std::span<const cond_init>(ct.conds.data(), ct.conds.size()));
  fill_cond_slots(g, t, computed);  // before the first node: `make` reads the slots as each node is made
  backend::walk_capture_rows(
      c, ct.nodes, ct.waits.data(),
      [&](std::uint32_t step, std::uint32_t stream) {
        const table_node& n = t.nodes.data()[step];
        make_row(backend::issue_on_stream{c, stream}, g, t, computed, make, step, n, row_site(t, n));
      },
      [](std::uint32_t) {});  // every cond was made above, in the root
  c.end(ct.joins);
}

void update_from_table(node_updater& u, const node_table& t, std::vector<value>& before, std::vector<value>& now) {
  // The exec's own handles in both: a cond slot never reads as changed, and a kernel set again
  // keeps the handle its exec's conditional node has.
  fill_cond_slots(u.values_from(), t, before);
  fill_cond_slots(u.values_from(), t, now);
  // Likewise the exec's allocations: they keep their addresses (a new size refuses, below).
  for (std::uint32_t a = 0; a < t.allocation_slots.size(); ++a) {
    fill_allocation_slot(u.values_from(), t, before, a);
    fill_allocation_slot(u.values_from(), t, now, a);
  }
  node_params make(t, now);
  auto changed = [&](std::uint32_t list, std::uint32_t count) { return reads_changed(t, list, count, before, now); };
  for (std::uint32_t i = 0; i < t.nodes.size(); ++i) {
    const table_node& n = t.nodes.data()[i];
    const site at = row_site(t, n);
    switch (n.kind) {
      case ir::node_kind::kernel:
        if (changed(n.config, 7) || changed(n.args, t.shapes.data()[n.shape].count))
          u.kernel_params(i, make.kernel(n, at));
        break;
      case ir::node_kind::memcpy:
        if (changed(n.args, 3)) u.memcpy(i, make.copy(n, at));
        break;
      case ir::node_kind::memset:
        if (changed(n.args, 3)) u.memset(i, make.set(n, at));
        break;
      case ir::node_kind::repeat_counter:  // its count (the init node has no value of its own)
        if (changed(n.args, 1)) u.repeat(i, make.repeat(n, u.values_from(), at));
        break;
      case ir::node_kind::mem_alloc:  // a new size is a new graph (graph_state::allocations says why)
        if (changed(n.args, 1)) u.refuse();
        break;
      default: break;
    }
  }
}

}  // namespace cgraph::gen

#pragma once
// The one table of node kinds: what the IR dump, DOT and messages call each kind, and which
// backend call generated C++ makes to add, capture and update it. Printers and the emitter
// read it; a new kind is one row here, one backend operation and its lowering.

#include <cgraph/compiler/ir.hpp>

#include <array>
#include <string_view>
#include <vector>

namespace cgraph::detail {

// How an exec takes a changed value of a node of this kind.
enum class node_update : std::uint8_t {
  per_node,     // an exec setter for the node alone
  whole_graph,  // a new build applied to the whole exec (host slots, child graphs)
  none,         // the node has no values of its own (a conditional: its handle is fixed)
};

struct node_kind_info {
  ir::node_kind kind;
  std::string_view name;       // in the IR dump and DOT: "kernel", "call", …
  std::string_view dot_style;  // DOT attributes after the label
  std::string_view callee;     // what the callee is called in messages, or "" for built-in nodes
  std::array<std::string_view, 3> operands;  // built-in nodes: each argument's role
  std::string_view operand_owner;            // "memcpy" in "the source of memcpy", or ""
  std::string_view add;        // generated explicit build: cg::<add>(g, step, parent, deps, …)
  std::string_view capture;    // generated capture: c.<capture>(stream, step, …)
  std::string_view set;        // generated update: u.<set>(step, …) for per_node kinds
  node_update update;
  // Generated C++'s table form (emit_cpp.cpp, table()): the letter of the kind's rows, or ""
  // where a graph holding the kind keeps the readable form.
  std::string_view table_row = "";
  // `add` and `capture` for a node whose values the build already checked once (a kernel that
  // launches what a kernel before it launched: graph_emitter::repeats_launch), or "".
  std::string_view add_again = "";
  std::string_view capture_again = "";
};

inline constexpr std::array<node_kind_info, 13> node_kinds = {{
    {ir::node_kind::kernel, "kernel", "", "kernel", {}, "", "add_kernel", "launch", "kernel", node_update::per_node, "K",
     "add_kernel_again", "launch_again"},
    {ir::node_kind::memcpy, "memcpy", "", "", {"destination", "source", "byte count"}, "memcpy", "add_memcpy", "memcpy",
     "memcpy", node_update::per_node, "C"},
    {ir::node_kind::memset, "memset", "", "", {"destination", "value", "element count"}, "memset", "add_memset", "memset",
     "memset", node_update::per_node, "S"},
    {ir::node_kind::host, "host", ", shape=box, style=rounded", "host callback", {}, "", "add_host", "host", "",
     node_update::whole_graph},
    {ir::node_kind::child_graph, "call", "", "graph", {}, "", "add_child", "child", "", node_update::whole_graph},
    {ir::node_kind::conditional, "conditional", ", shape=diamond", "", {"repeat count"}, "", "add_conditional",
     "conditional", "", node_update::none, "Q"},
    {ir::node_kind::repeat_counter, "repeat_counter", ", shape=box, style=dotted", "", {"repeat count"}, "",
     "add_repeat", "launch_repeat", "repeat", node_update::per_node, "R"},
    {ir::node_kind::repeat_init, "repeat_init", ", shape=box, style=dotted", "", {"repeat count"}, "", "add_repeat",
     "launch_repeat", "repeat", node_update::per_node, "I"},
    {ir::node_kind::event_record, "record", ", shape=cds", "", {"event"}, "record", "add_event_record", "event_record",
     "event_record", node_update::per_node},
    {ir::node_kind::event_wait, "wait", ", shape=cds", "", {"event"}, "wait", "add_event_wait", "event_wait",
     "event_wait", node_update::per_node},
    // An allocation's size is fixed in its exec (and its address in its graph): a new size is
    // a new graph, which replaces the exec (a graph that allocates is never exec-updated).
    {ir::node_kind::mem_alloc, "alloc", ", shape=invhouse", "", {"byte count"}, "alloc", "add_alloc", "alloc", "",
     node_update::whole_graph, "A"},
    {ir::node_kind::mem_free, "free", ", shape=house", "", {}, "", "add_free", "free", "", node_update::none, "F"},
    // NCCL collectives, captured into a graph of their own and embedded as a child graph in both
    // strategies. Generated code updates them as a whole graph; the run-time path captures them
    // again and sets the child graph in the exec, as it does for captured routines.
    {ir::node_kind::collective, "collective", ", shape=octagon", "", {}, "", "add_child", "child", "",
     node_update::whole_graph},
}};

constexpr const node_kind_info& info(ir::node_kind k) { return node_kinds[static_cast<std::size_t>(k)]; }

constexpr bool rows_in_enum_order() {
  for (std::size_t i = 0; i < node_kinds.size(); ++i)
    if (static_cast<std::size_t>(node_kinds[i].kind) != i) return false;
  return true;
}
static_assert(rows_in_enum_order(), "node_kinds rows must follow ir::node_kind's order");

// A node's callee, for the kinds that have one (kernel, host, call): its name and parameters.
struct callee_view {
  std::string_view name;
  const std::vector<ir::parameter>* params = nullptr;
};
callee_view callee_of(const ir::program& p, const ir::node& n);

}  // namespace cgraph::detail

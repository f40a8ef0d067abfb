#include "node_text.hpp"

#include "node_kinds.hpp"
#include "ranges.hpp"

#include <cgraph/compiler/printers.hpp>

#include <fmt/format.h>

namespace cgraph::detail {

namespace {

template <typename Arguments>
std::string join_args(const ir::program& p, const ir::graph& g, Arguments&& args) {
  return join(args, ", ", [&](const ir::argument& a) { return print_expr(g, a.expr, p.structs); });
}

// "(a, b, c)" trimmed of trailing 1s: a 1D launch reads "blocks", a 2D one "(16, 16)".
std::string dims(const ir::program& p, const ir::graph& g, const std::array<ir::launch_value, 3>& d) {
  std::size_t used = 3;
  auto is_one = [&](const ir::launch_value& v) {
    const auto& e = g.exprs[v.expr];
    return e.is_constant() && e.constant().k == ir::value::kind::integer && e.constant().i == 1;
  };
  while (used > 1 && is_one(d[used - 1])) --used;
  if (used == 1) return print_expr(g, d[0].expr, p.structs);
  return "(" + join(d | views::take(used), ", ", [&](const ir::launch_value& v) { return print_expr(g, v.expr, p.structs); }) + ")";
}

}  // namespace

callee_view callee_of(const ir::program& p, const ir::node& n) {
  switch (n.kind) {
    case ir::node_kind::kernel: return {p.kernels[n.callee].name, &p.kernels[n.callee].params};
    case ir::node_kind::host: return {p.hosts[n.callee].name, &p.hosts[n.callee].params};
    case ir::node_kind::child_graph: return {p.graphs[n.callee].name, &p.graphs[n.callee].params};
    default: return {};
  }
}

namespace {

// `[[priority(2), enabled(on)]] ` before a node with attributes.
std::string attributes_text(const ir::program& p, const ir::graph& g, const ir::node& n) {
  if (n.attributes == ir::none) return {};
  const ir::node_attributes& at = g.attributes[n.attributes];
  std::vector<std::string> parts;
  if (at.priority.expr != ir::none) parts.push_back("priority(" + print_expr(g, at.priority.expr, p.structs) + ")");
  if (at.cluster[0].expr != ir::none)
    parts.push_back("cluster(" + join(at.cluster, ", ", [&](const ir::argument& a) {
                      return a.expr == ir::none ? std::string("?") : print_expr(g, a.expr, p.structs);
                    }) + ")");
  if (at.enabled.expr != ir::none) parts.push_back("enabled(" + print_expr(g, at.enabled.expr, p.structs) + ")");
  if (at.device.expr != ir::none) parts.push_back("device(" + print_expr(g, at.device.expr, p.structs) + ")");
  return parts.empty() ? std::string() : "[[" + join(parts, ", ", [](const std::string& s) { return s; }) + "]] ";
}

std::string describe_kind(const ir::program& p, const ir::graph& g, const ir::node& n) {
  switch (n.kind) {
    case ir::node_kind::kernel: {
      const ir::launch_config& launch = g.launch_of(n);
      std::string config = dims(p, g, launch.grid) + ", " + dims(p, g, launch.block);
      const auto& shmem = g.exprs[launch.shared_bytes.expr];
      if (!(shmem.is_constant() && shmem.constant().i == 0)) config += ", " + print_expr(g, launch.shared_bytes.expr, p.structs);
      return fmt::format("{}<<<{}>>>({})", p.kernels[n.callee].name, config, join_args(p, g, g.args(n)));
    }
    case ir::node_kind::memcpy: return fmt::format("memcpy({})", join_args(p, g, g.args(n)));
    case ir::node_kind::memset: return fmt::format("memset({}) [{}-byte elements]", join_args(p, g, g.args(n)), n.element_size);
    case ir::node_kind::host:
    case ir::node_kind::child_graph:
      return fmt::format("{} {}({})", info(n.kind).name, callee_of(p, n).name, join_args(p, g, g.args(n)));
    case ir::node_kind::repeat_init: return fmt::format("repeat_init({})", g.conds[n.cond].name);
    case ir::node_kind::mem_alloc: {
      const ir::allocation& a = g.allocations[n.callee];
      return fmt::format("alloc {}: {} [{} bytes]", a.name, ir::to_string(a.element, p.structs),
                         g.args(n).empty() ? std::string("?") : print_expr(g, g.args(n)[0].expr, p.structs));
    }
    case ir::node_kind::mem_free: return fmt::format("free {}", g.allocations[n.callee].name);
    case ir::node_kind::event_record:
    case ir::node_kind::event_wait:
      return fmt::format("{} {}", info(n.kind).name, print_expr(g, g.args(n)[0].expr, p.structs));
    case ir::node_kind::repeat_counter:
      return fmt::format("repeat_counter({}, {})", g.conds[n.cond].name, print_expr(g, g.args(n)[0].expr, p.structs));
    case ir::node_kind::collective: {
      // One call per collective_slots arguments, all five shown: "all_reduce<f32, sum>(x, x, n, 0, c)";
      // a group lists its calls in braces.
      const bool group = g.args(n).size() > ir::collective_slots;
      std::string text = group ? "group {" : "";
      for (std::size_t k = 0; k * ir::collective_slots < g.args(n).size(); ++k) {
        const ir::collective_call& c = g.collectives[n.callee + k];
        const bool reduces = dsl::info(c.op).roles.find('o') != std::string_view::npos;
        text += fmt::format("{}{}<{}{}>({}){}", group ? " " : "", dsl::info(c.op).name, ir::to_string(c.element),
                            reduces ? ", " + std::string(dsl::reductions[static_cast<std::size_t>(c.reduction)]) : "",
                            join_args(p, g, g.args(n).subspan(k * ir::collective_slots, ir::collective_slots)),
                            group ? ";" : "");
      }
      return group ? text + " }" : text;
    }
    case ir::node_kind::conditional: {
      if (n.from_repeat) return fmt::format("repeat {} [cond {}]", print_expr(g, g.args(n)[0].expr, p.structs), g.conds[n.cond].name);
      std::string_view kind = n.cond_kind == ir::cond_kind::while_loop     ? "while"
                              : n.cond_kind == ir::cond_kind::switch_cases ? "switch"
                                                                           : "if";
      return fmt::format("{} {}", kind, g.conds[n.cond].name);
    }
  }
  return "?";
}

}  // namespace

std::string describe_node(const ir::program& p, const ir::graph& g, const ir::node& n) {
  return attributes_text(p, g, n) + describe_kind(p, g, n);
}

std::string_view edge_port_name(const ir::graph& g, const ir::node& n, std::uint32_t dep) {
  if (n.ports == ir::none) return {};
  for (const ir::port_edge& e : g.port_edges[n.ports])
    if (e.dep == dep) return e.port == ir::edge_port::programmatic ? "programmatic" : "launched";
  return {};
}

std::string body_name(const ir::node& n, std::size_t body) {
  switch (n.cond_kind) {
    case ir::cond_kind::if_then: return "then";
    case ir::cond_kind::if_else: return body == 0 ? "then" : "else";
    case ir::cond_kind::while_loop: return "body";
    case ir::cond_kind::switch_cases: return fmt::format("case {}", body);
  }
  return "body";
}

}  // namespace cgraph::detail

namespace cgraph {

std::string describe_argument(const ir::program& p, const ir::node& n, std::size_t arg) {
  const detail::node_kind_info& row = detail::info(n.kind);
  if (!row.callee.empty()) {
    detail::callee_view callee = detail::callee_of(p, n);
    std::string which = arg < callee.params->size() ? fmt::format("argument {} ('{}')", arg + 1, (*callee.params)[arg].name)
                                                    : fmt::format("argument {}", arg + 1);
    return fmt::format("{} of {} '{}'", which, row.callee, callee.name);
  }
  if (n.kind == ir::node_kind::collective) {
    static constexpr std::string_view slots[] = {"send buffer", "receive buffer", "element count", "root or peer rank",
                                                 "communicator"};
    return fmt::format("the {} of collective {}", slots[arg % ir::collective_slots], arg / ir::collective_slots + 1);
  }
  std::string_view role = arg < row.operands.size() && !row.operands[arg].empty() ? row.operands[arg] : "argument";
  return row.operand_owner.empty() ? fmt::format("the {}", role) : fmt::format("the {} of {}", role, row.operand_owner);
}

}  // namespace cgraph

// `cgraphc dot`: Graphviz DOT from the IR. Conditional nodes are diamonds; each of their
// bodies is a dashed cluster, entered by a dashed edge from the diamond to the body's roots.
// Nodes placed on a device (LANGUAGE.md §15) are drawn in one filled cluster per device.

#include "node_kinds.hpp"

#include "node_text.hpp"
#include "ranges.hpp"

#include <cgraph/compiler/printers.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace cgraph {

namespace {

std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

class dot_printer {
public:
  dot_printer(const ir::program& p, const source_file& src) : p_(p), src_(src) {}

  std::string one(const ir::graph& g) {
    out_ += fmt::format("digraph \"{}\" {{\n", escape(g.name));
    header();
    graph_body(g, "  ");
    out_ += "}\n";
    return std::move(out_);
  }

  std::string all() {
    out_ += fmt::format("digraph \"{}\" {{\n", escape(p_.file));
    header();
    for (const auto& g : p_.graphs) {
      out_ += fmt::format("  subgraph \"cluster_{}\" {{\n    label=\"graph {}\";\n    style=solid;\n", escape(g.name),
                          escape(g.name));
      graph_body(g, "    ");
      out_ += "  }\n";
    }
    out_ += "}\n";
    return std::move(out_);
  }

private:
  void header() {
    out_ += "  compound=true;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n"
            "  edge [fontname=\"monospace\", fontsize=9];\n";
  }

  void graph_body(const ir::graph& g, const std::string& indent) {
    body(g, g.root, g.name + "_n", indent);
  }

  std::string line_of(source_range r) const {
    if (src_.segment_of(r.begin) != 0) return src_.position(r.begin);  // in an imported file
    return fmt::format("line {}", src_.location(r.begin).line);
  }

  void body(const ir::graph& g, const ir::body& b, const std::string& prefix, const std::string& indent) {
    std::vector<std::pair<std::string, std::vector<std::string>>> devices;  // device text, its nodes
    for (const auto& [i, n] : detail::views::enumerate(b.nodes)) {
      std::string id = prefix + std::to_string(i);
      if (n.attributes != ir::none && g.attributes[n.attributes].device.expr != ir::none) {
        std::string device = print_expr(g, g.attributes[n.attributes].device.expr, p_.structs);
        auto it = std::find_if(devices.begin(), devices.end(), [&](const auto& d) { return d.first == device; });
        if (it == devices.end()) it = devices.insert(devices.end(), {device, {}});
        it->second.push_back(id);
      }
      std::string text = detail::describe_node(p_, g, n);
      if (n.label != ir::none) text = fmt::format("{}: {}", g.label_of(n), text);
      std::string kind = n.kind == ir::node_kind::conditional ? std::string(ir::to_string(n.cond_kind))
                                                               : std::string(ir::to_string(n.kind));
      std::string_view shape = detail::info(n.kind).dot_style;
      out_ += fmt::format("{}\"{}\" [label=\"{}\\n{} · {}\"{}];\n", indent, id, escape(text), kind, line_of(n.range), shape);
      for (auto d : g.deps(n)) {
        std::string_view port = detail::edge_port_name(g, n, d);
        out_ += fmt::format("{}\"{}{}\" -> \"{}\"{};\n", indent, prefix, d, id,
                            port.empty() ? std::string() : fmt::format(" [style=dashed, label=\"{}\"]", port));
      }
      for (const auto& [k, inner] : detail::views::enumerate(g.bodies(n))) {
        std::string body_prefix = fmt::format("{}_b{}_n", id, k);
        std::string name = detail::body_name(n, k);
        out_ += fmt::format("{}subgraph \"cluster_{}_b{}\" {{\n{}  label=\"{}\";\n{}  style=dashed;\n", indent, id, k,
                            indent, escape(name), indent);
        if (inner.nodes.empty())
          out_ += fmt::format("{}  \"{}empty\" [label=\"(empty)\", shape=plaintext];\n", indent, body_prefix);
        body(g, inner, body_prefix, indent + "  ");
        out_ += indent + "}\n";
        if (inner.nodes.empty()) {
          out_ += fmt::format("{}\"{}\" -> \"{}empty\" [style=dashed, label=\"{}\"];\n", indent, id, body_prefix, escape(name));
          continue;
        }
        for (const auto& [r, root] : detail::views::enumerate(inner.nodes))
          if (root.deps_count == 0)
            out_ += fmt::format("{}\"{}\" -> \"{}{}\" [style=dashed, label=\"{}\"];\n", indent, id, body_prefix, r,
                                escape(name));
      }
    }
    for (const auto& [k, device] : detail::views::enumerate(devices)) {
      out_ += fmt::format("{}subgraph \"cluster_{}device{}\" {{\n{}  label=\"device({})\";\n{}  style=filled;\n{}  "
                          "fillcolor=\"#eef3fb\";\n",
                          indent, prefix, k, indent, escape(device.first), indent, indent);
      for (const auto& id : device.second) out_ += fmt::format("{}  \"{}\";\n", indent, id);
      out_ += indent + "}\n";
    }
  }

  const ir::program& p_;
  const source_file& src_;
  std::string out_;
};

}  // namespace

std::string print_dot(const ir::program& program, const source_file& source, std::string_view graph_name) {
  if (graph_name.empty()) return dot_printer(program, source).all();
  const ir::graph* g = program.find_graph(graph_name);
  return g ? dot_printer(program, source).one(*g) : std::string{};
}

}  // namespace cgraph

// `cgraphc ir`: one line per node, bodies indented under their conditional.

#include "node_text.hpp"
#include "ranges.hpp"

#include <cgraph/compiler/printers.hpp>

#include <fmt/format.h>

namespace cgraph {

namespace {

class ir_printer {
public:
  ir_printer(const ir::program& p, const source_file& src, const ir_print_options& o) : p_(p), src_(src), o_(o) {}

  std::string run() {
    for (const auto& st : p_.structs) {
      out_ += fmt::format("struct {} [{} bytes, align {}] {{ {} }}\n", st.name, st.size, st.align,
                          detail::join(st.fields, "; ", [&](const ir::field& f) {
                            return fmt::format("{}: {} @{}", f.name, ir::to_string(f.t, p_.structs), f.offset);
                          }));
    }
    for (const auto& k : p_.kernels) {
      out_ += fmt::format("kernel {}({})", k.name, params(k.params));
      if (k.symbol != k.name) out_ += fmt::format(" as \"{}\"", k.symbol);
      if (k.library != ir::none) out_ += fmt::format(" from {}", p_.libraries[k.library].name);
      out_ += '\n';
    }
    for (const auto& h : p_.hosts) out_ += fmt::format("host {}({})\n", h.name, params(h.params));
    for (const auto& l : p_.libraries)
      out_ += fmt::format("{} {} ({} bytes)\n", l.k == ir::library::kind::module ? "module" : "source", l.name, l.text.size());
    for (const auto& g : p_.graphs) graph(g);
    return std::move(out_);
  }

private:
  std::string params(const std::vector<ir::parameter>& ps, const ir::graph* g = nullptr) {
    return detail::join(ps, ", ", [&](const ir::parameter& p) {
      std::string out = fmt::format("{}: {}", p.name, ir::to_string(p.t, p_.structs));
      if (g && p.default_expr != ir::none) out += " = " + print_expr(*g, p.default_expr, p_.structs);
      return out;
    });
  }

  std::string location(source_range r) const {
    if (!o_.locations) return "";
    // @line:col in the first file, @file:line:col in one it imports.
    if (src_.segment_of(r.begin) != 0) return "  @" + src_.position(r.begin);
    auto lc = src_.location(r.begin);
    return fmt::format("  @{}:{}", lc.line, lc.column);
  }

  void graph(const ir::graph& g) {
    out_ += fmt::format("\ngraph {}({}){}\n", g.name, params(g.params, &g), location(g.range));
    for (const auto& l : g.lets) out_ += fmt::format("  let {} = {}\n", l.name, print_expr(g, l.expr, p_.structs));
    for (const auto& c : g.conds) {
      out_ += fmt::format("  cond {}", c.name);
      if (c.default_expr != ir::none) out_ += " = " + print_expr(g, c.default_expr, p_.structs);
      out_ += '\n';
    }
    body(g, g.root, 1);
  }

  void body(const ir::graph& g, const ir::body& b, int depth) {
    std::string indent(static_cast<std::size_t>(depth) * 2, ' ');
    for (const auto& [i, n] : detail::views::enumerate(b.nodes)) {
      out_ += fmt::format("{}{}{}: {}", indent, i, n.label == ir::none ? "" : fmt::format(" [{}]", g.label_of(n)),
                          detail::describe_node(p_, g, n));
      if (n.deps_count != 0) {
        const ir::node& node = n;  // clang 14 cannot capture a structured binding
        out_ += "  after " + detail::join(g.deps(n), ", ", [&](std::uint32_t d) {
                  std::string_view port = detail::edge_port_name(g, node, d);
                  return port.empty() ? std::to_string(d) : fmt::format("{}({})", port, d);
                });
      }
      out_ += location(n.range) + '\n';
      for (const auto& [k, inner] : detail::views::enumerate(g.bodies(n))) {
        out_ += fmt::format("{}  {}:{}\n", indent, detail::body_name(n, k), inner.nodes.empty() ? " (empty)" : "");
        body(g, inner, depth + 2);
      }
    }
  }

  const ir::program& p_;
  const source_file& src_;
  const ir_print_options& o_;
  std::string out_;
};

}  // namespace

std::string print_ir(const ir::program& program, const source_file& source, const ir_print_options& options) {
  return ir_printer(program, source, options).run();
}

}  // namespace cgraph

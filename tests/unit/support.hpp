#pragma once
// Helpers for unit tests: compile a snippet and look at what came out.

#include <cgraph/compiler/compile.hpp>
#include <cgraph/compiler/eval.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace cgraph::test {

struct compiled {
  source_file source;
  compile_result result;

  bool ok() const { return result.program.has_value(); }
  const ir::program& program() const { return *result.program; }
  const ir::graph& graph(std::string_view name = "g") const { return *result.program->find_graph(name); }
  // All diagnostics as cgraphc prints them.
  std::string errors() const { return format_diagnostics(source, result.diags); }
  // The first error's message (warnings skipped), or "" when there is none.
  std::string first_error() const;
  // Whether any diagnostic has exactly this message.
  bool has_error(std::string_view message) const;
};

compiled compile_text(std::string text, const compile_limits& limits = {});

// The dependencies of `n`, a node of `g`, as a list to compare.
inline std::vector<std::uint32_t> node_deps(const ir::graph& g, const ir::node& n) {
  auto d = g.deps(n);
  return {d.begin(), d.end()};
}

// The common declarations most tests need, followed by `body` inside `graph g(...)`.
std::string in_graph(const std::string& body, const std::string& params = "x: f32*, n: i32");

}  // namespace cgraph::test

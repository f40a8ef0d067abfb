#include "support.hpp"

namespace cgraph::test {

std::string compiled::first_error() const {
  for (const auto& d : result.diags.all())
    if (d.level == severity::error) return d.message;
  return {};
}

bool compiled::has_error(std::string_view message) const {
  for (const auto& d : result.diags.all())
    if (d.message == message) return true;
  return false;
}

compiled compile_text(std::string text, const compile_limits& limits) {
  compiled c{source_file("test.cgraph", std::move(text)), {}};
  c.result = compile(c.source, limits);
  return c;
}

std::string in_graph(const std::string& body, const std::string& params) {
  return "kernel k(p: f32*, n: i32);\n"
         "kernel step(p: f32*, c: cond);\n"
         "host progress(i: i32);\n"
         "graph g(" + params + ") {\n" + body + "\n}\n";
}

}  // namespace cgraph::test

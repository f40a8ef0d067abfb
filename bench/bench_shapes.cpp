#include "bench_shapes.hpp"

#include <fmt/format.h>

namespace bench {

const char* name(shape s) { return s == shape::chain ? "chain" : s == shape::wide ? "fork-join" : "conditionals"; }
const char* file_name(shape s) { return s == shape::chain ? "chain" : s == shape::wide ? "fork_join" : "conditionals"; }

std::optional<shape> shape_named(std::string_view n) {
  for (shape s : shapes)
    if (n == name(s)) return s;
  return std::nullopt;
}

std::string text_of(shape s, int nodes, bool for_generated) {
  std::string t = for_generated ? "include \"bench_kernels.cuh\";\n" : "";
  t += "kernel tiny(p: f32*, i: i32);\ngraph g(p: f32*, first: i32) {\n";
  switch (s) {
    case shape::chain:
      t += "  tiny<<<1, 32>>>(p, first);\n";
      for (int i = 1; i < nodes; ++i) t += fmt::format("  tiny<<<1, 32>>>(p, {});\n", i);
      break;
    case shape::wide:
      t += "  tiny<<<1, 32>>>(p, first);\n  parallel {\n";
      for (int i = 1; i < nodes - 1; ++i) t += fmt::format("    tiny<<<1, 32>>>(p, {});\n", i);
      t += "  }\n  tiny<<<1, 32>>>(p, 0);\n";
      break;
    case shape::conditional:  // each `if` is two nodes: the conditional and its body's kernel
      for (int i = 0; i < nodes / 2; ++i)
        t += fmt::format("  cond c{0} = 1;\n  if c{0} {{ tiny<<<1, 32>>>(p, {1}); }}\n", i, i == 0 ? "first" : std::to_string(i));
      break;
  }
  return t + "}\n";
}

}  // namespace bench

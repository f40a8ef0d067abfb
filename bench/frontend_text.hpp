#pragma once
// The text that the front-end benchmarks parse: frontend_bench (cgraph's whole front end) and
// frontend_floor (an X3 grammar that only recognises it).

#include <cstddef>
#include <string>
#include <utility>

namespace bench {

// How the units of the text differ: `repeating` writes each unit's expressions alike, as
// unrolled layers and steps do (the compiler computes each once: value numbering, issue 17);
// `unique` offsets every computed expression by the unit's number, so no two are equal.
enum class expressions { repeating, unique };

// A realistic mix: launches with computed grids, memsets and memcpys, parallel branches,
// labels with `after`, and a few conditionals with bodies. Returns the text and its node count.
inline std::pair<std::string, std::size_t> frontend_text(std::size_t target_nodes,
                                                         expressions kind = expressions::repeating) {
  std::string s =
      "kernel saxpy(a: f32, x: f32*, y: f32*, n: i32);\n"
      "kernel step(x: f32*, n: i32, more: cond);\n"
      "graph big(x: f32*, y: f32*, a: f32 = 2.0, n: i32 = 1 << 20) {\n"
      "  let blocks = ceil_div(n, 256);\n";
  std::size_t nodes = 0, block = 0;
  while (nodes < target_nodes) {
    const std::size_t unit = block++;
    const std::string b = std::to_string(unit);
    // `128`, `0.5`, `16` and `n`, or each offset by the unit: `129`, `1.5`, `17` and `(n + 1)`.
    const std::size_t k = kind == expressions::unique ? unit : 0;
    const std::string n_k = k == 0 ? "n" : "(n + " + std::to_string(k) + ")";
    s += "  saxpy<<<blocks, 256>>>(a, x, y, n);\n";
    s += "  saxpy<<<ceil_div(n, " + std::to_string(128 + k) + "), 128>>>(a * " + std::to_string(k) + ".5, x + " +
         std::to_string(16 + k) + ", y, n - " + std::to_string(16 + k) + ");\n";
    // The `after` joins the parallel's branches: one the statement order implies would be a
    // warning (LANGUAGE.md §13 rule 10), and a benchmark of warnings.
    s += "  parallel {\n    l" + b + ": saxpy<<<blocks, 256>>>(a, x, y, n);\n"
         "    { memset(y, 0, n) after l" + b + "; memcpy(x, y, " + n_k + " * sizeof(f32)); }\n  }\n";
    s += "  saxpy<<<blocks, 256>>>(a, y, x, n);\n";
    s += "  cond c" + b + " = 1;\n  while c" + b + " { step<<<1, 1>>>(x, n, c" + b + "); }\n";
    nodes += 8;  // 6 in the sequence, the while node and its body's node
  }
  s += "}\n";
  return {s, nodes};
}

}  // namespace bench

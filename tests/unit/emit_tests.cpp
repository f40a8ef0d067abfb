// Generated C++ (cgraphc emit-cpp) beyond what the golden files show: long bodies in parts.

#include "support.hpp"

#include <cgraph/compiler/emit_cpp.hpp>

#include <doctest/doctest.h>

#include <fmt/format.h>

using namespace cgraph;
using cgraph::test::compile_text;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("emit.long_bodies_are_split_into_parts") {
  // One function of thousands of node calls takes the host compiler minutes (docs/performance.md).
  std::string text = "kernel k(p: f32*, i: i32);\ngraph g(p: f32*) {\n";
  for (int i = 0; i < 1000; ++i) text += fmt::format("  k<<<1, 32>>>(p, {});\n", i);
  text += "}\n";
  auto c = compile_text(text);
  REQUIRE(c.ok());
  for (auto mode : {emit_mode::explicit_nodes, emit_mode::stream_capture}) {
    auto out = emit_cpp(c.program(), c.source, mode);
    REQUIRE(out.code);
    const std::string& code = *out.code;
    // 1000 steps of two lines each, 256 lines a part; the capture mode adds begin and end.
    CHECK(count(code, "[[gnu::noinline]] inline void build_part_") == 8);
    CHECK(count(code, "  build_part_7(g, ") == 1);
    // update_nodes: one line per step.
    CHECK(count(code, "[[gnu::noinline]] inline void update_part_") == 4);
    CHECK(count(code, "  update_part_3(u, before, p, v, g);") == 1);
    // Every step is made exactly once.
    CHECK(count(code, "step_999(p, v, g)") == 2);  // once to build, once to update
  }
  // A short graph stays in one function.
  auto small = compile_text("kernel k(p: f32*);\ngraph g(p: f32*) { k<<<1, 1>>>(p); }");
  auto out = emit_cpp(small.program(), small.source, emit_mode::explicit_nodes);
  REQUIRE(out.code);
  CHECK(count(*out.code, "_part_") == 0);
}

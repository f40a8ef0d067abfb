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

// The generated C++ of text `text` that compiles, in `mode` at `threshold`.
std::string emitted(const std::string& text, emit_mode mode, std::size_t threshold = default_table_threshold) {
  auto c = compile_text(text);
  REQUIRE(c.ok());
  auto out = emit_cpp(c.program(), c.source, mode, threshold);
  REQUIRE(out.code);
  return *out.code;
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
    auto out = emit_cpp(c.program(), c.source, mode, 0);  // the readable form, not the table form
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

TEST_CASE("emit.large_graphs_take_the_table_form_in_either_mode") {
  // Issue 17's target: a 100 000-node graph in under 10 MB of C++ (100 bytes a node); checked
  // here on 20 000 nodes with 80 bytes a node (57 today).
  const int nodes = 20000;
  std::string text = "kernel k(p: f32*, i: i32);\ngraph g(p: f32*, first: i32) {\n  k<<<1, 32>>>(p, first);\n";
  for (int i = 1; i < nodes; ++i) text += fmt::format("  k<<<1, 32>>>(p, {});\n", i);
  text += "}\n";
  auto c = compile_text(text);
  REQUIRE(c.ok());
  auto table = emit_cpp(c.program(), c.source, emit_mode::explicit_nodes);
  REQUIRE(table.code);
  CHECK(count(*table.code, "the table form") == 1);
  CHECK(count(*table.code, "inline cg::kernel_call") == 0);  // no function per node
  CHECK(count(*table.code, "{K,") == nodes);                 // a record per node
  CHECK(table.code->size() < static_cast<std::size_t>(nodes) * 80);
  // The capture mode walks the same rows in its plan's order; a threshold of 0 keeps the
  // readable form.
  auto capture = emit_cpp(c.program(), c.source, emit_mode::stream_capture);
  REQUIRE(capture.code);
  CHECK(count(*capture.code, "the table form") == 1);
  CHECK(count(*capture.code, "cg::capture_from_table(") == 1);
  CHECK(count(*capture.code, "{K,") == nodes);
  CHECK(capture.code->size() < static_cast<std::size_t>(nodes) * 120);
  CHECK(count(*capture.code, "[] = {};") == 0);  // no zero-length array (a graph without conds)
  auto readable = emit_cpp(c.program(), c.source, emit_mode::explicit_nodes, 0);
  REQUIRE(readable.code);
  CHECK(count(*readable.code, "the table form") == 0);
  CHECK(count(*readable.code, "inline cg::kernel_call") == static_cast<std::size_t>(nodes));
  // A graph below the threshold, or with a node kind the loop does not take, stays readable.
  auto host = compile_text(text.substr(0, text.size() - 2) + "  host h(1);\n}\nhost h(i: i32);\n");
  REQUIRE(host.ok());
  auto with_host = emit_cpp(host.program(), host.source, emit_mode::explicit_nodes);
  REQUIRE(with_host.code);
  CHECK(count(*with_host.code, "the table form") == 0);
}

TEST_CASE("emit.conditionals_at_the_root_take_the_table_form_in_both_modes") {
  // 600 `if`s of one kernel each: 1 200 nodes, above the default threshold.
  const int ifs = 600;
  std::string body = "kernel k(p: f32*, i: i32);\ngraph g(p: f32*, first: i32) {\n";
  for (int i = 0; i < ifs; ++i) body += fmt::format("  cond c{0} = 1;\n  if c{0} {{ k<<<1, 32>>>(p, {0}); }}\n", i);
  const std::string table = emitted(body + "}\n", emit_mode::explicit_nodes);
  CHECK(count(table, "the table form") == 1);
  CHECK(count(table, "{Q,0,1,") == ifs);  // an if_then of one body: its cond, its body
  CHECK(count(table, "{K,") == ifs);
  CHECK(count(table, "static constexpr cg::cond_init conds[]") == 1);  // made before the rows
  CHECK(count(table, "cg::table_state>(table(), 600, 600)") == 1);
  // The capture mode: the same rows, and the capture's order with each body between its
  // enter and leave rows; the conds are the capture table's, made once its capture begins.
  const std::string captured = emitted(body + "}\n", emit_mode::stream_capture);
  CHECK(count(captured, "the table form") == 1);
  CHECK(count(captured, "{Q,0,1,") == ifs);
  CHECK(count(captured, "{B,") == ifs + 1);  // and the comment that describes the rows
  CHECK(count(captured, "{E,0,0,") == ifs);
  CHECK(count(captured, "{N,") == 2 * ifs);
  CHECK(count(captured, "inline constexpr cg::cond_init capture_conds[]") == 1);
  CHECK(count(captured, "cg::create_conds(") == 0);
  CHECK(count(captured, "cg::table_state>(table(), 600, 600)") == 1);
  // Kept readable in both modes: a conditional inside a body (with a cond of that body's: the
  // table makes the root's conds only). A cond whose initial value reads a parameter takes the
  // table: build_state makes the conds with the graph's values, and its update refuses when
  // the parameter changed. A `while` whose kernel takes its cond takes
  // the table: the cond's handle is a computed slot the walker fills (cond_slots); a cond
  // parameter handed to a kernel keeps the readable form. A `repeat` at the root takes the
  // table (its init and counter are rows that name its cond, its counter made before the rows);
  // one inside a body keeps the readable form.
  const std::string loop = "kernel step(c: cond, i: i32);\n" + body + "  cond go = 1;\n  while go { step<<<1, 1>>>(go, first); }\n";
  for (const emit_mode mode : {emit_mode::explicit_nodes, emit_mode::stream_capture}) {
    CAPTURE(static_cast<int>(mode));
    const std::string with_loop = emitted(loop + "}\n", mode);
    CHECK(count(with_loop, "the table form") == 1);
    CHECK(count(with_loop, "inline constexpr cg::table_cond_slot cond_slots[] = {") == 1);
    CHECK(count(with_loop, "{cond_slots, 1}, {}}") == 1);
    std::string with_cond_param = loop + "  step<<<1, 1>>>(c, 0);\n}\n";
    with_cond_param.replace(with_cond_param.find("first: i32)"), 11, "first: i32, c: cond)");
    CHECK(count(emitted(with_cond_param, mode), "the table form") == 0);
    const std::string computed_cond = emitted(body + "  cond d = first;\n  if d { k<<<1, 32>>>(p, 0); }\n}\n", mode);
    CHECK(count(computed_cond, "the table form") == 1);
    CHECK(count(computed_cond, "const cg::cond_init conds[] = {") == 1);  // made from p at each build
    CHECK(count(computed_cond, "if (c_first) u.refuse();  // cond 'd'") == 1);
    CHECK(count(emitted(body + "  cond outer = 1;\n  if outer { cond inner = 1; if inner { k<<<1, 32>>>(p, 0); } }\n}\n", mode),
                "the table form") == 0);
    const std::string with_repeat = emitted(body + "  repeat first { k<<<1, 32>>>(p, 0); }\n  repeat 3 { }\n}\n", mode);
    CHECK(count(with_repeat, "the table form") == 1);
    CHECK(count(with_repeat, "{I,0,0,") == 2);
    CHECK(count(with_repeat, "{R,0,0,") == 2);
    CHECK(count(with_repeat, "cg::repeat_count(g, 600, ") == 1);  // the conds after the ifs' 600
    CHECK(count(with_repeat, "cg::repeat_count(g, 601, ") == 1);
    CHECK(count(with_repeat, "\"the repeat count\"") == 1);  // one argument target, both counters
    CHECK(count(emitted(body + "  cond outer = 1;\n  if outer { repeat 2 { k<<<1, 32>>>(p, 0); } }\n}\n", mode),
                "the table form") == 0);
  }
}

TEST_CASE("emit.graph_memory_takes_the_table_form_in_both_modes") {
  // 400 allocations of a parameter's size, each used by a kernel and freed: 1 200 nodes. Each
  // allocation's address is a computed slot no generated code computes (the walker fills it),
  // so compute_slots holds one line, the size, and no allocation's address.
  const int allocations = 400;
  std::string text = "kernel k(p: f32*, i: i32);\ngraph g(p: f32*, n: i32) {\n";
  for (int i = 0; i < allocations; ++i)
    text += fmt::format("  alloc t{0}: f32[n];\n  k<<<1, 32>>>(t{0}, {0});\n  free t{0};\n", i);
  text += "}\n";
  for (const emit_mode mode : {emit_mode::explicit_nodes, emit_mode::stream_capture}) {
    CAPTURE(static_cast<int>(mode));
    const std::string table = emitted(text, mode);
    CHECK(count(table, "the table form") == 1);
    CHECK(count(table, "{A,0,0,") == allocations);
    CHECK(count(table, "{F,0,0,") == allocations);
    CHECK(count(table, "{K,") == allocations);
    CHECK(count(table, "{allocation_slots, 400}}") == 1);
    CHECK(count(table, "g.allocations") == 0);
    CHECK(count(table, "  s[") == 1);  // n * 4, once for every alloc row
  }
}

TEST_CASE("emit.the_table_form_converts_constants_once_and_keeps_the_rest_as_slots") {
  auto c = compile_text("kernel k(p: f32*, i: i32);\ngraph g(p: f32*, first: i32) {\n  k<<<1, 32>>>(p, first);\n"
                        "  k<<<1, 32>>>(p, 7);\n}\n");
  REQUIRE(c.ok());
  auto table = emit_cpp(c.program(), c.source, emit_mode::explicit_nodes, 1);
  REQUIRE(table.code);
  const std::string& code = *table.code;
  // 1 and 32 as launch dimensions, 0 shared bytes and 7 as an i32, each converted once: the
  // entries of converted constants are odd, the slots' (p, first) even.
  CHECK(count(code, "inline constexpr std::uint64_t converted[] = {1u,32u,0u,7u};") == 1);
  CHECK(count(code, "inline constexpr char constant_kinds[] = \"\";") == 1);
  CHECK(count(code, "inline constexpr std::uint32_t slot_lists[] = {1,1,1,3,1,1,5,0,2,0,7};") == 1);
  CHECK(count(code, "  s[0] = cgraph::value::pointer(cg::address(p.p));") == 1);
  CHECK(count(code, "  s[1] = cgraph::value::integer(std::int64_t{p.first});") == 1);

  // A constant that does not convert (the checks let none through: here the IR is changed
  // after them) stays a constant slot, so the build converts it and reports it at its node.
  for (auto& e : c.result.program->graphs[0].exprs)
    if (e.is_constant() && e.constant().k == ir::value::kind::integer && e.constant().i == 7) e.set_constant(ir::value::integer(std::int64_t{1} << 40));
  auto unconverted = emit_cpp(c.program(), c.source, emit_mode::explicit_nodes, 1);
  REQUIRE(unconverted.code);
  CHECK(count(*unconverted.code, "inline constexpr char constant_kinds[] = \"i\";") == 1);
  CHECK(count(*unconverted.code, "inline constexpr std::uint64_t constant_bits[] = {1099511627776u};") == 1);
  CHECK(count(*unconverted.code, "  s[0] = cgraph::value::pointer(cg::address(p.p));") == 1);  // slot 1, after the constant
  CHECK(count(*unconverted.code, "inline constexpr std::uint32_t slot_lists[] = {1,1,1,3,1,1,5,2,4,2,0};") == 1);
}

TEST_CASE("emit.a_file_name_of_any_bytes_is_a_valid_literal_and_comment") {
  // The file's name is a C++ string literal (`file`) and part of every step's comment: a raw
  // carriage return ends a literal for some compilers, a line break would end the comment.
  source_file src("a\r\"b\\\n\xFF.cgraph", "kernel k(n: i32);\ngraph g(n: i32) { k<<<1, 1>>>(n); }\n");
  auto result = compile(src);
  REQUIRE(result.program);
  for (auto mode : {emit_mode::explicit_nodes, emit_mode::stream_capture}) {
    auto out = emit_cpp(*result.program, src, mode);
    REQUIRE(out.code);
    CHECK(out.code->find(R"(inline constexpr const char* file = "a\015\"b\\\n\377.cgraph";)") != std::string::npos);
    CHECK(out.code->find("a<0D>\"b\\<0A><FF>.cgraph:2:1") != std::string::npos);  // a comment's position
    CHECK(out.code->find('\r') == std::string::npos);
    CHECK(out.code->find('\xFF') == std::string::npos);
  }
}

TEST_CASE("emit.include_paths_are_written_as_named") {
  // C++ takes no escapes in a header name: a backslash is a Windows path's and stays single.
  const std::string code = emitted("include \"dir\\\\k.cuh\";\ninclude \"a\\tb.cuh\";\nkernel k(n: i32);\n"
                                   "graph g(n: i32) { k<<<1, 1>>>(n); }\n",
                                   emit_mode::explicit_nodes);
  CHECK(code.find("#include \"dir\\k.cuh\"\n") != std::string::npos);
  CHECK(code.find("#include \"a\tb.cuh\"\n") != std::string::npos);
}

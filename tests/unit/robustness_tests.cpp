// Bad input never crashes, hangs or grows without bound: it ends in diagnostics or success.

#include "support.hpp"

#include <cgraph/dsl/format.hpp>
#include <cgraph/compiler/printers.hpp>

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

using namespace cgraph;
using cgraph::test::compile_text;

namespace {

std::vector<std::string> example_texts() {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(CGRAPH_EXAMPLES_DIR)) {
    if (entry.path().extension() != ".cgraph") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    out.push_back(s.str());
  }
  return out;
}

// Compiles, and when that succeeds also prints IR, DOT and the formatted text.
void exercise(const std::string& text) {
  auto c = compile_text(text);
  if (c.ok()) {
    (void)print_ir(c.program(), c.source);  // empty for a file with no declarations
    CHECK_FALSE(print_dot(c.program(), c.source).empty());
  } else {
    CHECK(c.result.diags.has_errors());
    CHECK_FALSE(c.errors().empty());
  }
  diagnostics d;
  (void)dsl::format_source(c.source, d);
}

}  // namespace

TEST_CASE("robustness.random_bytes") {
  std::mt19937 rng(12345);
  for (int i = 0; i < 300; ++i) {
    // Bytes 1-255: a NUL ends the compile at once ("not a text file"), and most of these
    // texts would hold one, so they would reach neither the pre-scan nor the parser.
    std::string text(static_cast<std::size_t>(rng() % 200), '\0');
    for (auto& ch : text) ch = static_cast<char>(1 + rng() % 255);
    exercise(text);
  }
}

TEST_CASE("robustness.mutated_examples") {
  auto examples = example_texts();
  REQUIRE_FALSE(examples.empty());
  std::mt19937 rng(777);
  const std::string alphabet = "{}()<>;:,=+-*/%&|^\"'.0123456789abcxyz_ \n\t@";
  for (const auto& base : examples) {
    exercise(base);
    for (int i = 0; i < 150; ++i) {
      std::string text = base;
      int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits && !text.empty(); ++e) {
        auto pos = rng() % text.size();
        switch (rng() % 3) {
          case 0: text.erase(pos, 1 + rng() % 8); break;
          case 1: text.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
          default: text[pos] = alphabet[rng() % alphabet.size()];
        }
      }
      exercise(text);
    }
  }
}

TEST_CASE("robustness.deep_nesting_is_a_diagnostic") {
  auto c = compile_text("graph g() { let a = " + std::string(100000, '(') + "1" + std::string(100000, ')') + "; }");
  CHECK(c.first_error() == "nesting is deeper than the limit of 256 levels");
  auto blocks = compile_text("graph g() " + std::string(5000, '{') + std::string(5000, '}'));
  CHECK(blocks.first_error() == "nesting is deeper than the limit of 256 levels");
}

namespace {
// A launch whose argument is `depth` conditional expressions, each in the `:` branch of the one
// before; and a graph whose `if` is followed by `links` links of `else if`.
std::string choices(int depth) {
  std::string e;
  for (int i = 0; i < depth; ++i) e += "n ? 1 : ";
  return "kernel k(x: i32);\ngraph g(n: i32) { k<<<1, 1>>>(" + e + "2); }\n";
}
std::string else_if_chain(int links) {
  std::string conds, chain = "if c0 { }";
  for (int i = 0; i <= links; ++i) conds += fmt::format("cond c{}; k<<<1, 1>>>(c{}); ", i, i);
  for (int i = 1; i <= links; ++i) chain += fmt::format(" else if c{} {{ }}", i);
  return "kernel k(c: cond);\ngraph g() { " + conds + chain + " }\n";
}
}  // namespace

TEST_CASE("robustness.unbracketed_nesting_is_a_diagnostic") {
  // `? :` and `else if` nest without a bracket; 20 000 of either overflowed the stack. Each
  // counts levels up to the nesting limit, with one error where the chain crosses it.
  CHECK(compile_text(choices(256)).ok());
  for (int depth : {257, 100000}) {
    auto c = compile_text(choices(depth));
    REQUIRE(c.result.diags.all().size() == 1);
    CHECK(c.first_error() == "conditional expressions ('? :') nest deeper than the limit of 256 levels");
    CHECK(c.source.position(c.result.diags.all()[0].range.begin) == "test.cgraph:2:2081");  // the 257th '?'
  }
  CHECK(compile_text(else_if_chain(256)).ok());
  for (int links : {257, 50000}) {
    auto c = compile_text(else_if_chain(links));
    REQUIRE(c.result.diags.all().size() == 1);
    CHECK(c.first_error() == "'else if' chains nest deeper than the limit of 256 levels");
  }
  // The limit is compile_limits::max_nesting, which brackets share.
  compile_limits four;
  four.max_nesting = 4;
  CHECK(compile_text(choices(4), four).ok());
  CHECK(compile_text(choices(5), four).first_error() ==
        "conditional expressions ('? :') nest deeper than the limit of 4 levels");
  // fmt parses the same way, and ends in the same error.
  auto deep = compile_text(choices(100000));
  diagnostics d;
  (void)dsl::format_source(deep.source, d);
  CHECK(d.has_errors());
}

TEST_CASE("robustness.a_compile_reports_at_most_max_errors_then_counts_the_rest") {
  // The limit holds for every pass's errors, cut in the order of the file.
  std::string text = "graph g() {\n";
  for (int i = 0; i < 40; ++i) text += fmt::format("  k{}<<<1, 1>>>();\n", i);
  text += "}\n";
  CHECK(compile_text(text).result.diags.error_count() == 40);
  compile_limits five;
  five.max_errors = 5;
  auto c = compile_text(text, five);
  const auto& all = c.result.diags.all();
  REQUIRE(all.size() == 6);
  CHECK(all[4].message == "unknown kernel 'k4'");
  CHECK(all[5].message == "too many errors: 35 more are not shown (at most 5 are)");
  CHECK(c.source.location(all[5].range.begin).line == 7);
}

TEST_CASE("robustness.constant_chains") {
  // Written in order, a chain of any length evaluates one constant at a time; it overflowed the
  // stack at 5 000 when a graph used its last constant first.
  std::string in_order = "kernel k(x: i64);\nconst c0 = 1;\n";
  for (int i = 1; i < 50000; ++i) in_order += fmt::format("const c{} = c{} + 1;\n", i, i - 1);
  CHECK(compile_text(in_order + "graph g() { k<<<1, 1>>>(c49999); }\n").ok());
  // Each using one declared after it, a chain recurses: capped at the nesting limit.
  auto backwards = [](int length) {
    std::string text = "kernel k(x: i64);\ngraph g() { k<<<1, 1>>>(c0); }\n";
    for (int i = 0; i < length; ++i) text += fmt::format("const c{} = c{} + 1;\n", i, i + 1);
    return text + fmt::format("const c{} = 0;\n", length);
  };
  CHECK(compile_text(backwards(255)).ok());  // 256 constants, each evaluated inside the one before
  auto deep = compile_text(backwards(256));
  REQUIRE(deep.result.diags.all().size() == 1);
  CHECK(deep.first_error() == "constants nest deeper than the limit of 256 levels: 'c256' is evaluated inside 256 "
                              "others, each using one declared after it");
  CHECK(deep.source.position(deep.result.diags.all()[0].range.begin) == "test.cgraph:258:14");  // c255's use of c256
  CHECK_FALSE(compile_text(backwards(100000)).ok());
  // A cycle longer than the limit ends in the same error, not a stack overflow.
  std::string cycle = "graph g() { }\n";
  for (int i = 0; i < 10000; ++i) cycle += fmt::format("const c{} = c{};\n", i, (i + 1) % 10000);
  CHECK_FALSE(compile_text(cycle).ok());
}

TEST_CASE("robustness.struct_constants_read_in_linear_time") {
  // Each constant reads two fields of the one before: lowering each use's literal again took
  // time doubling a link (22 links, 4.4 s). 200 links now lower each literal once.
  std::string text = "struct S { a: i32; b: i32; }\nkernel k(s: S);\nconst c0 = S { a: 1, b: 2 };\n";
  for (int i = 1; i < 200; ++i) text += fmt::format("const c{} = S {{ a: c{}.a, b: c{}.b + 1 }};\n", i, i - 1, i - 1);
  auto c = compile_text(text + "graph g() { k<<<1, 1>>>(c199); }\n");
  REQUIRE(c.ok());
  CHECK(print_ir(c.program(), c.source).find("k<<<1, 1>>>(S { a: 1, b: 201 })") != std::string::npos);
}

TEST_CASE("robustness.did_you_mean_work_is_capped") {
  // Every unknown name is compared with every name in scope: 20 000 `let`s and 20 000
  // misspelled uses took minutes, two 60 000-character names 12 s. A compile's comparisons are
  // capped (compile_limits::max_suggestion_cells); past the cap, errors come without a hint.
  std::string text = "kernel k(n: i32);\ngraph g() {\n";
  for (int i = 0; i < 20; ++i) text += fmt::format("let value{} = {};\n", i, i);
  for (int i = 0; i < 20; ++i) text += fmt::format("k<<<1, 1>>>(valeu{});\n", i);
  text += "}\n";
  auto hinted = [](const cgraph::test::compiled& c) {
    int n = 0;
    for (const auto& d : c.result.diags.all()) n += d.message.find("did you mean") != std::string::npos;
    return n;
  };
  auto all = compile_text(text);
  REQUIRE(all.result.diags.all().size() == 20);
  CHECK(hinted(all) == 20);
  CHECK(all.first_error() == "use of undeclared name 'valeu0'; did you mean 'value0'?");
  compile_limits small;
  small.max_suggestion_cells = 20 * 7 * 8 * 3;  // about three errors' comparisons
  auto capped = compile_text(text, small);
  REQUIRE(capped.result.diags.all().size() == 20);  // every error still reported
  CHECK(hinted(capped) > 0);
  CHECK(hinted(capped) < 20);
  // Names whose lengths differ by more than the edits allowed are not compared at all, and a
  // long misspelled name costs its table's cells: past the budget, no hint.
  const std::string name(60000, 'a');
  auto long_names = compile_text("kernel k(n: i32);\ngraph g(" + name + ": i32) { k<<<1, 1>>>(" + name + "b); }\n");
  CHECK(long_names.first_error().find("did you mean") == std::string::npos);
}

TEST_CASE("robustness.a_struct_literal_names_at_most_eight_missing_fields") {
  // Every missing field was named: a 2 000-field struct in 20 000 literals printed 340 MB.
  std::string fields;
  for (int i = 0; i < 2000; ++i) fields += fmt::format("f{}: i32; ", i);
  auto c = compile_text("struct S { " + fields + "}\nkernel k(s: S);\ngraph g() { k<<<1, 1>>>(S { f3: 1 }); }\n");
  CHECK(c.first_error() == "struct literal 'S' does not give fields 'f0', 'f1', 'f2', 'f4', 'f5', 'f6', 'f7', 'f8' "
                           "and 1991 more (every field is given once)");
  auto one = compile_text("struct T { a: i32; b: i32; }\nkernel k(t: T);\ngraph g() { k<<<1, 1>>>(T { a: 1 }); }\n");
  CHECK(one.first_error() == "struct literal 'T' does not give field 'b' (every field is given once)");
}

TEST_CASE("robustness.diagnostics_grow_with_the_file_not_with_its_square") {
  // Each graph of a chain also calls the first: every cycle was printed whole, 92 MB from a
  // 170 KB file. A cycle now shows its first and last four graphs and counts the rest.
  std::string chain = "kernel k(n: i32);\n";
  const int n = 3000;
  for (int i = 0; i < n; ++i)
    chain += fmt::format("graph g{}() {{ {}call g0(); }}\n", i, i + 1 < n ? fmt::format("call g{}(); ", i + 1) : "");
  auto cycles = compile_text(chain);
  REQUIRE(cycles.result.diags.error_count() == n);  // every cycle still reported
  CHECK(cycles.result.diags.all().front().message == "recursive call: 'g0' → 'g0'");
  CHECK(cycles.result.diags.all()[8].message ==
        "recursive call: 'g0' → 'g1' → 'g2' → 'g3' → 'g4' → 'g5' → 'g6' → 'g7' → 'g8' → 'g0'");
  CHECK(cycles.result.diags.all()[9].message ==
        "recursive call: 'g0' → 'g1' → 'g2' → 'g3' → … 2 more → 'g6' → 'g7' → 'g8' → 'g9' → 'g0'");
  CHECK(cycles.result.diags.all().back().message ==
        "recursive call: 'g0' → 'g1' → 'g2' → 'g3' → … 2992 more → 'g2996' → 'g2997' → 'g2998' → 'g2999' → 'g0'");
  CHECK(cycles.errors().size() < 10 * chain.size());
  // A kernel's parameter is named in each wrong argument: a 10 000-byte name in 2 000 calls
  // printed 20 MB from 52 KB. Every message is now at most about 512 bytes.
  std::string calls = "kernel k(" + std::string(10000, 'p') + ": i32);\ngraph g() {\n";
  for (int i = 0; i < 2000; ++i) calls += "  k<<<1, 1>>>(1.5);\n";
  auto long_name = compile_text(calls + "}\n");
  REQUIRE(long_name.result.diags.error_count() == 2000);
  CHECK(long_name.errors().size() < 2000 * 700);
}

TEST_CASE("robustness.implied_after_checks_take_linear_time") {
  // Each `after a` is implied through every statement before it: walked to the end, 50 000 of
  // them take 1.25e9 steps. The walks share a budget of 16 steps a node (about 800 000 here),
  // then only direct dependencies count: the walks that fit warn (the i-th takes i steps, so
  // about 1 270 of them), and the count of warnings shows that the rest were cut short.
  std::string text = "kernel k(n: i32);\ngraph g() {\n  a: k<<<1, 1>>>(0);\n";
  const int n = 50000;
  for (int i = 0; i < n; ++i) text += "  k<<<1, 1>>>(1) after a;\n";
  auto c = compile_text(text + "}\n");
  REQUIRE_MESSAGE(c.ok(), c.first_error());
  const auto warned = std::count_if(c.result.diags.all().begin(), c.result.diags.all().end(),
                                    [](const auto& d) { return d.level == severity::warning; });
  CHECK(warned > 1000);
  CHECK(warned < 1500);
}

TEST_CASE("robustness.long_repetitions_of_every_construct_end_in_a_result") {
  // What found this file's overflows and slow paths: every construct repeated 20 000 times,
  // nested or chained where it can be, far past the fuzzer's 8 KB inputs. Each text must compile
  // or fail with diagnostics, and its IR, DOT and formatted text must come back, without a
  // crash (the ctest timeout bounds the time).
  struct shape {
    const char* name;
    std::string head, unit, tail;  // head + unit × n + tail; "#" in unit is the repetition's number
  };
  const std::string decls = "struct S { a: i32; s: i32; }\nkernel k(n: i32);\nkernel kc(n: i32, c: cond);\n";
  const std::vector<shape> shapes = {
      {"blocks", "graph g() ", "{ ", "}"},
      {"ifs", "graph g() { cond c; kc<<<1, 1>>>(1, c); ", "if c { ", "}"},
      {"whiles", "graph g() { cond c = 0; kc<<<1, 1>>>(1, c); ", "while c { ", "}"},
      {"repeats", "graph g() { ", "repeat 2 { ", "}"},
      {"parallels", "graph g() { ", "parallel { k<<<1, 1>>>(1); ", "}"},
      {"fors", "graph g() { ", "for i# in 0..1 { ", "}"},
      {"calls of min", "graph g() { k<<<1, 1>>>(", "min(1, ", "1)"},
      {"signs", "graph g() { k<<<1, 1>>>(", "!-", "1); }"},
      {"fields", "graph g(s: S) { k<<<1, 1>>>(s", ".a", "); }"},
      {"struct literals", "graph g() { let v = ", "S { a: 1, s: ", "0 }"},
      {"labels and afters", "graph g() { a: k<<<1, 1>>>(1); ", "a#: k<<<1, 1>>>(1) after a; ", "}"},
      {"lets", "graph g(n: i32) { let v = n; ", "let v# = v + 1; ", "}"},
      {"conds", "graph g() { ", "cond c#; ", "}"},
      {"cases", "graph g() { cond c; kc<<<1, 1>>>(1, c); switch c { ", "case # { k<<<1, 1>>>(1); } ", "} }"},
      {"graphs", "", "graph g#() { k<<<1, 1>>>(1); } ", "graph g() { call g7(); }"},
      {"kernels", "", "kernel q#(x: i32); ", "graph g() { }"},
      {"undeclared names", "graph g() { ", "k<<<1, 1>>>(x#); ", "}"},
      {"comments", "graph g() { ", "/* # */ // #\n", "}"},
  };
  for (const shape& sh : shapes) {
    CAPTURE(sh.name);
    std::string text = decls + sh.head;
    for (int i = 0; i < 20000; ++i) {
      std::string unit = sh.unit;
      for (std::size_t at; (at = unit.find('#')) != std::string::npos;) unit.replace(at, 1, std::to_string(i));
      text += unit;
    }
    text += sh.tail;
    // Closing what the units opened: one `}` or `)` for each, where the unit opens one.
    const auto opens = std::count(sh.unit.begin(), sh.unit.end(), '{') + std::count(sh.unit.begin(), sh.unit.end(), '(');
    const auto closes = std::count(sh.unit.begin(), sh.unit.end(), '}') + std::count(sh.unit.begin(), sh.unit.end(), ')');
    for (auto i = closes; i < opens; ++i) text += std::string(20000, sh.unit.find('(') != std::string::npos ? ')' : '}');
    exercise(text + (sh.head.empty() ? "" : "\n"));
  }
}

TEST_CASE("robustness.long_operator_chains_are_capped") {
  std::string many = "1";
  for (int i = 0; i < 5000; ++i) many += " + 1";
  CHECK(compile_text("graph g() { let a = " + many + "; }").first_error() ==
        "expression has 5000 operators, more than the limit of 4096");
  CHECK(compile_text("graph g() { let a = " + std::string(1000000, '-') + "1; }").ok());
}

TEST_CASE("robustness.unterminated_text") {
  CHECK(compile_text("graph g() { /* never closed").first_error() == "unterminated comment: '/*' has no matching '*/'");
  CHECK(compile_text("include \"abc\n;").first_error() ==
        "unterminated string: a '\"' string must end on the line it starts");
  CHECK(compile_text("source s = \"\"\"abc").first_error() ==
        "unterminated raw string: '\"\"\"' has no matching '\"\"\"'");
}

TEST_CASE("robustness.oversized_file_is_refused") {
  compile_limits limits;
  limits.max_file_bytes = 64;
  source_file big("big.cgraph", std::string(65, ' '));
  auto r = compile(big, limits);
  REQUIRE(r.diags.has_errors());
  CHECK(r.diags.all()[0].message == "file is 65 bytes, more than the limit of 64 bytes");
}

namespace {
// `count` graphs, g0 calling g1 calling … g{count-1}; the last one holds `last_body`.
std::string call_chain(int count, const std::string& last_body) {
  std::string text = "host note(n: i32);\n";
  for (int i = 0; i + 1 < count; ++i) text += fmt::format("graph g{}() {{ call g{}(); }}\n", i, i + 1);
  return text + fmt::format("graph g{}() {{ {} }}\n", count - 1, last_body);
}
}  // namespace

TEST_CASE("robustness.long_call_chains_are_capped_without_deep_recursion") {
  CHECK(compile_text(call_chain(64, "")).ok());
  auto deep = compile_text(call_chain(65, ""));
  // One error, where the chain crosses the limit (g0's call of g1), not one per graph above it.
  REQUIRE(deep.result.diags.all().size() == 1);
  CHECK(deep.first_error() == "chain of calls is deeper than the limit of 64 graphs");
  CHECK(deep.source.position(deep.result.diags.all()[0].range.begin) == "test.cgraph:2:19");
  // Deep enough to overflow the stack of a recursive walk (it did).
  auto very_deep = compile_text(call_chain(100000, ""));
  CHECK(very_deep.result.diags.all().size() == 1);
}

TEST_CASE("robustness.host_nodes_are_found_through_long_call_chains_in_linear_time") {
  // The old fixed point took one pass per graph of the chain: quadratic.
  compile_limits deep_calls;
  deep_calls.max_call_depth = 1000000;
  std::string text = call_chain(20000, "host note(1);") + "graph top() { cond c = 1; if c { call g0(); } }\n";
  auto c = compile_text(text, deep_calls);
  CHECK(c.first_error() == "graph 'g0' holds a host callback (directly or through 'call'), which CUDA does not "
                           "allow inside a conditional body");
}

TEST_CASE("robustness.node_count_counts_callees_and_bodies") {
  // Each graph calls the one before twice: 2^30 nodes from a few lines.
  std::string text = "kernel k();\ngraph d0() { k<<<1, 1>>>(); }\n";
  for (int i = 1; i <= 30; ++i) text += fmt::format("graph d{}() {{ call d{}(); call d{}(); }}\n", i, i - 1, i - 1);
  auto c = compile_text(text);
  CHECK(c.first_error() == "graph 'd19' makes more than 1048576 CUDA nodes, counting each graph it calls and each "
                           "conditional body");
  compile_limits small;
  small.max_nodes = 5;
  // 2 kernels + 1 conditional node + 2 bodies = 5; a third kernel makes 6.
  CHECK(compile_text("kernel k();\ngraph g() { cond c = 1; k<<<1,1>>>(); if c { } else { } k<<<1,1>>>(); }", small).ok());
  CHECK(compile_text("kernel k();\ngraph g() { cond c = 1; k<<<1,1>>>(); if c { } else { } k<<<1,1>>>(); k<<<1,1>>>(); }",
                     small)
            .first_error() == "graph 'g' makes more than 5 CUDA nodes, counting each graph it calls and each "
                              "conditional body");
}

TEST_CASE("robustness.non_ascii_byte_after_a_keyword") {
  // Found by replaying the fuzz corpus with assertions on: the word-end check after `module`
  // and `source` handed the byte to std::isalnum as a negative int (undefined behaviour).
  for (const char* keyword : {"module", "source", "graph", "kernel", "host"}) {
    CAPTURE(keyword);
    auto c = compile_text(std::string(keyword) + "\x99 x = \"a.fatbin\";");
    CHECK_FALSE(c.ok());
    CHECK(c.result.diags.has_errors());
  }
}

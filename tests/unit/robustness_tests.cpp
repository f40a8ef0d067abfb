// Bad input never crashes, hangs or grows without bound: it ends in diagnostics or success.

#include "support.hpp"

#include <cgraph/dsl/format.hpp>
#include <cgraph/compiler/printers.hpp>

#include <doctest/doctest.h>

#include <fmt/format.h>

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
    std::string text(static_cast<std::size_t>(rng() % 200), '\0');
    for (auto& ch : text) ch = static_cast<char>(rng() % 256);
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

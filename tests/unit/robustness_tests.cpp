// Bad input never crashes, hangs or grows without bound: it ends in diagnostics or success.

#include "support.hpp"

#include <cgraph/dsl/format.hpp>
#include <cgraph/printers.hpp>

#include <doctest/doctest.h>

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

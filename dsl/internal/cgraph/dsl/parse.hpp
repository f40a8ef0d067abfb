#pragma once
// Text → AST. Syntax errors become diagnostics; parsing resumes at the next ';' or '}'.

#include <cgraph/dsl/diagnostic.hpp>
#include <cgraph/dsl/ast.hpp>
#include <cgraph/dsl/source.hpp>

#include <cstddef>
#include <vector>

namespace cgraph::dsl {

// Caps that keep hostile input from exhausting memory or stack (docs/language.md, "Limits").
struct parse_limits {
  std::size_t max_file_bytes = 16u << 20;  // 16 MiB
  std::size_t max_nesting = 256;           // depth of ( and { combined
};

struct parse_result {
  ast::file file;
  std::vector<source_range> comments;  // every comment, in order (kept for `cgraphc fmt`)
  bool ok = false;                     // no errors were reported
};

parse_result parse(const source_file& source, diagnostics& sink, const parse_limits& limits = {});

}  // namespace cgraph::dsl

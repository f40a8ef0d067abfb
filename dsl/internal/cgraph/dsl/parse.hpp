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

// The tree's names and type names are views of `source`'s text: keep the source, unchanged (no
// segment added), for as long as the tree is read.
struct parse_result {
  ast::file file;
  std::vector<source_range> comments;  // every comment, in order (kept for `cgraphc fmt`)
  bool ok = false;                     // no errors were reported
};

// One segment of `source` (a file; source_file::add_segment) before it is parsed: its comments,
// the names it declares with `struct`, the string tokens of its `import`s; `fatal` when it
// cannot be parsed (too large, unterminated text, nesting too deep).
struct scan_result {
  std::vector<source_range> comments;
  std::vector<std::string> struct_names;
  std::vector<source_range> imports;
  bool fatal = false;
};
scan_result scan(const source_file& source, std::uint32_t segment, diagnostics& sink, const parse_limits& limits = {});

// Parses a scanned segment; `struct_names` are those of every file it sees (its imports too).
parse_result parse(const source_file& source, std::uint32_t segment, scan_result scanned,
                   const std::vector<std::string>& struct_names, diagnostics& sink);

// Scans and parses the first segment alone.
parse_result parse(const source_file& source, diagnostics& sink, const parse_limits& limits = {});

}  // namespace cgraph::dsl

#pragma once
// Text → AST. Syntax errors become diagnostics; parsing resumes at the next ';' or '}'.

#include <cgraph/dsl/diagnostic.hpp>
#include <cgraph/dsl/ast.hpp>
#include <cgraph/dsl/source.hpp>

#include <cstddef>
#include <functional>
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

// A '{' outside all brackets and its matching '}' (`end` is past it), found by the pre-scan;
// `ends` counts the ';' and '}' between, about one per statement.
struct brace_span {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  std::uint32_t ends = 0;
  std::uint32_t commas = 0;
};

// One segment of `source` (a file; source_file::add_segment) before it is parsed: its comments,
// the names it declares with `struct`, the string tokens of its `import`s; `fatal` when it
// cannot be parsed (too large, unterminated text, nesting too deep).
struct scan_result {
  std::vector<source_range> comments;
  std::vector<std::string> struct_names;
  std::vector<source_range> imports;
  std::vector<brace_span> top_braces;  // in order (graph_bodies::defer skips bodies with them)
  bool fatal = false;
  std::size_t max_nesting = parse_limits{}.max_nesting;  // the limit's, for parse() (nesting.hpp)
};
scan_result scan(const source_file& source, std::uint32_t segment, diagnostics& sink, const parse_limits& limits = {});

// Whether parse() parses graph bodies, or skips each to its matching '}' for parse_body to
// parse later (compile's streaming mode, docs/architecture.md "Lowering as the body is parsed").
// A deferred body's block holds its range and deferred_ends only.
enum class graph_bodies : bool { parse, defer };

// Parses a scanned segment; `struct_names` are those of every file it sees (its imports too).
parse_result parse(const source_file& source, std::uint32_t segment, scan_result scanned,
                   const std::vector<std::string>& struct_names, diagnostics& sink,
                   graph_bodies bodies = graph_bodies::parse);

// Parses a graph body that parse() deferred, handing each top-level statement to `each` as it
// is parsed and dropping it after, so that the body's tree never exists whole. True when no
// syntax error was reported; `each` is not called after the first. `max_nesting` is the scan's
// (parse_limits).
bool parse_body(const source_file& source, const ast::block& body, const std::vector<std::string>& struct_names,
                diagnostics& sink, const std::function<void(const ast::statement&)>& each,
                std::size_t max_nesting = parse_limits{}.max_nesting);

// Scans and parses the first segment alone.
parse_result parse(const source_file& source, diagnostics& sink, const parse_limits& limits = {});

}  // namespace cgraph::dsl

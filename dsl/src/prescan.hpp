#pragma once
// One linear pass over the bytes before parsing: reports bytes that start no token, invalid
// UTF-8, unterminated comments and strings, and nesting beyond the limit; collects comments.

#include <cgraph/dsl/diagnostic.hpp>
#include <cgraph/dsl/parse.hpp>
#include <cgraph/dsl/source.hpp>

#include <cstddef>
#include <string_view>
#include <vector>

namespace cgraph::dsl::detail {

struct prescan_result {
  std::vector<source_range> comments;
  // The NAME of every `struct NAME` outside comments and strings: the grammar needs them to
  // tell a struct type or literal (`P { x: 1 }`) from a name before a block (`repeat n { … }`).
  std::vector<std::string_view> struct_names;
  // The string token of every top-level `import "…"`, quotes included: a file's imports are
  // read before it is parsed, since their struct names shape its grammar.
  std::vector<source_range> imports;
  // Every '{' outside all brackets (a graph's or a struct's body) with its matching '}', and
  // the ';' and '}' between: parse()'s deferred graph bodies are skipped with them.
  std::vector<brace_span> top_braces;
  bool fatal = false;  // parsing would not be meaningful (unterminated text, nesting too deep)
};

// `text` starts at byte `base` of its source (a segment, source_file::add_segment).
prescan_result prescan(std::string_view text, std::uint32_t base, diagnostics& sink, std::size_t max_nesting);

}  // namespace cgraph::dsl::detail

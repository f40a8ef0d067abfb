#include <cgraph/dsl/parse.hpp>

#include "config.hpp"
#include "file.hpp"
#include "parser_state.hpp"
#include "prescan.hpp"
#include "statement.hpp"

#include <fmt/format.h>

#include <cstring>

namespace cgraph::dsl {

scan_result scan(const source_file& source, std::uint32_t segment, diagnostics& sink, const parse_limits& limits) {
  scan_result result;
  source_range range = source.segment_range(segment);
  std::string_view text = source.text().substr(range.begin, range.end - range.begin);
  if (text.size() > limits.max_file_bytes) {
    sink.error({range.begin, range.begin}, fmt::format("file is {} bytes, more than the limit of {} bytes",
                                                       text.size(), limits.max_file_bytes));
    result.fatal = true;
    return result;
  }
  // Text has no NUL byte: a file with one is binary, or text in UTF-16 or UTF-32, given by
  // mistake. One error says so, where a syntax error for each run of its bytes said nothing
  // about the file (a binary of 100 KB: the limit of 100 errors and a count of the rest).
  if (const void* nul = std::memchr(text.data(), '\0', text.size())) {
    const auto at = range.begin + static_cast<std::uint32_t>(static_cast<const char*>(nul) - text.data());
    sink.error({at, at + 1}, "not a text file: it holds a NUL byte (0x00) here; a .cgraph file is UTF-8 text "
                             "(is this a binary file, or text saved as UTF-16?)");
    result.fatal = true;
    return result;
  }
  auto scanned = detail::prescan(text, range.begin, sink, limits.max_nesting);
  result.comments = std::move(scanned.comments);
  result.struct_names.assign(scanned.struct_names.begin(), scanned.struct_names.end());
  result.imports = std::move(scanned.imports);
  result.top_braces = std::move(scanned.top_braces);
  result.fatal = scanned.fatal;
  result.max_nesting = limits.max_nesting;
  return result;
}

parse_result parse(const source_file& source, std::uint32_t segment, scan_result scanned,
                   const std::vector<std::string>& struct_names, diagnostics& sink, graph_bodies bodies) {
  parse_result result;
  result.comments = std::move(scanned.comments);
  if (scanned.fatal) return result;
  std::size_t errors_before = sink.error_count();
  source_range range = source.segment_range(segment);

  parser::parser_state state;
  state.start(source, range, range.end, struct_names, sink, scanned.max_nesting);
  if (bodies == graph_bodies::defer) {
    state.defer_graph_bodies = true;
    state.top_braces = std::move(scanned.top_braces);
  }
  // The pre-scan's errors in this segment (stray bytes): recovery adds none on their lines.
  for (const auto& d : sink.all())
    if (d.range.begin >= range.begin && d.range.begin <= range.end) state.prescan_errors.push_back(d.range.begin);
  parser::parser_state_scope scope(state);
  const char* first = state.begin;
  bool parsed = boost::spirit::x3::phrase_parse(first, state.end, file(), parser::skipper{}, result.file);
  if (!parsed || first != state.end)  // recovery consumes everything; this is a safety net
    sink.error({state.offset(first), state.offset(first)}, "expected a declaration");
  result.ok = sink.error_count() == errors_before;
  return result;
}

bool parse_body(const source_file& source, const ast::block& body, const std::vector<std::string>& struct_names,
                diagnostics& sink, const std::function<void(const ast::statement&)>& each, std::size_t max_nesting) {
  std::size_t errors_before = sink.error_count();
  std::uint32_t segment = 0;
  while (segment + 1 < source.segment_count() && source.segment_range(segment).end < body.begin) ++segment;
  source_range range = source.segment_range(segment);

  parser::parser_state state;
  state.start(source, range, body.end, struct_names, sink, max_nesting);
  state.on_statement = &each;
  parser::parser_state_scope scope(state);
  const char* first = source.text().data() + body.begin;
  try {
    if (!parser::parse_body_statements(first, state.end) || first != state.end)
      state.error(first, first, "expected a statement");
  } catch (const boost::spirit::x3::expectation_failure<const char*>& failure) {
    state.error(failure.where(), failure.where(), "expected " + failure.which());
  }
  return sink.error_count() == errors_before;
}

parse_result parse(const source_file& source, diagnostics& sink, const parse_limits& limits) {
  std::size_t errors_before = sink.error_count();
  scan_result scanned = scan(source, 0, sink, limits);
  std::vector<std::string> names = scanned.struct_names;
  parse_result result = parse(source, 0, std::move(scanned), names, sink);
  result.ok = sink.error_count() == errors_before;  // the pre-scan's errors count
  return result;
}

}  // namespace cgraph::dsl

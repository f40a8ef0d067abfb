#include <cgraph/dsl/parse.hpp>

#include "config.hpp"
#include "file.hpp"
#include "parser_state.hpp"
#include "prescan.hpp"

#include <fmt/format.h>

namespace cgraph::dsl {

parse_result parse(const source_file& source, diagnostics& sink, const parse_limits& limits) {
  parse_result result;
  std::string_view text = source.text();
  std::size_t errors_before = sink.error_count();
  if (text.size() > limits.max_file_bytes) {
    sink.error({0, 0}, fmt::format("file is {} bytes, more than the limit of {} bytes", text.size(),
                                   limits.max_file_bytes));
    return result;
  }
  const std::size_t diagnostics_before = sink.all().size();
  auto scan = detail::prescan(text, sink, limits.max_nesting);
  result.comments = std::move(scan.comments);
  if (scan.fatal) return result;

  parser::parser_state state;
  state.begin = text.data();
  state.end = text.data() + text.size();
  state.sink = &sink;
  state.struct_names = std::move(scan.struct_names);
  for (std::size_t i = diagnostics_before; i < sink.all().size(); ++i)
    state.prescan_errors.push_back(sink.all()[i].range.begin);
  parser::parser_state_scope scope(state);
  const char* first = state.begin;
  bool parsed = boost::spirit::x3::phrase_parse(first, state.end, file(), parser::skipper{}, result.file);
  if (!parsed || first != state.end)  // recovery consumes everything; this is a safety net
    sink.error({state.offset(first), state.offset(first)}, "expected a declaration");
  result.ok = sink.error_count() == errors_before;
  return result;
}

}  // namespace cgraph::dsl

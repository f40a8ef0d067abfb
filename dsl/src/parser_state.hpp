#pragma once
// State shared by the grammar's handlers during one parse: the buffer (to turn iterators
// into offsets) and the diagnostics sink. Set for the duration of parse() on this thread.

#include <cgraph/dsl/ast.hpp>
#include <cgraph/dsl/diagnostic.hpp>
#include <cgraph/dsl/parse.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string_view>
#include <string>
#include <vector>

namespace cgraph::dsl::parser {

struct parser_state {
  const char* begin = nullptr;  // the segment being parsed (source_file::add_segment)
  const char* end = nullptr;
  std::uint32_t base = 0;       // begin's offset in the source
  diagnostics* sink = nullptr;

  std::uint32_t offset(const char* p) const { return base + static_cast<std::uint32_t>(p - begin); }

  // Set up for a parse of `segment` up to the offset `parse_end`.
  void start(const source_file& source, source_range segment, std::uint32_t parse_end,
             const std::vector<std::string>& names, diagnostics& diags, std::size_t nesting_limit) {
    begin = source.text().data() + segment.begin;
    end = source.text().data() + parse_end;
    base = segment.begin;
    sink = &diags;
    struct_names.assign(names.begin(), names.end());
    max_nesting = nesting_limit;
  }
  std::vector<std::uint32_t> syntax_errors;  // offsets of the errors this parse reported
  // Set when a statement or declaration reported its own failure; the recovery that follows
  // then adds no second message. (Where the iterator stands after a failed rule differs
  // between Boost versions, so positions alone cannot tell.)
  bool failure_reported = false;

  diagnostic& error(const char* from, const char* to, std::string message) {
    syntax_errors.push_back(offset(from));
    return sink->error({offset(from), offset(to)}, std::move(message));
  }
  // Notes for "expected '}', found end of file": the '{' left open, and a '}' whose
  // indentation differs from its '{' line's (where a '}' is probably missing).
  void note_unclosed_braces(diagnostic& d) const;
  std::vector<std::uint32_t> prescan_errors;  // offsets of the pre-scan's errors (stray bytes)
  // Whether any error, the pre-scan's included, was reported on the line of `at` before it.
  bool line_has_error(const char* at) const;
  // Whether a syntax error was already reported in [from, to]: recovery then adds none.
  // (The pre-scan's stray-byte errors do not count: the skipper steps over those bytes.)
  bool has_error_in(const char* from, const char* to) const;

  // Nesting that no bracket shows (nesting.hpp): the levels open now, and the most allowed
  // (parse_limits::max_nesting, which the pre-scan applies to brackets).
  std::size_t unbracketed_depth = 0;
  std::size_t max_nesting = 0;

  // The names declared with `struct` (from the pre-scan), which name types and start literals.
  std::vector<std::string_view> struct_names;
  bool is_struct_name(std::string_view word) const {
    return std::find(struct_names.begin(), struct_names.end(), word) != struct_names.end();
  }

  // The last node prefix parsed (`[[…]] label: … after …`) and where it began and ended. Every
  // prefixed statement starts with one, and the statement alternatives are tried in turn from
  // the same position: the first parses it, the others take it from here (statement_def.hpp).
  struct prefix_memo {
    const char* at = nullptr;
    const char* end = nullptr;
    ast::prefix_parts value;
  } prefix;

  // parse()'s deferred mode (graph_bodies::defer): a graph's body is skipped to its matching
  // '}', which the pre-scan found (top_braces; file_def.hpp, graph_body_parser).
  bool defer_graph_bodies = false;
  std::vector<brace_span> top_braces;
  // The pre-scan's span that begins at `offset`, or null.
  const brace_span* top_brace_at(std::uint32_t offset) const {
    auto it = std::lower_bound(top_braces.begin(), top_braces.end(), offset,
                               [](const brace_span& b, std::uint32_t at) { return b.begin < at; });
    return it != top_braces.end() && it->begin == offset && it->end != 0 ? &*it : nullptr;
  }
  // parse_body(): each statement of the body, as it is parsed, until the first syntax error.
  const std::function<void(const ast::statement&)>* on_statement = nullptr;

  // Inline: the grammar's handlers ask for it about fifteen times a node, and an out-of-line
  // call each time was 1% of the front end's instructions.
  static parser_state*& current() { return current_; }

private:
  static inline thread_local parser_state* current_ = nullptr;
};

// Installs a parser_state for the current thread and restores the previous one.
class parser_state_scope {
public:
  explicit parser_state_scope(parser_state& s) : saved_(parser_state::current()) { parser_state::current() = &s; }
  ~parser_state_scope() { parser_state::current() = saved_; }
  parser_state_scope(const parser_state_scope&) = delete;
  parser_state_scope& operator=(const parser_state_scope&) = delete;

private:
  parser_state* saved_;
};

// A short description of the token at p, for "expected X, found Y".
std::string describe_token(const char* p, const char* end);

}  // namespace cgraph::dsl::parser

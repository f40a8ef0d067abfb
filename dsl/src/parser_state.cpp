#include "parser_state.hpp"

#include "error_handler.hpp"
#include "lexical.hpp"

#include <cgraph/dsl/suggest.hpp>

#include <algorithm>

namespace cgraph::dsl::parser {

bool parser_state::has_error_in(const char* from, const char* to) const {
  std::uint32_t lo = offset(from), hi = offset(to);
  // Errors are reported in increasing position, so the newest are at the back.
  for (auto it = syntax_errors.rbegin(); it != syntax_errors.rend(); ++it) {
    if (*it < lo) return false;
    if (*it <= hi) return true;
  }
  return false;
}

bool parser_state::line_has_error(const char* at) const {
  const char* line = lexical::line_start(begin, at);
  const std::uint32_t lo = offset(line), hi = offset(at);
  auto on_line = [&](std::uint32_t o) { return o >= lo && o <= hi; };
  return has_error_in(line, at) || std::any_of(prescan_errors.begin(), prescan_errors.end(), on_line);
}

namespace {

// The indentation (leading spaces and tabs) of the line holding p, and whether p is the line's
// first token.
struct line_shape {
  std::size_t indent = 0;
  bool first_on_line = false;
};
line_shape shape_of(const char* begin, const char* p) {
  const char* start = lexical::line_start(begin, p);
  const char* q = start;
  while (q != p && (*q == ' ' || *q == '\t')) ++q;
  return {static_cast<std::size_t>(q - start), q == p};
}

}  // namespace

void parser_state::note_unclosed_braces(diagnostic& d) const {
  std::vector<const char*> open;
  const char* misplaced_close = nullptr;  // the first '}' whose indentation differs from its '{'
  const char* its_open = nullptr;
  for (const char* p = begin; p < end;) {
    if (*p == '"') {
      const char* q = lexical::skip_string(p, end);
      p = q ? q : end;
    } else if (*p == '/' && end - p >= 2 && (p[1] == '/' || p[1] == '*')) {
      const char* q = p[1] == '/' ? lexical::skip_line_comment(p, end) : lexical::skip_block_comment(p, end);
      p = q ? q : end;
    } else {
      if (*p == '{') open.push_back(p);
      if (*p == '}' && !open.empty()) {
        line_shape close = shape_of(begin, p), opening = shape_of(begin, open.back());
        if (!misplaced_close && close.first_on_line && close.indent != opening.indent) {
          misplaced_close = p;
          its_open = open.back();
        }
        open.pop_back();
      }
      ++p;
    }
  }
  if (open.empty()) return;
  const char* unclosed = open.back();
  d.note({offset(unclosed), offset(unclosed) + 1}, "this '{' is never closed");
  if (misplaced_close) {
    const auto line = 1 + std::count(begin, its_open, '\n');
    d.note({offset(misplaced_close), offset(misplaced_close) + 1},
                       "this '}' closes the '{' at " + std::to_string(line) + ":" +
                           std::to_string(its_open - lexical::line_start(begin, its_open) + 1) +
                           ", on a line indented differently; a '}' may be missing before it");
  }
}

std::string describe_token(const char* p, const char* end) {
  p = lexical::skip_trivia(p, end);
  if (p == end) return "end of file";
  if (lexical::is_ident_char(*p)) return "'" + std::string(p, lexical::scan_word(p, end)) + "'";
  for (std::string_view multi : {"<<<", ">>>", "<<", ">>", "//", "/*"})
    if (static_cast<std::size_t>(end - p) >= multi.size() && std::string_view(p, multi.size()) == multi)
      return multi[0] == '/' ? "a comment" : "'" + std::string(multi) + "'";
  if (*p == '"') return "a string";
  return "'" + std::string(1, *p) + "'";
}

std::string readable_expectation(std::string which) {
  // An unnamed composite parser is described by its mangled C++ type: never show that.
  if (which.find("boost") != std::string::npos) return "more input";
  if (which.size() >= 2 && which.front() == '"' && which.back() == '"') {
    which.front() = '\'';
    which.back() = '\'';
  }
  return which;
}

namespace {

// The word that ends just before `at` (spaces between allowed), or empty.
std::string_view word_before(const char* begin, const char* at) {
  const char* q = at;
  while (q != begin && lexical::is_space(q[-1])) --q;
  const char* p = q;
  while (p != begin && lexical::is_ident_char(p[-1])) --p;
  return {p, static_cast<std::size_t>(q - p)};
}

// C and CUDA spellings of cgraph's types.
std::string_view cgraph_type_for(std::string_view c) {
  static constexpr std::pair<std::string_view, std::string_view> types[] = {
      {"float", "f32"},    {"double", "f64"},   {"int", "i32"},      {"unsigned", "u32"}, {"long", "i64"},
      {"short", "i16"},    {"char", "i8"},      {"size_t", "u64"},   {"int8_t", "i8"},    {"int16_t", "i16"},
      {"int32_t", "i32"},  {"int64_t", "i64"},  {"uint8_t", "u8"},   {"uint16_t", "u16"}, {"uint32_t", "u32"},
      {"uint64_t", "u64"}, {"float32", "f32"},  {"float64", "f64"},  {"uint", "u32"},     {"_Bool", "bool"},
      {"half", "f16"},     {"__half", "f16"},   {"__nv_bfloat16", "bf16"}, {"nv_bfloat16", "bf16"}, {"bfloat16", "bf16"}};
  for (const auto& [from, to] : types)
    if (from == c) return to;
  return {};
}

// Statement keywords a misspelling of which parses as the name of a kernel launch.
constexpr std::string_view statement_keywords[] = {"parallel", "while", "repeat", "switch", "call",
                                                   "host",     "memcpy", "memset", "cond",  "let"};

}  // namespace

std::string syntax_hint(const std::string& expected, const char* begin, const char* at, const char* last) {
  std::string_view found;
  if (at != last && lexical::is_ident_char(*at)) found = {at, static_cast<std::size_t>(lexical::scan_word(at, last) - at)};
  if (expected == "type" && !found.empty()) {
    if (auto t = cgraph_type_for(found); !t.empty()) return "; did you mean '" + std::string(t) + "'?";
    return "; the types are i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64, bool, void* and cond, and "
           "'const' before a pointer type";
  }
  if (found == "default") return "; a switch has no 'default': a value with no 'case' runs nothing";
  // A keyword where a name goes: `kernel while(…)`, `let if = 1`, and a parameter list
  // (`graph g(repeat: i32)`, where the parser, finding no name, wanted the list's end).
  const char* prev = at;
  while (prev != begin && lexical::is_space(prev[-1])) --prev;
  bool list_start = prev != begin && (prev[-1] == '(' || prev[-1] == ',');
  if (!found.empty() && lexical::is_keyword(found) && (expected == "identifier" || (expected == "')'" && list_start)))
    return "; '" + std::string(found) + "' is a reserved word";
  if (expected == "'<<<'") {  // `paralel {` reads as a kernel launch named paralel
    std::string_view before = word_before(begin, at);
    if (!before.empty()) return did_you_mean(before, statement_keywords);
  }
  return {};
}

}  // namespace cgraph::dsl::parser

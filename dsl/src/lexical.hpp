#pragma once
// Character classes and small scanners shared by the pre-scan, the skipper and the token
// parsers, so all three agree on where a token, a comment or a string ends.

#include <string_view>

namespace cgraph::dsl::lexical {

constexpr bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
constexpr bool is_ident_char(char c) { return is_alpha(c) || is_digit(c); }

// The end of the run of identifier characters that starts at p.
constexpr const char* scan_word(const char* p, const char* end) {
  while (p != end && is_ident_char(*p)) ++p;
  return p;
}

// The start of the line holding p (`begin` is the start of the text).
constexpr const char* line_start(const char* begin, const char* p) {
  while (p != begin && p[-1] != '\n') --p;
  return p;
}

// Bytes that can begin a token of the language. Anything else outside strings and comments
// is an error at its position (LANGUAGE.md §2).
constexpr bool starts_token(char c) {
  if (is_ident_char(c)) return true;
  switch (c) {
    case '"': case '(': case ')': case '{': case '}': case '<': case '>': case ',': case ';':
    case ':': case '=': case '+': case '-': case '*': case '/': case '%': case '&': case '|':
    case '^': case '.': case '!': case '?': case '[': case ']':  // '[' and ']': alloc's element count
      return true;
    default:
      return false;
  }
}

// The language's reserved words (LANGUAGE.md §2).
bool is_keyword(std::string_view word);

// Given p at "/*", returns the position after "*/", or nullptr when the comment never ends.
const char* skip_block_comment(const char* p, const char* end);
// Given p at "//", returns the position of the line break (or end).
const char* skip_line_comment(const char* p, const char* end);
// Given p at '"': returns the position after the closing quote(s), or nullptr when the string
// never ends (an ordinary string also ends, unterminated, at a line break).
const char* skip_string(const char* p, const char* end);

// Skips white space and comments forward from p.
const char* skip_trivia(const char* p, const char* end);

}  // namespace cgraph::dsl::lexical

#pragma once
// The skipper: white space, comments, and bytes that start no token. Stray bytes were already
// reported by the pre-scan; skipping them here lets the parser go on, so one stray character
// gives one diagnostic instead of a cascade.

#include "lexical.hpp"

#include <boost/spirit/home/x3.hpp>

#include <array>


namespace cgraph::dsl::parser {

namespace x3 = boost::spirit::x3;

// What the skipper does with each byte, decided once per byte value instead of by a chain of
// comparisons: the skipper runs before every token the grammar tries, backtracking included,
// so this loop is among the hottest of the front end.
enum class skip_class : unsigned char { token, space, slash, stray };

constexpr std::array<skip_class, 256> make_skip_classes() {
  std::array<skip_class, 256> t{};
  for (int c = 0; c < 256; ++c) {
    char ch = static_cast<char>(c);
    t[c] = lexical::is_space(ch)         ? skip_class::space
           : ch == '/'                   ? skip_class::slash
           : lexical::starts_token(ch)   ? skip_class::token
                                         : skip_class::stray;
  }
  return t;
}
inline constexpr std::array<skip_class, 256> skip_classes = make_skip_classes();

struct skipper : x3::parser<skipper> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;

  template <typename Iterator, typename Context, typename RContext, typename Attribute>
  bool parse(Iterator& first, Iterator const& last, Context const&, RContext&, Attribute&) const {
    Iterator start = first;
    while (first != last) {
      switch (skip_classes[static_cast<unsigned char>(*first)]) {
        case skip_class::token: return first != start;
        case skip_class::space:
        case skip_class::stray: ++first; break;
        case skip_class::slash:
          if (last - first >= 2 && first[1] == '/') {
            first = lexical::skip_line_comment(first, last);
          } else if (last - first >= 2 && first[1] == '*') {
            const char* after = lexical::skip_block_comment(first, last);
            first = after ? after : last;
          } else {
            return first != start;  // the '/' operator
          }
          break;
      }
    }
    return first != start;
  }
};

}  // namespace cgraph::dsl::parser

namespace boost::spirit::x3::detail {
// X3 skips by calling the skipper until it moves no further, so every skip made two calls,
// the second only to find a token where the first stopped, and most skips (before a token
// that directly follows another) move nowhere at all. This specialisation decides that case
// inline with one table lookup, and runs the loop once otherwise.
template <>
inline void skip_over<const char*, cgraph::dsl::parser::skipper>(const char*& first, const char* const& last,
                                                               cgraph::dsl::parser::skipper const& s) {
  using cgraph::dsl::parser::skip_class;
  if (first == last || cgraph::dsl::parser::skip_classes[static_cast<unsigned char>(*first)] == skip_class::token) return;
  unused_type none;
  s.parse(first, last, none, none, none);  // stops only at a token, the '/' operator or the end
}
}  // namespace boost::spirit::x3::detail

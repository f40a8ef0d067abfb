#pragma once
// The skipper: white space, comments, and bytes that start no token. Stray bytes were already
// reported by the pre-scan; skipping them here lets the parser go on, so one stray character
// gives one diagnostic instead of a cascade.

#include "lexical.hpp"

#include <boost/spirit/home/x3.hpp>


namespace cgraph::dsl::parser {

namespace x3 = boost::spirit::x3;

struct skipper : x3::parser<skipper> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;

  template <typename Iterator, typename Context, typename RContext, typename Attribute>
  bool parse(Iterator& first, Iterator const& last, Context const&, RContext&, Attribute&) const {
    Iterator start = first;
    while (first != last) {
      char c = *first;
      if (lexical::is_space(c)) {
        ++first;
      } else if (c == '/' && last - first >= 2 && first[1] == '/') {
        first = lexical::skip_line_comment(first, last);
      } else if (c == '/' && last - first >= 2 && first[1] == '*') {
        const char* after = lexical::skip_block_comment(first, last);
        first = after ? after : last;
      } else if (!lexical::starts_token(c)) {
        ++first;
      } else {
        break;
      }
    }
    return first != start;
  }
};

}  // namespace cgraph::dsl::parser

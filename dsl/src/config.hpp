#pragma once
// The one place that names the iterator and context types every grammar file is
// instantiated with (BOOST_SPIRIT_INSTANTIATE needs them spelled identically everywhere).

#include "skipper.hpp"

#include <boost/spirit/home/x3.hpp>

namespace cgraph::dsl::parser {

namespace x3 = boost::spirit::x3;

using iterator_type = const char*;
// The parser's state (diagnostics sink, buffer start) is reached through parser_state's
// thread-local pointer rather than x3::with<>: the context type x3::with produces differs
// between Boost 1.74 and 1.83, and this one does not.
using context_type = x3::phrase_parse_context<skipper>::type;

}  // namespace cgraph::dsl::parser

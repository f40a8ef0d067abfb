#include "statement_def.hpp"

namespace cgraph::dsl::parser {
BOOST_SPIRIT_INSTANTIATE(block_type, iterator_type, context_type)

bool parse_body_statements(const char*& first, const char* last) {
  return x3::phrase_parse(first, last, body_statements, skipper{});
}
}  // namespace cgraph::dsl::parser

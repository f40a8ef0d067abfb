#include "statement_def.hpp"

namespace cgraph::dsl::parser {
BOOST_SPIRIT_INSTANTIATE(block_type, iterator_type, context_type)
}  // namespace cgraph::dsl::parser

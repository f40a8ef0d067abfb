#include "expression_def.hpp"

namespace cgraph::dsl::parser {
BOOST_SPIRIT_INSTANTIATE(expression_type, iterator_type, context_type)
BOOST_SPIRIT_INSTANTIATE(launch_dims_type, iterator_type, context_type)
}  // namespace cgraph::dsl::parser

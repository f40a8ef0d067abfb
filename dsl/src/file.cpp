#include "file_def.hpp"

namespace cgraph::dsl::parser {
BOOST_SPIRIT_INSTANTIATE(file_type, iterator_type, context_type)
}  // namespace cgraph::dsl::parser

#pragma once
#include "config.hpp"

#include <cgraph/dsl/ast.hpp>

namespace cgraph::dsl::parser {

struct file_class;
using file_type = x3::rule<file_class, ast::file>;
BOOST_SPIRIT_DECLARE(file_type)

}  // namespace cgraph::dsl::parser

namespace cgraph::dsl {
// A whole file: declarations in any order, with recovery between them.
const parser::file_type& file();
}  // namespace cgraph::dsl

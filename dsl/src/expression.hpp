#pragma once
#include "config.hpp"

#include <cgraph/dsl/ast.hpp>

namespace cgraph::dsl::parser {

struct expression_class;
using expression_type = x3::rule<expression_class, ast::expression>;
BOOST_SPIRIT_DECLARE(expression_type)

struct launch_dims_class;
using launch_dims_type = x3::rule<launch_dims_class, ast::list<ast::expression>>;
BOOST_SPIRIT_DECLARE(launch_dims_type)

}  // namespace cgraph::dsl::parser

namespace cgraph::dsl {
const parser::expression_type& expression();
// A launch dimension: E or (E, E [, E]).
const parser::launch_dims_type& launch_dims();
}  // namespace cgraph::dsl

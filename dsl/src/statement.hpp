#pragma once
#include "config.hpp"

#include <cgraph/dsl/ast.hpp>

namespace cgraph::dsl::parser {

struct block_class;
using block_type = x3::rule<block_class, ast::block>;
BOOST_SPIRIT_DECLARE(block_type)

// `{ statement… }` from `first`, each statement handed to parser_state::on_statement (the
// current state's) as it is parsed. Throws x3::expectation_failure where the block cannot go on.
bool parse_body_statements(const char*& first, const char* last);

}  // namespace cgraph::dsl::parser

namespace cgraph::dsl {
// `{ statement… }` with recovery: a statement that fails is reported and skipped.
const parser::block_type& block();
}  // namespace cgraph::dsl

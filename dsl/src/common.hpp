#pragma once
// Rules used by several grammar files. Their definitions are identical in every translation
// unit that includes this header (inline templates), so sharing them is ODR-safe.

#include "error_handler.hpp"
#include "tokens.hpp"

#include <boost/spirit/home/x3.hpp>

namespace cgraph::dsl::parser {

struct identifier_class : annotate_position {};
struct type_class : annotate_position {};
struct string_class : annotate_position {};

const x3::rule<identifier_class, ast::identifier> identifier = "identifier";
const x3::rule<type_class, ast::type_name> type = "type";
const x3::rule<string_class, ast::string_literal> string_literal = "string";

const auto identifier_def = identifier_parser{};
const auto type_def = type_parser{};
const auto string_literal_def = string_parser{};

BOOST_SPIRIT_DEFINE(identifier, type, string_literal)

}  // namespace cgraph::dsl::parser

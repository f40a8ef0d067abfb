#pragma once
// Boost.Fusion adaptations: which AST members X3 fills, in grammar order. Members set by
// semantic actions or custom parsers (identifier, literals, block) are not adapted.

#include <cgraph/dsl/ast.hpp>

#include <boost/fusion/include/adapt_struct.hpp>

BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::function_call, function, args)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::sizeof_expr, type)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::unary, prefix, value)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::struct_literal, name, fields)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::field_init, name, value)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::operation, op, rhs)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::choice, then, otherwise)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::attribute, name, args)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::prefix_parts, attributes, label, after)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::launch_stmt, prefix, kernel, grid, block, shared_bytes,
                          args, after)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::builtin_stmt, prefix, keyword, args, after)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::collective_stmt, prefix, keyword, args, after)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::group_stmt, prefix, after, body)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::device_stmt, device, body)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::host_stmt, prefix, callback, args, after)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::event_stmt, prefix, wait, event, after)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::alloc_stmt, prefix, name, element, count, after)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::free_stmt, prefix, name, after)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::call_stmt, prefix, graph, args, after)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::let_stmt, name, value)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::cond_stmt, name, init)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::if_stmt, prefix, condition, after, then_body, else_body)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::while_stmt, prefix, condition, after, body)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::case_clause, value, body)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::switch_stmt, prefix, condition, after, cases)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::repeat_stmt, prefix, count, after, body)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::for_stmt, parallel, variable, from, to, body)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::parameter, name, type, default_value)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::kernel_decl, name, params, symbol, library)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::host_decl, name, params)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::library_decl, kind, name, text)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::graph_decl, name, params, body)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::const_decl, name, value)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::field_decl, name, type)
BOOST_FUSION_ADAPT_STRUCT(cgraph::dsl::ast::struct_decl, name, fields)

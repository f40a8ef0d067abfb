#pragma once
// Top-level declarations (LANGUAGE.md §4).

#include "common.hpp"
#include "expression.hpp"
#include "file.hpp"
#include "statement.hpp"

#include <cgraph/dsl/ast_adapted.hpp>

namespace cgraph::dsl::parser {

struct file_class : annotate_position {};
struct declaration_class : report_syntax_error {};
struct parameter_class : annotate_position {};
struct parameters_class : annotate_position {};
struct include_class : annotate_position {};
struct import_class : annotate_position {};
struct kernel_class : annotate_position {};
struct host_decl_class : annotate_position {};
struct library_class : annotate_position {};
struct graph_class : annotate_position {};
struct const_class : annotate_position {};
struct struct_decl_class : annotate_position {};
struct field_decl_class : annotate_position {};

const file_type file = "file";
const x3::rule<declaration_class, ast::declaration> declaration = "declaration";
const x3::rule<parameter_class, ast::parameter> parameter = "parameter";
const x3::rule<parameters_class, ast::list<ast::parameter>> parameters = "parameters";
const x3::rule<include_class, ast::include_decl> include_decl = "include";
const x3::rule<import_class, ast::import_decl> import_decl = "import";
const x3::rule<kernel_class, ast::kernel_decl> kernel_decl = "kernel";
const x3::rule<host_decl_class, ast::host_decl> host_decl = "host";
const x3::rule<library_class, ast::library_decl> library_decl = "library";
const x3::rule<graph_class, ast::graph_decl> graph_decl = "graph";
const x3::rule<const_class, ast::const_decl> const_decl = "const";
const x3::rule<struct_decl_class, ast::struct_decl> struct_decl = "struct";
const x3::rule<field_decl_class, ast::field_decl> field_decl = "a field";

struct library_kinds : x3::symbols<ast::library_kind> {
  library_kinds() { add("module", ast::library_kind::module)("source", ast::library_kind::source); }
};
const library_kinds library_kind;

// A graph's body: parsed as a block, or in parse()'s deferred mode skipped to the matching '}'
// the pre-scan found (parser_state::top_braces), leaving the block its range and deferred_ends for
// parse_body. A body that cannot be skipped so (no matching '}') fails here: compile then
// parses the whole text again without deferring, for the same errors as always.
struct graph_body_parser : x3::parser<graph_body_parser> {
  using attribute_type = ast::block;
  static bool const has_attribute = true;

  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
    parser_state& state = *parser_state::current();
    if (!state.defer_graph_bodies) return block().parse(first, last, ctx, rctx, attr);
    It p = first;
    x3::skip_over(p, last, ctx);
    if (p == last || *p != '{') return false;
    const brace_span* span = state.top_brace_at(state.offset(p));
    if (!span) return false;  // not outside all brackets: the text has an error
    ast::block& body = attr;
    body.begin = span->begin;
    body.end = span->end;
    body.deferred_ends = span->ends;
    body.deferred_commas = span->commas;
    first = p + (span->end - span->begin);
    return true;
  }
};
struct graph_body_class;
// Named as the block is, so "expected '{'" reads the same in either mode.
const x3::rule<graph_body_class, ast::block> graph_body = "'{'";
const auto graph_body_def = graph_body_parser{};

const auto set_include_path = [](auto& ctx) { x3::_val(ctx).path = std::move(x3::_attr(ctx)); };
const auto push_declaration = [](auto& ctx) { x3::_val(ctx).declarations.push_back(std::move(x3::_attr(ctx))); };

const auto parameter_def = identifier > ':' > type > -('=' > expression());
const auto parameters_def = '(' > -(parameter > *(',' > parameter)) > ')';
const auto include_decl_def = mark_begin >> kw("include") > string_literal[set_include_path] > ';' > mark_end;
const auto import_decl_def = mark_begin >> kw("import") > string_literal[set_include_path] > ';' > mark_end;
const auto kernel_decl_def = kw("kernel") > identifier > parameters > -(kw("as") > string_literal) >
                             -(kw("from") > identifier) > ';';
const auto host_decl_def = kw("host") > identifier > parameters > ';';
const auto library_decl_def = x3::lexeme[library_kind >> word_end_parser{}] > identifier > '=' >
                              string_literal > ';';
const auto graph_decl_def = kw("graph") > identifier > parameters > graph_body;
const auto const_decl_def = kw("const") > identifier > '=' > expression() > ';';

// A ';' after the '}' is accepted (and dropped by fmt): C++ writes one there.
const auto struct_decl_def = kw("struct") > identifier > '{' > *field_decl > '}' > -x3::lit(';');
const auto field_decl_def = identifier > ':' > type > ';';

const auto declaration_def = include_decl | import_decl | kernel_decl | host_decl | library_decl | graph_decl | const_decl | struct_decl;
// `eps >> …` puts the iterator back at the declaration's start when it fails (see block_def).
const auto file_def = *(x3::omit[x3::eps >> declaration[push_declaration]] | recover_parser(true)) > x3::eoi;

BOOST_SPIRIT_DEFINE(file, declaration, parameter, parameters, include_decl, import_decl, kernel_decl, host_decl,
                    library_decl, graph_decl, const_decl, struct_decl, field_decl, graph_body)

}  // namespace cgraph::dsl::parser

namespace cgraph::dsl {
const parser::file_type& file() { return parser::file; }
}  // namespace cgraph::dsl

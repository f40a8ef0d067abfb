#include <cgraph/dsl/parse.hpp>

#include <doctest/doctest.h>

#include <memory>
#include <string>

using namespace cgraph;
namespace ast = cgraph::dsl::ast;

namespace {

struct parsed {
  source_file source;
  diagnostics diags;
  dsl::parse_result result;
};

std::unique_ptr<parsed> parse_text(std::string text) {
  auto p = std::make_unique<parsed>(parsed{source_file("t.cgraph", std::move(text)), {}, {}});
  p->result = dsl::parse(p->source, p->diags);
  return p;
}

// The statements of the only graph in a file.
const ast::list<ast::statement>& body_of(const parsed& p) {
  for (const auto& d : p.result.file.declarations)
    if (const auto* g = boost::get<ast::graph_decl>(&d)) return g->body.statements;
  FAIL("no graph");
  throw;
}

// Parses `let v = EXPR;` and returns the expression. Its names point into the source, which is
// kept until the next call.
ast::expression expression_of(const std::string& expr) {
  static std::unique_ptr<parsed> last;
  last = parse_text("graph g() { let v = " + expr + "; }");
  REQUIRE(last->result.ok);
  return boost::get<ast::let_stmt>(body_of(*last).at(0)).value;
}

ast::int_literal int_of(const std::string& text) {
  auto e = expression_of(text);
  REQUIRE(e.rest().empty());
  return boost::get<ast::int_literal>(e.first.value);
}

}  // namespace

TEST_CASE("parser.integer_literals_in_every_base_with_separators") {
  CHECK(int_of("123").value == 123);
  CHECK(int_of("0x7f").value == 127);
  CHECK(int_of("0XFF").value == 255);
  CHECK(int_of("0b101").value == 5);
  CHECK(int_of("1_000_000").value == 1000000);
  CHECK(int_of("0xffff_ffff").value == 0xffffffffu);
  CHECK(int_of("18446744073709551615").value == 18446744073709551615u);
  CHECK(int_of("18446744073709551616").too_large);
}

TEST_CASE("parser.float_literals") {
  for (auto [text, value] : {std::pair{"1.0", 1.0}, {".5", 0.5}, {"1e-3", 1e-3}, {"2.5e+4", 2.5e4}, {"3E2", 300.0}}) {
    auto e = expression_of(text);
    CHECK(boost::get<ast::float_literal>(e.first.value).value == doctest::Approx(value));
  }
}

TEST_CASE("parser.keywords_are_reserved") {
  auto p = parse_text("graph g() { let while = 1; }");
  CHECK_FALSE(p->result.ok);
  CHECK(p->diags.all().at(0).message == "expected identifier, found 'while'; 'while' is a reserved word");
  // Every reserved word (LANGUAGE.md §2, and version 2's const, struct, for and null), and names
  // one letter away from them, which are not.
  for (const char* word : {"after", "as", "call", "case", "cond", "const", "else", "false", "for", "from", "graph",
                           "host", "if", "include", "kernel", "let", "memcpy", "memset", "module", "null", "parallel",
                           "repeat", "sizeof", "source", "struct", "switch", "true", "while"}) {
    CAPTURE(word);
    CHECK_FALSE(parse_text(std::string("graph g() { let ") + word + " = 1; }")->result.ok);
    const std::string near[] = {std::string(word) + "s", std::string(word).substr(1), "x" + std::string(word).substr(1),
                                std::string(word).substr(0, std::string(word).size() - 1) + "x"};
    for (const auto& name : near) {
      CAPTURE(name);
      CHECK(parse_text("graph g() { let " + name + " = 1; }")->result.ok);
    }
  }
}

TEST_CASE("parser.type_names_are_not_keywords") {
  auto p = parse_text("graph g() { let i32 = 1; }");
  CHECK(p->result.ok);
}

TEST_CASE("parser.flat_operator_list_keeps_source_order") {
  auto e = expression_of("a + b * -c << 2");
  REQUIRE(e.rest().size() == 3);
  CHECK(e.rest()[0].op == ast::binary_op::add);
  CHECK(e.rest()[1].op == ast::binary_op::mul);
  REQUIRE(e.rest()[1].rhs.prefix);
  CHECK(std::string(e.rest()[1].rhs.prefix->begin(), e.rest()[1].rhs.prefix->end()) == "-");
  CHECK(e.rest()[2].op == ast::binary_op::shl);
}

TEST_CASE("parser.an_expression_makes_its_tail_only_for_operators_or_a_choice") {
  // The tail is what keeps a lone operand at 64 bytes (docs/performance.md, run 37): a name or a
  // literal, most of a launch's expressions, has none.
  CHECK(sizeof(ast::expression) <= 64);
  CHECK_FALSE(expression_of("n").tail);
  CHECK_FALSE(expression_of("-x.f").tail);
  CHECK(expression_of("(a + b)").rest().empty());  // the operators are the inner expression's
  const auto e = expression_of("a < b ? 1 : c + 2");
  REQUIRE(e.tail);
  REQUIRE(e.rest().size() == 1);
  CHECK(e.rest()[0].op == ast::binary_op::lt);
  REQUIRE(e.ternary());
  CHECK_FALSE(e.ternary()->then.tail);
  CHECK(e.ternary()->otherwise.rest().size() == 1);
}

TEST_CASE("parser.launch_config_ends_at_triple_angle_even_after_shift") {
  auto p = parse_text("kernel k(n: i32);\ngraph g(n: i32) { k<<<n >> 1, (16, 16), n * 4>>>(n); }");
  REQUIRE(p->result.ok);
  const auto& launch = boost::get<ast::launch_stmt>(body_of(*p).at(0));
  CHECK(launch.grid.size() == 1);
  CHECK(launch.grid[0].rest().size() == 1);
  CHECK(launch.block.size() == 2);
  CHECK(launch.shared_bytes.has_value());
}

TEST_CASE("ast.statements_and_expressions_stay_small") {
  // Most of the front end's peak memory on a large file is statement vectors and argument
  // lists, so an inline alternative that grows either type shows here: hold a large, rare one
  // through x3::forward_ast instead (docs/architecture.md). Sizes with libstdc++ on x86-64.
  CHECK(sizeof(ast::statement) <= 272);
  CHECK(sizeof(ast::expression) <= 144);
  CHECK(sizeof(ast::operand) <= 48);
}

TEST_CASE("parser.rare_alternatives_held_through_a_pointer_keep_their_contents") {
  auto p = parse_text("kernel k(n: u64);\nstruct s { a: i32; }\n"
                      "graph g(n: i32) { cond c = 1; alloc b: f32[n]; k<<<1, 32, 64>>>(sizeof(s)) after launched(l); "
                      "l: k<<<1, 1>>>(2); while c { k<<<1, 1>>>(3); } }");
  REQUIRE(p->result.ok);
  const auto& body = body_of(*p);
  CHECK(boost::get<ast::x3::forward_ast<ast::cond_stmt>>(body.at(0)).get().name.name == "c");
  CHECK(boost::get<ast::x3::forward_ast<ast::alloc_stmt>>(body.at(1)).get().element.base == "f32");
  const auto& launch = boost::get<ast::launch_stmt>(body.at(2));
  REQUIRE(launch.shared_bytes.has_value());
  CHECK(boost::get<ast::int_literal>(launch.shared_bytes->get().first.value).value == 64);
  CHECK(boost::get<ast::x3::forward_ast<ast::sizeof_expr>>(launch.args.at(0).first.value).get().type.base == "s");
  REQUIRE(launch.after.size() == 1);
  CHECK(launch.after[0].name == "l");
  CHECK(launch.after[0].port == ast::edge_port::launched);
}

TEST_CASE("parser.parenthesized_grid_is_an_expression_not_a_tuple") {
  auto p = parse_text("kernel k(n: i32);\ngraph g(n: i32) { k<<<(n + 1) * 2, 256>>>(n); }");
  REQUIRE(p->result.ok);
  const auto& launch = boost::get<ast::launch_stmt>(body_of(*p).at(0));
  CHECK(launch.grid.size() == 1);
  CHECK(launch.grid[0].rest().size() == 1);
}

TEST_CASE("parser.labels_and_after_before_or_after_the_statement") {
  auto p = parse_text("graph g() { a: k<<<1, 1>>>(); b: after a k<<<1, 1>>>(); c: k<<<1, 1>>>() after a, b; "
                      "d: while w after c { } }");
  REQUIRE(p->result.ok);
  const auto& s = body_of(*p);
  CHECK(boost::get<ast::launch_stmt>(s[0]).prefix.label()->name == "a");
  CHECK(boost::get<ast::launch_stmt>(s[1]).prefix.after().size() == 1);
  CHECK(boost::get<ast::launch_stmt>(s[2]).after.size() == 2);
  const auto& w = boost::get<ast::x3::forward_ast<ast::while_stmt>>(s[3]).get();
  CHECK(w.prefix.label()->name == "d");
  CHECK(w.after.at(0).name == "c");
}

TEST_CASE("parser.strings_escapes_and_raw") {
  auto p = parse_text("include \"a\\\"b\\\\c\\n\";\nsource s = \"\"\"line1\n\"q\" \\n\"\"\";");
  REQUIRE(p->result.ok);
  CHECK(boost::get<ast::include_decl>(p->result.file.declarations[0]).path.value == "a\"b\\c\n");
  CHECK(boost::get<ast::library_decl>(p->result.file.declarations[1]).text.value == "line1\n\"q\" \\n");
}

TEST_CASE("parser.every_syntax_error_is_reported_and_parsing_resumes") {
  auto p = parse_text("graph g() {\n  k<<<1, 1>>>()\n}\ngraph h() {\n  let = 2;\n  k<<<1,1>>>(1,);\n}\n");
  CHECK_FALSE(p->result.ok);
  REQUIRE(p->diags.all().size() == 3);
  CHECK(p->diags.all()[0].message == "expected ';', found '}'");
  CHECK(p->diags.all()[1].message == "expected identifier, found '='");
  CHECK(p->diags.all()[2].message == "expected expression, found ')'");
  CHECK(p->result.file.declarations.size() == 2);
}

TEST_CASE("parser.stray_bytes_are_reported_once_each_and_skipped") {
  auto p = parse_text("graph g() { let a = 1 @ ; let b = 2; } $");
  REQUIRE(p->diags.all().size() == 2);
  CHECK(p->diags.all()[0].message == "unexpected character '@'");
  CHECK(p->diags.all()[1].message == "unexpected character '$'");
}

TEST_CASE("parser.a_run_of_adjacent_stray_bytes_is_one_error_underlining_it") {
  // "@#$" is one run; "é" then a space then "@" are two; "\xff\xfe" in the comment one.
  auto p = parse_text("graph g() { let a = 1 @#$ ; let b = 2 \xc3\xa9 @; } // x\xff\xfe");
  REQUIRE(p->diags.all().size() == 4);
  CHECK(p->diags.all()[0].message == "unexpected character '@' (the first of 3 bytes in a row that start no token)");
  CHECK(p->diags.all()[0].range.end - p->diags.all()[0].range.begin == 3);
  CHECK(p->diags.all()[1].message.starts_with("unexpected character '\xc3\xa9' (U+00E9)"));
  CHECK(p->diags.all()[2].message == "unexpected character '@'");
  CHECK(p->diags.all()[3].message ==
        "invalid UTF-8 byte 0xFF in a comment (the first of 2 bytes in a row that are not UTF-8)");
}

TEST_CASE("parser.a_nul_byte_makes_one_error_not_a_text_file") {
  // A binary file, or one saved as UTF-16, given by mistake: one error at its first NUL, even
  // inside a comment or a string, and none for the stray bytes before or after it.
  using namespace std::string_literals;  // "…"s keeps the NULs
  for (const std::string& text : {"graph g() { let a = 1 @; }\n\x01\x02\0\0junk $"s, "graph g() { /* \0 */ }"s, "\0"s}) {
    CAPTURE(text);
    auto p = parse_text(text);
    REQUIRE(p->diags.all().size() == 1);
    const auto& d = p->diags.all()[0];
    CHECK(d.message.starts_with("not a text file: it holds a NUL byte (0x00) here"));
    CHECK(d.range.begin == text.find('\0'));
    CHECK(d.range.end == d.range.begin + 1);
    CHECK_FALSE(p->result.ok);
  }
}

TEST_CASE("parser.comments_are_collected_for_the_formatter") {
  auto p = parse_text("// one\ngraph g() { /* two */ }\n");
  REQUIRE(p->result.ok);
  CHECK(p->result.comments.size() == 2);
}

TEST_CASE("parser.every_node_carries_its_source_range") {
  std::string text = "kernel k(n: i32);\ngraph g(n: i32) {\n  lbl: k<<<1, 1>>>(n);\n}\n";
  auto p = parse_text(text);
  REQUIRE(p->result.ok);
  const auto& launch = boost::get<ast::launch_stmt>(body_of(*p).at(0));
  CHECK(text.substr(launch.begin, launch.end - launch.begin) == "lbl: k<<<1, 1>>>(n);");
  CHECK(text.substr(launch.kernel.begin, launch.kernel.end - launch.kernel.begin) == "k");
  const auto& arg = launch.args.at(0);
  CHECK(text.substr(arg.begin, arg.end - arg.begin) == "n");
}

TEST_CASE("parser.a_deferred_body_is_handed_over_one_statement_at_a_time") {
  // compile's streaming mode: parse() skips a graph's body to its matching '}' (braces in
  // comments do not count), and parse_body hands its statements over in order.
  source_file source("t.cgraph", "kernel k(n: i32);\n"
                                 "graph g(n: i32) { k<<<1, 1>>>(n); /* } */ if c { k<<<1, 1>>>(n); } // }\n"
                                 "  let s = n; /* { */ }\n"
                                 "graph h() { k<<<1, 1>>>(1) k<<<1, 1>>>(2); k<<<1, 1>>>(3); }\n");
  diagnostics diags;
  auto scanned = dsl::scan(source, 0, diags);
  const std::vector<std::string> structs;
  auto result = dsl::parse(source, 0, std::move(scanned), structs, diags, dsl::graph_bodies::defer);
  REQUIRE(diags.all().empty());
  std::vector<const ast::graph_decl*> graphs;
  for (const auto& d : result.file.declarations)
    if (const auto* g = boost::get<ast::graph_decl>(&d)) graphs.push_back(g);
  REQUIRE(graphs.size() == 2);
  const ast::block& g = graphs[0]->body;
  CHECK(g.statements.empty());
  CHECK(source.text().substr(g.begin, 1) == "{");
  CHECK(source.text().substr(g.end - 4, 4) == "*/ }");
  CHECK(g.deferred_ends == 4);  // three ';' and the if body's '}'

  std::vector<std::string> kinds;
  CHECK(dsl::parse_body(source, g, structs, diags, [&](const ast::statement& s) {
    kinds.push_back(boost::get<ast::launch_stmt>(&s) ? "launch"
                    : boost::get<ast::let_stmt>(&s) ? "let"
                    : boost::get<ast::x3::forward_ast<ast::if_stmt>>(&s) ? "if" : "other");
  }));
  CHECK(diags.all().empty());
  CHECK(kinds == std::vector<std::string>{"launch", "if", "let"});

  // After the first syntax error (the ';' missing after the first launch) nothing more is
  // handed over, though recovery parses the third launch.
  std::size_t handed = 0;
  CHECK_FALSE(dsl::parse_body(source, graphs[1]->body, structs, diags, [&](const ast::statement&) { ++handed; }));
  CHECK(handed == 0);
  CHECK(diags.error_count() == 1);
}

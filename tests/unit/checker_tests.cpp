#include "support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string_view>
#include <vector>

using namespace cgraph;
using cgraph::test::compile_text;
using cgraph::test::in_graph;

namespace {

using cgraph::test::node_deps;
std::vector<std::uint32_t> deps(const ir::graph& g, std::size_t i) { return node_deps(g, g.root.nodes.at(i)); }
using edges = std::vector<std::uint32_t>;

}  // namespace

TEST_CASE("checker.sequence_chains_statements") {
  auto c = compile_text(in_graph("k<<<1, 32>>>(x, n); memset(x, 0, n); k<<<1, 32>>>(x, n);"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const auto& root = c.graph().root;
  REQUIRE(root.nodes.size() == 3);
  CHECK(deps(c.graph(), 0).empty());
  CHECK(deps(c.graph(), 1) == edges{0});
  CHECK(deps(c.graph(), 2) == edges{1});
}

TEST_CASE("checker.parallel_forks_and_joins") {
  auto c = compile_text(in_graph(
      "k<<<1, 1>>>(x, n);\n"
      "parallel { k<<<1, 1>>>(x, n); { k<<<1, 1>>>(x, n); k<<<1, 1>>>(x, n); } let unused = 1; }\n"
      "k<<<1, 1>>>(x, n);"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const auto& root = c.graph().root;
  REQUIRE(root.nodes.size() == 5);
  CHECK(deps(c.graph(), 1) == edges{0});
  CHECK(deps(c.graph(), 2) == edges{0});
  CHECK(deps(c.graph(), 3) == edges{2});
  // The let branch makes no node, so the join waits only for the two branches that did.
  CHECK(deps(c.graph(), 4) == edges{1, 3});
}

TEST_CASE("checker.after_adds_edges_including_forward_references") {
  auto c = compile_text(in_graph(
      "parallel { a: k<<<1, 1>>>(x, n); b: k<<<1, 1>>>(x, n) after c; c: k<<<1, 1>>>(x, n); }"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const auto& root = c.graph().root;
  CHECK(deps(c.graph(), 1) == edges{2});
  CHECK(c.graph().label_of(root.nodes[0]) == "a");
  CHECK(c.graph().label_of(root.nodes[2]) == "c");
  CHECK(c.graph().labels.size() == 3);  // one entry a labeled node
}

TEST_CASE("checker.after_cycle_is_an_error") {
  auto c = compile_text(in_graph("a: k<<<1, 1>>>(x, n) after b; b: k<<<1, 1>>>(x, n);"));
  CHECK(c.first_error() == "'after b' closes a dependency cycle");
}

// The implied-`after` warnings of a snippet, by the label they name.
static std::vector<std::string> implied_afters(const cgraph::test::compiled& c) {
  std::vector<std::string> out;
  for (const auto& d : c.result.diags.all())
    if (d.level == severity::warning && d.message.find("is implied") != std::string::npos)
      out.push_back(d.message.substr(7, d.message.find('\'', 7) - 7));  // 'after NAME' is implied: …
  return out;
}

TEST_CASE("checker.an_after_that_statement_order_implies_is_warned_however_far_back") {
  using names = std::vector<std::string>;
  // Directly, and through statements in between, nested blocks and a `parallel` that all branches join.
  auto chain = compile_text(in_graph(
      "a: k<<<1, 1>>>(x, n); b: k<<<1, 1>>>(x, n) after a; k<<<1, 1>>>(x, n);\n"
      "parallel { k<<<1, 1>>>(x, n); { k<<<1, 1>>>(x, n); } }\n"
      "{ k<<<1, 1>>>(x, n) after a, b; }"));
  REQUIRE_MESSAGE(chain.ok(), chain.errors());
  CHECK(implied_afters(chain) == names{"a", "a", "b"});
  // Another branch of the same `parallel`, or a later label, is a real edge.
  auto branches = compile_text(in_graph(
      "parallel { a: k<<<1, 1>>>(x, n); { k<<<1, 1>>>(x, n); b: k<<<1, 1>>>(x, n) after a, c; } }\n"
      "c: k<<<1, 1>>>(x, n);"));
  CHECK(implied_afters(branches).empty());
  // A conditional body is a graph body of its own: its order starts afresh.
  auto body = compile_text(in_graph(
      "cond c; step<<<1, 1>>>(x, c);\n"
      "if c { a: k<<<1, 1>>>(x, n); k<<<1, 1>>>(x, n); k<<<1, 1>>>(x, n) after a; }"));
  REQUIRE_MESSAGE(body.ok(), body.errors());
  CHECK(implied_afters(body) == names{"a"});
  // A `for` body's statement is warned about once, not once an iteration.
  auto loop = compile_text(in_graph(
      "s: k<<<1, 1>>>(x, n); for i in 0..4 { k<<<1, 1>>>(x, i) after s; }\n"
      "parallel for i in 0..4 { t: k<<<1, 1>>>(x, i); k<<<1, 1>>>(x, i) after t; }"));
  REQUIRE_MESSAGE(loop.ok(), loop.errors());
  CHECK(implied_afters(loop) == names{"s", "t"});
  // A port edge is never implied: it says more than the order does.
  auto port = compile_text(in_graph("a: k<<<1, 1>>>(x, n); k<<<1, 1>>>(x, n); k<<<1, 1>>>(x, n) after programmatic(a);"));
  REQUIRE_MESSAGE(port.ok(), port.errors());
  CHECK(implied_afters(port).empty());
}

TEST_CASE("checker.constants_fold_and_parameters_stay_symbolic") {
  auto c = compile_text(in_graph("let blocks = ceil_div(n, 256); let four = 2 * 2; k<<<blocks, 64 * four>>>(x, n);"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const auto& g = c.graph();
  const auto& launch = g.launch_of(g.root.nodes.at(0));
  CHECK(g.exprs[launch.block[0].expr].is_constant());
  CHECK(g.exprs[launch.block[0].expr].constant().i == 256);
  CHECK_FALSE(g.exprs[launch.grid[0].expr].is_constant());
  REQUIRE(g.lets.size() == 1);  // only the symbolic let is kept by name
  CHECK(g.lets[0].name == "blocks");

  std::vector<std::optional<ir::value>> params{ir::value::pointer(0x1000), ir::value::integer(1000)};
  auto r = ir::evaluate(g, params);
  REQUIRE_FALSE(r.error);
  CHECK(r.values[launch.grid[0].expr].i == 4);
}

TEST_CASE("checker.parameter_defaults_apply_when_no_value_is_given") {
  auto c = compile_text(in_graph("k<<<ceil_div(n, 4), 1>>>(x, n);", "x: f32*, n: i32 = 1 << 10"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const auto& g = c.graph();
  std::vector<std::optional<ir::value>> params{ir::value::pointer(0), std::nullopt};
  auto r = ir::evaluate(g, params);
  REQUIRE_FALSE(r.error);
  CHECK(r.values[g.launch_of(g.root.nodes[0]).grid[0].expr].i == 256);
}

TEST_CASE("checker.build_time_errors_name_the_expression") {
  auto c = compile_text(in_graph("k<<<n / (n - 4), 1>>>(x, n);"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  std::vector<std::optional<ir::value>> params{ir::value::pointer(0), ir::value::integer(4)};
  auto r = ir::evaluate(c.graph(), params);
  REQUIRE_FALSE(r.error);  // a failure is an error where it is used (here: the grid)
  const ir::value& grid = r.values[c.graph().launch_of(c.graph().root.nodes[0]).grid[0].expr];
  REQUIRE(ir::is_failure(grid));
  auto error = ir::failure_of(c.graph(), r.values, grid);
  CHECK(error.message == "division by zero in /");
  CHECK(c.source.position(error.range.begin) == "test.cgraph:5:7");
}

TEST_CASE("checker.repeat_lowers_to_while_with_a_counter") {
  auto c = compile_text(in_graph("repeat 10 { k<<<1, 1>>>(x, n); parallel { k<<<1, 1>>>(x, n); k<<<1, 1>>>(x, n); } }"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const auto& init = c.graph().root.nodes.at(0);
  CHECK(init.kind == ir::node_kind::repeat_init);
  const auto& loop = c.graph().root.nodes.at(1);
  CHECK(node_deps(c.graph(), loop) == edges{0});
  CHECK(loop.kind == ir::node_kind::conditional);
  CHECK(loop.cond_kind == ir::cond_kind::while_loop);
  CHECK(loop.from_repeat);
  REQUIRE(loop.bodies_count == 1);
  const auto& body = c.graph().bodies(loop)[0];
  REQUIRE(body.nodes.size() == 4);
  CHECK(body.nodes[3].kind == ir::node_kind::repeat_counter);
  CHECK(node_deps(c.graph(), body.nodes[3]) == edges{1, 2});  // every sink of the body
  CHECK(c.graph().conds.at(loop.cond).synthetic);
  CHECK(init.cond == loop.cond);
}

TEST_CASE("checker.switch_fills_missing_cases_with_empty_bodies") {
  auto c = compile_text(in_graph("cond s = 2; switch s { case 0 { k<<<1, 1>>>(x, n); } case 3 { k<<<1, 1>>>(x, n); } }"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const auto& sw = c.graph().root.nodes.at(0);
  const auto bodies = c.graph().bodies(sw);
  REQUIRE(bodies.size() == 4);
  CHECK(bodies[0].nodes.size() == 1);
  CHECK(bodies[1].nodes.empty());
  CHECK(bodies[2].nodes.empty());
  CHECK(bodies[3].nodes.size() == 1);
}

TEST_CASE("checker.memset_element_size_comes_from_the_destination") {
  auto c = compile_text("graph g(a: u16*, b: void*, c: f32*) { memset(a, 65535, 4); memset(b, 255, 4); memset(c, 1.5, 4); }");
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const auto& root = c.graph().root;
  CHECK(root.nodes[0].element_size == 2);
  CHECK(root.nodes[1].element_size == 1);
  CHECK(root.nodes[2].element_size == 4);
  // 8-byte elements: a value of two equal 4-byte halves becomes twice as many 4-byte elements.
  auto wide = compile_text("graph g(a: f64*, u: u64*) { memset(a, 0, 4); memset(u, 0x1234_5678_1234_5678, 3); }");
  REQUIRE_MESSAGE(wide.ok(), wide.errors());
  for (const auto& node : wide.graph().root.nodes) CHECK(node.element_size == 4);
  CHECK(wide.graph().exprs[wide.graph().args(wide.graph().root.nodes[1])[1].expr].constant().i == 0x12345678);
  CHECK(wide.graph().exprs[wide.graph().args(wide.graph().root.nodes[1])[2].expr].constant().i == 6);
  CHECK(compile_text("graph g(a: f64*) { memset(a, 1.0, 4); }").first_error() ==
        "memset of 8-byte elements ('f64*'): the value's bytes 0x3ff0000000000000 are not two equal 4-byte halves, "
        "and CUDA writes elements of at most 4 bytes (0 works; otherwise use a kernel)");
  CHECK(compile_text("graph g(a: i64*, v: i64) { memset(a, v, 4); }").first_error().starts_with(
        "memset of 8-byte elements ('i64*') needs a constant value"));
  CHECK(compile_text("graph g(a: u8*) { memset(a, 256, 4); }").first_error() ==
        "the value of memset (element type 'u8'): value 256 does not fit u8");
}

TEST_CASE("checker.conversions_follow_the_language_rules") {
  auto err = [](const std::string& body) { return compile_text(in_graph(body)).first_error(); };
  CHECK(err("k<<<1, 1>>>(x, 2.5);") == "cannot convert float to 'i32' for argument 2 ('n') of kernel 'k'");
  CHECK(err("k<<<1, 1>>>(x, 3000000000);") == "argument 2 ('n') of kernel 'k': value 3000000000 does not fit i32");
  CHECK(err("k<<<1, 1>>>(n, n);") == "cannot convert integer to 'f32*' for argument 1 ('p') of kernel 'k'");
  CHECK(compile_text("kernel k(p: f32*); graph g(v: void*) { k<<<1, 1>>>(v); }").first_error() ==
        "cannot convert 'void*' to 'f32*' for argument 1 ('p') of kernel 'k'; 'void*' does not convert to a typed pointer");
  CHECK(compile_text("kernel k(p: void*); graph g(v: f32*) { k<<<1, 1>>>(v + 2); }").ok());
  CHECK(compile_text("kernel k(b: bool, f: f64); graph g() { k<<<1, 1>>>(true, 3); }").ok());
  CHECK(compile_text("kernel k(b: bool); graph g() { k<<<1, 1>>>(1); }").first_error() ==
        "cannot convert integer to 'bool' for argument 1 ('b') of kernel 'k'");
}

TEST_CASE("checker.operators_need_fitting_operands") {
  auto err = [](const std::string& expr) {
    return compile_text("graph g(p: f32*, v: void*, f: f32, n: i32) { let t = " + expr + "; }").first_error();
  };
  CHECK(err("p + p") == "invalid operands to '+' ('f32*' and 'f32*'): a pointer can only be offset by an integer");
  CHECK(err("v + 1") == "invalid operands to '+' ('void*' and integer): 'void*' has no element size to offset by");
  CHECK(err("f % 2") == "invalid operands to '%' (float and integer): '%' needs integer operands");
  CHECK(err("1 << 63") == "integer overflow in 1 << 63");
  CHECK(err("n / 1") == "");  // not constant: checked when the graph is built
  CHECK(err("n / 0") == "division by zero in /");  // fails whatever n is: the compiler says so
  CHECK(err("f / (1 - 1)") == "division by zero");
  CHECK(err("n << 64") == "shift count 64 is outside 0..63");
  CHECK(err("n > 0 ? n % 0 : 1") == "");  // may never be evaluated: checked when it is
  CHECK(err("n > 0 || ceil_div(n, 0) > 1") == "");
  CHECK(err("4 / (2 - 2)") == "division by zero in /");
  CHECK(err("foo(1, 2)") == "unknown function 'foo'; the functions are min, max and ceil_div");
  CHECK(err("min(1)") == "'min' takes 2 arguments, got 1");
  CHECK(err("sizeof(void)") == "'void' is only a type as 'void*'");
  CHECK(err("-9223372036854775807 - 1") == "");
}

TEST_CASE("checker.precedence_follows_c") {
  auto c = compile_text("kernel k(n: i64); graph g() { k<<<1, 1>>>(1 + 2 * 3 << 1 | 1 ^ 3 & 2); }");
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const auto& g = c.graph();
  // ((1 + 6) << 1) | (1 ^ (3 & 2)) = 14 | 3 = 15
  CHECK(g.exprs[g.args(g.root.nodes[0])[0].expr].constant().i == 15);
}

// A graph keeps each argument's type and check once (graph::arg_forms) and every argument as
// 16 bytes; graph::args gives each back whole, as lowering made it (issue 17).
TEST_CASE("checker.arguments_share_their_forms_and_read_back_whole") {
  auto c = compile_text(
      "kernel k(x: f32*, n: i32, a: f32);\n"
      "graph g(x: f32*, n: i32) {\n"
      "  k<<<1, 1>>>(x, n, 2.0);\n"
      "  k<<<1, 1>>>(x + 1, n - 1, 3.0);\n"
      "  memset(x, 0, n);\n"
      "}\n");
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const auto& g = c.graph();
  using cgraph::ir::argument_form;
  using cgraph::ir::check;
  using cgraph::ir::scalar;
  using cgraph::ir::type;
  // Every form is one some argument has, and no two are equal: f32*, i32 and f32 for the
  // kernels, and memset's destination, value and (positive) count.
  CHECK(g.arg_pool.size() == 9);
  std::vector<argument_form> used;
  for (const auto& n : g.root.nodes)
    for (const auto& a : g.args(n))
      if (std::find(used.begin(), used.end(), argument_form{a.target, a.check}) == used.end()) used.push_back({a.target, a.check});
  CHECK(g.arg_forms.size() == used.size());
  CHECK(used.size() >= 4);
  for (std::size_t i = 0; i < g.arg_forms.size(); ++i)
    for (std::size_t j = i + 1; j < g.arg_forms.size(); ++j) CHECK_FALSE(g.arg_forms[i] == g.arg_forms[j]);
  const auto first = g.args(g.root.nodes[0]);
  const auto second = g.args(g.root.nodes[1]);
  REQUIRE(first.size() == 3);
  REQUIRE(second.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(g.arg_pool[first.size() + i].form == g.arg_pool[i].form);  // the second launch's, shared
    CHECK(first[i].target == second[i].target);
    CHECK(first[i].check == check::any);
  }
  CHECK(first[0].target == type::pointer_to(scalar::f32));
  CHECK(first[1].target == type::of(scalar::i32));
  CHECK(first[2].target == type::of(scalar::f32));
  CHECK(g.exprs[first[2].expr].constant().f == 2.0);
  CHECK(g.exprs[second[2].expr].constant().f == 3.0);
  // Each argument keeps where it was written: "n - 1" in the second launch.
  CHECK(std::string_view(c.source.text()).substr(second[1].range.begin, second[1].range.end - second[1].range.begin) == "n - 1");
  const auto count = g.args(g.root.nodes[2])[2];
  CHECK(count.check == check::positive);
  CHECK(count.target == type::of(scalar::u64));
  std::size_t iterated = 0;
  for (const auto& a : second) CHECK(a.range == second[iterated++].range);
  CHECK(iterated == 3);
  CHECK(second.subspan(1, 2)[1].expr == second[2].expr);
}

TEST_CASE("checker.host_nodes_are_refused_in_conditional_bodies_even_through_call") {
  auto c = compile_text(
      "host h(i: i32);\n"
      "graph leaf() { host h(1); }\n"
      "graph mid() { call leaf(); }\n"
      "graph g() { cond c = 1; if c { call mid(); } }\n");
  CHECK(c.first_error() ==
        "graph 'mid' holds a host callback (directly or through 'call'), which CUDA does not allow inside a "
        "conditional body");
}

TEST_CASE("checker.cond_rules") {
  CHECK(compile_text(in_graph("cond c; while c { step<<<1, 1>>>(x, c); } if c { }")).first_error() ==
        "cond 'c' is already used by another conditional; each cond drives exactly one if, while or switch");
  CHECK(compile_text(in_graph("cond c = 1;")).first_error() == "cond 'c' is not used by any if, while or switch");
  CHECK(compile_text(in_graph("cond c = 1; cond d = 1; while c { step<<<1, 1>>>(x, c); if d { } }"))
            .has_error("cond 'd' is declared in another graph body; declare it in the body that holds this 'if'"));
  CHECK(compile_text(in_graph("cond c = 1; while c { k<<<1, 1>>>(x, c); }")).first_error() ==
        "cannot convert cond to 'i32' for argument 2 ('n') of kernel 'k'; a cond can only be passed to a 'cond' parameter");
  CHECK(compile_text(in_graph("cond c = 1; while c { step<<<1, 1>>>(x, n); }")).first_error() ==
        "cannot convert integer to 'cond' for argument 2 ('c') of kernel 'step'; pass a name declared with 'cond'");
}

TEST_CASE("checker.call_checks_arguments_against_the_callee_with_defaults") {
  std::string decls = "kernel k(p: f32*, n: i32);\ngraph sub(p: f32*, n: i32 = 8) { k<<<1, 1>>>(p, n); }\n";
  CHECK(compile_text(decls + "graph g(x: f32*) { call sub(x); call sub(x, 4); }").ok());
  CHECK(compile_text(decls + "graph g(x: f32*) { call sub(); }").first_error() ==
        "graph 'sub' expects 1 to 2 arguments, got 0");
  CHECK(compile_text(decls + "graph g(x: f32*) { call g(x); }").first_error() == "recursive call: 'g' → 'g'");
}

TEST_CASE("checker.names_are_declared_once") {
  CHECK(compile_text(in_graph("let n = 1;")).first_error() == "redefinition of 'n'");
  CHECK(compile_text(in_graph("let k = 1;")).first_error() == "redefinition of 'k'");
  CHECK(compile_text(in_graph("{ let a = 1; } { let a = 2; }")).ok());
  CHECK(compile_text("kernel a(); host a();").first_error() == "redefinition of 'a'");
}

TEST_CASE("checker.a_syntax_error_in_any_body_keeps_every_semantic_diagnostic_out") {
  // Graph bodies are lowered as they are parsed; a body's syntax error, in a later graph or in
  // a redefined one no lowering reads, still leaves only the syntax errors, as a whole parse.
  const std::string bad_first = "kernel k(n: i32);\ngraph a() { nope<<<1, 1>>>(1); }\n";
  for (const std::string& later : {std::string("graph b() { k<<<1, 1>>>(1) }\n"),
                                   std::string("graph a() { k<<<1, 1>>>(1) }\n")}) {
    auto c = compile_text(bad_first + later);
    CHECK_FALSE(c.ok());
    CHECK(c.result.diags.all().size() == 1);
    CHECK(c.first_error() == "expected ';', found '}'");
  }
  // Without it, the semantic errors are all there, the redefinition's too.
  auto c = compile_text(bad_first + "graph a() { k<<<1, 1>>>(1); }\n");
  CHECK(c.has_error("unknown kernel 'nope'"));
  CHECK(c.has_error("redefinition of 'a'"));
}

TEST_CASE("checker.equal_constants_share_one_expression") {
  // `256` at every launch is one expression of the pool, and so is a folded `256 / 2` and the
  // literal `128`; another value is another. Each argument keeps its own range for its messages.
  auto c = compile_text(in_graph("k<<<1, 256>>>(x, 256); k<<<2, 256>>>(x, 256); k<<<1, 128>>>(x, 256 / 2);"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const ir::graph& g = c.graph();
  const auto& first = g.root.nodes.at(0);
  const auto& second = g.root.nodes.at(1);
  CHECK(g.launch_of(first).block[0].expr == g.launch_of(second).block[0].expr);
  CHECK(g.args(first)[1].expr == g.args(second)[1].expr);
  CHECK(g.args(first)[1].range.begin != g.args(second)[1].range.begin);
  CHECK(g.launch_of(first).grid[0].expr != g.launch_of(second).grid[0].expr);  // 1 and 2
  std::size_t constants = 0;
  for (const auto& e : g.exprs) constants += e.is_constant() ? 1 : 0;
  CHECK(constants == 5);  // 1 (the implicit ones too), 256, 2, 128, and the implicit 0 shared bytes
  const auto& third = g.root.nodes.at(2);
  CHECK(g.args(third)[1].expr == g.launch_of(third).block[0].expr);
}

TEST_CASE("checker.equal_expressions_share_one_expression_where_every_occurrence_is_read") {
  // `ceil_div(n, 256)` and `n * 4` at every launch are one expression each, evaluated once a
  // build, with the first occurrence's range: the first a build reads. An expression that may
  // never be evaluated (a branch of `?:`) or that no node may read (a let's value) is its own,
  // so a failure of one is never reported at the other.
  auto c = compile_text(in_graph("let m = n * 4;\n"
                                 "k<<<ceil_div(n, 256), 256>>>(x + 1, n * 4);\n"
                                 "k<<<ceil_div(n, 256), 256>>>(x + 1, n * 4);\n"
                                 "k<<<1, 32>>>(x, n > 0 ? n * 4 : 1);\n"
                                 "k<<<1, 32>>>(x, m);"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const ir::graph& g = c.graph();
  const auto& first = g.root.nodes.at(0);
  const auto& second = g.root.nodes.at(1);
  CHECK(g.launch_of(first).grid[0].expr == g.launch_of(second).grid[0].expr);
  CHECK(g.args(first)[0].expr == g.args(second)[0].expr);
  CHECK(g.args(first)[1].expr == g.args(second)[1].expr);
  CHECK(g.args(first)[1].range.begin != g.args(second)[1].range.begin);  // each argument keeps its own
  const source_range product = g.exprs[g.args(first)[1].expr].range;  // its `*`, in the first launch
  CHECK((product.begin >= g.args(first)[1].range.begin && product.end <= g.args(first)[1].range.end));
  const ir::expr& choice = g.exprs[g.args(g.root.nodes.at(2))[1].expr];
  REQUIRE(choice.op == ir::op::select);
  CHECK(choice.b != g.args(first)[1].expr);
  CHECK(g.lets.at(0).expr != g.args(first)[1].expr);
  std::size_t products = 0;
  for (const auto& e : g.exprs) products += e.op == ir::to_op(dsl::binary_op::mul) ? 1 : 0;
  CHECK(products == 3);  // the let's, the launches', the branch's
}

// A launch keeps only what it wrote (ir::launch_record); each slot it did not write reads as
// its default, a dimension 1 and the shared bytes 0, and keeps no range of its own.
TEST_CASE("checker.a_launch_keeps_the_values_written_and_reads_the_others_as_defaults") {
  auto c = compile_text(in_graph("k<<<(n, 2), 64>>>(x, n); k<<<1, (8, 4, 2), 256>>>(x, n);"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const auto& g = c.graph();
  const auto& first = g.root.nodes.at(0);
  const auto& second = g.root.nodes.at(1);
  CHECK(g.launches.at(first.launch).grid == 2);
  CHECK(g.launches.at(first.launch).block == 1);
  CHECK_FALSE(g.launches.at(first.launch).shared);
  CHECK(g.launch_values.size() == 3 + 5);  // what the two launches wrote, nothing else
  auto integer = [&](const ir::node& n, std::size_t slot) { return g.exprs[g.launch_slot(n, slot).expr].constant().i; };
  CHECK_FALSE(g.exprs[g.launch_slot(first, 0).expr].is_constant());  // n
  CHECK(integer(first, 1) == 2);
  CHECK(integer(first, 2) == 1);  // not written
  CHECK(integer(first, 3) == 64);
  CHECK(integer(first, 4) == 1);
  CHECK(integer(first, 6) == 0);
  CHECK(g.launch_slot(first, 2).range == source_range{});
  CHECK(g.launch_slot(first, 1).range != source_range{});
  CHECK(integer(second, 0) == 1);
  CHECK(integer(second, 3) == 8);
  CHECK(integer(second, 4) == 4);
  CHECK(integer(second, 5) == 2);
  CHECK(integer(second, 6) == 256);
  for (std::size_t slot = 0; slot < ir::launch_config::slots; ++slot) {
    const ir::argument a = g.launch_argument(second, slot);
    CHECK(a.expr == g.launch_slot(second, slot).expr);
    CHECK(a.target == ir::launch_config::value_type);
    CHECK(a.check == ir::launch_config::check_of(slot));
  }
  const ir::launch_config whole = g.launch_of(second);
  CHECK(whole.block[2].expr == g.launch_slot(second, 5).expr);
  CHECK(whole.shared_bytes.expr == g.launch_slot(second, 6).expr);
}

// A conditional's bodies join graph::body_pool together, after the bodies nested in them: each
// node reads its own, whole and in order.
TEST_CASE("checker.nested_conditionals_each_read_their_own_bodies") {
  auto c = compile_text(in_graph("cond a = 1;\n"
                                 "if a { cond s = 0; switch s { case 0 { k<<<1, 1>>>(x, n); }\n"
                                 "  case 2 { cond b = 0; while b { k<<<1, 1>>>(x, n); } } } }\n"
                                 "else { k<<<1, 1>>>(x, n); k<<<1, 1>>>(x, n); }"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const auto& g = c.graph();
  const auto& outer = g.root.nodes.at(0);
  const auto outer_bodies = g.bodies(outer);
  REQUIRE(outer_bodies.size() == 2);
  CHECK(outer_bodies[1].nodes.size() == 2);  // else
  REQUIRE(outer_bodies[0].nodes.size() == 1);
  const auto& sw = outer_bodies[0].nodes[0];
  CHECK(sw.cond_kind == ir::cond_kind::switch_cases);
  const auto cases = g.bodies(sw);
  REQUIRE(cases.size() == 3);
  CHECK(cases[0].nodes.size() == 1);
  CHECK(cases[1].nodes.empty());
  REQUIRE(cases[2].nodes.size() == 1);
  const auto loop = g.bodies(cases[2].nodes[0]);
  REQUIRE(loop.size() == 1);
  CHECK(loop[0].nodes.size() == 1);
  CHECK(g.body_pool.size() == 2 + 3 + 1);
  CHECK(g.bodies(g.root.nodes.at(0)).data() > loop.data());  // the outer's joined last
  std::size_t nodes = 0;
  ir::for_each_node(g, g.root, [&](const ir::node&) { ++nodes; });
  CHECK(nodes == g.node_count);
}

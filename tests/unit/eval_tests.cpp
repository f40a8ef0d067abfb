#include <cgraph/compiler/eval.hpp>
#include "support.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

using namespace cgraph::ir;

namespace {

op_result run(op o, value a, value b = {}) {
  expr e;
  e.op = o;
  e.result = (a.k == value::kind::floating || b.k == value::kind::floating) ? type::of(scalar::f64) : type::of(scalar::i64);
  return apply(e, a, b);
}

constexpr auto max64 = std::numeric_limits<std::int64_t>::max();
constexpr auto min64 = std::numeric_limits<std::int64_t>::min();

}  // namespace

TEST_CASE("eval.integer_arithmetic_is_checked") {
  CHECK(run(op::add, value::integer(2), value::integer(3)).v.i == 5);
  CHECK(run(op::add, value::integer(max64), value::integer(1)).error == "integer overflow in 9223372036854775807 + 1");
  CHECK_FALSE(run(op::sub, value::integer(min64), value::integer(1)).error.empty());
  CHECK_FALSE(run(op::mul, value::integer(1LL << 32), value::integer(1LL << 32)).error.empty());
  CHECK(run(op::div, value::integer(7), value::integer(0)).error == "division by zero in /");
  CHECK(run(op::mod, value::integer(7), value::integer(0)).error == "division by zero in %");
  CHECK_FALSE(run(op::div, value::integer(min64), value::integer(-1)).error.empty());
  CHECK_FALSE(run(op::neg, value::integer(min64)).error.empty());
}

TEST_CASE("eval.shifts_are_checked") {
  CHECK(run(op::shl, value::integer(1), value::integer(20)).v.i == 1 << 20);
  CHECK(run(op::shl, value::integer(1), value::integer(62)).v.i == 1LL << 62);
  CHECK(run(op::shl, value::integer(1), value::integer(63)).error == "integer overflow in 1 << 63");
  CHECK(run(op::shl, value::integer(1), value::integer(64)).error == "shift count 64 is outside 0..63");
  CHECK_FALSE(run(op::shr, value::integer(1), value::integer(-1)).error.empty());
  CHECK(run(op::shr, value::integer(-8), value::integer(1)).v.i == -4);
}

TEST_CASE("eval.a_right_operand_that_fails_every_evaluation_is_known_alone") {
  // What the compiler reports for `n / 0` while `n` is a parameter: the same words apply()
  // gives when the graph is built, and nothing for a right operand that some `n` takes.
  auto fails = [](op o, value b) {
    expr e;
    e.op = o;
    e.result = b.k == value::kind::floating ? type::of(scalar::f64) : type::of(scalar::i64);
    std::string alone = always_fails(e, b);
    if (!alone.empty()) CHECK(apply(e, value::integer(12), b).error == alone);
    return alone;
  };
  CHECK(fails(op::div, value::integer(0)) == "division by zero in /");
  CHECK(fails(op::mod, value::integer(0)) == "division by zero in %");
  CHECK(fails(op::ceil_div, value::integer(0)) == "division by zero in ceil_div");
  CHECK(fails(op::div, value::floating(0.0)) == "division by zero");
  CHECK(fails(op::shl, value::integer(64)) == "shift count 64 is outside 0..63");
  CHECK(fails(op::shr, value::integer(-1)) == "shift count -1 is outside 0..63");
  CHECK(fails(op::div, value::integer(-1)).empty());  // fails for INT64_MIN only
  CHECK(fails(op::shl, value::integer(63)).empty());  // 0 << 63 is 0
  CHECK(fails(op::mul, value::integer(0)).empty());
  CHECK(fails(op::div, value::floating(0.5)).empty());
}

TEST_CASE("eval.ceil_div_rounds_toward_positive_infinity") {
  CHECK(run(op::ceil_div, value::integer(1 << 20), value::integer(256)).v.i == 4096);
  CHECK(run(op::ceil_div, value::integer(1000), value::integer(256)).v.i == 4);
  CHECK(run(op::ceil_div, value::integer(-7), value::integer(2)).v.i == -3);
  CHECK(run(op::ceil_div, value::integer(7), value::integer(-2)).v.i == -3);
  CHECK(run(op::ceil_div, value::integer(1), value::integer(0)).error == "division by zero in ceil_div");
}

TEST_CASE("eval.min_max_and_float_arithmetic") {
  CHECK(run(op::min, value::integer(3), value::integer(-2)).v.i == -2);
  CHECK(run(op::max, value::floating(1.5), value::floating(2.5)).v.f == 2.5);
  CHECK(run(op::div, value::floating(1.0), value::floating(4.0)).v.f == 0.25);
  CHECK_FALSE(run(op::div, value::floating(1.0), value::floating(0.0)).error.empty());
  CHECK_FALSE(run(op::mul, value::floating(1e300), value::floating(1e300)).error.empty());
}

TEST_CASE("eval.conversion_checks_the_target_range") {
  CHECK(convert(value::integer(127), type::of(scalar::i8)).error.empty());
  CHECK(convert(value::integer(128), type::of(scalar::i8)).error == "value 128 does not fit i8");
  CHECK(convert(value::integer(-1), type::of(scalar::u32)).error == "value -1 does not fit u32");
  CHECK(convert(value::integer(4294967295LL), type::of(scalar::u32)).as_u64() == 4294967295u);
  CHECK(convert(value::integer(0), type::of(scalar::u32), check::positive).error == "value 0 is not positive");
  CHECK(convert(value::floating(1e39), type::of(scalar::f32)).error == "value 1e+39 does not fit f32");
  auto f = convert(value::integer(2), type::of(scalar::f32));
  CHECK(f.size == 4);
  float out;
  std::memcpy(&out, f.bytes.data(), 4);
  CHECK(out == 2.0f);
  CHECK(convert(value::pointer(0x1000), type::pointer_to(scalar::f32)).as_u64() == 0x1000);
}

TEST_CASE("eval.every_integer_type_takes_exactly_its_range") {
  // integer_fits (inline, a parameter handle's check) and convert agree at every edge, and a
  // value that fits takes the type's own size.
  struct edge {
    scalar s;
    std::int64_t low, high;
    std::uint32_t size;
  };
  const edge edges[] = {{scalar::i8, INT8_MIN, INT8_MAX, 1},       {scalar::i16, INT16_MIN, INT16_MAX, 2},
                        {scalar::i32, INT32_MIN, INT32_MAX, 4},    {scalar::i64, INT64_MIN, INT64_MAX, 8},
                        {scalar::u8, 0, UINT8_MAX, 1},             {scalar::u16, 0, UINT16_MAX, 2},
                        {scalar::u32, 0, UINT32_MAX, 4},           {scalar::u64, 0, INT64_MAX, 8}};
  for (const edge& e : edges) {
    CAPTURE(to_string(e.s));
    for (std::int64_t v : {e.low, e.high}) {
      CHECK(integer_fits(value::integer(v), e.s));
      auto c = convert(value::integer(v), type::of(e.s));
      CHECK(c.error.empty());
      CHECK(c.size == e.size);
      // A value that fits stores as convert gives it (the runtime's per-node path stores a
      // parameter's checked value so, without the conversion).
      for (std::int64_t x : {v, std::int64_t{0}, v / 3}) {
        converted_bytes stored;
        CHECK(store_integer(x, e.s, stored));
        auto same = convert(value::integer(x), type::of(e.s));
        CHECK(stored.size == same.size);
        CHECK(stored.as_u64() == same.as_u64());
        CHECK_FALSE(stored.indirect);
      }
    }
    if (e.low > INT64_MIN) {
      CHECK_FALSE(integer_fits(value::integer(e.low - 1), e.s));
      CHECK_FALSE(convert(value::integer(e.low - 1), type::of(e.s)).error.empty());
    }
    if (e.high < INT64_MAX) {
      CHECK_FALSE(integer_fits(value::integer(e.high + 1), e.s));
      CHECK_FALSE(convert(value::integer(e.high + 1), type::of(e.s)).error.empty());
    }
    // Above INT64_MAX only u64 takes it.
    CHECK(integer_fits(value::unsigned_integer(UINT64_MAX), e.s) == (e.s == scalar::u64));
  }
  CHECK_FALSE(integer_fits(value::integer(0), scalar::f32));
  converted_bytes big, not_integer;
  CHECK(store_integer(value::unsigned_integer(UINT64_MAX).i, scalar::u64, big));
  CHECK(big.as_u64() == UINT64_MAX);
  CHECK_FALSE(store_integer(1, scalar::f32, not_integer));
  CHECK(not_integer.size == 0);
}

TEST_CASE("eval.pointer_offsets_scale_by_the_element_size") {
  expr e;
  e.op = op::ptr_add;
  e.result = type::pointer_to(scalar::f64);
  e.element_size = 8;
  CHECK(apply(e, value::pointer(0x1000), value::integer(3)).v.bits == 0x1018);
  e.op = op::ptr_sub;
  CHECK(apply(e, value::pointer(0x1000), value::integer(1)).v.bits == 0xff8);
}

TEST_CASE("eval.two_byte_floats_round_to_nearest_even_from_the_double") {
  auto bits = [](double v, scalar s) {
    auto c = convert(value::floating(v), type::of(s));
    REQUIRE_MESSAGE(c.error.empty(), c.error);
    CHECK(c.size == 2);
    return c.as_u64();
  };
  CHECK(bits(1.0, scalar::f16) == 0x3c00);
  CHECK(bits(-2.0, scalar::f16) == 0xc000);
  CHECK(bits(0.1, scalar::f16) == 0x2e66);
  CHECK(bits(65504, scalar::f16) == 0x7bff);
  CHECK(bits(65519, scalar::f16) == 0x7bff);         // below the midpoint to infinity
  CHECK(bits(std::ldexp(1.0, -24), scalar::f16) == 0x0001);  // the smallest subnormal
  CHECK(bits(std::ldexp(1.0, -25), scalar::f16) == 0x0000);  // a tie: to even, zero
  CHECK(bits(std::ldexp(3.0, -25), scalar::f16) == 0x0002);  // a tie: to even, two
  CHECK(bits(1.0 + std::ldexp(1.0, -11), scalar::f16) == 0x3c00);  // a tie between 1 and its successor
  CHECK(bits(1.0, scalar::bf16) == 0x3f80);
  CHECK(bits(3.0e38, scalar::bf16) == 0x7f62);
  CHECK(bits(-0.0, scalar::bf16) == 0x8000);
  // Rounding straight from the double: through float, 1 + 2^-8 + 2^-30 would first round to
  // the tie 1 + 2^-8 and then to even (1.0).
  CHECK(bits(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30), scalar::bf16) == 0x3f81);
  CHECK(convert(value::floating(65520), type::of(scalar::f16)).error == "value 65520.0 does not fit f16");
  CHECK(convert(value::floating(3.4e38), type::of(scalar::bf16)).error == "value 3.4e+38 does not fit bf16");
  for (double v : {0.5, -3.25, 1024.0, std::ldexp(1.0, -20)}) {
    CHECK(small_float_value(static_cast<std::uint16_t>(bits(v, scalar::f16)), scalar::f16) == v);
    CHECK(small_float_value(static_cast<std::uint16_t>(bits(v, scalar::bf16)), scalar::bf16) == v);
  }
}

// f32 rounds to nearest, as C++ converts a double: FLT_MAX as written (3.4028235e38, just above
// the float's value) fits and is FLT_MAX; from FLT_MAX + half its last place (2^128 - 2^103)
// on, the value would round to infinity and does not fit.
TEST_CASE("eval.f32_rounds_to_nearest_at_the_top_of_its_range") {
  auto as_f32 = [](double d) {
    converted c = convert(value::floating(d), type::of(scalar::f32));
    REQUIRE_MESSAGE(c.error.empty(), c.error);
    float f;
    std::memcpy(&f, c.bytes.data(), sizeof f);
    return f;
  };
  constexpr float largest = std::numeric_limits<float>::max();
  CHECK(as_f32(3.4028235e38) == largest);
  CHECK(as_f32(-3.4028235e38) == -largest);
  CHECK(as_f32(std::nextafter(0x1.ffffffp127, 0.0)) == largest);
  CHECK(as_f32(1.5) == 1.5f);
  CHECK(convert(value::floating(0x1.ffffffp127), type::of(scalar::f32)).error == "value 3.4028235677973366e+38 does not fit f32");
  CHECK_FALSE(convert(value::floating(-3.5e38), type::of(scalar::f32)).error.empty());
}

TEST_CASE("eval.unsigned_values_above_int64_max_convert_to_u64_only") {
  const value big = value::unsigned_integer(0xFFFF'FFFF'FFFF'FFF0ull);
  CHECK(big.big_unsigned());
  CHECK_FALSE(value::unsigned_integer(5).big_unsigned());
  CHECK(convert(big, type::of(scalar::u64)).as_u64() == 0xFFFF'FFFF'FFFF'FFF0ull);
  CHECK(convert(big, type::of(scalar::i64)).error == "value 18446744073709551600 does not fit i64");
  CHECK(convert(big, type::of(scalar::f64)).error.empty());
  CHECK(big.as<double>() == 18446744073709551600.0);
  expr e;
  e.op = op::add;
  e.result = type::of(scalar::i64);
  CHECK(apply(e, big, value::integer(1)).error == "value 18446744073709551600 does not fit 64-bit signed arithmetic");
}

TEST_CASE("eval.logic_and_choice_evaluate_only_what_they_need") {
  // n = 0: `1024 / n` fails, but nothing that is evaluated uses it.
  auto c = cgraph::test::compile_text(cgraph::test::in_graph(
      "k<<<n > 0 && 1024 / n > 4 ? 2 : 1, n == 0 || 64 / n > 1 ? 32 : 64>>>(x, n != 0 ? 10 / n : -1);"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const cgraph::ir::graph& g = c.graph();
  const auto& node = g.root.nodes[0];
  auto values_for = [&](std::int64_t n) {
    std::vector<std::optional<value>> params{value::pointer(0), value::integer(n)};
    auto r = evaluate(g, params);
    REQUIRE_FALSE(r.error);
    return r.values;
  };
  auto zero = values_for(0);
  CHECK(zero[g.launch_of(node).grid[0].expr].i == 1);
  CHECK(zero[g.launch_of(node).block[0].expr].i == 32);
  CHECK(zero[g.args(node)[1].expr].i == -1);
  auto eight = values_for(8);
  CHECK(eight[g.launch_of(node).grid[0].expr].i == 2);
  CHECK(eight[g.launch_of(node).block[0].expr].i == 32);
  CHECK(eight[g.args(node)[1].expr].i == 1);
}

TEST_CASE("eval.a_failed_value_is_an_error_where_it_is_used") {
  auto c = cgraph::test::compile_text(cgraph::test::in_graph("let d = 4 / (n - 4); k<<<1, n > 4 ? 1 : 8 / (n - 4)>>>(x, n);"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  std::vector<std::optional<value>> params{value::pointer(0), value::integer(4)};
  auto r = evaluate(c.graph(), params);
  REQUIRE(r.error);  // a let is always evaluated, as generated C++ does
  CHECK(r.error->message == "division by zero in /");
  CHECK(c.source.location(r.error->range.begin).column == 11);  // the let's division
}

TEST_CASE("eval.an_expression_written_twice_fails_at_its_first_occurrence_a_build_reads") {
  // `n * BIG` three times: in a branch of `?:` that is not taken (its own expression: it may
  // never be evaluated), then in two launches, which share one expression (value numbering,
  // lowering.hpp). The failure both launches read names the first launch, the first node a
  // build reads it for; the branch's is never reported.
  auto c = cgraph::test::compile_text(cgraph::test::in_graph("k<<<1, 32>>>(x, n > 100 ? n * 4611686018427387904 : 1);\n"
                                                             "k<<<1, 32>>>(x, n * 4611686018427387904);\n"
                                                             "k<<<1, 32>>>(x, n * 4611686018427387904);"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const graph& g = c.graph();
  std::vector<std::optional<value>> params{value::pointer(0), value::integer(4)};
  auto r = evaluate(g, params);
  REQUIRE_FALSE(r.error);  // failures are errors where they are used
  const argument& chosen = g.args(g.root.nodes[0])[1];
  const argument& first = g.args(g.root.nodes[1])[1];
  const argument& second = g.args(g.root.nodes[2])[1];
  CHECK_FALSE(is_failure(r.values[chosen.expr]));
  CHECK(first.expr == second.expr);
  REQUIRE(is_failure(r.values[second.expr]));
  const eval_error e = failure_of(g, r.values, r.values[second.expr]);
  CHECK(e.message == "integer overflow in 4 * 4611686018427387904");
  CHECK(c.source.location(e.range.begin).line == c.source.location(first.range.begin).line);
  CHECK(c.source.location(e.range.begin).line != c.source.location(second.range.begin).line);
  CHECK(g.exprs[g.exprs[chosen.expr].b].range.begin < first.range.begin);  // the branch's own `*`
}

TEST_CASE("eval.a_layered_pool_evaluates_and_fails_as_a_whole_one") {
  // The runtime's form (built_graph.hpp): constants evaluated once, with no parameters, and a
  // pool of its own for what reads a parameter, re-evaluated per build.
  auto c = cgraph::test::compile_text(cgraph::test::in_graph(
      "let half = 512 / 2; let d = 64 / n; k<<<ceil_div(n, half), half>>>(x + d * 3, n > 4 ? n - 4 : 7 * 6);"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const graph& g = c.graph();
  const dependency_index deps = index_dependencies(g);
  std::vector<value> constants(g.exprs.size());
  std::vector<std::uint32_t> slot(g.exprs.size(), none), param_exprs;
  for (std::uint32_t i = 0; i < g.exprs.size(); ++i) {
    if (deps.expr_params[i].empty()) {
      evaluate_expression(g, i, constants);
    } else {
      slot[i] = static_cast<std::uint32_t>(param_exprs.size());
      param_exprs.push_back(i);
    }
  }
  REQUIRE_FALSE(param_exprs.empty());
  REQUIRE(param_exprs.size() < g.exprs.size());  // some constants, some not
  for (std::int64_t n : {8, 3, 1000}) {
    CAPTURE(n);
    std::vector<std::optional<value>> params{value::pointer(4096), value::integer(n)};
    auto whole = evaluate(g, params);
    REQUIRE_FALSE(whole.error);
    layered_pool layered(constants, slot, param_exprs.size());
    REQUIRE_FALSE(reevaluate(g, params, param_exprs, layered));
    for (std::size_t i = 0; i < g.exprs.size(); ++i) {
      CAPTURE(i);
      CHECK(layered[i].k == whole.values[i].k);
      CHECK(layered[i].i == whole.values[i].i);
      CHECK(layered[i].bits == whole.values[i].bits);
    }
  }
  // n = 0: `64 / n` fails in the let, with the same message and place either way.
  std::vector<std::optional<value>> params{value::pointer(4096), value::integer(0)};
  auto whole = evaluate(g, params);
  layered_pool layered(constants, slot, param_exprs.size());
  auto error = reevaluate(g, params, param_exprs, layered);
  REQUIRE(whole.error);
  REQUIRE(error);
  CHECK(error->message == whole.error->message);
  CHECK(error->range.begin == whole.error->range.begin);
}

// A pool constant keeps its value in the operand words (ir::expr::set_constant): every kind a
// constant can be comes back whole, and a struct, which it cannot hold, is refused.
TEST_CASE("eval.a_pool_constant_keeps_every_bit_of_its_value") {
  auto round_trip = [](value v) {
    expr e;
    e.set_constant(v);
    return e.constant();
  };
  for (std::int64_t i : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{1} << 40, min64, max64}) {
    value back = round_trip(value::integer(i));
    CHECK(back.k == value::kind::integer);
    CHECK(back.i == i);
    CHECK_FALSE(back.big_unsigned());
  }
  value big = round_trip(value::unsigned_integer(std::numeric_limits<std::uint64_t>::max()));
  CHECK(big.big_unsigned());
  CHECK(static_cast<std::uint64_t>(big.i) == std::numeric_limits<std::uint64_t>::max());
  for (double f : {0.0, -0.0, 1.5, -1e300, std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::infinity()}) {
    value back = round_trip(value::floating(f));
    CHECK(back.k == value::kind::floating);
    CHECK(std::bit_cast<std::uint64_t>(back.f) == std::bit_cast<std::uint64_t>(f));
  }
  CHECK(round_trip(value::boolean(true)).k == value::kind::boolean);
  CHECK(round_trip(value::boolean(true)).bits == 1);
  CHECK(round_trip(value::boolean(false)).bits == 0);
  CHECK(round_trip(value::pointer(0xdeadbeefcafef00dull)).k == value::kind::pointer);
  CHECK(round_trip(value::pointer(0xdeadbeefcafef00dull)).bits == 0xdeadbeefcafef00dull);
  CHECK(round_trip(value::cond(42)).k == value::kind::cond);
  CHECK(round_trip(value::cond(42)).bits == 42);
  CHECK(expr{}.constant().k == value::kind::integer);  // made without a value: the integer 0
  CHECK(expr{}.constant().i == 0);
  char bytes[4] = {};
  expr e;
  CHECK_THROWS_AS(e.set_constant(value::structure(bytes, sizeof bytes)), std::logic_error);
  CHECK_THROWS_AS(e.set_constant(value{value::kind::failed, 0, 0, 0}), std::logic_error);
}

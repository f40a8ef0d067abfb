#include <cgraph/compiler/eval.hpp>

#include <doctest/doctest.h>

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

TEST_CASE("eval.pointer_offsets_scale_by_the_element_size") {
  expr e;
  e.op = op::ptr_add;
  e.result = type::pointer_to(scalar::f64);
  e.element_size = 8;
  CHECK(apply(e, value::pointer(0x1000), value::integer(3)).v.bits == 0x1018);
  e.op = op::ptr_sub;
  CHECK(apply(e, value::pointer(0x1000), value::integer(1)).v.bits == 0xff8);
}

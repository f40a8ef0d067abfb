#include <cgraph/compiler/eval.hpp>

#include <algorithm>
#include <bit>
#include <iterator>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace cgraph::ir {

namespace {

using i64 = std::int64_t;

op_result ok(value v) { return {v, {}}; }
op_result fail(std::string message) { return {{}, std::move(message)}; }

double as_double(const value& v) { return v.as<double>(); }

// The bits of the 2-byte float (`exponent_bits` 5 for f16, 8 for bf16) nearest to `d`, ties to
// even, straight from the double (going through float would round twice); nullopt when the
// rounded value is beyond the type's largest finite value.
std::optional<std::uint16_t> small_float_bits(double d, int exponent_bits) {
  const int mantissa_bits = 15 - exponent_bits;
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const std::uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  double a = std::fabs(d);
  if (a == 0) return sign;
  int e = 0;
  std::frexp(a, &e);                                            // a = m·2^e, m in [0.5, 1)
  int quantum = std::max(e - 1, 1 - bias) - mantissa_bits;      // the spacing at a (subnormals share one)
  auto mantissa = static_cast<std::uint64_t>(std::nearbyint(std::ldexp(a, -quantum)));  // ties to even
  if (mantissa == 0) return sign;
  if (mantissa >> (mantissa_bits + 1)) {  // rounded up to the next binade
    mantissa >>= 1;
    ++quantum;
  }
  const bool subnormal = mantissa < (std::uint64_t{1} << mantissa_bits);
  const int biased = subnormal ? 0 : quantum + mantissa_bits + bias;
  if (biased >= (1 << exponent_bits) - 1) return std::nullopt;
  return static_cast<std::uint16_t>(sign | (biased << mantissa_bits) | (mantissa & ((1u << mantissa_bits) - 1)));
}

// An operation whose operand is a u64 above INT64_MAX: only conversions take one.
op_result unsigned_operand(const value& v) {
  return fail(fmt::format("value {} does not fit 64-bit signed arithmetic", static_cast<std::uint64_t>(v.i)));
}

// Whether an integer division or shift with right operand `y` fails whatever its left operand
// is, and with what words: a constant zero divisor fails every evaluation, so the compiler
// reports it (always_fails) rather than leave it to every build. A bool test first, since
// builds and updates run integer_op for every operation.
bool right_operand_fails(op o, i64 y) {
  switch (o) {
    case op::div:
    case op::mod:
    case op::ceil_div: return y == 0;
    case op::shl:
    case op::shr: return y < 0 || y > 63;
    default: return false;
  }
}
std::string right_operand_error(op o, i64 y) {
  if (o == op::shl || o == op::shr) return fmt::format("shift count {} is outside 0..63", y);
  return fmt::format("division by zero in {}", dsl::info(*operator_of(o)).spelling);
}

op_result integer_op(op o, i64 x, i64 y) {
  if (right_operand_fails(o, y)) return fail(right_operand_error(o, y));
  i64 r = 0;
  switch (o) {
    case op::add:
      if (__builtin_add_overflow(x, y, &r)) return fail(fmt::format("integer overflow in {} + {}", x, y));
      return ok(value::integer(r));
    case op::sub:
      if (__builtin_sub_overflow(x, y, &r)) return fail(fmt::format("integer overflow in {} - {}", x, y));
      return ok(value::integer(r));
    case op::mul:
      if (__builtin_mul_overflow(x, y, &r)) return fail(fmt::format("integer overflow in {} * {}", x, y));
      return ok(value::integer(r));
    case op::div:
    case op::mod:
    case op::ceil_div: {
      const std::string_view name = dsl::info(*operator_of(o)).spelling;
      if (x == std::numeric_limits<i64>::min() && y == -1)
        return fail(fmt::format("integer overflow in {} {} {}", x, name, y));
      if (o == op::div) return ok(value::integer(x / y));
      if (o == op::mod) return ok(value::integer(x % y));
      i64 q = x / y;
      if ((x % y != 0) && ((x < 0) == (y < 0))) ++q;  // round toward +infinity
      return ok(value::integer(q));
    }
    case op::shl:
    case op::shr: {
      const std::string_view name = dsl::info(*operator_of(o)).spelling;
      if (o == op::shr) return ok(value::integer(x >> y));
      if (x < 0 || (y > 0 && (x >> (63 - y)) != 0))
        return fail(fmt::format("integer overflow in {} {} {}", x, name, y));
      return ok(value::integer(x << y));
    }
    case op::bit_and: return ok(value::integer(x & y));
    case op::bit_or: return ok(value::integer(x | y));
    case op::bit_xor: return ok(value::integer(x ^ y));
    case op::min: return ok(value::integer(std::min(x, y)));
    case op::max: return ok(value::integer(std::max(x, y)));
    default: return fail("invalid integer operation");
  }
}

// The floating-point twin of right_operand_fails: only a division by zero fails whatever its
// left operand is (every other failure is a non-finite result, which depends on both).
bool float_right_operand_fails(op o, double y) { return o == op::div && y == 0; }
constexpr std::string_view float_division_by_zero = "division by zero";

op_result float_op(op o, double x, double y) {
  if (float_right_operand_fails(o, y)) return fail(std::string(float_division_by_zero));
  double r = 0;
  switch (o) {
    case op::add: r = x + y; break;
    case op::sub: r = x - y; break;
    case op::mul: r = x * y; break;
    case op::div: r = x / y; break;
    case op::min: r = std::fmin(x, y); break;
    case op::max: r = std::fmax(x, y); break;
    default: return fail("invalid floating-point operation");
  }
  if (!std::isfinite(r)) return fail("floating-point result is not finite");
  return ok(value::floating(r));
}

op_result compare(op o, const value& a, const value& b) {
  int order = 0;  // -1, 0, 1; NaN compares unordered (every comparison but != is false)
  bool unordered = false;
  if (a.k == value::kind::floating || b.k == value::kind::floating) {
    double x = as_double(a), y = as_double(b);
    unordered = std::isnan(x) || std::isnan(y);
    order = x < y ? -1 : x > y ? 1 : 0;
  } else if (a.k == value::kind::integer) {
    order = a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
  } else {
    order = a.bits < b.bits ? -1 : a.bits > b.bits ? 1 : 0;
  }
  switch (o) {
    case op::eq: return ok(value::boolean(!unordered && order == 0));
    case op::ne: return ok(value::boolean(unordered || order != 0));
    case op::lt: return ok(value::boolean(!unordered && order < 0));
    case op::le: return ok(value::boolean(!unordered && order <= 0));
    case op::gt: return ok(value::boolean(!unordered && order > 0));
    case op::ge: return ok(value::boolean(!unordered && order >= 0));
    default: return fail("invalid comparison");
  }
}

}  // namespace

op_result apply(const expr& e, const value& a, const value& b) {
  if (a.big_unsigned()) return unsigned_operand(a);
  if (b.big_unsigned()) return unsigned_operand(b);
  switch (e.op) {
    case op::to_float: return ok(value::floating(static_cast<double>(a.i)));
    case op::neg:
      if (a.k == value::kind::floating) return ok(value::floating(-a.f));
      if (a.i == std::numeric_limits<i64>::min()) return fail(fmt::format("integer overflow in -({})", a.i));
      return ok(value::integer(-a.i));
    case op::logical_not: return ok(value::boolean(!truth(a)));
    case op::to_int: return ok(value::integer(a.bits != 0 ? 1 : 0));
    case op::logical_and: return ok(value::boolean(truth(a) && truth(b)));
    case op::logical_or: return ok(value::boolean(truth(a) || truth(b)));
    case op::eq:
    case op::ne:
    case op::lt:
    case op::le:
    case op::gt:
    case op::ge: return compare(e.op, a, b);
    case op::ptr_add:
    case op::ptr_sub: {
      i64 bytes = 0;
      if (__builtin_mul_overflow(b.i, static_cast<i64>(e.element_size), &bytes))
        return fail("pointer offset overflows");
      std::uint64_t address = e.op == op::ptr_add ? a.bits + static_cast<std::uint64_t>(bytes)
                                                  : a.bits - static_cast<std::uint64_t>(bytes);
      return ok(value::pointer(address));
    }
    default:
      if (e.result.is_float()) {
        if (auto o = operator_of(e.op); !o || dsl::info(*o).integer_only()) return fail("invalid floating-point operation");
        return float_op(e.op, as_double(a), as_double(b));
      }
      return integer_op(e.op, a.i, b.i);
  }
}

std::string always_fails(const expr& e, const value& b) {
  if (b.big_unsigned()) return {};  // the lowering reports such a constant where it stands
  if (e.result.is_float()) return float_right_operand_fails(e.op, as_double(b)) ? std::string(float_division_by_zero) : std::string();
  if (!e.result.is_integer() || !right_operand_fails(e.op, b.i)) return {};
  return right_operand_error(e.op, b.i);
}

double small_float_value(std::uint16_t bits, scalar s) {
  const int exponent_bits = s == scalar::f16 ? 5 : 8;
  const int mantissa_bits = 15 - exponent_bits;
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const int biased = (bits >> mantissa_bits) & ((1 << exponent_bits) - 1);
  const unsigned mantissa = bits & ((1u << mantissa_bits) - 1);
  double magnitude = 0;
  if (biased == (1 << exponent_bits) - 1) magnitude = mantissa ? std::numeric_limits<double>::quiet_NaN()
                                                                 : std::numeric_limits<double>::infinity();
  else if (biased == 0) magnitude = std::ldexp(mantissa, 1 - bias - mantissa_bits);
  else magnitude = std::ldexp(mantissa | (1u << mantissa_bits), biased - bias - mantissa_bits);
  return (bits & 0x8000) ? -magnitude : magnitude;
}

// Each branch sets the size it stores (sizeof the C++ type): a parameter handle's update
// converts on every assignment, and the size table's out-of-line lookup was a fifth of it.
convert_problem convert_number(const value& v, type target, check c, converted_bytes& out) {
  out.size = 0;  // a value that does not fit has no bytes
  out.indirect = false;
  out.bytes = {};
  auto store = [&](auto x) {
    out.size = sizeof x;
    std::memcpy(out.bytes.data(), &x, sizeof x);
  };
  if (target.is_float()) {
    double d = as_double(v);
    if (c == check::positive && !(d > 0)) return convert_problem::not_positive;
    if (target.s == scalar::f32) {
      // Rounded to nearest, as C++ converts: a value below FLT_MAX + half its last place
      // (2^128 - 2^103) rounds to FLT_MAX (3.4028235e38, FLT_MAX as written, fits); from there
      // on it rounds to infinity and does not fit.
      constexpr double rounds_to_infinity = 0x1.ffffffp127;
      constexpr float largest = std::numeric_limits<float>::max();
      if (!(std::fabs(d) < rounds_to_infinity)) return convert_problem::does_not_fit;
      store(std::fabs(d) > static_cast<double>(largest) ? (d > 0 ? largest : -largest) : static_cast<float>(d));
    } else if (target.s == scalar::f16 || target.s == scalar::bf16) {
      auto bits = small_float_bits(d, target.s == scalar::f16 ? 5 : 8);
      if (!bits) return convert_problem::does_not_fit;
      store(*bits);
    } else {
      store(d);
    }
    return convert_problem::fits;
  }
  // integer targets
  if (v.big_unsigned()) {
    if (target.s != scalar::u64) return convert_problem::does_not_fit;
    store(v.i);
    return convert_problem::fits;
  }
  i64 x = v.i;
  if (c == check::positive && x <= 0) return convert_problem::not_positive;
  if (target.s <= scalar::u64 && !integer_fits(v, target.s)) return convert_problem::does_not_fit;
  return store_integer(x, target.s, out) ? convert_problem::fits : convert_problem::invalid_type;
}

converted convert(const value& v, type target, check c) {
  converted out;
  // An integer target names the value as the integer it reads (v.i), as it always has.
  auto shown = [&] { return target.is_float() || v.big_unsigned() ? format_value(v) : fmt::format("{}", v.i); };
  switch (convert_to(v, target, c, out)) {
    case convert_problem::fits: break;
    case convert_problem::not_positive: out.error = fmt::format("value {} is not positive", shown()); break;
    case convert_problem::does_not_fit: out.error = fmt::format("value {} does not fit {}", shown(), to_string(target)); break;
    case convert_problem::invalid_type: out.error = "invalid integer type"; break;
  }
  return out;
}

value load(const std::byte* bytes, type t) {
  auto read = [&](auto sample) {
    std::memcpy(&sample, bytes, sizeof sample);
    return sample;
  };
  if (t.is_struct()) return value::structure(bytes, t.bytes());
  if (t.k == type::kind::cond) return value::cond(read(std::uint64_t{}));
  if (t.is_pointer() || t.is_handle()) return value::pointer(read(std::uint64_t{}));
  switch (t.s) {
    case scalar::i8: return value::integer(read(std::int8_t{}));
    case scalar::i16: return value::integer(read(std::int16_t{}));
    case scalar::i32: return value::integer(read(std::int32_t{}));
    case scalar::i64: return value::integer(read(std::int64_t{}));
    case scalar::u8: return value::integer(read(std::uint8_t{}));
    case scalar::u16: return value::integer(read(std::uint16_t{}));
    case scalar::u32: return value::integer(read(std::uint32_t{}));
    case scalar::u64: return value::unsigned_integer(read(std::uint64_t{}));
    case scalar::f32: return value::floating(read(float{}));
    case scalar::f64: return value::floating(read(double{}));
    case scalar::boolean: return value::boolean(read(std::uint8_t{}) != 0);
    case scalar::f16:
    case scalar::bf16: return value::floating(small_float_value(read(std::uint16_t{}), t.s));
  }
  return {};
}

namespace {

// The evaluator reads operands from a pool of either form: a whole pool (a span of it) or a
// layered one (eval.hpp). One template, so both forms compute and fail alike.
template <typename Pool>
std::optional<eval_error> store_struct_in(const graph& g, const Pool& pool, const value& v, type t, std::byte* out) {
  if (is_failure(v)) return failure_of(g, pool, v);
  if (v.bits != 0) {
    std::memcpy(out, reinterpret_cast<const std::byte*>(v.bits), t.bytes());
    return std::nullopt;
  }
  std::memset(out, 0, t.bytes());
  const expr& literal = g.exprs[static_cast<std::size_t>(v.i)];
  for (std::uint32_t i = literal.a; i < literal.a + literal.b; ++i) {
    const argument& f = g.struct_fields[i];
    if (is_failure(pool[f.expr])) return failure_of(g, pool, pool[f.expr]);
    if (f.target.is_struct()) {
      if (auto error = store_struct_in(g, pool, pool[f.expr], f.target, out + f.offset)) return error;
      continue;
    }
    auto c = convert(pool[f.expr], f.target, f.check);
    if (!c.error.empty()) return eval_error{f.range, std::move(c.error)};
    std::memcpy(out + f.offset, c.bytes.data(), c.size);
  }
  return std::nullopt;
}

}  // namespace

std::optional<eval_error> store_struct(const graph& g, std::span<const value> pool, const value& v, type t,
                                       std::byte* out) {
  return store_struct_in(g, pool, v, t, out);
}
std::optional<eval_error> store_struct(const graph& g, const layered_pool& pool, const value& v, type t,
                                       std::byte* out) {
  return store_struct_in(g, pool, v, t, out);
}

namespace {

// Field `e.index` of struct value `s`: read from its bytes, or from a literal's operand.
template <typename Pool>
value read_field(const graph& g, const expr& e, const value& s, const Pool& values) {
  if (s.bits != 0) return load(reinterpret_cast<const std::byte*>(s.bits) + e.element_size, e.result);
  const argument& f = g.struct_fields[g.exprs[static_cast<std::size_t>(s.i)].a + e.index];
  if (f.target.is_struct()) return values[f.expr];
  return load(convert(values[f.expr], f.target).bytes.data(), f.target);
}

// Computes expression i of g into `out` from the values of its operands (already computed).
template <typename Pool>
std::optional<eval_error> compute(const graph& g, std::size_t i, const Pool& values,
                                  std::span<const std::optional<value>> params, std::span<const std::uint64_t> conds,
                                  value& out) {
  const expr& e = g.exprs[i];
  switch (e.op) {
    case op::constant: out = e.constant(); return std::nullopt;
    case op::param:
      if (e.index < params.size() && params[e.index]) out = *params[e.index];
      else if (e.a != none) out = values[e.a];
      else
        return eval_error{g.params[e.index].range,
                          fmt::format("graph parameter '{}' has no value and no default", g.params[e.index].name)};
      return std::nullopt;
    case op::cond_ref: out = value::cond(e.index < conds.size() ? conds[e.index] : 0); return std::nullopt;
    // Known once its node is added: the runtime reads it there (compute_values), as a cond's.
    case op::alloc_ref: out = value::pointer(0); return std::nullopt;
    // Short-circuit: only what is evaluated can fail.
    case op::logical_and:
    case op::logical_or: {
      const value& a = values[e.a];
      if (is_failure(a) || truth(a) == (e.op == op::logical_or)) {
        out = is_failure(a) ? a : value::boolean(truth(a));
        return std::nullopt;
      }
      const value& b = values[e.b];
      out = is_failure(b) ? b : value::boolean(truth(b));
      return std::nullopt;
    }
    case op::select: {
      const value& c = values[e.a];
      out = is_failure(c) ? c : values[truth(c) ? e.b : e.index];
      return std::nullopt;
    }
    default: break;
  }
  // Everything else fails with its first failed operand.
  std::optional<value> failed;
  for_each_operand(g, e, [&](std::uint32_t x) {
    if (!failed && is_failure(values[x])) failed = values[x];
  });
  if (failed) {
    out = *failed;
    return std::nullopt;
  }
  switch (e.op) {
    case op::let_ref: out = values[e.a]; return std::nullopt;
    case op::make_struct:
      // Its fields are checked now, so a value that does not fit is reported where it is written.
      for (std::uint32_t f = e.a; f < e.a + e.b; ++f) {
        const argument& field = g.struct_fields[f];
        if (field.target.is_struct()) continue;
        auto c = convert(values[field.expr], field.target, field.check);
        if (!c.error.empty()) return eval_error{field.range, std::move(c.error)};
      }
      out = value{value::kind::structure, static_cast<std::int64_t>(i), 0, 0};
      return std::nullopt;
    case op::field: out = read_field(g, e, values[e.a], values); return std::nullopt;
    default: {
      auto r = apply(e, values[e.a], e.b == none ? value{} : values[e.b]);
      if (!r.error.empty()) return eval_error{e.range, std::move(r.error)};
      out = r.v;
      return std::nullopt;
    }
  }
}

// Where evaluate_one writes expression i's value, and what compute reads operands from.
value& slot_of(std::vector<value>& values, std::size_t i) { return values[i]; }
value& slot_of(layered_pool& values, std::size_t i) { return values.own(i); }
std::span<const value> readable(const std::vector<value>& values) { return values; }
const layered_pool& readable(const layered_pool& values) { return values; }

// Evaluates expression i of g into values[i]. Only a parameter without a value fails at once;
// any other failure becomes a failed value (see evaluate).
template <typename Pool>
std::optional<eval_error> evaluate_one(const graph& g, std::size_t i, Pool& values,
                                       std::span<const std::optional<value>> params, std::span<const std::uint64_t> conds) {
  value out;
  if (auto error = compute(g, i, readable(values), params, conds, out)) {
    if (g.exprs[i].op == op::param) return error;
    out = value{value::kind::failed, static_cast<std::int64_t>(i), 0, 0};
  }
  slot_of(values, i) = out;
  return std::nullopt;
}

// The error of the first `let` (in `lets`, indices into g.lets) whose value failed.
template <typename Pool, typename Lets>
std::optional<eval_error> failed_let(const graph& g, const Pool& values, Lets&& lets) {
  for (const auto& l : lets)
    if (l.expr < values.size() && is_failure(values[l.expr])) return failure_of(g, values, values[l.expr]);
  return std::nullopt;
}

}  // namespace

namespace {
template <typename Pool>
eval_error failure_in(const graph& g, const Pool& pool, const value& v) {
  value scratch;
  if (auto error = compute(g, static_cast<std::size_t>(v.i), pool, {}, {}, scratch)) return *error;
  return {g.exprs[static_cast<std::size_t>(v.i)].range, "evaluation failed"};  // not reached: computing is deterministic
}
}  // namespace

eval_error failure_of(const graph& g, std::span<const value> pool, const value& v) { return failure_in(g, pool, v); }
eval_error failure_of(const graph& g, const layered_pool& pool, const value& v) { return failure_in(g, pool, v); }

void evaluate_expression(const graph& g, std::size_t i, std::vector<value>& values) {
  (void)evaluate_one(g, i, values, {}, {});
}

evaluation evaluate(const graph& g, std::span<const std::optional<value>> params,
                    std::span<const std::uint64_t> conds) {
  evaluation result;
  result.values.resize(g.exprs.size());
  for (std::size_t i = 0; i < g.exprs.size(); ++i)
    if ((result.error = evaluate_one(g, i, result.values, params, conds))) return result;
  result.error = failed_let(g, result.values, g.lets);
  return result;
}

namespace {
template <typename Pool>
std::optional<eval_error> reevaluate_in(const graph& g, std::span<const std::optional<value>> params,
                                        std::span<const std::uint32_t> indices, Pool& values,
                                        std::span<const std::uint64_t> conds) {
  for (auto i : indices)
    if (auto error = evaluate_one(g, i, values, params, conds)) return error;
  return failed_let(g, values, g.lets);
}
}  // namespace

std::optional<eval_error> reevaluate(const graph& g, std::span<const std::optional<value>> params,
                                     std::span<const std::uint32_t> indices, std::vector<value>& values,
                                     std::span<const std::uint64_t> conds) {
  return reevaluate_in(g, params, indices, values, conds);
}
std::optional<eval_error> reevaluate(const graph& g, std::span<const std::optional<value>> params,
                                     std::span<const std::uint32_t> indices, layered_pool& values,
                                     std::span<const std::uint64_t> conds) {
  return reevaluate_in(g, params, indices, values, conds);
}

dependency_index index_dependencies(const graph& g) {
  dependency_index out;
  out.exprs_by_param.resize(g.params.size());
  // The parameters each expression depends on: few per expression, kept sorted.
  std::vector<std::vector<std::uint32_t>> depends(g.exprs.size());
  auto merge = [&](std::vector<std::uint32_t>& into, std::uint32_t from) {
    if (from == none) return;
    std::vector<std::uint32_t> merged;
    std::set_union(into.begin(), into.end(), depends[from].begin(), depends[from].end(), std::back_inserter(merged));
    into = std::move(merged);
  };
  for (std::uint32_t i = 0; i < g.exprs.size(); ++i) {
    const expr& e = g.exprs[i];
    auto& d = depends[i];
    if (e.op == op::param) {
      merge(d, e.a);  // its default
      d.insert(std::lower_bound(d.begin(), d.end(), e.index), e.index);
      d.erase(std::unique(d.begin(), d.end()), d.end());
    } else {
      for_each_operand(g, e, [&](std::uint32_t x) { merge(d, x); });
    }
    for (auto p : d) out.exprs_by_param[p].push_back(i);
  }
  out.expr_params = std::move(depends);
  return out;
}

std::string format_value(const value& v) {
  switch (v.k) {
    case value::kind::integer:
      return v.big_unsigned() ? fmt::format("{}", static_cast<std::uint64_t>(v.i)) : fmt::format("{}", v.i);
    case value::kind::floating: {
      std::string s = fmt::format("{}", v.f);
      if (s.find_first_of(".eni") == std::string::npos) s += ".0";
      return s;
    }
    case value::kind::boolean: return v.bits ? "true" : "false";
    case value::kind::pointer: return v.bits ? fmt::format("0x{:x}", v.bits) : "null";
    case value::kind::cond: return fmt::format("cond(0x{:x})", v.bits);
    case value::kind::structure: return fmt::format("struct of {} bytes", v.bits ? v.i : 0);
    case value::kind::failed: return "(failed)";
  }
  return "?";
}

}  // namespace cgraph::ir

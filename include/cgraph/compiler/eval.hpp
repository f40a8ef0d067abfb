#pragma once
// Checked evaluation of IR expressions, shared by constant folding in the compiler and by the
// runtime when it builds or updates a graph, so both report the same errors.

#include <cgraph/compiler/ir.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace cgraph::ir {

// One operation on already evaluated operands; `error` is empty on success.
struct op_result {
  value v;
  std::string error;
};
op_result apply(const expr& e, const value& a, const value& b);
// The error that `apply(e, a, b)` gives for every left operand `a` (`n / 0`, `n << 64`), so
// that the compiler reports it where the right operand alone is constant; empty when some `a`
// succeeds.
std::string always_fails(const expr& e, const value& b);

// A bool, or an integer as C reads one in a condition (`&&`, `||`, `!`, `? :`).
inline bool truth(const value& v) { return v.k == value::kind::boolean ? v.bits != 0 : v.i != 0; }

// A converted value's bytes (little-endian, as the GPU reads them): what the runtime keeps per
// argument, 16 bytes that copy as one.
struct converted_bytes {
  std::array<std::byte, 8> bytes{};
  std::uint32_t size = 0;
  bool indirect = false;  // a struct's: its bytes are kept by the holder, as_u64() is where

  // The bytes past `size` are zero, so reading all eight is the value (one load, where copying
  // `size` bytes was a call to memcpy per argument).
  std::uint64_t as_u64() const {
    std::uint64_t v = 0;
    std::memcpy(&v, bytes.data(), sizeof v);
    return v;
  }
};

// A value converted for a parameter or field: its bytes, or why it does not fit.
struct converted : converted_bytes {
  std::string error;
};
converted convert(const value& v, type target, check c = check::any);

// The conversions that cannot fail, to a pointer, a handle, a cond or a bool: the value's bits.
// Inline, for the runtime's per-node path; convert takes them from here. False for any other
// target.
inline bool convert_bits(const value& v, type target, converted_bytes& out) {
  if (target.is_pointer() || target.is_handle() || target.k == type::kind::cond) {
    out.size = 8;
    out.indirect = false;
    std::memcpy(out.bytes.data(), &v.bits, 8);
    return true;
  }
  if (target.is_bool()) {
    out.size = 1;
    out.indirect = false;
    out.bytes = {};
    out.bytes[0] = static_cast<std::byte>(v.bits);
    return true;
  }
  return false;
}

// Whether integer `v` is in the range of integer scalar `s` (i8 … u64): convert_number's range
// check, inline for a parameter handle's assignment, which checks it every time.
inline bool integer_fits(const value& v, scalar s) {
  if (v.big_unsigned()) return s == scalar::u64;
  struct range {
    std::int64_t low, high;
  };
  static constexpr range ranges[] = {{INT8_MIN, INT8_MAX},   {INT16_MIN, INT16_MAX}, {INT32_MIN, INT32_MAX},
                                     {INT64_MIN, INT64_MAX}, {0, UINT8_MAX},         {0, UINT16_MAX},
                                     {0, UINT32_MAX},        {0, INT64_MAX}};  // u64: above INT64_MAX is big_unsigned
  const auto i = static_cast<std::size_t>(s);
  return i < std::size(ranges) && v.i >= ranges[i].low && v.i <= ranges[i].high;
}

// The bytes of integer `x` as integer scalar `s` (i8 … u64) takes it, into `out` (the rest
// zero); false for any other scalar. The range is the caller's to have checked: convert_number
// checks it, and the runtime's per-node path stores a parameter's value, already checked against
// its type when it was staged, into arguments of that same type.
inline bool store_integer(std::int64_t x, scalar s, converted_bytes& out) {
  out.indirect = false;
  out.bytes = {};
  auto put = [&](auto sample) {
    const auto y = static_cast<decltype(sample)>(x);
    out.size = sizeof y;
    std::memcpy(out.bytes.data(), &y, sizeof y);
    return true;
  };
  switch (s) {
    case scalar::i8: return put(std::int8_t{});
    case scalar::i16: return put(std::int16_t{});
    case scalar::i32: return put(std::int32_t{});
    case scalar::i64: return put(std::int64_t{});
    case scalar::u8: return put(std::uint8_t{});
    case scalar::u16: return put(std::uint16_t{});
    case scalar::u32: return put(std::uint32_t{});
    case scalar::u64: return put(std::uint64_t{});
    default: out.size = 0; return false;
  }
}

// Why a value does not convert (convert says it in words).
enum class convert_problem : std::uint8_t { fits, not_positive, does_not_fit, invalid_type };

// A number's conversion without the message (eval.cpp): convert is this plus the words.
convert_problem convert_number(const value& v, type target, check c, converted_bytes& out);

// convert's bytes into `out` without making a message: for the runtime's per-node path, which
// calls convert for the words only when this finds a problem.
inline convert_problem convert_to(const value& v, type target, check c, converted_bytes& out) {
  return convert_bits(v, target, out) ? convert_problem::fits : convert_number(v, target, c, out);
}

// The value of type t (a scalar, a pointer or a struct) whose bytes are at `bytes`, as the GPU
// reads them; a struct's value points at them.
value load(const std::byte* bytes, type t);

struct eval_error {
  source_range range;
  std::string message;
};

// Evaluates the whole expression pool of `g` in index order. `params[i]` is the value of
// parameter i, or nullopt for its default; `conds[i]` the handle of cond i (may be empty).
// An operation that fails gives a value of kind `failed`, which the operations that use it
// pass on; `&&`, `||` and `? :` pass on only the operand they evaluate (short-circuit). It is
// an error where it is used: an argument (see failure_of) or a `let` (reported here).
struct evaluation {
  std::vector<value> values;
  std::optional<eval_error> error;
};
evaluation evaluate(const graph& g, std::span<const std::optional<value>> params,
                    std::span<const std::uint64_t> conds = {});

// An evaluated pool in two layers, read as one: the expressions that read no parameter,
// evaluated once and shared by every evaluation (`base`; their slot is `none`), and the others,
// each this pool's own (`own[slot[i]]`). What the runtime keeps per build and per exec instead
// of a copy of the whole pool, most of whose expressions are constants. `base` and `slot` must
// outlive the pool (the runtime's program keeps them).
class layered_pool {
public:
  layered_pool() = default;
  layered_pool(std::span<const value> base, std::span<const std::uint32_t> slot, std::size_t own)
      : base_(base), slot_(slot), own_(own) {}

  const value& operator[](std::size_t i) const {
    const std::uint32_t s = slot_[i];
    return s == none ? base_[i] : own_[s];
  }
  // Expression i's own value; i must read a parameter (have a slot).
  value& own(std::size_t i) { return own_[slot_[i]]; }
  std::size_t size() const { return base_.size(); }

private:
  std::span<const value> base_;
  std::span<const std::uint32_t> slot_;
  std::vector<value> own_;
};

// Re-evaluates only the expressions `indices` (increasing) of an evaluated pool, after some
// parameters changed: the runtime's update does work in proportion to what changed. In a
// layered pool every one of `indices` must have a slot.
std::optional<eval_error> reevaluate(const graph& g, std::span<const std::optional<value>> params,
                                     std::span<const std::uint32_t> indices, std::vector<value>& values,
                                     std::span<const std::uint64_t> conds = {});
std::optional<eval_error> reevaluate(const graph& g, std::span<const std::optional<value>> params,
                                     std::span<const std::uint32_t> indices, layered_pool& values,
                                     std::span<const std::uint64_t> conds = {});

// Evaluates expression i of g alone into values[i], its operands being evaluated there already,
// with no parameter values (for one that reads none); a failure gives a value of kind `failed`.
// The runtime evaluates a program's constants once with it.
void evaluate_expression(const graph& g, std::size_t i, std::vector<value>& values);

// Whether v stands for a failed evaluation, and the error it stands for (its expression's range
// and message), from the evaluated pool.
inline bool is_failure(const value& v) { return v.k == value::kind::failed; }
eval_error failure_of(const graph& g, std::span<const value> pool, const value& v);
eval_error failure_of(const graph& g, const layered_pool& pool, const value& v);

// Which expressions depend on which graph parameters.
struct dependency_index {
  std::vector<std::vector<std::uint32_t>> exprs_by_param;  // increasing expression indices
  std::vector<std::vector<std::uint32_t>> expr_params;     // per expression, the parameters it reads
};
dependency_index index_dependencies(const graph& g);

// The bytes of struct value `v` (of struct type t: t.bytes of them, padding zero) into `out`,
// each field converted to its type. A struct literal's fields are read from `pool`, the
// evaluated expressions of g.
std::optional<eval_error> store_struct(const graph& g, std::span<const value> pool, const value& v, type t,
                                       std::byte* out);
std::optional<eval_error> store_struct(const graph& g, const layered_pool& pool, const value& v, type t,
                                       std::byte* out);

// The value of f16 or bf16 bits (`s` is scalar::f16 or scalar::bf16), exactly.
double small_float_value(std::uint16_t bits, scalar s);

// Human-readable form of a value of type t, for the IR dump and messages.
std::string format_value(const value& v);

}  // namespace cgraph::ir

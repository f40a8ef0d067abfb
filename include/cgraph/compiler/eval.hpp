#pragma once
// Checked evaluation of IR expressions, shared by constant folding in the compiler and by the
// runtime when it builds or updates a graph, so both report the same errors.

#include <cgraph/compiler/ir.hpp>

#include <array>
#include <cstring>
#include <cstddef>
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

// A bool, or an integer as C reads one in a condition (`&&`, `||`, `!`, `? :`).
inline bool truth(const value& v) { return v.k == value::kind::boolean ? v.bits != 0 : v.i != 0; }

// A value converted for a parameter or field: its bytes (little-endian, as the GPU reads
// them) or why it does not fit.
struct converted {
  std::array<std::byte, 8> bytes{};
  std::uint32_t size = 0;
  bool indirect = false;  // a struct's: its bytes are kept by the holder, as_u64() is where
  std::string error;

  // The bytes past `size` are zero, so reading all eight is the value (one load, where copying
  // `size` bytes was a call to memcpy per argument).
  std::uint64_t as_u64() const {
    std::uint64_t v = 0;
    std::memcpy(&v, bytes.data(), sizeof v);
    return v;
  }
};
converted convert(const value& v, type target, check c = check::any);

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

// Re-evaluates only the expressions `indices` (increasing) of an evaluated pool, after some
// parameters changed: the runtime's update does work in proportion to what changed.
std::optional<eval_error> reevaluate(const graph& g, std::span<const std::optional<value>> params,
                                     std::span<const std::uint32_t> indices, std::vector<value>& values,
                                     std::span<const std::uint64_t> conds = {});

// Whether v stands for a failed evaluation, and the error it stands for (its expression's range
// and message), from the evaluated pool.
inline bool is_failure(const value& v) { return v.k == value::kind::failed; }
eval_error failure_of(const graph& g, std::span<const value> pool, const value& v);

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

// The value of f16 or bf16 bits (`s` is scalar::f16 or scalar::bf16), exactly.
double small_float_value(std::uint16_t bits, scalar s);

// Human-readable form of a value of type t, for the IR dump and messages.
std::string format_value(const value& v);

}  // namespace cgraph::ir

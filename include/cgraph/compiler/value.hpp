#pragma once
// cgraph::value: one value as .cgraph computes it. The compiler folds constants in it, the
// run-time path evaluates expressions in it, and host callbacks and captured routines receive
// their arguments as values (already converted to the declared parameter types). One type,
// so handing arguments to user code copies nothing.

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace cgraph {

struct value {
  // `failed` is internal to evaluation (cgraph::ir::evaluate): user code never receives one.
  enum class kind : std::uint8_t { integer, floating, boolean, pointer, cond, structure, failed };
  kind k = kind::integer;
  std::int64_t i = 0;       // integer
  double f = 0;             // floating
  std::uint64_t bits = 0;   // boolean (0/1), pointer address, or cond handle; for an integer,
                            // 1 when `i` holds a u64 above INT64_MAX (see big_unsigned)

  static constexpr value integer(std::int64_t v) { return {kind::integer, v, 0, 0}; }
  // An unsigned 64-bit integer. Arithmetic is signed 64-bit, so one above INT64_MAX can only
  // be converted to u64 (or a float); any operation on it is an error.
  static constexpr value unsigned_integer(std::uint64_t v) {
    return {kind::integer, static_cast<std::int64_t>(v), 0, v > static_cast<std::uint64_t>(INT64_MAX) ? 1u : 0u};
  }
  constexpr bool big_unsigned() const { return k == kind::integer && bits != 0; }
  static constexpr value floating(double v) { return {kind::floating, 0, v, 0}; }
  static constexpr value boolean(bool v) { return {kind::boolean, 0, 0, v ? 1u : 0u}; }
  static constexpr value pointer(std::uint64_t address) { return {kind::pointer, 0, 0, address}; }
  static constexpr value cond(std::uint64_t handle) { return {kind::cond, 0, 0, handle}; }
  // A struct: `bits` is the address of its bytes (C layout), `i` their count. The bytes belong
  // to whoever handed the value over and live as long as it is used. (While a graph's
  // expressions are evaluated, a struct literal's value has `bits` 0 and `i` the index of its
  // expression: its fields are the values of the expression's operands.)
  static value structure(const void* bytes, std::uint32_t size) {
    return {kind::structure, static_cast<std::int64_t>(size), 0, reinterpret_cast<std::uint64_t>(bytes)};
  }

  // The value as a C++ type: a bool, an integer, a floating-point type (an integer value is
  // converted), a pointer, or a trivially copyable class of a struct's size (its bytes):
  // `v[0].as<const float*>()`, `v[3].as<int>()`, `v[1].as<Params>()`.
  template <typename T>
  T as() const {
    using U = std::remove_cvref_t<T>;
    if constexpr (std::is_class_v<U>) {
      static_assert(std::is_trivially_copyable_v<U>, "value::as<T>: a struct is read into a trivially copyable class");
      if (k != kind::structure || bits == 0 || static_cast<std::uint64_t>(i) != sizeof(U))
        throw std::invalid_argument("value::as<T>: the value is not a struct of sizeof(T) bytes");
      U out;
      std::memcpy(static_cast<void*>(&out), reinterpret_cast<const void*>(bits), sizeof(U));
      return out;
    } else if constexpr (std::is_same_v<U, bool>) return bits != 0;
    else if constexpr (std::is_integral_v<U>) return static_cast<U>(i);
    else if constexpr (std::is_floating_point_v<U>)
      return static_cast<U>(k == kind::floating ? f : big_unsigned() ? static_cast<double>(static_cast<std::uint64_t>(i)) : static_cast<double>(i));
    else {
      static_assert(std::is_pointer_v<U>, "value::as<T>: T is a bool, an integer, a floating-point type or a pointer");
      return reinterpret_cast<U>(bits);
    }
  }

  friend bool operator==(const value&, const value&) = default;
};

}  // namespace cgraph

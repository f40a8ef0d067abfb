#pragma once
// Values for graph parameters: `cgraph::args{{"x", d_x}, {"n", 1 << 20}, {"a", 2.0f}}`.

#include <cgraph/compiler/value.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace cgraph {

namespace detail {
// CUDA's 2-byte floats (__half, __nv_bfloat16), and any other 2-byte class that converts to
// float, known without including cuda_fp16.h: an arg and a parameter handle take them as
// numbers, not as structs of 2 bytes.
template <typename T>
inline constexpr bool is_two_byte_float = std::is_class_v<T> && sizeof(T) == 2 && std::is_convertible_v<T, float>;

// The value of a number, a bool or a pointer as a parameter takes it: what an arg of `v` holds,
// and what a parameter handle stages. One place for both.
template <typename T>
cgraph::value scalar_value(T v) {
  if constexpr (std::is_same_v<T, bool>) return cgraph::value::boolean(v);
  else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T> && sizeof(T) == 8)
    return cgraph::value::unsigned_integer(v);  // above INT64_MAX only a u64 parameter takes it
  else if constexpr (std::is_integral_v<T>) return cgraph::value::integer(static_cast<std::int64_t>(v));
  else if constexpr (std::is_floating_point_v<T>) return cgraph::value::floating(static_cast<double>(v));
  else if constexpr (std::is_pointer_v<T>) return cgraph::value::pointer(reinterpret_cast<std::uint64_t>(v));
  else if constexpr (std::is_null_pointer_v<T>) return cgraph::value::pointer(0);
  else if constexpr (is_two_byte_float<T>)  // an f16 or bf16 parameter rounds it back
    return cgraph::value::floating(static_cast<double>(static_cast<float>(v)));
  else static_assert(sizeof(T) == 0, "not a number, a bool or a pointer");
}
}  // namespace detail

// One parameter value: an integer, a float (f16 and bf16 included), a bool, a device pointer or
// a struct.
class arg {
public:
  template <std::integral T>
  arg(T v) : value_(detail::scalar_value(v)) {}  // NOLINT: implicit, so args read naturally
  template <std::floating_point T>
  arg(T v) : value_(detail::scalar_value(v)) {}  // NOLINT
  template <typename T>
  arg(T* p) : value_(detail::scalar_value(p)) {}  // NOLINT
  arg(std::nullptr_t) : value_(cgraph::value::pointer(0)) {}  // NOLINT
  // A 2-byte float (detail::is_two_byte_float).
  template <typename T>
    requires detail::is_two_byte_float<T>
  arg(T v) : value_(detail::scalar_value(v)) {}  // NOLINT

  // A struct parameter's value: any trivially copyable class of the struct's size (checked
  // when it is bound), copied here.
  template <typename T>
    requires(std::is_class_v<T> && std::is_trivially_copyable_v<T> && !detail::is_two_byte_float<T>)
  arg(const T& v) : bytes_(std::make_shared<std::byte[]>(sizeof(T))) {  // NOLINT
    std::memcpy(bytes_.get(), static_cast<const void*>(&v), sizeof(T));
    value_ = cgraph::value::structure(bytes_.get(), sizeof(T));
  }

  const cgraph::value& value() const noexcept { return value_; }

private:
  template <typename>
  friend class parameter_handle;
  arg() = default;
  // A struct's bytes, lent and not copied: for a parameter handle's assignment, whose staging
  // copies them before it returns (an arg made this way never outlives the call).
  static arg borrow_struct(const void* bytes, std::size_t size) {
    arg a;
    a.value_ = cgraph::value::structure(bytes, static_cast<std::uint32_t>(size));
    return a;
  }

  cgraph::value value_;
  std::shared_ptr<std::byte[]> bytes_;  // a struct's bytes, which value_ points at
};

using args = std::vector<std::pair<std::string, arg>>;
// One value by name, for the braced lists of graph::build and graph_exec::update:
// `exec.update({{"n", 5}})` names its parameters with string views into the caller's literals,
// so the call builds no vector and copies no name (args does both).
using named_arg = std::pair<std::string_view, arg>;

}  // namespace cgraph

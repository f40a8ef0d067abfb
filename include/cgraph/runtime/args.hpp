#pragma once
// Values for graph parameters: `cgraph::args{{"x", d_x}, {"n", 1 << 20}, {"a", 2.0f}}`.

#include <cgraph/compiler/value.hpp>

#include <concepts>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace cgraph {

// One parameter value: an integer, a float, a bool or a device pointer.
class arg {
public:
  template <std::integral T>
  arg(T v) {  // NOLINT: implicit, so args read naturally
    if constexpr (std::is_same_v<T, bool>) {
      value_ = cgraph::value::boolean(v);
    } else if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) {
      too_large_ = v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
      value_ = cgraph::value::integer(static_cast<std::int64_t>(v));
    } else {
      value_ = cgraph::value::integer(static_cast<std::int64_t>(v));
    }
  }
  template <std::floating_point T>
  arg(T v) : value_(cgraph::value::floating(static_cast<double>(v))) {}  // NOLINT
  template <typename T>
  arg(T* p) : value_(cgraph::value::pointer(reinterpret_cast<std::uint64_t>(p))) {}  // NOLINT
  arg(std::nullptr_t) : value_(cgraph::value::pointer(0)) {}  // NOLINT

  const cgraph::value& value() const noexcept { return value_; }
  // An unsigned 64-bit value above INT64_MAX: cgraph's integer arithmetic is signed 64-bit.
  bool too_large() const noexcept { return too_large_; }

private:
  cgraph::value value_;
  bool too_large_ = false;
};

using args = std::vector<std::pair<std::string, arg>>;

}  // namespace cgraph

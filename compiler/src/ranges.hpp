#pragma once
// range-v3 in the compiler's printers and emitter: the views C++20's std::ranges lacks
// (enumerate, zip, drop_last, chunk, join with a separator). Kept out of the hot passes (lowering, evaluation,
// the plans), which stay index loops: there the views cost time per node and read no plainer.
// The lazy name lists of "did you mean" (an error path) use its filter, keys and transform too:
// Clang 14 cannot instantiate libstdc++ 12's std::views over an unordered_map.

#include <range/v3/range/conversion.hpp>
#include <range/v3/view/chunk.hpp>
#include <range/v3/view/drop_last.hpp>
#include <range/v3/view/enumerate.hpp>
#include <range/v3/view/filter.hpp>
#include <range/v3/view/join.hpp>
#include <range/v3/view/map.hpp>
#include <range/v3/view/take.hpp>
#include <range/v3/view/transform.hpp>
#include <range/v3/view/zip.hpp>

#include <string>
#include <string_view>

namespace cgraph::detail {

namespace views = ranges::views;

// Each element of `r` printed by `print`, separated by `separator`: "a, b, c".
template <typename Range, typename Print>
std::string join(Range&& r, std::string_view separator, Print print) {
  return ranges::to<std::string>(r | views::transform(print) | views::join(separator));
}

}  // namespace cgraph::detail

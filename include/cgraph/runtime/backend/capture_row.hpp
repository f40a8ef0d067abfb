#pragma once
// One row of a capture plan as flat rows (capture_rows.hpp says what each op does): the type
// alone, for what makes or stores rows without walking them (runtime/src/plan_rows.hpp), so
// that it does not take in the capture session with the walk.

#include <cstdint>

namespace cgraph::backend {

enum class capture_op : std::uint8_t { node, enter_body, leave_body };

struct capture_row {
  capture_op op;
  std::uint32_t step;
  std::uint32_t stream;
  std::uint32_t waits;
  std::uint32_t wait_count;
  bool record;
};

}  // namespace cgraph::backend

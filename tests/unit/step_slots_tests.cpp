// step_slots (runtime/src/step_slots.hpp): an exec's index of the steps it holds values of its
// own for, a short list that becomes a table by step once it holds more than a few.

#include "../../runtime/src/step_slots.hpp"

#include <doctest/doctest.h>

#include <map>

using cgraph::detail::step_slots;

namespace {

// Adds the steps of `order` (slot i to order[i]) and checks every step of a `steps`-step plan
// against a plain map after each addition.
void check_order(const std::vector<std::uint32_t>& order, std::uint32_t steps) {
  step_slots slots;
  std::map<std::uint32_t, std::uint32_t> expected;
  for (std::uint32_t i = 0; i < order.size(); ++i) {
    slots.add(order[i], i, steps);
    expected[order[i]] = i;
    for (std::uint32_t s = 0; s < steps + 2; ++s) {
      const auto it = expected.find(s);
      CHECK(slots.find(s) == (it == expected.end() ? step_slots::none : it->second));
    }
  }
}

}  // namespace

TEST_CASE("step_slots: an empty index finds nothing") {
  step_slots slots;
  CHECK(slots.find(0) == step_slots::none);
  CHECK(slots.find(12345) == step_slots::none);
}

TEST_CASE("step_slots: a few steps, then many (the list becomes a table and keeps every slot)") {
  check_order({7}, 10);
  check_order({3, 0, 9, 1}, 10);
  std::vector<std::uint32_t> all;
  for (std::uint32_t s = 0; s < 40; ++s) all.push_back((s * 17) % 40);  // every step, out of order
  check_order(all, 40);
}

TEST_CASE("step_slots: cleared, it finds nothing and fills again from the list") {
  step_slots slots;
  for (std::uint32_t s = 0; s < 20; ++s) slots.add(s, s, 20);
  CHECK(slots.find(19) == 19);
  slots.clear();
  for (std::uint32_t s = 0; s < 20; ++s) CHECK(slots.find(s) == step_slots::none);
  slots.add(5, 0, 20);
  CHECK(slots.find(5) == 0);
  CHECK(slots.find(4) == step_slots::none);
}

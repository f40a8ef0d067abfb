#pragma once
// The order in which runtime_bench's race() runs its entrants in each round.
//
// A race interleaves the paths it compares, one run of each per round, so that drift (clocks,
// the driver's pools, the machine's other work) reaches them alike. What ran just before a timed
// body matters too: a re-instantiation or the teardown of a whole compiled program leaves the
// caches and the allocator cold for whichever body comes next. Rounds that only rotate one fixed
// order start at a different entrant but keep every entrant's predecessor (it is the entrant
// before it, cyclically), so one path paid for a heavy neighbour in every round: cgraph's
// `update all` always ran right after the hand-written re-instantiation, and the compiled
// program's explicit build right after the teardown of a text -> graph build
// (docs/performance.md, run 24). Each round is therefore a fresh shuffle, from a fixed seed so
// that a run can be repeated.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace bench {

class round_order {
public:
  // `seed`: runs with the same seed order their rounds alike.
  explicit round_order(std::uint32_t seed = 20261125) : rng_(seed) {}

  // The order of the next round of `n` entrants: a permutation of 0 … n-1.
  const std::vector<std::size_t>& next(std::size_t n) {
    order_.resize(n);
    std::iota(order_.begin(), order_.end(), std::size_t{0});
    std::shuffle(order_.begin(), order_.end(), rng_);
    return order_;
  }

private:
  std::mt19937 rng_;  // std::shuffle's use of it is the library's, so a seed repeats on one toolchain
  std::vector<std::size_t> order_;
};

}  // namespace bench

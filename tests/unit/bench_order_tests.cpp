// runtime_bench's round order (bench/round_order.hpp): every round runs each entrant once, and
// an entrant does not keep one predecessor round after round (which a rotation did, so a heavy
// neighbour slowed the same path in every round).

#include "../../bench/round_order.hpp"

#include <doctest/doctest.h>

#include <set>
#include <utility>

TEST_CASE("bench.each_round_runs_every_entrant_once") {
  bench::round_order orders;
  for (std::size_t n : {1u, 2u, 5u, 8u})
    for (int r = 0; r < 20; ++r) {
      auto order = orders.next(n);
      std::sort(order.begin(), order.end());
      for (std::size_t k = 0; k < n; ++k) CHECK(order[k] == k);
    }
}

TEST_CASE("bench.an_entrant_meets_different_predecessors") {
  // runtime_bench's build race has six entrants (eight with generated C++) and ten rounds (a
  // warm-up and nine timed). Count, for each entrant, the distinct entrants it followed.
  for (std::size_t n : {3u, 6u, 8u}) {
    bench::round_order orders;
    std::vector<std::set<std::size_t>> predecessors(n);
    std::vector<int> first_in_round(n, 0);
    for (int r = 0; r < 10; ++r) {
      const auto& order = orders.next(n);
      ++first_in_round[order[0]];
      for (std::size_t k = 1; k < n; ++k) predecessors[order[k]].insert(order[k - 1]);
    }
    for (std::size_t e = 0; e < n; ++e) {
      CAPTURE(n);
      CAPTURE(e);
      CHECK(predecessors[e].size() >= 2);  // a rotation gives every entrant exactly one
      CHECK(first_in_round[e] < 10);
    }
  }
}

TEST_CASE("bench.a_seed_repeats_its_rounds") {
  bench::round_order a(7), b(7), c(8);
  bool differs = false;
  for (int r = 0; r < 10; ++r) {
    auto x = a.next(6);
    CHECK(x == b.next(6));
    differs = differs || x != c.next(6);
  }
  CHECK(differs);
}

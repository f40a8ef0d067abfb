#pragma once
// The sinks of a body from a node on: the nodes from `first` on that no node from `first` on
// depends on. A `free` waits for them (every use of its allocation is done), and so does a
// `repeat`'s counter (with `first` 0: every sink of the body). Shared by the explicit `free`,
// the frees a graph's body adds at its end and the `repeat` counter, so the rule has one home.

#include <cgraph/compiler/ir.hpp>

#include <cstdint>
#include <vector>

namespace cgraph::compiler::detail {

// Built in one pass over the edges of the body's nodes from `base` on, for queries from `base`
// on; each query then reads only the candidates from its node on. One index from the first
// allocation answers every allocation's frees at a body's end, where a pass each was quadratic
// in a `for` that allocates (40 000 iterations took 4.7 s; found by fuzzing, run 190). An
// explicit `free` asks once, from its allocation: an index of the whole body there was
// quadratic in a `for` that allocates and frees (20 000 iterations: 1.3 s, 93% in this index).
class body_sinks {
public:
  body_sinks(const ir::graph& g, const ir::body& b, std::uint32_t base = 0);

  // Puts in `out` (cleared first), in index order, the sinks of the body from node `first` on;
  // `first` is `base` or later.
  void from(std::uint32_t first, std::vector<std::uint32_t>& out) const;

private:
  std::uint32_t base_;
  // dependents_end_[j - base_]: one past the last node from base_ on that depends on node j, 0
  // when none does. Node j is a sink from `first` on when that is <= first: every node that
  // depends on it comes before `first` (an `after` naming a later node of a `parallel`), or none
  // does; the nodes before base_ come before every `first` asked.
  std::vector<std::uint32_t> dependents_end_;
  // The nodes j from base_ on with dependents_end_[j - base_] <= j, in order: only they can be a
  // sink from some `first` up to them.
  std::vector<std::uint32_t> candidates_;
};

}  // namespace cgraph::compiler::detail

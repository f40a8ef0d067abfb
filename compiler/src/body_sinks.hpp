#pragma once
// The sinks of a body from a node on: the nodes from `first` on that no node from `first` on
// depends on. A `free` waits for them (every use of its allocation is done), and so does a
// `repeat`'s counter (with `first` 0: every sink of the body). Shared by the explicit `free`,
// the frees a graph's body adds at its end and the `repeat` counter, so the rule has one home.

#include <cgraph/compiler/ir.hpp>

#include <cstdint>
#include <vector>

namespace cgraph::compiler::detail {

// Built in one pass over a body's edges; each query then reads only the candidates from `first`
// on. One index answers every allocation's frees, where a pass each was quadratic in a `for`
// that allocates (40 000 iterations took 4.7 s; found by fuzzing, run 190).
class body_sinks {
public:
  body_sinks(const ir::graph& g, const ir::body& b);

  // Appends to `out` (cleared first), in index order, the sinks of the body from node `first` on.
  void from(std::uint32_t first, std::vector<std::uint32_t>& out) const;

private:
  // dependents_end_[j]: one past the last node that depends on node j, 0 when none does. Node j
  // is a sink from `first` on when dependents_end_[j] <= first: every node that depends on it
  // comes before `first` (an `after` naming a later node of a `parallel`), or none does.
  std::vector<std::uint32_t> dependents_end_;
  // The nodes j with dependents_end_[j] <= j, in order: only they can be a sink from some
  // `first` up to them.
  std::vector<std::uint32_t> candidates_;
};

}  // namespace cgraph::compiler::detail

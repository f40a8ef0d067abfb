// plan::launch_memory: which kernel nodes a build makes without the launch check (plan.hpp).

#include <cgraph/compiler/plan.hpp>

namespace cgraph::plan {

namespace {

// The table takes the hash's low bits, and two keys mostly differ in one word (a kernel, a grid
// expression): every word is mixed into all the bits.
std::size_t hash_of(const std::array<std::uint32_t, 1 + ir::launch_config::slots>& k) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull;
  for (std::uint32_t w : k) {
    h ^= w;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  return static_cast<std::size_t>(h);
}

bool placed(const ir::graph& g, const ir::node& n) {
  return n.attributes != ir::none && g.attributes[n.attributes].device.expr != ir::none;
}

}  // namespace

bool launch_memory::known(const ir::node& n) {
  if (n.kind != ir::node_kind::kernel || placed(*g_, n)) return false;
  // ir::graph::launch_slot's values: the defaults, then what the launch record wrote, in slot
  // order (read a slot at a time, with a test a slot, the key cost about 30 more host
  // instructions a node).
  const ir::graph& g = *g_;
  const ir::launch_value* written = g.launch_values.data() + g.launches[n.launch].first;
  key k;
  k[0] = n.callee;
  k[1] = k[2] = k[3] = k[4] = k[5] = k[6] = g.launch_one;
  k[7] = g.launch_zero;
  g.for_each_written_slot(n, [&](std::size_t slot) { k[slot + 1] = (written++)->expr; });
  if (k == last_) return true;  // most often: a graph repeats one launch (no hash to work out)
  last_ = k;
  if (2 * (used_ + 1) > seen_.size()) grow();
  const std::size_t mask = seen_.size() - 1;
  for (std::size_t at = hash_of(k) & mask;; at = (at + 1) & mask) {
    if (seen_[at] == k) return true;
    if (seen_[at][0] == ir::none) {
      seen_[at] = k;
      ++used_;
      return false;
    }
  }
}

void launch_memory::grow() {
  key empty;
  empty.fill(ir::none);
  std::vector<key> old(seen_.empty() ? 16 : 2 * seen_.size(), empty);
  old.swap(seen_);
  const std::size_t mask = seen_.size() - 1;
  for (const key& k : old) {
    if (k[0] == ir::none) continue;
    std::size_t at = hash_of(k) & mask;
    while (seen_[at][0] != ir::none) at = (at + 1) & mask;
    seen_[at] = k;
  }
}

}  // namespace cgraph::plan

#pragma once
// "did you mean 'NAME'?": the declared name closest to a mistyped one, for the parser's hints
// and the compiler's unknown-name errors (LANGUAGE.md §14). Build-internal, not installed.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cgraph::dsl {

// Edits between a and b: insertions, deletions, replacements and swaps of neighbours (a swap
// is the commonest typo, "saxyp" for "saxpy", and counts one).
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::size_t> before(m + 1), previous(m + 1), current(m + 1);
  for (std::size_t j = 0; j <= m; ++j) previous[j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= m; ++j) {
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) current[j] = std::min(current[j], before[j - 2] + 1);
    }
    before.swap(previous);
    previous.swap(current);
  }
  return previous[m];
}

// The work suggestions may still take on this thread, in cells of edit_distance's table; a
// compile sets it (suggestion_budget). Each unknown name is compared with every name in scope,
// so hostile text with 20 000 `let`s and 20 000 misspelled uses asked for 4·10^8 comparisons
// (minutes), and two misspelled names of 60 000 characters for 3.6·10^9 cells (12 s). Once
// spent, errors come without "did you mean"; which ones get it depends on the text alone.
// Unlimited outside a compile (compile_limits::max_suggestion_cells sets a compile's).
inline thread_local std::uint64_t suggestion_cells_left = ~std::uint64_t{0};

// Sets the budget while it lives, then restores the one before.
class suggestion_budget {
public:
  explicit suggestion_budget(std::uint64_t cells) : saved_(suggestion_cells_left) { suggestion_cells_left = cells; }
  ~suggestion_budget() { suggestion_cells_left = saved_; }
  suggestion_budget(const suggestion_budget&) = delete;
  suggestion_budget& operator=(const suggestion_budget&) = delete;

private:
  std::uint64_t saved_;
};

// The candidate closest to `wrong` when it is close enough to be a typo of it: at most one edit
// for names of up to four characters, two up to eight, three beyond. Ties go to the name that
// sorts first, so the answer does not depend on the order of a hash table.
//
// `sources` are ranges of names, walked in turn; pass lazy views (scope_stack::names,
// names_of) rather than gathered vectors, so that nothing is gathered once the budget is spent
// (suggestion_cells_left): then closest returns before it walks anything. Gathering 20 000
// names for each of 20 000 errors took as long as comparing them.
template <typename... Sources>
std::optional<std::string_view> closest(std::string_view wrong, Sources&&... sources) {
  const std::size_t allowed = wrong.size() <= 4 ? 1 : wrong.size() <= 8 ? 2 : 3;
  std::optional<std::string_view> best;
  std::size_t best_distance = allowed + 1;
  // Weighs one candidate; false once the budget is spent (then nothing is suggested).
  auto weigh = [&](std::string_view candidate) {
    if (candidate == wrong) return true;
    // Lengths further apart than the edits allowed are never close enough.
    if (candidate.size() + allowed < wrong.size() || wrong.size() + allowed < candidate.size()) return true;
    const std::uint64_t cells = std::uint64_t{wrong.size() + 1} * (candidate.size() + 1);
    if (cells > suggestion_cells_left) {
      suggestion_cells_left = 0;
      return false;
    }
    suggestion_cells_left -= cells;
    std::size_t d = edit_distance(wrong, candidate);
    if (d < best_distance || (d == best_distance && best && candidate < *best)) {
      best = candidate;
      best_distance = d;
    }
    return true;
  };
  auto walk = [&](auto&& names) {
    if (suggestion_cells_left == 0) return false;
    for (auto&& name : names)
      if (!weigh(std::string_view(name))) return false;
    return true;
  };
  if (!(walk(std::forward<Sources>(sources)) && ...)) return std::nullopt;
  return best;
}

// "; did you mean 'NAME'?" for the closest candidate, or nothing.
template <typename... Sources>
std::string did_you_mean(std::string_view wrong, Sources&&... sources) {
  auto best = closest(wrong, std::forward<Sources>(sources)...);
  return best ? "; did you mean '" + std::string(*best) + "'?" : std::string();
}

}  // namespace cgraph::dsl

#pragma once
// "did you mean 'NAME'?": the declared name closest to a mistyped one, for the parser's hints
// and the compiler's unknown-name errors (LANGUAGE.md §14). Build-internal, not installed.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
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

// The candidate closest to `wrong` when it is close enough to be a typo of it: at most one edit
// for names of up to four characters, two up to eight, three beyond. Ties go to the name that
// sorts first, so the answer does not depend on the order of a hash table.
template <typename Names>
std::optional<std::string_view> closest(std::string_view wrong, const Names& names) {
  const std::size_t allowed = wrong.size() <= 4 ? 1 : wrong.size() <= 8 ? 2 : 3;
  std::optional<std::string_view> best;
  std::size_t best_distance = allowed + 1;
  for (const auto& name : names) {
    std::string_view candidate(name);
    if (candidate == wrong) continue;
    std::size_t d = edit_distance(wrong, candidate);
    if (d < best_distance || (d == best_distance && best && candidate < *best)) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

// "; did you mean 'NAME'?" for the closest candidate, or nothing.
template <typename Names>
std::string did_you_mean(std::string_view wrong, const Names& names) {
  auto best = closest(wrong, names);
  return best ? "; did you mean '" + std::string(*best) + "'?" : std::string();
}

}  // namespace cgraph::dsl

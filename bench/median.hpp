#pragma once
// The median of a benchmark's repeats, for every benchmark program (bench_support.hpp adds the
// CUDA helpers; the front-end benchmarks need no CUDA).

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace bench {

// The repeat below which a share `q` of them lie: the median at 0.5, the quartiles at 0.25 and
// 0.75 (runtime_bench's spread of a cell's ratios, round by round).
inline double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}

inline double median(std::vector<double> v) { return quantile(std::move(v), 0.5); }

}  // namespace bench

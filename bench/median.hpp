#pragma once
// The median of a benchmark's repeats, for every benchmark program (bench_support.hpp adds the
// CUDA helpers; the front-end benchmarks need no CUDA).

#include <algorithm>
#include <vector>

namespace bench {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace bench

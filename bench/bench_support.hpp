#pragma once
// What the benchmark programs share: a checked CUDA call that ends the program, and the median.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(call)                                                                                   \
  do {                                                                                                     \
    cudaError_t bench_status = (call);                                                                     \
    if (bench_status != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(bench_status)); \
      std::exit(1);                                                                                        \
    }                                                                                                      \
  } while (0)

namespace bench {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace bench

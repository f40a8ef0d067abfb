#pragma once
// What the benchmark programs share: a checked CUDA call that ends the program, and the median
// (median.hpp, which the front-end benchmarks include alone).

#include "median.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(call)                                                                                   \
  do {                                                                                                     \
    cudaError_t bench_status = (call);                                                                     \
    if (bench_status != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(bench_status)); \
      std::exit(1);                                                                                        \
    }                                                                                                      \
  } while (0)

#pragma once
// What the benchmark programs share: a checked CUDA call that ends the program, the median
// (median.hpp, which the front-end benchmarks include alone), and pinning the timed thread.

#include "median.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

#ifdef __linux__
#include <pthread.h>
#include <sched.h>
#endif

#define CHECK_CUDA(call)                                                                                   \
  do {                                                                                                     \
    cudaError_t bench_status = (call);                                                                     \
    if (bench_status != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(bench_status)); \
      std::exit(1);                                                                                        \
    }                                                                                                      \
  } while (0)

namespace bench {

// Runs the calling thread on CPU `cpu` alone; false where that cannot be done (no such CPU, not
// allowed, or not Linux). Threads made later inherit it, so call it after CUDA has made its own.
inline bool pin_this_thread(int cpu) {
#ifdef __linux__
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
#else
  (void)cpu;
  return false;
#endif
}

}  // namespace bench

// The kernels of runtime_bench, compiled by nvcc; the benchmark itself is plain C++
// (runtime_bench.cpp), because nvcc cannot compile fmt's format-string checks.

#include "bench_kernels.hpp"

__global__ void tiny(float* p, int i) {
  if (threadIdx.x == 0) p[i & 255] += 1.0f;
}

__global__ void count_step(unsigned* counter, unsigned limit, cudaGraphConditionalHandle more) {
  unsigned c = ++*counter;
  cudaGraphSetConditional(more, c < limit ? 1u : 0u);
}

__global__ void count_flag(unsigned* counter, unsigned limit, unsigned* flag) {
  unsigned c = ++*counter;
  *flag = c < limit ? 1u : 0u;
}

__global__ void loop_init(unsigned* counter, cudaGraphConditionalHandle more) {
  *counter = 0;
  cudaGraphSetConditional(more, 1u);
}


namespace bench {
tiny_fn tiny_function() { return &tiny; }
count_step_fn count_step_function() { return &count_step; }
loop_init_fn loop_init_function() { return &loop_init; }
void launch_tiny(cudaStream_t s, float* p, int i) { tiny<<<1, 32, 0, s>>>(p, i); }
void launch_count_flag(cudaStream_t s, unsigned* counter, unsigned limit, unsigned* flag) {
  count_flag<<<1, 1, 0, s>>>(counter, limit, flag);
}
}  // namespace bench

#pragma once
// Host-side handles to the benchmark's kernels (bench_kernels.cu).

#include <cuda_runtime_api.h>

namespace bench {

using tiny_fn = void (*)(float*, int);
using count_step_fn = void (*)(unsigned*, unsigned, cudaGraphConditionalHandle);
using loop_init_fn = void (*)(unsigned*, cudaGraphConditionalHandle);

tiny_fn tiny_function();
count_step_fn count_step_function();
loop_init_fn loop_init_function();
void launch_tiny(cudaStream_t s, float* p, int i);
void launch_count_flag(cudaStream_t s, unsigned* counter, unsigned limit, unsigned* flag);

}  // namespace bench

#pragma once
// Host-side handles to features_bench's kernels (features_kernels.cu).

#include <cuda_runtime_api.h>

namespace bench {

using pdl_step_fn = void (*)(float*, const float*, int, int);
using fill_fn = void (*)(float*, int, float);
using accumulate_fn = void (*)(float*, const float*, int);

pdl_step_fn pdl_step_function();
fill_fn fill_function();
accumulate_fn accumulate_function();
void launch_fill(cudaStream_t s, float* p, int n, float v);
void launch_accumulate(cudaStream_t s, float* out, const float* src, int n);

}  // namespace bench

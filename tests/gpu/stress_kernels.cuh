#pragma once
// The kernels stress.cgraph, table_chain.cgraph and table_conditionals.cgraph use, for their
// generated C++ (defined in kernels.cu).
#include <cuda_runtime.h>

namespace gpu_test {
__global__ void fill(float* p, float v, int n);
__global__ void saxpy(float a, const float* x, float* y, int n);
__global__ void set_cond(cudaGraphConditionalHandle h, unsigned value);
__global__ void wide(float* out, float a1, float a2, float a3, float a4, float a5, float a6, float a7, float a8, int b1,
                     int b2, int b3, int b4, int b5, int b6, int b7, int b8, int b9);
}  // namespace gpu_test

#pragma once
// The kernels stress.cgraph uses, for its generated C++ (defined in kernels.cu).
#include <cuda_runtime.h>

namespace gpu_test {
__global__ void fill(float* p, float v, int n);
__global__ void saxpy(float a, const float* x, float* y, int n);
}  // namespace gpu_test

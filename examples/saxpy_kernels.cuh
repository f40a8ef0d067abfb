#pragma once
// Kernels of saxpy_chain.cgraph (defined in examples/runtime/saxpy_chain.cu).
#include <cuda_runtime.h>

__global__ void fill(float* p, float v, int n);
__global__ void saxpy(float a, float* x, float* y, int n);

#pragma once
// Kernels of pdl_chain.cgraph (defined in examples/runtime/pdl_chain.cu).
#include <cuda_runtime.h>

__global__ void affine(float* dst, const float* src, int n, float a, float b);

#pragma once
// Kernels of switch_dispatch.cgraph (defined in examples/runtime/switch_dispatch.cu).
#include <cuda_runtime.h>

__global__ void classify(float* x, int n, cudaGraphConditionalHandle mode);
__global__ void scale(float* x, float s, int n);
__global__ void clamp(float* x, float lo, float hi, int n);
__global__ void normalize(float* x, int n);

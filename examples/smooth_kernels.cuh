#pragma once
// Kernels of repeat_smooth.cgraph (defined in examples/runtime/repeat_smooth.cu).
#include <cuda_runtime.h>

__global__ void smooth(float* src, float* dst, int n);

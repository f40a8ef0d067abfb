#pragma once
// The kernels of tests/gpu/multi_gpu.cgraph (defined in multi_gpu_kernels.cu).
#include <cuda_runtime.h>

// p[i] = v for i < n.
__global__ void mg_fill(float* p, float v, int n);
// y[i] += a * x[i] for i < n.
__global__ void mg_axpy(float a, const float* x, float* y, int n);
// p[i] *= s for i < n.
__global__ void mg_scale(float* p, float s, int n);

#pragma once
// The kernels examples/data_parallel.cgraph declares: the gradient of 0.5 (w - x)^2 over one
// shard, and a gradient step.
#include <cuda_runtime.h>

__global__ void local_grad(float* g, const float* w, const float* x, int n);
__global__ void apply_grad(float* w, const float* g, float lr, int n);

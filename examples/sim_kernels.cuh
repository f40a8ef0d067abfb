#pragma once
// Kernels of progress.cgraph (defined in examples/runtime/progress.cu).
#include <cuda_runtime.h>

__global__ void integrate(float* pos, float* vel, float dt, int n);
__global__ void collide(float* pos, float* vel, int n);

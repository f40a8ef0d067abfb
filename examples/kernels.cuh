#pragma once
// Kernels of saxpy.cgraph, the language tour (LANGUAGE.md §1).
#include <cuda_runtime.h>

__global__ void fill(float* p, float v, int n);
__global__ void saxpy(float a, float* x, float* y, int n);
__global__ void step(float* x, int n, cudaGraphConditionalHandle more);  // calls cudaGraphSetConditional

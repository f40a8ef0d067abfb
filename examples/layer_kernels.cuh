#pragma once
// Kernels of child_graphs.cgraph.
#include <cuda_runtime.h>

__global__ void gemv(float* w, float* x, float* y, int rows, int cols);
__global__ void relu(float* x, int n);
__global__ void check_finite(float* x, int n, cudaGraphConditionalHandle ok);
__global__ void poison(float* x, int n);

#pragma once
// Kernels of jacobi.cgraph (defined in examples/runtime/jacobi.cu).
#include <cuda_runtime.h>

__global__ void jacobi_sweep(float* u, float* u_new, int nx, int ny);
__global__ void max_delta(float* u, float* u_new, float* delta, int n);
__global__ void check_convergence(float* delta, float tol, unsigned* iterations, unsigned max_iterations,
                                  cudaGraphConditionalHandle more);

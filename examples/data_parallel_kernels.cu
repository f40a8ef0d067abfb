// The kernels examples/data_parallel.cgraph declares (data_parallel_kernels.cuh), shared by the
// example program and bench/multi_gpu_bench.
#include "data_parallel_kernels.cuh"

__global__ void local_grad(float* g, const float* w, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g[i] = w[i] - x[i];
}

__global__ void apply_grad(float* w, const float* g, float lr, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= lr * g[i];
}

#include "v2_kernels.cuh"

__global__ void pick_branch(cudaGraphConditionalHandle a, cudaGraphConditionalHandle b, cudaGraphConditionalHandle c,
                            unsigned which) {
  cudaGraphSetConditional(a, which == 0);
  cudaGraphSetConditional(b, which == 1);
  cudaGraphSetConditional(c, which == 2);
}

__global__ void put(int* out, int value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

__global__ void bump(int* out, int value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += value;
}

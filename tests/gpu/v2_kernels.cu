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

__global__ void slow_put(int* out, int value, int n, long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

__global__ void twice(int* dst, const int* src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i] * 2;
}

__global__ void produce_pdl(int* out, int value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
  __syncthreads();
  cudaTriggerProgrammaticLaunchCompletion();
}

__global__ void consume_pdl(int* dst, const int* src, int n) {
  cudaGridDependencySynchronize();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = 2 * src[i];
}

__global__ void count_until(int* counter, int limit, cudaGraphConditionalHandle more) {
  int c = ++*counter;
  cudaGraphSetConditional(more, c < limit ? 1u : 0u);
}

__global__ void at_least(const int* counter, int min, cudaGraphConditionalHandle flag) {
  cudaGraphSetConditional(flag, *counter >= min ? 1u : 0u);
}

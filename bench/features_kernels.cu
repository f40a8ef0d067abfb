// The kernels of features_bench (bench/features_bench.cpp), compiled by nvcc.

#include "features_kernels.hpp"

// One step of a chain of short dependent kernels. The trigger comes first, so a programmatic
// dependent may launch at once; the loop before cudaGridDependencySynchronize() reads nothing
// the previous kernel wrote, so it overlaps that kernel's run; the sync waits for the previous
// kernel to complete and flush. Without a programmatic edge the trigger and the sync do
// nothing and the kernel starts only once the previous one has finished.
__global__ void pdl_step(float* dst, const float* src, int n, int work) {
  cudaTriggerProgrammaticLaunchCompletion();
  float acc = 0.0f;
  for (int k = 0; k < work; ++k) acc = fmaf(acc, 0.9999f, 1e-4f);
  cudaGridDependencySynchronize();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // +1 per kernel, so a kernel that read before its producer wrote leaves a smaller count
  // (acc is kept only so the loop is not optimised away).
  if (i < n) dst[i] = src[i] + 1.0f + (acc > 1e30f ? acc : 0.0f);
}

__global__ void fill(float* p, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}

__global__ void accumulate(float* out, const float* src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += src[i];
}

namespace bench {
pdl_step_fn pdl_step_function() { return &pdl_step; }
fill_fn fill_function() { return &fill; }
accumulate_fn accumulate_function() { return &accumulate; }
void launch_fill(cudaStream_t s, float* p, int n, float v) { fill<<<(n + 255) / 256, 256, 0, s>>>(p, n, v); }
void launch_accumulate(cudaStream_t s, float* out, const float* src, int n) {
  accumulate<<<(n + 255) / 256, 256, 0, s>>>(out, src, n);
}
}  // namespace bench

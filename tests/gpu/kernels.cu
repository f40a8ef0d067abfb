#include "kernels.cuh"

#include <cuda_runtime.h>

namespace gpu_test {

__global__ void fill(float* p, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}

__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void scale(float* p, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= s;
}

// Writes the linear index of every thread of a 3D grid of 3D blocks: proves both are honoured.
__global__ void index_3d(int* out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) out[(z * ny + y) * nx + x] = x + 1000 * y + 1000000 * z;
}

// One block sums n values through dynamic shared memory of blockDim.x floats.
__global__ void block_sum(const float* in, float* out, int n) {
  extern __shared__ float partial[];
  float s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += in[i];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = partial[0];
}

// Counts in *counter; keeps `more` set while the count is below `limit`.
__global__ void count_step(unsigned* counter, unsigned limit, cudaGraphConditionalHandle more) {
  unsigned c = ++*counter;
  cudaGraphSetConditional(more, c < limit ? 1u : 0u);
}

__global__ void set_cond(cudaGraphConditionalHandle h, unsigned value) { cudaGraphSetConditional(h, value); }

__global__ void increment(unsigned* p, unsigned by) { atomicAdd(p, by); }

__global__ void copy_scaled(const float* in, float* out, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = s * in[i];
}

// Eighteen arguments, more than the table form of generated C++ keeps in its builder (16,
// generated_table.cpp): out[1] = the sum of the other seventeen.
__global__ void wide(float* out, float a1, float a2, float a3, float a4, float a5, float a6, float a7, float a8, int b1,
                     int b2, int b3, int b4, int b5, int b6, int b7, int b8, int b9) {
  out[1] = a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + static_cast<float>(b1 + b2 + b3 + b4 + b5 + b6 + b7 + b8 + b9);
}

cgraph::registry kernels() {
  cgraph::registry r;
  r.kernel("fill", fill)
      .kernel("saxpy", saxpy)
      .kernel("scale", scale)
      .kernel("index_3d", index_3d)
      .kernel("block_sum", block_sum)
      .kernel("count_step", count_step)
      .kernel("set_cond", set_cond)
      .kernel("increment", increment)
      .kernel("copy_scaled", copy_scaled)
      .kernel("wide", wide);
  return r;
}

}  // namespace gpu_test

#include "multi_gpu_kernels.cuh"
#include "kernels.cuh"

__global__ void mg_fill(float* p, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}

__global__ void mg_axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}

__global__ void mg_scale(float* p, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= s;
}

cgraph::registry gpu_test::multi_gpu_kernels() {
  cgraph::registry reg;
  reg.kernel("mg_fill", mg_fill).kernel("mg_axpy", mg_axpy).kernel("mg_scale", mg_scale);
  return reg;
}

#include "types_kernels.cuh"

__global__ void axpy_half(const __half* x, __half* y, __half a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __float2half(__half2float(a) * __half2float(x[i]) + __half2float(y[i]));
}

__global__ void scale_bf16(__nv_bfloat16* y, __nv_bfloat16 s, long long n) {
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = __float2bfloat16(__bfloat162float(s) * __bfloat162float(y[i]));
}

__global__ void accumulate(const float* x, double* out, const double* bias, long long n) {
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] += x[i] + (bias ? bias[i] : 0.0);
}

__global__ void mark(unsigned long long* out, unsigned long long value) { *out = value; }

__global__ void reverse_in_shared(const float* in, float* out, int n) {
  extern __shared__ float staged[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) staged[i] = in[i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = staged[n - 1 - i];
}

__global__ void __launch_bounds__(128) bounded_scale(float* p, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= s;
}

__global__ void static_and_dynamic(float* out) {
  __shared__ float fixed[256];
  extern __shared__ float extra[];
  fixed[threadIdx.x] = static_cast<float>(threadIdx.x);
  extra[0] = 0.0f;
  __syncthreads();
  if (threadIdx.x == 0) out[200] = fixed[31] + extra[0];
}

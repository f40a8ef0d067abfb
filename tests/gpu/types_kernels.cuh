#pragma once
// The kernels of tests/gpu/types.cgraph (defined in types_kernels.cu). The i64 parameters are
// `long long`, which is not std::int64_t (long) on Linux: generated C++ checks them by ABI.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

__global__ void axpy_half(const __half* x, __half* y, __half a, int n);
__global__ void scale_bf16(__nv_bfloat16* y, __nv_bfloat16 s, long long n);
__global__ void accumulate(const float* x, double* out, const double* bias, long long n);
__global__ void mark(unsigned long long* out, unsigned long long value);

// Launch limits (tests/gpu/launch_limit_tests.cpp): n floats of dynamic shared memory, one block;
// a kernel bounded to 128 threads per block; and 1 KiB of static shared memory beside dynamic.
__global__ void reverse_in_shared(const float* in, float* out, int n);
__global__ void __launch_bounds__(128) bounded_scale(float* p, float s, int n);
__global__ void static_and_dynamic(float* out);

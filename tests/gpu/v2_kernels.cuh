#pragma once
// The kernels of tests/gpu/v2.cgraph (defined in v2_kernels.cu): version 2 statements
// (else if, and the node kinds of LANGUAGE.md §11) on the GPU.
#include <cuda_runtime.h>

// Opens exactly one of a, b and c: the one `which` names (0, 1, 2); none for 3 and above.
__global__ void pick_branch(cudaGraphConditionalHandle a, cudaGraphConditionalHandle b, cudaGraphConditionalHandle c,
                            unsigned which);
// out[i] = value for i < n.
__global__ void put(int* out, int value, int n);
// out[i] += value for i < n.
__global__ void bump(int* out, int value, int n);
// Busy-waits about `cycles` clock cycles (one thread), then writes value to out[0..n).
__global__ void slow_put(int* out, int value, int n, long long cycles);
// dst[i] = src[i] * 2 for i < n.
__global__ void twice(int* dst, const int* src, int n);
// Programmatic dependent launch: out[i] = value, then the trigger that lets a programmatic
// dependent start; and dst[i] = 2 * src[i] after cudaGridDependencySynchronize.
__global__ void produce_pdl(int* out, int value, int n);
__global__ void consume_pdl(int* dst, const int* src, int n);
// ++*counter, then keeps `more` open while the count is below limit.
__global__ void count_until(int* counter, int limit, cudaGraphConditionalHandle more);
// Opens `flag` when *counter >= min.
__global__ void at_least(const int* counter, int min, cudaGraphConditionalHandle flag);

#pragma once
// The benchmark kernel the generated-C++ column's .cgraph files declare (bench_kernels.cu).
#include <cuda_runtime.h>

__global__ void tiny(float* p, int i);

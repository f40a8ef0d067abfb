#pragma once
// Kernels of pipeline.cgraph (defined in examples/runtime/pipeline.cu).
#include <cuda_runtime.h>

__global__ void produce(float* buf, int n, int step);
__global__ void consume(float* sum, const float* buf, int n);

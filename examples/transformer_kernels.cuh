#pragma once
// Kernels of transformer_layer.cgraph (defined in examples/runtime/transformer.cu).
#include <cuda_runtime.h>

__global__ void rms_norm(float* out, const float* x);
__global__ void mix_previous(float* x, const float* normed);
__global__ void mlp_up(float* h, const float* normed, const float* w_up);
__global__ void mlp_down(float* x, const float* h, const float* w_down);

#pragma once
// The kernel's signature drifted from scale.cgraph's declaration (f32* became double*).
#include <cuda_runtime.h>

__global__ void scale(double* x, float s, int n);

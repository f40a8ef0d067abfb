#pragma once
// The benchmark kernel as host_work_generated's generated C++ sees it: the .cgraph files say
// `include "bench_kernels.cuh";`, and this folder's copy stands in for bench/bench_kernels.cuh
// (a __global__ function, for nvcc) with a host function of the same signature, so g++ compiles
// the generated code and its static_asserts against the fake runtime. The function never runs.

void tiny(float* p, int i);

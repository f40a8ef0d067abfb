// The benchmark kernel's host-side handles (bench_kernels.hpp) for the host-work programs: a host
// function `tiny` of the kernel's signature stands in for the __global__ one (bench_kernels.cu),
// and a launch goes to the fake runtime's cudaLaunchKernel, as a real launch of the kernel goes
// to the runtime's. Nothing runs.

#include "../bench_kernels.hpp"

void tiny(float*, int) {}  // the generated headers' `tiny` too (host_work/bench_kernels.cuh)

namespace bench {

tiny_fn tiny_function() { return &tiny; }

void launch_tiny(cudaStream_t s, float* p, int i) {
  void* args[] = {&p, &i};
  (void)cudaLaunchKernel(reinterpret_cast<const void*>(&tiny), dim3(1), dim3(32), args, 0, s);
}

}  // namespace bench

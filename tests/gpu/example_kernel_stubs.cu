// The kernels of every example that tests/gpu/kernels.cu does not define, as stubs: the
// isomorphism tests compare graph structure and launch parameters, not results (the example
// programs check those).
#include "example_builds.hpp"
#include <cuda_runtime.h>

__global__ void fill(float*, float, int) {}
__global__ void saxpy(float, float*, float*, int) {}
__global__ void scale(float*, float, int) {}
__global__ void step(float*, int, cudaGraphConditionalHandle) {}
__global__ void jacobi_sweep(float*, float*, int, int) {}
__global__ void max_delta(float*, float*, float*, int) {}
__global__ void check_convergence(float*, float, unsigned*, unsigned, cudaGraphConditionalHandle) {}
__global__ void classify(float*, int, cudaGraphConditionalHandle) {}
__global__ void clamp(float*, float, float, int) {}
__global__ void normalize(float*, int) {}
__global__ void smooth(float*, float*, int) {}
__global__ void integrate(float*, float*, float, int) {}
__global__ void collide(float*, float*, int) {}
__global__ void gemv(float*, float*, float*, int, int) {}
__global__ void relu(float*, int) {}
__global__ void check_finite(float*, int, cudaGraphConditionalHandle) {}
__global__ void poison(float*, int) {}
__global__ void add(float*, float*, float*, int) {}
__global__ void reduce_sum(float*, float*, int) {}

namespace gpu_test {

void register_example_kernels(cgraph::registry& r) {
  r.kernel("fill", fill).kernel("saxpy", saxpy).kernel("scale", scale).kernel("step", step);
  r.kernel("jacobi_sweep", jacobi_sweep).kernel("max_delta", max_delta).kernel("check_convergence", check_convergence);
  r.kernel("classify", classify).kernel("clamp", clamp).kernel("normalize", normalize).kernel("smooth", smooth);
  r.kernel("integrate", integrate).kernel("collide", collide).kernel("gemv", gemv).kernel("relu", relu);
  r.kernel("check_finite", check_finite).kernel("poison", poison).kernel("add", add).kernel("reduce_sum", reduce_sum);
}

}  // namespace gpu_test

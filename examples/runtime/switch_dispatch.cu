// switch_dispatch.cgraph: the GPU classifies the data and a `switch` runs the matching path.
#include "example_support.hpp"
#include "dispatch_kernels.cuh"  // the kernels examples/switch_dispatch.cgraph declares
#ifdef CGRAPH_BUILD_TIME
#include "switch_dispatch.cgraph.hpp"  // generated at build time by cgraph_add_graphs
#else
#include "switch_dispatch_cgraph.hpp"  // the text of examples/switch_dispatch.cgraph, built at run time
#endif

#include <algorithm>
#include <cmath>
#include <string>

// 0: all |x| < 1, 1: some |x| in [1, 100), 3: some |x| >= 100 (2 is reserved: an empty case).
__device__ __host__ unsigned classify_value(float m) { return m < 1.0f ? 0u : m < 100.0f ? 1u : 3u; }

__global__ void classify(float* x, int n, cudaGraphConditionalHandle mode) {
  __shared__ float largest;
  if (threadIdx.x == 0) largest = 0;
  __syncthreads();
  float m = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) m = fmaxf(m, fabsf(x[i]));
  atomicMax(reinterpret_cast<int*>(&largest), __float_as_int(m));
  __syncthreads();
  if (threadIdx.x == 0) cudaGraphSetConditional(mode, classify_value(largest));
}

__global__ void scale(float* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}

__global__ void clamp(float* x, float lo, float hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = fminf(fmaxf(x[i], lo), hi);
}

// One block: divides by the sum of absolute values.
__global__ void normalize(float* x, int n) {
  __shared__ float total;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  float s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += fabsf(x[i]);
  atomicAdd(&total, s);
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) x[i] /= total;
}

std::vector<float> reference(std::vector<float> x) {
  float m = 0;
  for (float v : x) m = std::max(m, std::fabs(v));
  auto normalize = [&] {
    double total = 0;
    for (float v : x) total += std::fabs(v);
    for (float& v : x) v = static_cast<float>(v / total);
  };
  switch (classify_value(m)) {
    case 0: for (float& v : x) v *= 0.5f; break;
    case 1: for (float& v : x) v = std::min(std::max(v, -1.0f), 1.0f); normalize(); break;
    case 3: normalize(); break;
  }
  return x;
}

int main() {
  example::require_gpu("switch_dispatch");
  const int n = 4096;
#ifndef CGRAPH_BUILD_TIME
  auto prog = cgraph::program::compile(example::switch_dispatch_cgraph, "switch_dispatch.cgraph");
  cgraph::registry reg;
  reg.kernel("classify", classify).kernel("scale", scale).kernel("clamp", clamp).kernel("normalize", normalize);
#endif
  int status = 0;
  for (float peak : {0.5f, 20.0f, 500.0f}) {  // one input per path: case 0, case 1, case 3
    std::vector<float> input(n);
    for (int i = 0; i < n; ++i) input[i] = peak * std::sin(0.37f * i);
    example::device_vector<float> x(input);
#ifdef CGRAPH_BUILD_TIME
    auto graph = cgraph_generated::switch_dispatch::dispatch::build({.x = x.data, .n = n});
#else
    auto graph = cgraph::graph::build(prog, "dispatch", {{"x", x.data}, {"n", n}}, reg);
#endif
    auto exec = graph.instantiate();
    exec.launch(nullptr);
    EXAMPLE_CHECK(cudaStreamSynchronize(nullptr));
    auto want = reference(input);
    auto got = x.download();
    float worst = 0;
    for (int i = 0; i < n; ++i) worst = std::max(worst, std::fabs(got[i] - want[i]) / std::max(1e-6f, std::fabs(want[i])));
    std::string what = "peak " + std::to_string(peak) + " took case " + std::to_string(classify_value(std::fabs(peak) * 0.9999f)) +
                       ", largest relative difference " + std::to_string(worst);
    status |= example::verdict("switch_dispatch", worst <= 1e-4f, what.c_str());
  }
  return status;
}

// saxpy_chain.cgraph, built at run time from its text, checked against a CPU reference.
#include "example_support.hpp"
#include "saxpy_kernels.cuh"  // the kernels examples/saxpy_chain.cgraph declares
#ifdef CGRAPH_BUILD_TIME
#include "saxpy_chain.cgraph.hpp"  // generated at build time by cgraph_add_graphs
#else
#include "saxpy_chain_cgraph.hpp"  // the text of examples/saxpy_chain.cgraph, built at run time
#endif

#include <cmath>
#include <string>

__global__ void fill(float* p, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}

__global__ void saxpy(float a, float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  example::require_gpu("saxpy_chain");
  const int n = 1 << 20;
  const float a = 0.5f;
  example::device_vector<float> x(n), y(n);

#ifdef CGRAPH_BUILD_TIME
  auto graph = cgraph_generated::saxpy_chain::saxpy_chain::build({.x = x.data, .y = y.data, .n = n, .a = a});
#else
  auto prog = cgraph::program::compile(example::saxpy_chain_cgraph, "saxpy_chain.cgraph");
  cgraph::registry reg;
  reg.kernel("fill", fill).kernel("saxpy", saxpy);
  auto graph = cgraph::graph::build(prog, "saxpy_chain", {{"x", x.data}, {"y", y.data}, {"n", n}, {"a", a}}, reg);
#endif
  auto exec = graph.instantiate();
  exec.launch(nullptr);
  EXAMPLE_CHECK(cudaStreamSynchronize(nullptr));

  // CPU reference: y = 0, then y += a*x, 2a*x, 4a*x, 8a*x with x = 1.
  float expected = 0;
  for (float s : {1.0f, 2.0f, 4.0f, 8.0f}) expected = a * s * 1.0f + expected;
  bool ok = true;
  for (float v : y.download()) ok = ok && v == expected;
  std::string what = std::to_string(graph.node_count()) + " nodes, y[i] = " + std::to_string(expected);
  return example::verdict("saxpy_chain", ok, what.c_str());
}

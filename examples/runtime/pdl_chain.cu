// pdl_chain.cgraph: five dependent kernels joined by programmatic edges, checked against a
// CPU reference, and the edges CUDA holds checked to be the programmatic ones written.
#include "example_support.hpp"
#include "pdl_kernels.cuh"  // the kernels examples/pdl_chain.cgraph declares
#ifdef CGRAPH_BUILD_TIME
#include "pdl_chain.cgraph.hpp"  // generated at build time by cgraph_add_graphs
#else
#include "pdl_chain_cgraph.hpp"  // the text of examples/pdl_chain.cgraph, built at run time
#endif

#include <string>
#include <vector>

// dst = a * src + b. The trigger lets the next kernel launch at once; its work before
// cudaGridDependencySynchronize() (none here but the index) overlaps this one, and the sync
// waits for this kernel to complete and its writes to be visible.
__global__ void affine(float* dst, const float* src, int n, float a, float b) {
  cudaTriggerProgrammaticLaunchCompletion();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cudaGridDependencySynchronize();
  if (i < n) dst[i] = a * src[i] + b;
}

int main() {
  example::require_gpu("pdl_chain");
  const int n = 1 << 20;
  std::vector<float> x0(n);
  for (int i = 0; i < n; ++i) x0[i] = static_cast<float>(i % 1000) * 0.01f;
  example::device_vector<float> x(x0), y(n);

#ifdef CGRAPH_BUILD_TIME
  auto graph = cgraph_generated::pdl_chain::pdl_chain::build({.x = x.data, .y = y.data, .n = n});
#else
  auto prog = cgraph::program::compile(example::pdl_chain_cgraph, "pdl_chain.cgraph");
  cgraph::registry reg;
  reg.kernel("affine", affine);
  auto graph = cgraph::graph::build(prog, "pdl_chain", {{"x", x.data}, {"y", y.data}, {"n", n}}, reg);
#endif
  // The edges of the graph: three from programmatic ports, one from a launch-completion port.
  std::size_t count = 0;
  EXAMPLE_CHECK(cudaGraphGetEdges(graph.get(), nullptr, nullptr, nullptr, &count));
  std::vector<cudaGraphNode_t> from(count), to(count);
  std::vector<cudaGraphEdgeData> data(count);
  EXAMPLE_CHECK(cudaGraphGetEdges(graph.get(), from.data(), to.data(), data.data(), &count));
  int programmatic = 0, launched = 0;
  for (const auto& e : data)
    if (e.type == cudaGraphDependencyTypeProgrammatic)
      (e.from_port == cudaGraphKernelNodePortLaunchCompletion ? launched : programmatic) += 1;

  auto exec = graph.instantiate();
  exec.launch(nullptr);
  EXAMPLE_CHECK(cudaStreamSynchronize(nullptr));

  // CPU reference: the same five steps.
  const float steps[5][2] = {{2.0f, 1.0f}, {0.5f, -3.0f}, {3.0f, 0.25f}, {-1.0f, 2.0f}, {0.25f, 1.0f}};
  auto got = y.download();
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    float v = x0[i];
    for (const auto& s : steps) v = s[0] * v + s[1];
    wrong += got[i] != v;
  }
  bool ok = wrong == 0 && count == 4 && programmatic == 3 && launched == 1;
  std::string what = std::to_string(count) + " edges (" + std::to_string(programmatic) + " programmatic, " +
                     std::to_string(launched) + " launch-completion), " + std::to_string(wrong) + " of " +
                     std::to_string(n) + " elements wrong";
  return example::verdict("pdl_chain", ok, what.c_str());
}

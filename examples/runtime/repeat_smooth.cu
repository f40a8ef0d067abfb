// repeat_smooth.cgraph: `repeat passes { … }` runs on the device with cgraph's own counter.
#include "example_support.hpp"
#include "smooth_kernels.cuh"  // the kernels examples/repeat_smooth.cgraph declares
#ifdef CGRAPH_BUILD_TIME
#include "repeat_smooth.cgraph.hpp"  // generated at build time by cgraph_add_graphs
#else
#include "repeat_smooth_cgraph.hpp"  // the text of examples/repeat_smooth.cgraph, built at run time
#endif

#include <algorithm>
#include <cmath>
#include <string>

__global__ void smooth(float* src, float* dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float left = src[i > 0 ? i - 1 : i], right = src[i + 1 < n ? i + 1 : i];
  dst[i] = (left + src[i] + right) / 3.0f;
}

std::vector<float> reference(std::vector<float> a, unsigned passes) {
  std::vector<float> b(a.size());
  int n = static_cast<int>(a.size());
  auto step = [n](const std::vector<float>& s, std::vector<float>& d) {
    for (int i = 0; i < n; ++i) d[i] = (s[i > 0 ? i - 1 : i] + s[i] + s[i + 1 < n ? i + 1 : i]) / 3.0f;
  };
  for (unsigned p = 0; p < passes; ++p) {
    step(a, b);
    step(b, a);
  }
  return a;
}

int main() {
  example::require_gpu("repeat_smooth");
  const int n = 1 << 16;
  std::vector<float> input(n);
  for (int i = 0; i < n; ++i) input[i] = (i % 97 == 0) ? 100.0f : 0.0f;
  example::device_vector<float> a(input), b(n);
#ifdef CGRAPH_BUILD_TIME
  namespace generated = cgraph_generated::repeat_smooth::smooth_passes;
  generated::parameters params{.a = a.data, .b = b.data, .n = n, .passes = 8};
  auto graph = generated::build(params);
#else
  auto prog = cgraph::program::compile(example::repeat_smooth_cgraph, "repeat_smooth.cgraph");
  cgraph::registry reg;
  reg.kernel("smooth", smooth);
  auto graph = cgraph::graph::build(prog, "smooth_passes", {{"a", a.data}, {"b", b.data}, {"n", n}, {"passes", 8}}, reg);
#endif
  auto exec = graph.instantiate();
  exec.launch(nullptr);
  EXAMPLE_CHECK(cudaStreamSynchronize(nullptr));
  auto check = [&](unsigned passes, const std::vector<float>& start) {
    auto want = reference(start, passes);
    auto got = a.download();
    float worst = 0;
    for (int i = 0; i < n; ++i) worst = std::max(worst, std::fabs(got[i] - want[i]));
    return worst;
  };
  float worst8 = check(8, input);
  // Fewer passes: an update of the repeat count, no rebuild.
  a.upload(input);
#ifdef CGRAPH_BUILD_TIME
  params.passes = 3;
  auto r = exec.update(params);
#else
  auto r = exec.update({{"passes", 3}});
#endif
  exec.launch(nullptr);
  EXAMPLE_CHECK(cudaStreamSynchronize(nullptr));
  float worst3 = check(3, input);
  std::string what = "8 passes then 3 (update path: " + std::string(cgraph::to_string(r.path)) +
                     "), largest differences " + std::to_string(worst8) + " and " + std::to_string(worst3);
  return example::verdict("repeat_smooth", worst8 <= 1e-4f && worst3 <= 1e-4f, what.c_str());
}

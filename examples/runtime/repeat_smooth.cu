// repeat_smooth.cgraph: `repeat passes { … }` runs on the device with cgraph's own counter.
#include "example_support.hpp"
#include "repeat_smooth_cgraph.hpp"

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
  auto prog = cgraph::program::compile(example::repeat_smooth_cgraph, "repeat_smooth.cgraph");
  cgraph::registry reg;
  reg.kernel("smooth", smooth);
  auto graph = cgraph::graph::build(prog, "smooth_passes", {{"a", a.data}, {"b", b.data}, {"n", n}, {"passes", 8}}, reg);
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
  auto r = exec.update({{"passes", 3}});
  exec.launch(nullptr);
  EXAMPLE_CHECK(cudaStreamSynchronize(nullptr));
  float worst3 = check(3, input);
  std::string what = "8 passes then 3 (update path: " + std::string(cgraph::to_string(r.path)) +
                     "), largest differences " + std::to_string(worst8) + " and " + std::to_string(worst3);
  return example::verdict("repeat_smooth", worst8 <= 1e-4f && worst3 <= 1e-4f, what.c_str());
}

// transformer.cgraph: an 8-layer transformer-like stack written with const, for, import and
// alloc temporaries, checked against a CPU reference. At run time it is loaded from its file
// (program::load follows its import); at build time cgraph_add_graphs generates it.
#include "example_support.hpp"
#include "transformer_kernels.cuh"  // the kernels examples/transformer_layer.cgraph declares
#ifdef CGRAPH_BUILD_TIME
#include "transformer.cgraph.hpp"  // generated at build time by cgraph_add_graphs
#endif

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace {
constexpr int hidden = 256, layers = 8;  // HIDDEN and LAYERS of the .cgraph files
}

// One block per token, one thread per feature.
__global__ void rms_norm(float* out, const float* x) {
  __shared__ float squares[hidden];
  int t = blockIdx.x, f = threadIdx.x;
  float v = x[t * hidden + f];
  squares[f] = v * v;
  __syncthreads();
  for (int stride = hidden / 2; stride > 0; stride /= 2) {
    if (f < stride) squares[f] += squares[f + stride];
    __syncthreads();
  }
  out[t * hidden + f] = v * rsqrtf(squares[0] / hidden + 1e-5f);
}

__global__ void mix_previous(float* x, const float* normed) {
  int t = blockIdx.x, f = threadIdx.x;
  int previous = t > 0 ? t - 1 : 0;
  x[t * hidden + f] += 0.5f * (normed[t * hidden + f] + normed[previous * hidden + f]);
}

__global__ void mlp_up(float* h, const float* normed, const float* w_up) {
  int i = blockIdx.x * hidden + threadIdx.x;
  h[i] = fmaxf(w_up[threadIdx.x] * normed[i], 0.0f);
}

__global__ void mlp_down(float* x, const float* h, const float* w_down) {
  int i = blockIdx.x * hidden + threadIdx.x;
  x[i] += w_down[threadIdx.x] * h[i];
}

namespace {

// The same stack on the CPU, in double.
std::vector<double> reference(std::vector<float> x0, const std::vector<float>& w, int tokens) {
  std::vector<double> x(x0.begin(), x0.end()), normed(x.size());
  auto norm = [&] {
    for (int t = 0; t < tokens; ++t) {
      double s = 0;
      for (int f = 0; f < hidden; ++f) s += x[t * hidden + f] * x[t * hidden + f];
      double scale = 1.0 / std::sqrt(s / hidden + 1e-5);
      for (int f = 0; f < hidden; ++f) normed[t * hidden + f] = x[t * hidden + f] * scale;
    }
  };
  for (int l = 0; l < layers; ++l) {
    norm();
    for (int t = 0; t < tokens; ++t)
      for (int f = 0; f < hidden; ++f)
        x[t * hidden + f] += 0.5 * (normed[t * hidden + f] + normed[std::max(t - 1, 0) * hidden + f]);
    norm();
    for (int i = 0; i < tokens * hidden; ++i) {
      int f = i % hidden;
      double h = std::max(w[(2 * l) * hidden + f] * normed[i], 0.0);
      x[i] += w[(2 * l + 1) * hidden + f] * h;
    }
  }
  return x;
}

}  // namespace

int main() {
  example::require_gpu("transformer");
  std::vector<float> x0, w(layers * 2 * hidden);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.5f + 0.25f * std::sin(0.1f * static_cast<float>(i));
  example::device_vector<float> weights(w);
  bool ok = true;
  double worst = 0;
  std::string what;
  // Built for 64 tokens, then updated to 256: a new size of the temporaries, so a new graph.
  int first = 64;
#ifdef CGRAPH_BUILD_TIME
  namespace stack = cgraph_generated::transformer::transformer;
  example::device_vector<float> x(256 * hidden);
  auto exec = stack::build({.x = x.data, .w = weights.data, .tokens = first}).instantiate();
#else
  auto prog = cgraph::program::load(CGRAPH_EXAMPLES_DIR "/transformer.cgraph");  // follows the import
  cgraph::registry reg;
  reg.kernel("rms_norm", rms_norm).kernel("mix_previous", mix_previous).kernel("mlp_up", mlp_up).kernel("mlp_down", mlp_down);
  example::device_vector<float> x(256 * hidden);
  auto graph = cgraph::graph::build(prog, "transformer", {{"x", x.data}, {"w", weights.data}, {"tokens", first}}, reg);
  auto exec = graph.instantiate();
  what = std::to_string(graph.node_count()) + " nodes, ";
#endif
  for (int tokens : {first, 256}) {
    x0.assign(static_cast<std::size_t>(tokens) * hidden, 0.0f);
    for (std::size_t i = 0; i < x0.size(); ++i) x0[i] = std::cos(0.37f * static_cast<float>(i % 97)) * (1 + i / hidden % 5);
    x.upload(x0);
#ifdef CGRAPH_BUILD_TIME
    if (tokens != first) exec.update({.x = x.data, .w = weights.data, .tokens = tokens});
#else
    if (tokens != first) exec.update({{"tokens", tokens}});
#endif
    exec.launch(nullptr);
    EXAMPLE_CHECK(cudaStreamSynchronize(nullptr));
    auto expected = reference(x0, w, tokens);
    auto got = x.download();
    for (int i = 0; i < tokens * hidden; ++i)
      worst = std::max(worst, std::abs(got[i] - expected[i]) / std::max(1.0, std::abs(expected[i])));
  }
  ok = worst < 1e-4;
  what += std::to_string(layers) + " layers, 64 then 256 tokens, largest relative difference " + std::to_string(worst);
  return example::verdict("transformer", ok, what.c_str());
}

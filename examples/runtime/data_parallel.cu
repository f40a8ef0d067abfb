// data_parallel.cgraph: a data-parallel training step as one graph per step. With two GPUs, one
// process drives both (ncclCommInitAll, `two_gpu_step`); with one, `rank_step` runs with a
// one-rank communicator. Checked against a CPU reference: the weights move toward the mean of
// the shards, and the replicas stay equal.
#include "example_support.hpp"
#include "data_parallel_kernels.cuh"
#ifdef CGRAPH_BUILD_TIME
#include "data_parallel.cgraph.hpp"  // generated at build time by cgraph_add_graphs
#else
#include "data_parallel_cgraph.hpp"  // the text of examples/data_parallel.cgraph, built at run time
#endif

#include <nccl.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace {

// One GPU's replica: weights, gradient and its shard of the data, on device `d`.
struct replica {
  replica(int d, const std::vector<float>& shard) : device(d) {
    EXAMPLE_CHECK(cudaSetDevice(d));
    w = std::make_unique<example::device_vector<float>>(shard.size());
    g = std::make_unique<example::device_vector<float>>(shard.size());
    x = std::make_unique<example::device_vector<float>>(shard);
    EXAMPLE_CHECK(cudaMemset(w->data, 0, shard.size() * sizeof(float)));
  }
  int device;
  std::unique_ptr<example::device_vector<float>> w, g, x;
};

}  // namespace

int main() {
  example::require_gpu("data_parallel");
  int gpus = 0;
  EXAMPLE_CHECK(cudaGetDeviceCount(&gpus));
  const int ranks = gpus >= 2 ? 2 : 1, n = 1 << 20, steps = 5;
  const float lr = 0.5f;
  std::vector<std::vector<float>> shards(ranks, std::vector<float>(n));
  for (int r = 0; r < ranks; ++r)
    for (int i = 0; i < n; ++i) shards[r][i] = static_cast<float>((i % (7 + 6 * r)) * (r + 1));

  std::vector<ncclComm_t> comms(ranks);
  std::vector<int> devices(ranks);
  for (int r = 0; r < ranks; ++r) devices[r] = r;
  if (ncclCommInitAll(comms.data(), ranks, devices.data()) != ncclSuccess) {
    std::printf("data_parallel: ncclCommInitAll failed\n");
    return 1;
  }
  std::vector<std::unique_ptr<replica>> rep;
  for (int r = 0; r < ranks; ++r) rep.push_back(std::make_unique<replica>(r, shards[r]));
  EXAMPLE_CHECK(cudaSetDevice(0));

  auto train = [&](auto&& exec) {
    for (int s = 0; s < steps; ++s) exec.launch(nullptr);  // one launch per training step
    for (int r = 0; r < ranks; ++r) {
      EXAMPLE_CHECK(cudaSetDevice(r));
      EXAMPLE_CHECK(cudaDeviceSynchronize());
    }
    EXAMPLE_CHECK(cudaSetDevice(0));
  };
#ifdef CGRAPH_BUILD_TIME
  namespace dp = cgraph_generated::data_parallel;
  if (ranks == 2)
    train(dp::two_gpu_step::build({.w0 = rep[0]->w->data, .g0 = rep[0]->g->data, .x0 = rep[0]->x->data,
                                   .w1 = rep[1]->w->data, .g1 = rep[1]->g->data, .x1 = rep[1]->x->data,
                                   .lr = lr, .n = n, .c0 = comms[0], .c1 = comms[1]})
              .instantiate());
  else
    train(dp::rank_step::build({.w = rep[0]->w->data, .g = rep[0]->g->data, .x = rep[0]->x->data, .lr = lr, .n = n,
                                .c = comms[0]})
              .instantiate());
#else
  auto prog = cgraph::program::compile(example::data_parallel_cgraph, "data_parallel.cgraph");
  cgraph::registry reg;
  reg.kernel("local_grad", local_grad).kernel("apply_grad", apply_grad);
  cgraph::args values = ranks == 2
      ? cgraph::args{{"w0", rep[0]->w->data}, {"g0", rep[0]->g->data}, {"x0", rep[0]->x->data},
                     {"w1", rep[1]->w->data}, {"g1", rep[1]->g->data}, {"x1", rep[1]->x->data},
                     {"lr", lr}, {"n", n}, {"c0", comms[0]}, {"c1", comms[1]}}
      : cgraph::args{{"w", rep[0]->w->data}, {"g", rep[0]->g->data}, {"x", rep[0]->x->data}, {"lr", lr}, {"n", n},
                     {"c", comms[0]}};
  train(cgraph::graph::build(prog, ranks == 2 ? "two_gpu_step" : "rank_step", values, reg).instantiate());
#endif

  // CPU reference: w -= lr * (w - mean of the shards' x), on every replica.
  std::vector<float> w(n, 0.0f);
  for (int s = 0; s < steps; ++s)
    for (int i = 0; i < n; ++i) {
      float mean = 0;
      for (int r = 0; r < ranks; ++r) mean += w[i] - shards[r][i];
      w[i] -= lr * (mean / static_cast<float>(ranks));
    }
  int wrong = 0;
  for (int r = 0; r < ranks; ++r) {
    EXAMPLE_CHECK(cudaSetDevice(r));
    auto got = rep[r]->w->download();
    for (int i = 0; i < n; ++i) wrong += std::fabs(got[i] - w[i]) > 1e-4f * (1.0f + std::fabs(w[i]));
  }
  EXAMPLE_CHECK(cudaSetDevice(0));
  rep.clear();
  for (ncclComm_t c : comms) ncclCommDestroy(c);
  std::string what = std::to_string(steps) + " steps on " + std::to_string(ranks) + " GPU" + (ranks > 1 ? "s" : "") +
                     ", " + std::to_string(wrong) + " of " + std::to_string(ranks * n) + " weights wrong";
  return example::verdict("data_parallel", wrong == 0, what.c_str());
}

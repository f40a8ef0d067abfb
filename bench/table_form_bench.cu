// The table form of generated C++ (issue 17), side by side in one run: building a 100 000-node
// chain of `tiny` kernels by the generated C++ that cgraph_add_graphs wrote in the table form,
// and by hand-written explicit calls (one cudaGraphAddKernelNode per node). Each round builds
// both (graph made and destroyed, wall clock), the first of the two alternating from round to
// round, as runtime_bench's rounds do; after one warm-up round, it reports each path's median
// and the median of the rounds' ratios. (Hand first in every round read 0.98–1.19 from one run
// to the next: the second build of a round paid for the first one's teardown.)
//
//   table_form_bench [--rounds N]   (default 9; a round of 100 000 nodes varies by ±40% on an
//                                   H100 host, so a figure to compare with 1.05 wants many)
//
// A program, not a test.

#include "bench_kernels.hpp"
#include "bench_support.hpp"
#include "chain_100000.cgraph.hpp"  // generated at build time from the chain write_bench_graphs wrote

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr int nodes = 100000;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

// The same chain by hand: tiny<<<1, 32>>>(p, i) after the previous node.
double hand_explicit(float* p) {
  auto start = clock_type::now();
  cudaGraph_t g = nullptr;
  CHECK_CUDA(cudaGraphCreate(&g, 0));
  cudaGraphNode_t previous = nullptr;
  for (int i = 0; i < nodes; ++i) {
    int index = i;  // the first node's `first` is 0
    void* args[] = {&p, &index};
    cudaKernelNodeParams params{};
    params.func = reinterpret_cast<void*>(bench::tiny_function());
    params.gridDim = dim3(1);
    params.blockDim = dim3(32);
    params.kernelParams = args;
    cudaGraphNode_t node = nullptr;
    CHECK_CUDA(cudaGraphAddKernelNode(&node, g, previous ? &previous : nullptr, previous ? 1 : 0, &params));
    previous = node;
  }
  double s = seconds_since(start);
  CHECK_CUDA(cudaGraphDestroy(g));
  return s;
}

double table_form(float* p) {
  auto start = clock_type::now();
  auto state = cgraph_generated::chain_100000::g::traits::build_state({p, 0}, {});
  double s = seconds_since(start);
  state.reset();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 9;
  if (argc == 3 && std::strcmp(argv[1], "--rounds") == 0) rounds = std::atoi(argv[2]);
  if ((argc != 1 && argc != 3) || rounds < 1) {
    std::fprintf(stderr, "usage: table_form_bench [--rounds N]\n");
    return 2;
  }
  float* p = nullptr;
  CHECK_CUDA(cudaMalloc(&p, 256 * sizeof(float)));
  std::vector<double> hand, table, ratio;
  for (int r = 0; r <= rounds; ++r) {
    double h = 0, t = 0;
    if (r % 2) {
      t = table_form(p);
      h = hand_explicit(p);
    } else {
      h = hand_explicit(p);
      t = table_form(p);
    }
    if (r > 0) {  // the first round warms up
      hand.push_back(h);
      table.push_back(t);
      ratio.push_back(t / h);
    }
  }
  const double h = bench::median(hand), t = bench::median(table);
  std::printf("table_form_bench: build a %d-node chain, %d rounds, each path first in turn\n", nodes, rounds);
  std::printf("hand-written explicit  %8.2f ms  %6.3f us/node (median)\n", h * 1e3, h * 1e6 / nodes);
  std::printf("generated, table form  %8.2f ms  %6.3f us/node (median)\n", t * 1e3, t * 1e6 / nodes);
  std::printf("table form / hand      %8.3f (median of the rounds' ratios; rounds:", bench::median(ratio));
  for (double x : ratio) std::printf(" %.2f", x);
  std::printf(")\n");
  CHECK_CUDA(cudaFree(p));
  return 0;
}

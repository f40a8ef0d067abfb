// The table form of generated C++ (issue 17), side by side in one run: building a 100 000-node
// chain of `tiny` kernels by the generated C++ that cgraph_add_graphs wrote in the table form,
// and by hand-written explicit calls (one cudaGraphAddKernelNode per node). Each round builds
// both (graph made and destroyed, wall clock), the first of the two alternating from round to
// round, as runtime_bench's rounds do; after one warm-up round, it reports each path's median
// and the ratio. (Hand first in every round read 0.98–1.19 from one run to the next: the
// second build of a round paid for the first one's teardown.)
//
// The ratio is the median, over pairs of consecutive rounds (one of each order), of the
// geometric mean of the pair's two ratios: a cost the second build of a round pays cancels
// there. The median of all rounds' ratios, which it reported until run 45, does not: where
// the two orders read apart (run 45: 1.02 with the table form first, 1.13 second), their
// rounds form two clusters and that median lands at the edge of one of them. Each order's
// median and the all-round median are printed too.
//
//   table_form_bench [--rounds N]   (default 41: a round of 100 000 nodes varies by ±40% on an
//                                   H100 host, so a figure to compare with 1.05 wants many; 41
//                                   rounds take about 15 s on an H200 host, where run 49's two
//                                   runs of the default 9 read 1.080 and 1.007 on the same code)
//
// A program, not a test.

#include "bench_kernels.hpp"
#include "bench_support.hpp"
#include "hand_graphs.hpp"
#include "chain_100000.cgraph.hpp"  // generated at build time from the chain write_bench_graphs wrote

#include <chrono>
#include <cmath>
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
    const cudaKernelNodeParams params = bench::tiny_params(args);  // runtime_bench's hand-written node
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
  int rounds = 41;
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
  // ratio[k] is round k + 1's: odd rounds build the table form first, even ones hand first.
  std::vector<double> table_first, hand_first, pairs;
  for (std::size_t k = 0; k < ratio.size(); ++k) (k % 2 == 0 ? table_first : hand_first).push_back(ratio[k]);
  for (std::size_t k = 0; k + 1 < ratio.size(); k += 2) pairs.push_back(std::sqrt(ratio[k] * ratio[k + 1]));
  if (pairs.empty()) pairs = ratio;  // one round: no pair
  std::printf("table form / hand      %8.3f (median over pairs of rounds, one of each order, of their ratios' "
              "geometric mean)\n", bench::median(pairs));
  std::printf("  table form first %.3f, hand first %.3f (medians of each order's rounds); all rounds %.3f; rounds:",
              bench::median(table_first), hand_first.empty() ? 0.0 : bench::median(hand_first), bench::median(ratio));
  for (double x : ratio) std::printf(" %.2f", x);
  std::printf("\n");
  CHECK_CUDA(cudaFree(p));
  return 0;
}

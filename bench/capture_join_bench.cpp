// Two ways to capture a fork-join, side by side in one run (docs/performance.md, run 73): what a
// capture could save where a graph is wide, measured before the capture session took the second
// way (run 74).
//
// - "streams and events": runtime_bench's hand-written capture (hand_graphs.cpp), which is what
//   cgraph's capture session did until run 74: each branch on a stream of its own that waits for the
//   root's event, records an event of its own, and the origin stream waits for every one of them.
// - "one stream, dependencies set": everything on the origin stream. Before each branch the
//   stream's capture dependencies are set to the root (cudaStreamUpdateCaptureDependencies), the
//   branch's node is read back (cudaStreamGetCaptureInfo), and the join sets the dependencies to
//   every branch node in one call. No other stream and no event takes part.
//
// Both build the same nodes and the same edges, but for one: the hand-written capture's join
// also depends on the root directly (the origin stream's last node), an edge the one-stream
// capture does not make. Each round builds both (wall clock, the graph destroyed untimed), the
// first of the two alternating from round to round; the ratio is the median of the rounds'
// ratios, with its quartiles.
//
//   capture_join_bench [--rounds N]   (default 201; 31 at 10 000 nodes, whose rounds take 50 ms)
//
// A program, not a test.

#include "bench_kernels.hpp"
#include "bench_support.hpp"
#include "hand_graphs.hpp"
#include "median.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

// The fork-join of `nodes` nodes (a root, nodes - 2 branches, a join) captured on `stream` alone.
cudaGraph_t capture_on_one_stream(int nodes, float* buffer, cudaStream_t stream, std::vector<cudaGraphNode_t>& branches) {
  branches.clear();
  cudaStreamCaptureStatus status{};
  const cudaGraphNode_t* deps = nullptr;
  std::size_t count = 0;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  bench::launch_tiny(stream, buffer, 0);
  CHECK_CUDA(cudaStreamGetCaptureInfo(stream, &status, nullptr, nullptr, &deps, nullptr, &count));
  cudaGraphNode_t root = deps[0];
  for (int i = 1; i < nodes - 1; ++i) {
    CHECK_CUDA(cudaStreamUpdateCaptureDependencies(stream, &root, nullptr, 1, cudaStreamSetCaptureDependencies));
    bench::launch_tiny(stream, buffer, i);
    CHECK_CUDA(cudaStreamGetCaptureInfo(stream, &status, nullptr, nullptr, &deps, nullptr, &count));
    branches.push_back(deps[0]);
  }
  CHECK_CUDA(cudaStreamUpdateCaptureDependencies(stream, branches.data(), nullptr, branches.size(),
                                                 cudaStreamSetCaptureDependencies));
  bench::launch_tiny(stream, buffer, 0);
  cudaGraph_t graph = nullptr;
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  return graph;
}

void print_shape(const char* way, cudaGraph_t graph) {
  std::size_t nodes = 0, edges = 0;
  CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
  CHECK_CUDA(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges));
  std::printf("  %-30s %6zu nodes %6zu edges\n", way, nodes, edges);
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 201;
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], "--rounds")) rounds = std::max(1, std::atoi(argv[i + 1]));
  cudaStream_t stream = nullptr, side = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  float* buffer = nullptr;
  CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&buffer), 32 * sizeof(float)));
  std::vector<cudaGraphNode_t> branches;
  std::printf("%8s %28s %28s %8s %14s\n", "nodes", "streams and events us/node", "one stream us/node", "ratio", "quartiles");
  for (int nodes : {100, 1000, 10000}) {
    auto events_way = [&] { return bench::hand_capture(bench::shape::wide, nodes, buffer, stream, side).graph; };
    auto one_stream = [&] { return capture_on_one_stream(nodes, buffer, stream, branches); };
    // One untimed round: the stream pool grows, and both graphs' shapes are printed.
    cudaGraph_t a = events_way(), b = one_stream();
    print_shape("streams and events:", a);
    print_shape("one stream, dependencies set:", b);
    CHECK_CUDA(cudaGraphDestroy(a));
    CHECK_CUDA(cudaGraphDestroy(b));
    const int n_rounds = nodes >= 10000 ? std::min(rounds, 31) : rounds;
    std::vector<double> events_us, one_us, ratios;
    for (int r = 0; r < n_rounds; ++r) {
      double us[2] = {0, 0};
      for (int k = 0; k < 2; ++k) {
        const int way = (k + r) % 2;  // which way goes first alternates
        const auto start = clock_type::now();
        cudaGraph_t g = way == 0 ? events_way() : one_stream();
        us[way] = std::chrono::duration<double, std::micro>(clock_type::now() - start).count() / nodes;
        CHECK_CUDA(cudaGraphDestroy(g));
      }
      events_us.push_back(us[0]);
      one_us.push_back(us[1]);
      ratios.push_back(us[1] / us[0]);
    }
    std::printf("%8d %28.3f %28.3f %8.3f %6.3f-%.3f\n", nodes, bench::median(events_us), bench::median(one_us),
                bench::median(ratios), bench::quantile(ratios, 0.25), bench::quantile(ratios, 0.75));
  }
  CHECK_CUDA(cudaFree(buffer));
  return 0;
}

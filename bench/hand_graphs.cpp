// The benchmark's hand-written graphs (hand_graphs.hpp).

#include "hand_graphs.hpp"

#include "bench_kernels.hpp"
#include "bench_support.hpp"

namespace bench {

namespace {

cudaGraphNodeParams if_params(cudaGraphConditionalHandle handle) {
  cudaGraphNodeParams c{};
  c.type = cudaGraphNodeTypeConditional;
  c.conditional.handle = handle;
  c.conditional.type = cudaGraphCondTypeIf;
  c.conditional.size = 1;
  return c;
}

}  // namespace

cudaKernelNodeParams tiny_params(void** args) {
  cudaKernelNodeParams p{};
  p.func = reinterpret_cast<void*>(bench::tiny_function());
  p.gridDim = dim3(1);
  p.blockDim = dim3(32);
  p.kernelParams = args;
  return p;
}

// The handles of `count` conditionals of graph `g`, each made now (handles_first) or left 0 to
// be made just before its node.
std::vector<cudaGraphConditionalHandle> handles_of(cudaGraph_t g, int count, bool now) {
  std::vector<cudaGraphConditionalHandle> out(static_cast<std::size_t>(count), 0);
  if (now)
    for (auto& h : out) CHECK_CUDA(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
  return out;
}

hand_graph hand_explicit(shape s, int nodes, float* buffer, bool handles_first) {
  hand_graph h;
  CHECK_CUDA(cudaGraphCreate(&h.graph, 0));
  int i = 0;
  void* args[] = {&buffer, &i};
  auto p = tiny_params(args);
  auto add = [&](cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t n) {
    cudaGraphNode_t node;
    CHECK_CUDA(cudaGraphAddKernelNode(&node, g, deps, n, &p));
    h.kernels.push_back(node);
    return node;
  };
  switch (s) {
    case shape::chain: {
      cudaGraphNode_t last = nullptr;
      for (i = 0; i < nodes; ++i) last = add(h.graph, last ? &last : nullptr, last ? 1 : 0);
      break;
    }
    case shape::wide: {
      i = 0;
      cudaGraphNode_t root = add(h.graph, nullptr, 0);
      std::vector<cudaGraphNode_t> middle;
      for (i = 1; i < nodes - 1; ++i) middle.push_back(add(h.graph, &root, 1));
      i = 0;
      add(h.graph, middle.data(), middle.size());
      break;
    }
    case shape::conditional: {
      cudaGraphNode_t last = nullptr;
      std::vector<cudaGraphConditionalHandle> handles = handles_of(h.graph, nodes / 2, handles_first);
      for (i = 0; i < nodes / 2; ++i) {
        cudaGraphConditionalHandle& handle = handles[static_cast<std::size_t>(i)];
        if (!handles_first) CHECK_CUDA(cudaGraphConditionalHandleCreate(&handle, h.graph, 1, cudaGraphCondAssignDefault));
        cudaGraphNodeParams c = if_params(handle);
        cudaGraphNode_t node;
        CHECK_CUDA(cudaGraphAddNode(&node, h.graph, last ? &last : nullptr, nullptr, last ? 1 : 0, &c));
        add(c.conditional.phGraph_out[0], nullptr, 0);
        last = node;
      }
      break;
    }
  }
  return h;
}

hand_graph hand_capture(shape s, int nodes, float* buffer, cudaStream_t stream, cudaStream_t side, bool handles_first) {
  hand_graph h;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  auto launch = [&](cudaStream_t st, int i) { bench::launch_tiny(st, buffer, i); };
  switch (s) {
    case shape::chain:
      for (int i = 0; i < nodes; ++i) launch(stream, i);
      break;
    case shape::wide: {
      // One stream per branch would need nodes-2 streams; like cgraph, fork each branch from
      // the root event onto a pool of streams and join them all.
      static std::vector<cudaStream_t> pool;
      static std::vector<cudaEvent_t> events;
      while (static_cast<int>(pool.size()) < nodes) {
        cudaStream_t st;
        cudaEvent_t e;
        CHECK_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
        CHECK_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        pool.push_back(st);
        events.push_back(e);
      }
      launch(stream, 0);
      CHECK_CUDA(cudaEventRecord(events[0], stream));
      for (int i = 1; i < nodes - 1; ++i) {
        CHECK_CUDA(cudaStreamWaitEvent(pool[i], events[0], 0));
        launch(pool[i], i);
        CHECK_CUDA(cudaEventRecord(events[i], pool[i]));
      }
      for (int i = 1; i < nodes - 1; ++i) CHECK_CUDA(cudaStreamWaitEvent(stream, events[i], 0));
      launch(stream, 0);
      break;
    }
    case shape::conditional: {
      std::vector<cudaGraphConditionalHandle> handles;
      if (handles_first) {
        cudaStreamCaptureStatus st;
        cudaGraph_t g;
        CHECK_CUDA(cudaStreamGetCaptureInfo(stream, &st, nullptr, &g, nullptr, nullptr, nullptr));
        handles = handles_of(g, nodes / 2, true);
      }
      for (int i = 0; i < nodes / 2; ++i) {
        cudaStreamCaptureStatus st;
        cudaGraph_t g;
        const cudaGraphNode_t* deps;
        std::size_t n;
        CHECK_CUDA(cudaStreamGetCaptureInfo(stream, &st, nullptr, &g, &deps, nullptr, &n));
        cudaGraphConditionalHandle handle = handles_first ? handles[static_cast<std::size_t>(i)] : 0;
        if (!handles_first) CHECK_CUDA(cudaGraphConditionalHandleCreate(&handle, g, 1, cudaGraphCondAssignDefault));
        cudaGraphNodeParams c = if_params(handle);
        cudaGraphNode_t node;
        CHECK_CUDA(cudaGraphAddNode(&node, g, deps, nullptr, n, &c));
        CHECK_CUDA(cudaStreamUpdateCaptureDependencies(stream, &node, nullptr, 1, cudaStreamSetCaptureDependencies));
        CHECK_CUDA(cudaStreamBeginCaptureToGraph(side, c.conditional.phGraph_out[0], nullptr, nullptr, 0,
                                                 cudaStreamCaptureModeThreadLocal));
        launch(side, i);
        cudaGraph_t body;
        CHECK_CUDA(cudaStreamEndCapture(side, &body));
      }
      break;
    }
  }
  CHECK_CUDA(cudaStreamEndCapture(stream, &h.graph));
  return h;
}

}  // namespace bench

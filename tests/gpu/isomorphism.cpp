#include "isomorphism.hpp"

#include "gpu_support.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace gpu_test {

namespace {

std::string describe(const body_lookup& owner, cudaGraphNode_t node, int depth);

// The allocations of the graph being described (its alloc nodes' addresses and sizes): a
// memset's or memcpy's pointer into one is written as its size and offset, since two builds of
// one graph get their allocations at different addresses.
thread_local std::vector<std::pair<std::uintptr_t, std::size_t>> graph_allocations;

std::string pointer_text(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  for (const auto& [base, bytes] : graph_allocations)
    if (a >= base && a < base + bytes) return fmt::format("(allocation of {} bytes)+{}", bytes, a - base);
  return fmt::format("{}", p);
}

// Adds the alloc nodes of `nodes` to graph_allocations.
void note_allocations(const std::vector<cudaGraphNode_t>& nodes) {
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    GPU_CHECK(cudaGraphNodeGetType(node, &type));
    if (type != cudaGraphNodeTypeMemAlloc) continue;
    cudaMemAllocNodeParams p{};
    GPU_CHECK(cudaGraphMemAllocNodeGetParams(node, &p));
    graph_allocations.emplace_back(reinterpret_cast<std::uintptr_t>(p.dptr), p.bytesize);
  }
}

std::string describe_graph(const body_lookup& owner, cudaGraph_t g, int depth) {
  std::size_t n = 0, e = 0;
  GPU_CHECK(cudaGraphGetNodes(g, nullptr, &n));
  std::vector<cudaGraphNode_t> nodes(n);
  GPU_CHECK(cudaGraphGetNodes(g, nodes.data(), &n));
  GPU_CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &e));
  std::vector<cudaGraphNode_t> from(e), to(e);
  // Edge data must be asked for: CUDA refuses a query that would drop a programmatic edge's
  // ports (cudaErrorLossyQuery), and the ports are part of what makes two graphs the same.
  std::vector<cudaGraphEdgeData> data(e);
  GPU_CHECK(cudaGraphGetEdges(g, from.data(), to.data(), data.data(), &e));
  auto edge_kind = [&](std::size_t i) {
    const auto& d = data[i];
    return fmt::format("[type {} ports {}->{}]", static_cast<int>(d.type), static_cast<int>(d.from_port),
                       static_cast<int>(d.to_port));
  };

  note_allocations(nodes);  // before any node is described: a memset may come first
  std::map<cudaGraphNode_t, std::string> label;
  for (auto node : nodes) label[node] = describe(owner, node, depth);
  for (int round = 0; round < 3; ++round) {
    std::map<cudaGraphNode_t, std::string> next;
    for (auto node : nodes) {
      std::vector<std::string> in, out;
      for (std::size_t i = 0; i < e; ++i) {
        if (to[i] == node) in.push_back(label[from[i]] + edge_kind(i));
        if (from[i] == node) out.push_back(label[to[i]] + edge_kind(i));
      }
      std::sort(in.begin(), in.end());
      std::sort(out.begin(), out.end());
      std::string joined = label[node] + "|in:";
      for (auto& s : in) joined += std::to_string(std::hash<std::string>{}(s)) + ",";
      joined += "|out:";
      for (auto& s : out) joined += std::to_string(std::hash<std::string>{}(s)) + ",";
      next[node] = label[node].substr(0, label[node].find('#')) + "#" + std::to_string(std::hash<std::string>{}(joined));
    }
    label = std::move(next);
  }
  std::vector<std::string> lines;
  for (auto node : nodes) lines.push_back("node " + label[node]);
  for (std::size_t i = 0; i < e; ++i) lines.push_back("edge " + label[from[i]] + " -> " + label[to[i]] + " " + edge_kind(i));
  std::sort(lines.begin(), lines.end());
  std::string out = fmt::format("graph of {} nodes, {} edges {{\n", n, e);
  for (auto& l : lines) out += std::string(static_cast<std::size_t>(depth) * 2 + 2, ' ') + l + "\n";
  return out + std::string(static_cast<std::size_t>(depth) * 2, ' ') + "}";
}

std::string describe(const body_lookup& owner, cudaGraphNode_t node, int depth) {
  cudaGraphNodeType type{};
  GPU_CHECK(cudaGraphNodeGetType(node, &type));
  switch (type) {
    case cudaGraphNodeTypeKernel: {
      cudaKernelNodeParams p{};
      if (cudaGraphKernelNodeGetParams(node, &p) != cudaSuccess) {
        // Kernels a library launched through the driver API (cuBLAS) do not answer the runtime
        // query; they are compared by kind and edges only.
        (void)cudaGetLastError();
        return "kernel (library)";
      }
      std::string sizes;
      for (std::size_t i = 0;; ++i) {
        std::size_t offset = 0, size = 0;
        if (cudaFuncGetParamInfo(p.func, i, &offset, &size) != cudaSuccess) break;
        sizes += std::to_string(size) + ",";
      }
      (void)cudaGetLastError();
      cudaLaunchAttributeValue priority{}, cluster{};
      GPU_CHECK(cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributePriority, &priority));
      GPU_CHECK(cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributeClusterDimension, &cluster));
      return fmt::format("kernel {} <<<({},{},{}),({},{},{}),{}>>> params[{}] priority {} cluster ({},{},{})", p.func,
                         p.gridDim.x, p.gridDim.y, p.gridDim.z, p.blockDim.x, p.blockDim.y, p.blockDim.z,
                         p.sharedMemBytes, sizes, priority.priority, cluster.clusterDim.x, cluster.clusterDim.y,
                         cluster.clusterDim.z);
    }
    case cudaGraphNodeTypeMemset: {
      cudaMemsetParams p{};
      GPU_CHECK(cudaGraphMemsetNodeGetParams(node, &p));
      return fmt::format("memset {} value={} element={} width={} height={}", pointer_text(p.dst), p.value, p.elementSize,
                         p.width, p.height);
    }
    case cudaGraphNodeTypeMemcpy: {
      cudaMemcpy3DParms p{};
      GPU_CHECK(cudaGraphMemcpyNodeGetParams(node, &p));
      return fmt::format("memcpy {} <- {} extent={}x{}x{}", pointer_text(p.dstPtr.ptr), pointer_text(p.srcPtr.ptr),
                         p.extent.width, p.extent.height, p.extent.depth);
    }
    case cudaGraphNodeTypeHost: {
      cudaHostNodeParams p{};
      GPU_CHECK(cudaGraphHostNodeGetParams(node, &p));
      // Not the function: the run-time path and generated code call callbacks through
      // trampolines of their own.
      return p.fn ? "host" : "host (no function)";
    }
    case cudaGraphNodeTypeMemAlloc: {
      cudaMemAllocNodeParams p{};
      GPU_CHECK(cudaGraphMemAllocNodeGetParams(node, &p));
      return fmt::format("alloc {} bytes", p.bytesize);  // not the address: each graph has its own
    }
    case cudaGraphNodeTypeMemFree: return "free";
    case cudaGraphNodeTypeEventRecord:
    case cudaGraphNodeTypeWaitEvent: {
      cudaEvent_t e = nullptr;
      if (type == cudaGraphNodeTypeEventRecord) GPU_CHECK(cudaGraphEventRecordNodeGetEvent(node, &e));
      else GPU_CHECK(cudaGraphEventWaitNodeGetEvent(node, &e));
      return fmt::format("{} {}", type == cudaGraphNodeTypeEventRecord ? "record" : "wait", static_cast<void*>(e));
    }
    case cudaGraphNodeTypeGraph: {
      cudaGraph_t child = nullptr;
      GPU_CHECK(cudaGraphChildGraphNodeGetGraph(node, &child));
      return "child " + describe_graph(owner, child, depth + 1);
    }
    case cudaGraphNodeTypeConditional: {
      std::string out = "conditional";
      for (cudaGraph_t body : owner(node)) out += " body " + describe_graph(owner, body, depth + 1);
      return out;
    }
    default: return fmt::format("node type {}", static_cast<int>(type));
  }
}

}  // namespace

std::string canonical(cudaGraph_t g, const body_lookup& bodies) {
  graph_allocations.clear();  // the root's, and its bodies' (memory nodes are the root's alone)
  return describe_graph(bodies, g, 0);
}

std::string canonical(const cgraph::graph& g) {
  return canonical(g.get(), [&](cudaGraphNode_t node) { return g.conditional_bodies(node); });
}

}  // namespace gpu_test

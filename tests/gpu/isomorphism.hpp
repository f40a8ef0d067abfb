#pragma once
// A canonical text of a built CUDA graph, read back through CUDA's queries, so two graphs
// built different ways can be compared: same node kinds and parameters, same edges,
// recursing into conditional bodies and child graphs.

#include <cgraph/runtime.hpp>

#include <functional>
#include <string>
#include <vector>

namespace gpu_test {

// Node labels are refined with their neighbours' (Weisfeiler-Lehman style) and the result is
// the sorted labels plus the sorted edges, so node creation order does not matter. Kernel
// nodes are labelled by function, launch dimensions, and parameter count and sizes; their
// argument values are compared by running both graphs. A memset's or memcpy's pointer into one
// of the graph's own allocations is written as the allocation's size and the offset.
std::string canonical(const cgraph::graph& g);
// The same for any graph; `bodies` gives a conditional node's body graphs (CUDA has no query).
using body_lookup = std::function<std::vector<cudaGraph_t>(cudaGraphNode_t)>;
std::string canonical(cudaGraph_t g, const body_lookup& bodies);

}  // namespace gpu_test

#pragma once
// A canonical text of a built CUDA graph, read back through CUDA's queries, so two graphs
// built different ways can be compared: same node kinds and parameters, same edges,
// recursing into conditional bodies and child graphs.

#include <cgraph/runtime.hpp>

#include <string>

namespace gpu_test {

// Node labels are refined with their neighbours' (Weisfeiler-Lehman style) and the result is
// the sorted labels plus the sorted edges, so node creation order does not matter. Kernel
// nodes are labelled by function, launch dimensions, and parameter count and sizes; their
// argument values are compared by running both graphs.
std::string canonical(const cgraph::graph& g);

}  // namespace gpu_test

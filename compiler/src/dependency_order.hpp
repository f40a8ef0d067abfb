#pragma once
// The order in which a body's nodes can be made: each after the nodes it depends on. Shared by
// the checker, which finds an `after` that closes a cycle, and the explicit plan, which adds
// nodes in this order (CUDA needs a node's dependencies to exist when it is added).

#include <cgraph/compiler/ir.hpp>

#include <cstdint>
#include <vector>

namespace cgraph::compiler::detail {

// Kahn's algorithm, lowest ready index first, so the order is the same every time. A node on
// or behind a dependency cycle is left out. Without an edge to a later node (an `after` naming
// a later label) this is the IR's order, found in one pass with nothing made per node.
std::vector<std::uint32_t> dependency_order(const ir::graph& g, const ir::body& b);

}  // namespace cgraph::compiler::detail

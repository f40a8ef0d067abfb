#pragma once
// The one-line description of a node, shared by the IR dump and the DOT labels.

#include <cgraph/compiler/ir.hpp>

#include <string>

namespace cgraph::detail {

// "fill<<<blocks, 256>>>(x, 1.0, n)", "memset(y, 0, n)", "while more", "repeat 10", …
std::string describe_node(const ir::program& p, const ir::graph& g, const ir::node& n);

// What one body of a conditional is called: "body", "then", "else", "case 2".
// "programmatic" or "launched" for a port edge of n from node `dep`, or "" for a full one.
std::string_view edge_port_name(const ir::graph& g, const ir::node& n, std::uint32_t dep);
std::string body_name(const ir::node& n, std::size_t body);

}  // namespace cgraph::detail

#pragma once
// Text forms of the IR: the `cgraphc ir` dump and Graphviz DOT (both deterministic).

#include <cgraph/compiler/ir.hpp>
#include <cgraph/dsl/source.hpp>

#include <string>
#include <string_view>

namespace cgraph {

struct ir_print_options {
  bool locations = true;  // "@line:col" after each node; off to compare IR across layouts
};

std::string print_ir(const ir::program& program, const source_file& source, const ir_print_options& options = {});

// One digraph for graph `name`, or (empty name) one digraph with a cluster per graph.
std::string print_dot(const ir::program& program, const source_file& source, std::string_view graph_name = {});

// An expression of graph `g` as text, with the fewest parentheses.
std::string print_expr(const ir::graph& g, std::uint32_t e, std::span<const ir::structure> structs = {});

// What argument `arg` of node `n` is, for messages: "argument 2 ('x') of kernel 'saxpy'",
// "the byte count of memcpy".
std::string describe_argument(const ir::program& p, const ir::node& n, std::size_t arg);

}  // namespace cgraph

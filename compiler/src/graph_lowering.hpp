#pragma once
// Lowers one `graph` declaration: statements → nodes with resolved edges, in nested bodies.

#include "lowering.hpp"

#include <vector>

namespace cgraph::compiler::detail {

// A `call` statement, kept for the checks that need every graph lowered first
// (recursion, host nodes reached from a conditional body).
struct call_site {
  std::uint32_t caller = 0;
  std::uint32_t callee = 0;
  source_range range;
  bool in_conditional_body = false;
};

// What every graph's lowering shares.
struct program_context {
  ir::program& program;
  const global_table& globals;
  const std::vector<const ast::graph_decl*>& graph_decls;  // by graph index
  diagnostics& diags;
  const compile_limits& limits;
  std::vector<call_site>& calls;  // appended to
  constant_table& constants;
};

// Lowers graph `index` (program.graphs[index] exists and is empty).
void lower_graph(const program_context& ctx, std::uint32_t index);

}  // namespace cgraph::compiler::detail

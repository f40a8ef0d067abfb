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

// compile's streaming mode: parse() deferred the graph bodies, and each is parsed as its graph
// is lowered, one statement at a time (dsl::parse_body), so that no body's tree exists whole.
struct deferred_bodies {
  const source_file& source;
  const std::vector<std::string>& struct_names;
  diagnostics& syntax_errors;  // parse_body's: any means the text is parsed again in full
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
  const deferred_bodies* bodies = nullptr;  // null where the tree holds the bodies
};

// Lowers graph `index` (program.graphs[index] exists and is empty).
void lower_graph(const program_context& ctx, std::uint32_t index);

}  // namespace cgraph::compiler::detail

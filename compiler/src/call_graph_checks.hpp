#pragma once
// The checks that need every graph lowered: recursion through `call`, the depth of call
// chains, the node count with callees expanded, and host nodes reached from a conditional body.

#include "graph_lowering.hpp"

#include <vector>

namespace cgraph::compiler::detail {

void check_call_graph(ir::program& program, const std::vector<call_site>& calls, diagnostics& diags,
                      const compile_limits& limits);

}  // namespace cgraph::compiler::detail

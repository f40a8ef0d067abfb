#pragma once
// `cgraphc emit-cpp`: C++ that builds a program's graphs with plain CUDA calls, printed from
// the same construction plans the runtime executes (cgraph/compiler/plan.hpp). The output is a header:
// include it from a .cu file (it declares, per graph, a namespace with parameters, callbacks,
// build and update; see cgraph/runtime/generated.hpp) and link cgraph::cgraph.

#include <cgraph/dsl/diagnostic.hpp>
#include <cgraph/compiler/ir.hpp>
#include <cgraph/dsl/source.hpp>

#include <optional>
#include <string>

namespace cgraph {

enum class emit_mode { explicit_nodes, stream_capture };

struct emit_result {
  std::optional<std::string> code;  // set when there are no errors
  diagnostics diags;                // what generated C++ cannot express
};

// Deterministic: the same program and mode always give the same text.
emit_result emit_cpp(const ir::program& program, const source_file& source, emit_mode mode);

}  // namespace cgraph

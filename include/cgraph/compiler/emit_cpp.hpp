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

// A graph of at least this many nodes is written in the table form (cgraph/runtime/generated.hpp):
// its node records as constant arrays walked by one loop, tens of bytes of C++ per node instead
// of hundreds, when the explicit mode builds it and every node is a kernel, memcpy or memset
// node of the root without attributes. Others keep the readable form, a function per node.
inline constexpr std::size_t default_table_threshold = 2048;

// Deterministic: the same program and mode always give the same text. `table_threshold` 0:
// never the table form.
emit_result emit_cpp(const ir::program& program, const source_file& source, emit_mode mode,
                     std::size_t table_threshold = default_table_threshold);

}  // namespace cgraph

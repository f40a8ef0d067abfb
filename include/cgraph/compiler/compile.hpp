#pragma once
// Text → checked IR. Mistakes in the text are diagnostics (values), never exceptions.

#include <cgraph/dsl/diagnostic.hpp>
#include <cgraph/compiler/ir.hpp>
#include <cgraph/dsl/source.hpp>

#include <cstddef>
#include <optional>

namespace cgraph {

// Caps for untrusted input; each one exceeded is a diagnostic (docs/language.md, "Limits").
struct compile_limits {
  std::size_t max_file_bytes = 16u << 20;
  std::size_t max_nesting = 256;
  std::size_t max_operators_per_expression = 4096;
  std::uint32_t max_switch_case = 4095;
  std::size_t max_call_depth = 64;  // graphs in one chain of `call`s
  // CUDA nodes one graph builds, counting the graphs it calls (each `call` copies its callee)
  // and each conditional body as one: `call` doubling through 30 graphs is 2^30 nodes.
  std::uint64_t max_nodes = 1u << 20;
};

struct compile_result {
  std::optional<ir::program> program;  // set when there are no errors
  diagnostics diags;
};

compile_result compile(const source_file& source, const compile_limits& limits = {});

// Compiles or throws compile_error holding every diagnostic, formatted as cgraphc prints them.
ir::program compile_or_throw(const source_file& source, const compile_limits& limits = {});

}  // namespace cgraph

#pragma once
// Text → checked IR. Mistakes in the text are diagnostics (values), never exceptions.

#include <cgraph/dsl/diagnostic.hpp>
#include <cgraph/compiler/ir.hpp>
#include <cgraph/dsl/source.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

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
  // Work spent on "did you mean" hints, in cells of an edit-distance table (about a tenth of a
  // second): past it, errors come without a hint, not late. Not an error of its own.
  std::uint64_t max_suggestion_cells = 50'000'000;
  // Errors a compile reports (diagnostics::limit_errors): past them, one more error says how
  // many are left out. 0: every error, as LANGUAGE.md asks; a binary file given by mistake
  // makes thousands, so a tool that shows them to people may want fewer (nvcc shows 100).
  std::size_t max_errors = 0;
};

struct compile_result {
  std::optional<ir::program> program;  // set when there are no errors
  diagnostics diags;
};

// Where `import "path";` finds files (LANGUAGE.md §10): relative to the importing file, the
// first file's from `directory`.
struct import_options {
  std::string directory;  // the first file's folder; empty: the current directory
  // Refuse a file outside `directory` (after resolving `..` and links), so .cgraph text from
  // users or configuration files cannot read arbitrary files: the guard of `module` paths.
  bool confine = true;
};

// Compiles one text; an `import` in it is an error (there is nowhere to find the file).
compile_result compile(const source_file& source, const compile_limits& limits = {});
// Compiles a text and the files it imports, which are appended to `source` as segments
// (source_file::add_segment), so diagnostics and positions name the file that holds them.
compile_result compile(source_file& source, const compile_limits& limits, const import_options& imports);

// The struct names declared by the files `source` imports (for `fmt`, which parses one file);
// problems reading them are left to compile().
std::vector<std::string> imported_struct_names(const source_file& source, const import_options& imports);

// Compiles or throws compile_error holding every diagnostic, formatted as cgraphc prints them.
ir::program compile_or_throw(const source_file& source, const compile_limits& limits = {});
ir::program compile_or_throw(source_file& source, const compile_limits& limits, const import_options& imports);

}  // namespace cgraph

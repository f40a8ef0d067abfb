#pragma once
// `import "path.cgraph";` (LANGUAGE.md §10): reads the files a program imports, and theirs, as
// further segments of its source_file, then parses every segment.

#include <cgraph/compiler/compile.hpp>
#include <cgraph/dsl/ast.hpp>

#include <functional>
#include <optional>

namespace cgraph::compiler::detail {

struct parsed_files {
  dsl::ast::file file;  // every file's declarations, the first file's first
  bool ok = false;      // no file had a syntax error and every import was read
  std::vector<std::string> struct_names;  // of every file (dsl::parse_body needs them)
};

// Lowers a tree whose graph bodies parse() deferred (dsl::graph_bodies::defer), parsing each
// body as its graph is lowered; false, with nothing of it kept, where a body had a syntax error.
using deferred_lowering = std::function<bool(const parsed_files&)>;

// Reads the imports of `source`'s first segment (and of what they import, each file once),
// appending each as a segment, then parses all of them with the struct names of all of them.
// `growable` is `source` where imports may be appended to it; with `imports`, null where imports
// are refused (compile() of text with no directory), each import is then an error.
//
// With `lower`, the files are first parsed with graph bodies deferred and handed to it; only
// where that finds a syntax error are they parsed again in full, into `diags`, for the errors
// (the result's `ok` then false) — or for `lower`'s caller to lower the full tree should the
// second parse succeed. An empty result means `lower` took the files.
std::optional<parsed_files> read_and_parse(const source_file& source, source_file* growable, const compile_limits& limits,
                                           const import_options* imports, diagnostics& diags,
                                           const deferred_lowering& lower = {});

// Reads what `source` imports (as read_and_parse does) into segments of `growable`, without
// parsing; returns every struct name of the imported files.
std::vector<std::string> read_imported_structs(const source_file& source, source_file& growable,
                                               const import_options& imports, diagnostics& diags);

}  // namespace cgraph::compiler::detail

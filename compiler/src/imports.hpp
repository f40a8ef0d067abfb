#pragma once
// `import "path.cgraph";` (LANGUAGE.md §10): reads the files a program imports, and theirs, as
// further segments of its source_file, then parses every segment.

#include <cgraph/compiler/compile.hpp>
#include <cgraph/dsl/ast.hpp>

namespace cgraph::compiler::detail {

struct parsed_files {
  dsl::ast::file file;  // every file's declarations, the first file's first
  bool ok = false;      // no file had a syntax error and every import was read
};

// Reads the imports of `source`'s first segment (and of what they import, each file once),
// appending each as a segment, then parses all of them with the struct names of all of them.
// `growable` is `source` where imports may be appended to it; with `imports`, null where imports
// are refused (compile() of text with no directory), each import is then an error.
parsed_files read_and_parse(const source_file& source, source_file* growable, const compile_limits& limits,
                            const import_options* imports, diagnostics& diags);

// Reads what `source` imports (as read_and_parse does) into segments of `growable`, without
// parsing; returns every struct name of the imported files.
std::vector<std::string> read_imported_structs(const source_file& source, source_file& growable,
                                               const import_options& imports, diagnostics& diags);

}  // namespace cgraph::compiler::detail

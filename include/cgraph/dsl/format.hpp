#pragma once
// `cgraphc fmt`: the file in canonical layout. Comments are kept: each one is printed before
// the statement it precedes, or after the statement that ends on its line.

#include <cgraph/dsl/diagnostic.hpp>
#include <cgraph/dsl/source.hpp>

#include <optional>
#include <string>
#include <vector>

namespace cgraph::dsl {

// The formatted text, or nullopt when the file has syntax errors (reported to `sink`).
// `imported_structs`: the struct names the files it imports declare (a literal `P { … }` of one
// parses only when P is known to be a struct).
std::optional<std::string> format_source(const source_file& source, diagnostics& sink,
                                         const std::vector<std::string>& imported_structs = {});

}  // namespace cgraph::dsl

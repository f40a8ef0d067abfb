#pragma once
// `cgraphc fmt`: the file in canonical layout. Comments are kept: each one is printed before
// the statement it precedes, or after the statement that ends on its line.

#include <cgraph/dsl/diagnostic.hpp>
#include <cgraph/dsl/source.hpp>

#include <optional>
#include <string>

namespace cgraph::dsl {

// The formatted text, or nullopt when the file has syntax errors (reported to `sink`).
std::optional<std::string> format_source(const source_file& source, diagnostics& sink);

}  // namespace cgraph::dsl

#pragma once
// One linear pass over the bytes before parsing: reports bytes that start no token, invalid
// UTF-8, unterminated comments and strings, and nesting beyond the limit; collects comments.

#include <cgraph/dsl/diagnostic.hpp>
#include <cgraph/dsl/source.hpp>

#include <cstddef>
#include <vector>

namespace cgraph::dsl::detail {

struct prescan_result {
  std::vector<source_range> comments;
  bool fatal = false;  // parsing would not be meaningful (unterminated text, nesting too deep)
};

prescan_result prescan(std::string_view text, diagnostics& sink, std::size_t max_nesting);

}  // namespace cgraph::dsl::detail

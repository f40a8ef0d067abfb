#pragma once
// Where a CUDA call is made for: a .cgraph position, named in every error the backend throws.

#include <cgraph/dsl/source.hpp>

#include <cstdint>
#include <string>

namespace cgraph::backend {

// Generated code knows its positions when it is written (`file`, `line`, `column`); the
// run-time path knows a byte offset into its source, turned into "file:line:col" only when
// something failed (a binary search over line starts, never paid on the way to success).
struct site {
  const char* file = "";
  unsigned line = 0;
  unsigned column = 0;
  const source_file* source = nullptr;
  std::uint32_t offset = 0;

  static site in(const source_file& f, std::uint32_t offset) {
    site s;
    s.source = &f;
    s.offset = offset;
    return s;
  }
  std::string str() const;  // "file:line:col", or "" for nowhere
};

}  // namespace cgraph::backend

#pragma once
// A source file and the map from byte offsets to lines and columns.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cgraph {

// A half-open byte range [begin, end) in one source file.
struct source_range {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;

  friend bool operator==(source_range, source_range) = default;
};

// 1-based line and byte column, as compilers print them.
struct line_column {
  std::uint32_t line = 1;
  std::uint32_t column = 1;
};

// The text of one file plus its line starts, computed once so every diagnostic is O(log n).
class source_file {
public:
  // A UTF-8 byte-order mark at the start of `text` is dropped.
  source_file(std::string name, std::string text);

  const std::string& name() const noexcept { return name_; }
  std::string_view text() const noexcept { return text_; }

  line_column location(std::uint32_t offset) const;
  // The text of the line holding `offset`, without its line break.
  std::string_view line_text(std::uint32_t offset) const;
  // "file:line:col" of an offset.
  std::string position(std::uint32_t offset) const;

private:
  std::string name_;
  std::string text_;
  std::vector<std::uint32_t> line_starts_;
};

}  // namespace cgraph

#include <cgraph/dsl/source.hpp>

#include <algorithm>

#include <fmt/format.h>

namespace cgraph {

source_file::source_file(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  // A UTF-8 byte-order mark (written by some Windows editors) is not part of the text.
  if (text_.starts_with("\xEF\xBB\xBF")) text_.erase(0, 3);
  line_starts_.push_back(0);
  for (std::uint32_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
}

line_column source_file::location(std::uint32_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  auto line = static_cast<std::uint32_t>(it - line_starts_.begin());
  return {line, offset - line_starts_[line - 1] + 1};
}

std::string_view source_file::line_text(std::uint32_t offset) const {
  auto line = location(offset).line;
  std::uint32_t begin = line_starts_[line - 1];
  std::uint32_t end = line < line_starts_.size() ? line_starts_[line] : static_cast<std::uint32_t>(text_.size());
  std::string_view text(text_.data() + begin, end - begin);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

std::string source_file::position(std::uint32_t offset) const {
  auto lc = location(offset);
  return fmt::format("{}:{}:{}", name_, lc.line, lc.column);
}

}  // namespace cgraph

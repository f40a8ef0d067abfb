#include <cgraph/dsl/source.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <sys/stat.h>

#include <fmt/format.h>

namespace cgraph {

namespace {
void drop_byte_order_mark(std::string& text) {
  // A UTF-8 byte-order mark (written by some Windows editors) is not part of the text.
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
}
}  // namespace

std::optional<std::string> read_file(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!in) return std::nullopt;
  std::string text;
  // The size where the file has one (not a pipe): one allocation, read in one call. Asked of the
  // file opened (one fstat), so it is the size of the file that is read.
  struct stat opened {};
  if (::fstat(::fileno(in.get()), &opened) == 0 && S_ISREG(opened.st_mode))
    text.resize(static_cast<std::size_t>(opened.st_size));
  std::size_t got = text.empty() ? 0 : std::fread(text.data(), 1, text.size(), in.get());
  text.resize(got);
  // Whatever is left: all of a pipe, or what a file gained since its size was read.
  char chunk[65536];
  while (!std::ferror(in.get()) && !std::feof(in.get())) {
    const std::size_t n = std::fread(chunk, 1, sizeof chunk, in.get());
    text.append(chunk, n);
  }
  if (std::ferror(in.get())) {
    if (errno == 0) errno = EIO;
    return std::nullopt;
  }
  return text;
}

std::string cannot_read(const std::string& path) {
  const int error = errno;
  return fmt::format("cannot read '{}': {}", printable(path), error == EISDIR ? "it is a directory" : std::strerror(error));
}

source_file::source_file(std::string name, std::string text) : text_(std::move(text)) {
  drop_byte_order_mark(text_);
  segments_.push_back({std::move(name), 0, 0});
  line_starts_.push_back(0);
  index_lines(0);
}

void source_file::index_lines(std::uint32_t from) {
  // memchr finds each line break a vector at a time; a byte-by-byte loop took 7 instructions a
  // byte, 2% of a whole check (issue 17).
  const char* const begin = text_.data();
  const char* const end = begin + text_.size();
  for (const char* p = begin + from; p < end;) {
    const auto* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    if (!nl) break;
    line_starts_.push_back(static_cast<std::uint32_t>(nl - begin) + 1);
    p = nl + 1;
  }
}

std::uint32_t source_file::add_segment(std::string name, std::string text) {
  drop_byte_order_mark(text);
  text_ += '\n';  // the segment starts a line of its own, and no token runs across the seam
  auto begin = static_cast<std::uint32_t>(text_.size());
  line_starts_.push_back(begin);
  segments_.push_back({std::move(name), begin, static_cast<std::uint32_t>(line_starts_.size() - 1)});
  text_ += text;
  index_lines(begin);
  return segment_count() - 1;
}

std::uint32_t source_file::segment_of(std::uint32_t offset) const {
  if (segments_.size() == 1) return 0;
  auto it = std::upper_bound(segments_.begin(), segments_.end(), offset,
                             [](std::uint32_t o, const file_segment& s) { return o < s.begin; });
  return static_cast<std::uint32_t>(it - segments_.begin()) - 1;
}

source_range source_file::segment_range(std::uint32_t k) const {
  // A segment ends where the line break before the next one begins.
  auto end = k + 1 < segments_.size() ? segments_[k + 1].begin - 1 : static_cast<std::uint32_t>(text_.size());
  return {segments_[k].begin, end};
}

line_column source_file::location(std::uint32_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  auto line = static_cast<std::uint32_t>(it - line_starts_.begin());
  return {line - segments_[segment_of(offset)].first_line, offset - line_starts_[line - 1] + 1};
}

std::string_view source_file::line_text(std::uint32_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  auto line = static_cast<std::uint32_t>(it - line_starts_.begin());
  std::uint32_t begin = line_starts_[line - 1];
  std::uint32_t end = line < line_starts_.size() ? line_starts_[line] : static_cast<std::uint32_t>(text_.size());
  std::string_view text(text_.data() + begin, end - begin);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

std::string source_file::position(std::uint32_t offset) const {
  auto lc = location(offset);
  return format_position(name_of(offset), lc.line, lc.column);
}

}  // namespace cgraph

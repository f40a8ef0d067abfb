#pragma once
// A source file and the map from byte offsets to lines and columns.

#include <cstdint>
#include <optional>
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

// The whole of file `path` as bytes, or nullopt (errno says why) when it cannot be opened or
// read. A regular file is read into one string of its size, a pipe to its end: a string
// stream doubles its buffer as it grows, and copies the text at each step (docs/performance.md,
// run 37). Every file cgraph reads whole (`cgraphc`'s, an import, a `program::load`) is read
// here.
std::optional<std::string> read_file(const std::string& path);

// Why read_file(path) just returned nullopt, as one message: "cannot read 'path': " and
// errno's reason, or "it is a directory" for a folder (it opens; reading it fails with
// EISDIR), the path printable. Call it before anything else can set errno. cgraphc,
// program::load and an import all say it so.
std::string cannot_read(const std::string& path);

// A control byte other than a tab (C0 or DEL): copied raw to a terminal it moves the cursor or
// rewrites what is shown. One definition for every place that escapes or refuses such bytes:
// printable (<XX>), JSON diagnostics (\u00XX), the pre-scan's message for a stray one, and an
// `include` path (which C++ cannot name with one).
constexpr bool is_control_byte(unsigned char byte) { return (byte < 0x20 && byte != '\t') || byte == 0x7F; }

// `text` as a diagnostic prints it: each control byte (is_control_byte), and each byte that is
// not UTF-8, as <XX> (as clang prints them). A message, a file's name and an excerpt of a line
// may hold any byte; copied raw to a terminal, an escape byte rewrites what it shows.
std::string printable(std::string text);

// "file:line:column" as diagnostics and errors print a position, the name printable: every
// position cgraph shows, at compile time and at run time, is made here.
std::string format_position(std::string_view file, std::uint32_t line, std::uint32_t column);

// 1-based line and byte column, as compilers print them.
struct line_column {
  std::uint32_t line = 1;
  std::uint32_t column = 1;
};

// The text of one file plus its line starts, computed once so every diagnostic is O(log n).
//
// Files it imports (LANGUAGE.md §10) are appended as further segments of the same buffer, each
// after a line break of its own: a byte offset then names one place in one file, so source
// ranges, the IR and run-time sites stay two integers, and positions name the right file.
class source_file {
public:
  // A UTF-8 byte-order mark at the start of `text` is dropped.
  source_file(std::string name, std::string text);

  // The first file's name.
  const std::string& name() const noexcept { return segments_.front().name; }
  // Every segment, each after a '\n' of its own.
  std::string_view text() const noexcept { return text_; }

  // Appends `text` as a segment named `name` (a byte-order mark dropped); returns its index.
  // Views of text() taken before are invalidated.
  std::uint32_t add_segment(std::string name, std::string text);
  std::uint32_t segment_count() const noexcept { return static_cast<std::uint32_t>(segments_.size()); }
  // The segment holding `offset`, its bytes and its file's name.
  std::uint32_t segment_of(std::uint32_t offset) const;
  source_range segment_range(std::uint32_t segment) const;
  const std::string& segment_name(std::uint32_t segment) const { return segments_[segment].name; }
  const std::string& name_of(std::uint32_t offset) const { return segment_name(segment_of(offset)); }

  // Line and column within the file (segment) that holds `offset`.
  line_column location(std::uint32_t offset) const;
  // The text of the line holding `offset`, without its line break.
  std::string_view line_text(std::uint32_t offset) const;
  // "file:line:col" of an offset, naming the file that holds it (format_position).
  std::string position(std::uint32_t offset) const;

private:
  struct file_segment {
    std::string name;
    std::uint32_t begin = 0;       // byte offset of its first byte
    std::uint32_t first_line = 0;  // index of its first line in line_starts_
  };
  void index_lines(std::uint32_t from);

  std::string text_;
  std::vector<file_segment> segments_;
  std::vector<std::uint32_t> line_starts_;
};

}  // namespace cgraph

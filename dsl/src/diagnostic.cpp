#include <cgraph/dsl/diagnostic.hpp>
#include <cgraph/dsl/source.hpp>

#include "printable.hpp"
#include "utf8.hpp"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

namespace cgraph {
namespace {

using dsl::detail::append_printable;
using dsl::detail::shown_at;
using dsl::detail::shown_char;

// Whether byte c continues a UTF-8 character (cuts keep whole characters).
bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// A cut at `at` moved back, or forward, off a character's continuation bytes. A character
// has at most 3, so at most 3 are stepped over: a longer run is bytes that are not UTF-8 and
// may be cut anywhere. Unbounded, a line of 300 000 stray 0x80 bytes moved every cut to its
// ends, and each of its 300 000 errors printed the whole line.
std::size_t cut_back(std::string_view text, std::size_t at) {
  for (int k = 0; k < 3 && at > 0 && is_continuation(text[at]); ++k) --at;
  return at;
}
std::size_t cut_forward(std::string_view text, std::size_t at) {
  for (int k = 0; k < 3 && at < text.size() && is_continuation(text[at]); ++k) ++at;
  return at;
}

// A message names what the file declares, and a name may be any length: a 10 000-byte kernel
// parameter name in 2 000 wrong arguments printed 20 MB from 52 KB. A longer message keeps its
// start and its end (where a name is quoted in the middle, both sides of it stay readable).
constexpr std::size_t longest_message = 512, kept_head = 320, kept_tail = 160;

// Made printable first (printable), so the cut counts the bytes that print.
std::string bounded(std::string raw) {
  std::string message = printable(std::move(raw));
  if (message.size() <= longest_message) return message;
  const std::string_view text = message;
  const std::size_t head = cut_back(text, kept_head), tail = cut_forward(text, message.size() - kept_tail);
  return fmt::format("{}…({} bytes left out)…{}", text.substr(0, head), tail - head, text.substr(tail));
}

}  // namespace

diagnostic& diagnostic::note(source_range at, std::string text) {
  notes.push_back({at, bounded(std::move(text))});
  return *this;
}

diagnostic& diagnostics::error(source_range range, std::string message) {
  ++errors_;
  return list_.emplace_back(diagnostic{severity::error, range, bounded(std::move(message)), {}});
}

diagnostic& diagnostics::warning(source_range range, std::string message) {
  return list_.emplace_back(diagnostic{severity::warning, range, bounded(std::move(message)), {}});
}

void diagnostics::sort_by_position() {
  std::stable_sort(list_.begin(), list_.end(),
                   [](const diagnostic& a, const diagnostic& b) { return a.range.begin < b.range.begin; });
}

void diagnostics::append(const diagnostics& other) {
  list_.insert(list_.end(), other.list_.begin(), other.list_.end());
  errors_ += other.errors_;
}

void diagnostics::limit_errors(std::size_t max_errors) {
  if (max_errors == 0 || errors_ <= max_errors) return;
  std::size_t kept = 0;
  auto cut = std::find_if(list_.begin(), list_.end(),
                          [&](const diagnostic& d) { return d.level == severity::error && kept++ == max_errors; });
  if (cut == list_.end()) return;
  const source_range at = cut->range;
  const std::size_t left_out = errors_ - max_errors;
  list_.erase(cut, list_.end());
  errors_ = max_errors;
  error(at, fmt::format("too many errors: {} more {} not shown (at most {} are)", left_out,
                        left_out == 1 ? "is" : "are", max_errors));
}

namespace {

const char* severity_name(severity s) {
  switch (s) {
    case severity::error: return "error";
    case severity::warning: return "warning";
    case severity::note: return "note";
  }
  return "error";
}

// A line up to this long is printed whole; a longer one, around the column: generated text
// may put a whole program on one line, and 20 000 diagnostics on a 400 KB line printed 8 GB.
constexpr std::uint32_t whole_line = 1024;
constexpr std::uint32_t context = 256;  // bytes shown each side of the column, in a longer line

// The source line, then a caret line that copies the line's tabs so the ^ lands under the
// right character in any tab width, one column a character. A line longer than whole_line
// shows `context` bytes each side of the column, with "..." where it is cut.
void append_excerpt(std::string& out, const source_file& file, source_range range) {
  std::string_view line = file.line_text(range.begin);
  auto column = file.location(range.begin).column - 1;
  const std::uint32_t line_begin = range.begin - column;  // the line's offset in the text
  std::uint32_t from = 0, to = static_cast<std::uint32_t>(line.size());
  if (line.size() > whole_line) {
    from = column > context ? column - context : 0;
    to = std::min<std::uint32_t>(to, column + context);
    from = static_cast<std::uint32_t>(cut_back(line, from));  // whole characters only
    to = static_cast<std::uint32_t>(cut_forward(line, to));
  }
  const std::string_view cut = from > 0 ? "..." : "";
  out += cut;
  // A valid character never crosses `to` (cut_forward).
  append_printable(out, line.substr(from, to - from));
  if (to < line.size()) out += "...";
  out += '\n';
  out.append(cut.size(), ' ');
  std::uint32_t i = from;
  while (i < column && i < line.size()) {
    const shown_char c = shown_at(line, i);
    if (line[i] == '\t') out += '\t';
    else out.append(c.columns, ' ');
    i += c.bytes;
  }
  out += '^';
  // The range may span lines; underline only the part on the first one that is shown, the
  // rest of the first character's columns included.
  const std::uint32_t shown_end = std::min(std::max(range.begin, range.end), line_begin + to) - line_begin;
  for (bool first = true; i < line.size() && (first || i < shown_end); first = false) {
    const shown_char c = shown_at(line, i);
    out.append(c.columns - (first ? 1 : 0), '~');
    i += c.bytes;
  }
  out += '\n';
}

void append_one(std::string& out, const source_file& file, severity level, source_range range,
                const std::string& message) {
  out += fmt::format("{}: {}: {}\n", file.position(range.begin), severity_name(level), message);
  append_excerpt(out, file, range);
}

}  // namespace

std::string format_diagnostic(const source_file& file, const diagnostic& d) {
  std::string out;
  append_one(out, file, d.level, d.range, d.message);
  for (const auto& n : d.notes) append_one(out, file, severity::note, n.range, n.message);
  return out;
}

namespace {

// A JSON string, valid UTF-8 whatever the text holds: a file name, or a message quoting the
// source, may hold bytes that are not UTF-8, and each becomes U+FFFD (as a JSON reader would
// have to make it; copied raw, the whole array would not be valid JSON).
std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (is_control_byte(static_cast<unsigned char>(c))) {  // DEL too: JSON allows it raw, a terminal not
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else if (static_cast<unsigned char>(c) < 0x80) {
          out += c;
        } else if (const std::size_t n = dsl::detail::utf8_length(text.data(), i, text.size())) {
          out += text.substr(i, n);
          i += n - 1;
        } else {
          out += "\\ufffd";
        }
    }
  }
  return out + "\"";
}

std::string json_object(const source_file& file, severity level, source_range range, const std::string& message) {
  auto begin = file.location(range.begin), end = file.location(std::max(range.begin, range.end));
  return fmt::format(R"({{"file": {}, "line": {}, "column": {}, "end_line": {}, "end_column": {}, "severity": {}, "message": {})",
                     json_string(file.name_of(range.begin)), begin.line, begin.column, end.line, end.column,
                     json_string(severity_name(level)), json_string(message));
}

}  // namespace

std::string format_diagnostic_json(const source_file& file, const diagnostic& d) {
  std::string out = json_object(file, d.level, d.range, d.message) + ", \"notes\": [";
  for (std::size_t i = 0; i < d.notes.size(); ++i)
    out += (i ? ", " : "") + json_object(file, severity::note, d.notes[i].range, d.notes[i].message) + "}";
  return out + "]}";
}

std::string format_diagnostics(const source_file& file, const diagnostics& list) {
  std::string out;
  for (const auto& d : list.all()) out += format_diagnostic(file, d);
  return out;
}

}  // namespace cgraph

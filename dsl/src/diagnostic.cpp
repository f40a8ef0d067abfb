#include <cgraph/dsl/diagnostic.hpp>

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

namespace cgraph {
namespace {

// Whether byte c continues a UTF-8 character (cuts and caret lines count whole characters).
bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// A message names what the file declares, and a name may be any length: a 10 000-byte kernel
// parameter name in 2 000 wrong arguments printed 20 MB from 52 KB. A longer message keeps its
// start and its end (where a name is quoted in the middle, both sides of it stay readable).
constexpr std::size_t longest_message = 512, kept_head = 320, kept_tail = 160;

std::string bounded(std::string message) {
  if (message.size() <= longest_message) return message;
  std::size_t head = kept_head, tail = message.size() - kept_tail;
  while (head > 0 && is_continuation(message[head])) --head;
  while (tail < message.size() && is_continuation(message[tail])) ++tail;
  const std::string_view text = message;
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
// right character in any tab width, and skips UTF-8 continuation bytes. A line longer than
// whole_line shows `context` bytes each side of the column, with "..." where it is cut.
void append_excerpt(std::string& out, const source_file& file, source_range range) {
  std::string_view line = file.line_text(range.begin);
  auto column = file.location(range.begin).column - 1;
  const std::uint32_t line_begin = range.begin - column;  // the line's offset in the text
  std::uint32_t from = 0, to = static_cast<std::uint32_t>(line.size());
  if (line.size() > whole_line) {
    from = column > context ? column - context : 0;
    to = std::min<std::uint32_t>(to, column + context);
    while (from > 0 && is_continuation(line[from])) --from;  // whole characters only
    while (to < line.size() && is_continuation(line[to])) ++to;
  }
  const std::string_view cut = from > 0 ? "..." : "";
  out += cut;
  out += line.substr(from, to - from);
  if (to < line.size()) out += "...";
  out += '\n';
  out.append(cut.size(), ' ');
  for (std::uint32_t i = from; i < column && i < line.size(); ++i) {
    if (line[i] == '\t') out += '\t';
    else if (!is_continuation(line[i])) out += ' ';
  }
  out += '^';
  // The range may span lines; underline only the part on the first one that is shown.
  std::uint32_t shown_end = line_begin + to;
  std::string_view text = file.text();
  for (std::uint32_t i = range.begin + 1; i < std::min(range.end, shown_end); ++i)
    if (!is_continuation(text[i])) out += '~';
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

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        else out += c;
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

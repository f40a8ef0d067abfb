#include "printable.hpp"

#include <cgraph/dsl/source.hpp>

#include "utf8.hpp"

#include <iterator>

#include <fmt/format.h>

namespace cgraph {
namespace dsl::detail {

shown_char shown_at(std::string_view line, std::uint32_t i) {
  if (is_control_byte(static_cast<unsigned char>(line[i]))) return {1, 4};
  const auto n = static_cast<std::uint32_t>(utf8_length(line.data(), i, line.size()));
  return n ? shown_char{n, 1} : shown_char{1, 4};
}

namespace {
// The offset of the first byte from `from` on that does not print as itself (shown_at), or
// text's size.
std::uint32_t first_unprintable(std::string_view text, std::uint32_t from) {
  while (from < text.size()) {
    const shown_char c = shown_at(text, from);
    if (c.columns == 4) return from;
    from += c.bytes;
  }
  return static_cast<std::uint32_t>(text.size());
}
}  // namespace

void append_printable(std::string& out, std::string_view text) {
  for (std::uint32_t run = 0;;) {
    const std::uint32_t bad = first_unprintable(text, run);
    out += text.substr(run, bad - run);
    if (bad == text.size()) return;
    out += fmt::format("<{:02X}>", static_cast<unsigned char>(text[bad]));
    run = bad + 1;
  }
}

}  // namespace dsl::detail

std::string printable(std::string text) {
  const std::uint32_t first = dsl::detail::first_unprintable(text, 0);
  if (first == text.size()) return text;
  std::string out = text.substr(0, first);
  dsl::detail::append_printable(out, std::string_view(text).substr(first));
  return out;
}

std::string format_position(std::string_view file, std::uint32_t line, std::uint32_t column) {
  std::string out;
  dsl::detail::append_printable(out, file);
  fmt::format_to(std::back_inserter(out), ":{}:{}", line, column);
  return out;
}

}  // namespace cgraph

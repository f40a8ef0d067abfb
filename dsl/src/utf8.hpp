#pragma once
// UTF-8 decoding, one place for the pre-scan (which reports invalid bytes) and the diagnostic
// printers (which must not copy them to a terminal or into JSON).

#include <cstddef>

namespace cgraph::dsl::detail {

// Length of the valid UTF-8 sequence at p, or 0 if the bytes there are not valid UTF-8
// (a stray continuation byte, a sequence cut short or overlong, a surrogate, past U+10FFFF).
// `code` is the character on success.
inline std::size_t utf8_length(const unsigned char* p, const unsigned char* end, char32_t& code) {
  const unsigned char c = p[0];
  const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || static_cast<std::size_t>(end - p) < n) return 0;
  code = n == 1 ? c : c & (0x7F >> n);
  for (std::size_t i = 1; i < n; ++i) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    code = (code << 6) | (p[i] & 0x3F);
  }
  static constexpr char32_t min_code[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < min_code[n] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return n;
}

// The same over chars: the length of the valid sequence at text[at], or 0.
inline std::size_t utf8_length(const char* text, std::size_t at, std::size_t size) {
  char32_t ignored;
  const auto* bytes = reinterpret_cast<const unsigned char*>(text);
  return utf8_length(bytes + at, bytes + size, ignored);
}

}  // namespace cgraph::dsl::detail

#pragma once
// How text prints in a diagnostic (cgraph::printable, in <cgraph/dsl/source.hpp>): the excerpt
// printer needs each character's width too, so the parts are here, one place for both.

#include <cstdint>
#include <string>
#include <string_view>

namespace cgraph::dsl::detail {

// How a byte of a shown line or a message prints: a valid UTF-8 character as itself, in one
// column (wide characters aside); a byte that is not valid UTF-8, or a control character other
// than a tab, as <XX>, four columns, as clang prints them. Copied raw, an invalid byte reaches the
// terminal or editor as some other character, or none, and a control byte (a carriage return,
// an escape, a NUL of a binary file given by mistake) moves or rewrites what is shown; either
// way every caret after it moves. The pre-scan reports every run of bytes that are not UTF-8,
// so a file that has one always prints an excerpt of its line; a message may quote a string's
// control bytes (an import path), and a file's path may hold any byte but NUL.
struct shown_char {
  std::uint32_t bytes;
  std::uint32_t columns;  // 4: printed as <XX>
};

shown_char shown_at(std::string_view line, std::uint32_t i);

// `text` as it prints (shown_at): valid text copied in runs, each other byte as <XX>.
void append_printable(std::string& out, std::string_view text);

}  // namespace cgraph::dsl::detail

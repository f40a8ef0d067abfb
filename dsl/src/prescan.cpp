#include "prescan.hpp"

#include "lexical.hpp"
#include "utf8.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdint>

namespace cgraph::dsl::detail {

namespace {

// What the pre-scan does at a byte outside strings and comments, looked up once per byte: it
// reads every byte of every file, and a chain of comparisons per byte cost it 25 instructions
// a byte.
enum byte_class : std::uint8_t { plain, slash, quote, open, close, semicolon, comma, word, stray };
constexpr std::array<byte_class, 256> byte_classes = [] {
  std::array<byte_class, 256> out{};
  for (int i = 0; i < 256; ++i) {
    const char c = static_cast<char>(i);
    out[i] = c == '/'                ? slash
             : c == '"'              ? quote
             : c == '(' || c == '{'  ? open
             : c == ')' || c == '}'  ? close
             : c == ';'              ? semicolon
             : c == ','              ? comma
             : lexical::is_alpha(c)  ? word
             : lexical::is_space(c) || lexical::starts_token(c) ? plain
                                                                : stray;
  }
  return out;
}();

class scanner {
public:
  scanner(std::string_view text, std::uint32_t base, diagnostics& sink)
      : begin_(text.data()), end_(text.data() + text.size()), base_(base), sink_(sink) {}

  std::uint32_t offset(const char* p) const { return base_ + static_cast<std::uint32_t>(p - begin_); }

  // Reports invalid UTF-8 inside a comment or string.
  void check_utf8(const char* from, const char* to, const char* what) {
    auto* p = reinterpret_cast<const unsigned char*>(from);
    auto* end = reinterpret_cast<const unsigned char*>(to);
    while (p < end) {
      char32_t code;
      std::size_t n = utf8_length(p, end, code);
      if (n == 0) {
        sink_.error({offset(reinterpret_cast<const char*>(p)), offset(reinterpret_cast<const char*>(p)) + 1},
                    fmt::format("invalid UTF-8 byte 0x{:02X} in {}", *p, what));
        n = 1;
      }
      p += n;
    }
  }

  // A byte outside strings and comments that starts no token; returns its length.
  std::size_t report_stray(const char* p) {
    auto* u = reinterpret_cast<const unsigned char*>(p);
    char32_t code = 0;
    std::size_t n = utf8_length(u, reinterpret_cast<const unsigned char*>(end_), code);
    source_range range{offset(p), offset(p) + static_cast<std::uint32_t>(n ? n : 1)};
    if (n == 0)
      sink_.error(range, fmt::format("invalid UTF-8 byte 0x{:02X}", *u));
    else if (n > 1)
      sink_.error(range, fmt::format("unexpected character '{}' (U+{:04X}); non-ASCII text is allowed only in "
                                     "strings and comments",
                                     std::string_view(p, n), static_cast<std::uint32_t>(code)));
    else if (*p == '#' && std::string_view(p + 1, static_cast<std::size_t>(end_ - p - 1)).starts_with("include"))
      sink_.error(range, "unexpected character '#'; a header is named with 'include \"FILE\";' (no '#', ending in ';')");
    else if (*u >= 0x20 && *u < 0x7F)
      sink_.error(range, fmt::format("unexpected character '{}'", *p));
    else
      sink_.error(range, fmt::format("unexpected byte 0x{:02X}", *u));
    return n ? n : 1;
  }

  prescan_result run(std::size_t max_nesting) {
    prescan_result result;
    std::size_t depth = 0;
    bool in_top_brace = false;  // inside the last of result.top_braces
    const char* p = begin_;
    while (p < end_) {
      switch (byte_classes[static_cast<unsigned char>(*p)]) {
        case plain:  // most bytes: runs of them go by one lookup each
          do ++p;
          while (p < end_ && byte_classes[static_cast<unsigned char>(*p)] == plain);
          break;
        case slash:
          if (end_ - p >= 2 && (p[1] == '/' || p[1] == '*')) {
            const char* q = p[1] == '/' ? lexical::skip_line_comment(p, end_) : lexical::skip_block_comment(p, end_);
            if (!q) {
              sink_.error({offset(p), offset(p) + 2}, "unterminated comment: '/*' has no matching '*/'");
              result.fatal = true;
              return result;
            }
            check_utf8(p, q, "a comment");
            result.comments.push_back({offset(p), offset(q)});
            p = q;
          } else {
            ++p;  // division
          }
          break;
        case quote: {
          const char* q = lexical::skip_string(p, end_);
          if (!q) {
            bool raw = end_ - p >= 3 && p[1] == '"' && p[2] == '"';
            sink_.error({offset(p), offset(p) + (raw ? 3u : 1u)},
                        raw ? "unterminated raw string: '\"\"\"' has no matching '\"\"\"'"
                            : "unterminated string: a '\"' string must end on the line it starts");
            result.fatal = true;
            return result;
          }
          check_utf8(p, q, "a string");
          p = q;
          break;
        }
        case open:
          if (depth == 0 && *p == '{') {
            result.top_braces.push_back({offset(p), 0, 0, 0});
            in_top_brace = true;
          }
          if (++depth > max_nesting) {
            sink_.error({offset(p), offset(p) + 1},
                        fmt::format("nesting is deeper than the limit of {} levels", max_nesting));
            result.fatal = true;
            return result;
          }
          ++p;
          break;
        case close:
          if (depth > 0) --depth;
          if (in_top_brace && *p == '}') {
            if (depth == 0) result.top_braces.back().end = offset(p) + 1;
            else ++result.top_braces.back().ends;
          }
          in_top_brace = in_top_brace && depth > 0;  // a ')' closing it leaves its end 0: no span
          ++p;
          break;
        case semicolon:
          if (in_top_brace) ++result.top_braces.back().ends;
          ++p;
          break;
        case comma:
          if (in_top_brace) ++result.top_braces.back().commas;
          ++p;
          break;
        case word: {
          const char* word_end = lexical::scan_word(p, end_);
          std::string_view w(p, static_cast<std::size_t>(word_end - p));
          if (w == "struct") {
            const char* name = lexical::skip_trivia(word_end, end_);
            if (name != end_ && lexical::is_alpha(*name))
              result.struct_names.emplace_back(name, static_cast<std::size_t>(lexical::scan_word(name, end_) - name));
          } else if (w == "import" && depth == 0) {
            const char* path = lexical::skip_trivia(word_end, end_);
            if (path != end_ && *path == '"')
              if (const char* q = lexical::skip_string(path, end_)) result.imports.push_back({offset(path), offset(q)});
          }
          p = word_end;
          break;
        }
        case stray:
          p += report_stray(p);
          break;
      }
    }
    return result;
  }

private:
  const char* begin_;
  const char* end_;
  std::uint32_t base_;
  diagnostics& sink_;
};

}  // namespace

prescan_result prescan(std::string_view text, std::uint32_t base, diagnostics& sink, std::size_t max_nesting) {
  return scanner(text, base, sink).run(max_nesting);
}

}  // namespace cgraph::dsl::detail

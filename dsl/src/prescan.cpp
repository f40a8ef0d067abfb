#include "prescan.hpp"

#include "lexical.hpp"
#include "utf8.hpp"

#include <cgraph/dsl/source.hpp>

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

  // The length of the UTF-8 character at p, or 0 where p starts none.
  std::size_t character_length(const char* p, char32_t& code) const {
    return utf8_length(reinterpret_cast<const unsigned char*>(p), reinterpret_cast<const unsigned char*>(end_), code);
  }

  // One error for each run of adjacent bad bytes, at its first, underlining the run: a binary
  // file given by mistake, or a Latin-1 one, made one error a byte, and 5.7 KB printed 18 MB.
  // The message names the run's first character, which ends at first_end.
  void report_run(const char* first, const char* first_end, const char* run_end, std::string message,
                  std::string_view bytes_that) {
    if (run_end > first_end)
      message += fmt::format(" (the first of {} bytes in a row that {})", run_end - first, bytes_that);
    sink_.error({offset(first), offset(run_end)}, std::move(message));
  }

  // Reports invalid UTF-8 inside a comment or string: one error a run of invalid bytes.
  void check_utf8(const char* p, const char* to, const char* what) {
    while (p < to) {
      char32_t code;
      if (std::size_t n = character_length(p, code)) {
        p += n;
        continue;
      }
      const char* run_end = p + 1;
      while (run_end < to && character_length(run_end, code) == 0) ++run_end;
      report_run(p, p + 1, run_end, fmt::format("invalid UTF-8 byte 0x{:02X} in {}", static_cast<unsigned char>(*p), what),
                 "are not UTF-8");
      p = run_end;
    }
  }

  // What is wrong with the byte p outside strings and comments, which starts no token: n is
  // the length of the UTF-8 character there (0: none), code that character.
  std::string stray_message(const char* p, std::size_t n, char32_t code) const {
    const auto byte = static_cast<unsigned char>(*p);
    if (n == 0) return fmt::format("invalid UTF-8 byte 0x{:02X}", byte);
    if (n > 1)
      return fmt::format("unexpected character '{}' (U+{:04X}); non-ASCII text is allowed only in strings and comments",
                         std::string_view(p, n), static_cast<std::uint32_t>(code));
    if (*p == '#' && std::string_view(p + 1, static_cast<std::size_t>(end_ - p - 1)).starts_with("include"))
      return "unexpected character '#'; a header is named with 'include \"FILE\";' (no '#', ending in ';')";
    if (!is_control_byte(byte)) return fmt::format("unexpected character '{}'", *p);
    return fmt::format("unexpected byte 0x{:02X}", byte);
  }

  // A run of bytes outside strings and comments that start no token (a character at a time:
  // a valid one is never split); returns its end.
  const char* report_stray(const char* p) {
    char32_t code = 0;
    const std::size_t n = character_length(p, code);
    const auto next = [this](const char* at) {
      char32_t ignored;
      const std::size_t length = character_length(at, ignored);
      return at + (length ? length : 1);
    };
    const char* first_end = p + (n ? n : 1);
    const char* run_end = first_end;
    while (run_end < end_ && byte_classes[static_cast<unsigned char>(*run_end)] == stray) run_end = next(run_end);
    report_run(p, first_end, run_end, stray_message(p, n, code), "start no token");
    return run_end;
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
          p = report_stray(p);
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

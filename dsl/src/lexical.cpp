#include "lexical.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

namespace cgraph::dsl::lexical {

namespace {
// A word of up to eight bytes as one integer, its first byte lowest: a keyword test is then a
// compare of two integers instead of a string compare (memcmp) per candidate.
constexpr std::uint64_t packed(std::string_view w) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < w.size(); ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(w[i])) << (8 * i);
  return v;
}

template <std::size_t N>
std::uint64_t load(const char* p) {  // N bytes at p, as packed() makes them (x86-64 is little-endian)
  static_assert(std::endian::native == std::endian::little);
  std::uint64_t v = 0;
  std::memcpy(&v, p, N);  // a constant size: one or two loads, no call
  return v;
}

template <std::size_t N, std::size_t K>
bool one_of(const char* p, const std::array<std::uint64_t, K>& keywords) {
  const std::uint64_t v = load<N>(p);
  for (std::uint64_t k : keywords)
    if (v == k) return true;
  return false;
}

template <typename... W>
constexpr std::array<std::uint64_t, sizeof...(W)> words(W... w) {
  return {packed(w)...};
}
}  // namespace

bool is_keyword(std::string_view word) {
  // Called for every name the grammar reads (several times each), so the word is loaded once as
  // an integer and compared with the few keywords of its length (LANGUAGE.md §2).
  static constexpr auto two = words("as", "if");
  static constexpr auto three = words("for", "let");
  static constexpr auto four = words("call", "case", "cond", "else", "from", "host", "null", "true");
  static constexpr auto five = words("after", "const", "false", "graph", "while");
  static constexpr auto six = words("kernel", "memcpy", "memset", "module", "repeat", "sizeof", "source", "struct", "switch");
  static constexpr auto seven = words("include");
  static constexpr auto eight = words("parallel");
  const char* p = word.data();
  switch (word.size()) {
    case 2: return one_of<2>(p, two);
    case 3: return one_of<3>(p, three);
    case 4: return one_of<4>(p, four);
    case 5: return one_of<5>(p, five);
    case 6: return one_of<6>(p, six);
    case 7: return one_of<7>(p, seven);
    case 8: return one_of<8>(p, eight);
    default: return false;
  }
}

const char* skip_block_comment(const char* p, const char* end) {
  for (p += 2; p + 1 < end; ++p)
    if (p[0] == '*' && p[1] == '/') return p + 2;
  return nullptr;
}

const char* skip_line_comment(const char* p, const char* end) {
  const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
  return nl ? static_cast<const char*>(nl) : end;
}

const char* skip_string(const char* p, const char* end) {
  if (end - p >= 3 && p[1] == '"' && p[2] == '"') {  // raw string
    for (p += 3; p + 2 < end; ++p)
      if (p[0] == '"' && p[1] == '"' && p[2] == '"') return p + 3;
    return nullptr;
  }
  for (++p; p < end; ++p) {
    if (*p == '\\' && p + 1 < end && p[1] != '\n') ++p;
    else if (*p == '"') return p + 1;
    else if (*p == '\n') return nullptr;
  }
  return nullptr;
}

const char* skip_trivia(const char* p, const char* end) {
  while (p != end) {
    if (is_space(*p)) {
      ++p;
    } else if (*p == '/' && end - p >= 2 && (p[1] == '/' || p[1] == '*')) {
      const char* q = p[1] == '/' ? skip_line_comment(p, end) : skip_block_comment(p, end);
      p = q ? q : end;
    } else {
      break;
    }
  }
  return p;
}

}  // namespace cgraph::dsl::lexical

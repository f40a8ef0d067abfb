#include "lexical.hpp"

#include <cstring>
#include <initializer_list>

namespace cgraph::dsl::lexical {

bool is_keyword(std::string_view word) {
  // Called for every name the grammar reads (about 20 per node), so it compares with at most
  // the few keywords of the word's length, and with one only where the first letter matches:
  // a binary search over all 28 took 3% of the compiler's instructions.
  const auto one_of = [word](std::initializer_list<std::string_view> keywords) {
    for (std::string_view k : keywords)
      if (k[0] == word[0] && k == word) return true;
    return false;
  };
  switch (word.size()) {
    case 2: return one_of({"as", "if"});
    case 3: return one_of({"for", "let"});
    case 4: return one_of({"call", "case", "cond", "else", "from", "host", "null", "true"});
    case 5: return one_of({"after", "const", "false", "graph", "while"});
    case 6: return one_of({"kernel", "memcpy", "memset", "module", "repeat", "sizeof", "source", "struct", "switch"});
    case 7: return word == "include";
    case 8: return word == "parallel";
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

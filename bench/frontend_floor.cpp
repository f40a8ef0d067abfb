// What Spirit X3 costs before cgraph does anything: a grammar that only recognises
// frontend_bench's text (declarations, launches, memset and memcpy, `let`, `cond`, `parallel`,
// `while`, blocks, labels and `after`, expressions with calls, `sizeof` and the binary
// operators), built the way X3's documentation builds grammars (but for a hand-written
// skipper), with no attribute, no position, no diagnostic and no check. Issue 17 asks the whole front end for 5 M nodes/s on
// one core; this is the floor under cgraph's parser, so that docs/performance.md can say how
// much of the gap is X3's and how much is what cgraph builds. A program, not a test.
//
//   frontend_floor [--repeats N] [--nodes N] [--only characters|lexer|tokens]
//
// Three ways, taking turns: `characters`, X3 over the text with a skipper; `lexer`, the token
// variant's lexer alone; `tokens`, that lexer and X3 over its tokens.

#include "frontend_text.hpp"

#include <boost/spirit/home/x3.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace characters {

namespace x3 = boost::spirit::x3;

// White space and both kinds of comment, skipped by hand: the skipper runs before every token
// tried, and the documented form (`space | "//" >> … | "/*" >> …`) took 60% of this program's
// instructions, a cost cgraph's own skipper does not have either.
struct skipper_parser : x3::parser<skipper_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const&, RCtx&, Attr&) const {
    const It start = first;
    while (first != last) {
      const char c = *first;
      if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
        ++first;
      } else if (c == '/' && last - first >= 2 && first[1] == '/') {
        while (first != last && *first != '\n') ++first;
      } else if (c == '/' && last - first >= 2 && first[1] == '*') {
        first += 2;
        while (last - first >= 2 && !(first[0] == '*' && first[1] == '/')) ++first;
        first = last - first >= 2 ? first + 2 : last;
      } else {
        break;
      }
    }
    return first != start;
  }
};
const skipper_parser skipper{};

const auto name = x3::lexeme[(x3::alpha | '_') >> *(x3::alnum | '_')];
// A keyword ends where a name would not go on.
auto kw(const char* word) { return x3::lexeme[x3::lit(word) >> !(x3::alnum | '_')]; }

// The binary operators, longest spelling first; `>>` is not a shift where `>>>` closes a launch.
x3::symbols<> operators;
void add_operators() {
  for (const char* op : {"||", "&&", "==", "!=", "<=", ">=", "<<", "+", "-", "*", "/", "%", "<", ">", "&", "|", "^"})
    operators.add(op);
}
const auto binary_op = (x3::lit(">>") >> !x3::lit('>')) | operators;

x3::rule<struct expression_r> const expression = "expression";
x3::rule<struct primary_r> const primary = "primary";
const auto number = x3::lexeme[+x3::digit >> -('.' >> *x3::digit)];
const auto type = name >> -x3::lit('*');
const auto primary_def = number | (kw("sizeof") >> '(' >> type >> ')') |
                         (name >> -('(' >> -(expression % ',') >> ')')) | ('(' >> expression >> ')');
const auto unary = *x3::char_("-!") >> primary >> *('.' >> name);
const auto expression_def = unary >> *(binary_op >> unary) >> -('?' >> expression >> ':' >> expression);

x3::rule<struct block_r> const block = "block";
x3::rule<struct statement_r> const statement = "statement";
const auto arguments = '(' >> -(expression % ',') >> ')';
const auto after = -(kw("after") >> (name % ','));
const auto label = -(name >> ':' >> !x3::lit(':'));
const auto launch = label >> name >> "<<<" >> expression >> ',' >> expression >> ">>>" >> arguments >> after >> ';';
const auto builtin = (kw("memset") | kw("memcpy")) >> arguments >> after >> ';';
const auto let = kw("let") >> name >> '=' >> expression >> ';';
const auto cond = kw("cond") >> name >> -('=' >> expression) >> ';';
const auto while_loop = kw("while") >> name >> block;
const auto parallel = kw("parallel") >> block;
const auto statement_def = let | cond | while_loop | parallel | builtin | block | launch;
const auto block_def = '{' >> *statement >> '}';

const auto parameter = name >> ':' >> type >> -('=' >> expression);
const auto kernel = kw("kernel") >> name >> '(' >> -(parameter % ',') >> ')' >> ';';
const auto graph = kw("graph") >> name >> '(' >> -(parameter % ',') >> ')' >> block;
const auto file = *(kernel | graph);

BOOST_SPIRIT_DEFINE(expression, primary, block, statement)

bool recognise(const std::string& text) {
  auto first = text.begin();
  return x3::phrase_parse(first, text.end(), file, skipper) && first == text.end();
}

}  // namespace characters

// The same grammar over tokens: a hand-written lexer reads each byte once (names, numbers,
// keywords, punctuation and operators, white space and comments dropped), and X3 matches token
// kinds, with no skipper. This is the shape issue 17's redesign could take and still keep X3.
namespace tokens {

namespace x3 = boost::spirit::x3;

enum class kind : std::uint8_t {
  name, number, kw_kernel, kw_graph, kw_let, kw_cond, kw_while, kw_parallel, kw_memset, kw_memcpy, kw_after, kw_sizeof,
  lparen, rparen, lbrace, rbrace, comma, semicolon, colon, assign, dot, question, launch_open, launch_close,
  star, minus, bang, binop, bad
};
struct token {
  kind k;
  std::uint32_t begin;
};

kind keyword_or_name(const char* b, std::size_t n) {
  auto is = [&](const char* w) { return std::strlen(w) == n && std::memcmp(b, w, n) == 0; };
  switch (b[0]) {
    case 'a': return is("after") ? kind::kw_after : kind::name;
    case 'c': return is("cond") ? kind::kw_cond : kind::name;
    case 'g': return is("graph") ? kind::kw_graph : kind::name;
    case 'k': return is("kernel") ? kind::kw_kernel : kind::name;
    case 'l': return is("let") ? kind::kw_let : kind::name;
    case 'm': return is("memset") ? kind::kw_memset : is("memcpy") ? kind::kw_memcpy : kind::name;
    case 'p': return is("parallel") ? kind::kw_parallel : kind::name;
    case 's': return is("sizeof") ? kind::kw_sizeof : kind::name;
    case 'w': return is("while") ? kind::kw_while : kind::name;
    default: return kind::name;
  }
}

// Each byte's class, looked up once: a chain of comparisons per byte was a quarter of the lexer.
enum byte_class : std::uint8_t { other, space, word_start, digit };
constexpr std::array<byte_class, 256> classes = [] {
  std::array<byte_class, 256> out{};
  for (int i = 0; i < 256; ++i) {
    const char c = static_cast<char>(i);
    out[i] = c == ' ' || c == '\n' || c == '\t' || c == '\r'               ? space
             : (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ? word_start
             : c >= '0' && c <= '9'                                         ? digit
                                                                            : other;
  }
  return out;
}();
byte_class class_of(char c) { return classes[static_cast<unsigned char>(c)]; }
bool word_char(char c) { return class_of(c) >= word_start; }

// Appends the text's tokens to `out`; false at a byte that starts none.
bool lex(const std::string& text, std::vector<token>& out) {
  const char* const base = text.data();
  const char* p = base;
  const char* const end = base + text.size();
  auto at = [&](const char* q) { return static_cast<std::uint32_t>(q - base); };
  auto next_is = [&](std::size_t k, char c) { return end - p > static_cast<std::ptrdiff_t>(k) && p[k] == c; };
  while (p != end) {
    const char c = *p;
    const char* const start = p;
    const byte_class cls = class_of(c);
    if (cls == space) { ++p; continue; }
    if (c == '/' && next_is(1, '/')) { while (p != end && *p != '\n') ++p; continue; }
    if (c == '/' && next_is(1, '*')) {
      p += 2;
      while (end - p >= 2 && !(p[0] == '*' && p[1] == '/')) ++p;
      p = end - p >= 2 ? p + 2 : end;
      continue;
    }
    if (cls == word_start) {
      while (p != end && word_char(*p)) ++p;
      out.push_back({keyword_or_name(start, static_cast<std::size_t>(p - start)), at(start)});
      continue;
    }
    if (cls == digit) {
      while (p != end && (class_of(*p) == digit || *p == '.')) ++p;
      out.push_back({kind::number, at(start)});
      continue;
    }
    kind k = kind::binop;
    std::size_t n = 1;
    switch (c) {
      case '(': k = kind::lparen; break;
      case ')': k = kind::rparen; break;
      case '{': k = kind::lbrace; break;
      case '}': k = kind::rbrace; break;
      case ',': k = kind::comma; break;
      case ';': k = kind::semicolon; break;
      case ':': k = kind::colon; break;
      case '.': k = kind::dot; break;
      case '?': k = kind::question; break;
      case '*': k = kind::star; break;
      case '-': k = kind::minus; break;
      case '+': case '/': case '%': case '^': break;
      case '!': if (next_is(1, '=')) n = 2; else k = kind::bang; break;
      case '=': if (next_is(1, '=')) n = 2; else k = kind::assign; break;
      case '&': case '|': if (next_is(1, c)) n = 2; break;
      case '<':
        if (next_is(1, '<') && next_is(2, '<')) { k = kind::launch_open; n = 3; }
        else if (next_is(1, '<') || next_is(1, '=')) n = 2;
        break;
      case '>':
        if (next_is(1, '>') && next_is(2, '>')) { k = kind::launch_close; n = 3; }
        else if (next_is(1, '>') || next_is(1, '=')) n = 2;
        break;
      default: return false;
    }
    out.push_back({k, at(start)});
    p += n;
  }
  return true;
}

// One token of kind `k`.
struct token_parser : x3::parser<token_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  kind k;
  constexpr explicit token_parser(kind want) : k(want) {}
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const&, RCtx&, Attr&) const {
    if (first == last || first->k != k) return false;
    ++first;
    return true;
  }
};
constexpr token_parser t(kind k) { return token_parser(k); }

const auto name = t(kind::name);
const auto binary_op = t(kind::binop) | t(kind::star) | t(kind::minus);
x3::rule<struct expression_r> const expression = "expression";
x3::rule<struct primary_r> const primary = "primary";
const auto type = (name | t(kind::kw_cond)) >> -t(kind::star);  // `cond` is a type too
const auto primary_def = t(kind::number) | (t(kind::kw_sizeof) >> t(kind::lparen) >> type >> t(kind::rparen)) |
                         (name >> -(t(kind::lparen) >> -(expression % t(kind::comma)) >> t(kind::rparen))) |
                         (t(kind::lparen) >> expression >> t(kind::rparen));
const auto unary = *(t(kind::minus) | t(kind::bang)) >> primary >> *(t(kind::dot) >> name);
const auto expression_def = unary >> *(binary_op >> unary) >>
                            -(t(kind::question) >> expression >> t(kind::colon) >> expression);

x3::rule<struct block_r> const block = "block";
x3::rule<struct statement_r> const statement = "statement";
const auto arguments = t(kind::lparen) >> -(expression % t(kind::comma)) >> t(kind::rparen);
const auto after = -(t(kind::kw_after) >> (name % t(kind::comma)));
const auto label = -(name >> t(kind::colon));
const auto launch = label >> name >> t(kind::launch_open) >> expression >> t(kind::comma) >> expression >>
                    t(kind::launch_close) >> arguments >> after >> t(kind::semicolon);
const auto builtin = (t(kind::kw_memset) | t(kind::kw_memcpy)) >> arguments >> after >> t(kind::semicolon);
const auto let = t(kind::kw_let) >> name >> t(kind::assign) >> expression >> t(kind::semicolon);
const auto cond = t(kind::kw_cond) >> name >> -(t(kind::assign) >> expression) >> t(kind::semicolon);
const auto while_loop = t(kind::kw_while) >> name >> block;
const auto parallel = t(kind::kw_parallel) >> block;
const auto statement_def = let | cond | while_loop | parallel | builtin | block | launch;
const auto block_def = t(kind::lbrace) >> *statement >> t(kind::rbrace);

const auto parameter = name >> t(kind::colon) >> type >> -(t(kind::assign) >> expression);
const auto parameters = t(kind::lparen) >> -(parameter % t(kind::comma)) >> t(kind::rparen);
const auto kernel = t(kind::kw_kernel) >> name >> parameters >> t(kind::semicolon);
const auto graph = t(kind::kw_graph) >> name >> parameters >> block;
const auto file = *(kernel | graph);

BOOST_SPIRIT_DEFINE(expression, primary, block, statement)

// `scratch` keeps its capacity from one call to the next, as a front end would.
bool recognise(const std::string& text, std::vector<token>& scratch, bool lex_only) {
  scratch.clear();
  if (!lex(text, scratch)) return false;
  if (lex_only) return true;
  const token* first = scratch.data();
  const token* const last = first + scratch.size();
  return x3::parse(first, last, file) && first == last;
}

}  // namespace tokens

int main(int argc, char** argv) {
  int repeats = 7;
  std::vector<std::size_t> sizes{1'000u, 10'000u, 100'000u};
  std::string only;  // one way alone, for a profiler: characters, lexer or tokens
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--repeats") == 0) repeats = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--nodes") == 0) sizes = {static_cast<std::size_t>(std::max(1, std::atoi(argv[i + 1])))};
    if (std::strcmp(argv[i], "--only") == 0) only = argv[i + 1];
  }
  characters::add_operators();
  std::vector<tokens::token> scratch;
  struct way {
    const char* name;
    std::function<bool(const std::string&)> run;
  };
  std::vector<way> ways{
      {"characters", [](const std::string& text) { return characters::recognise(text); }},
      {"lexer", [&](const std::string& text) { return tokens::recognise(text, scratch, true); }},
      {"tokens", [&](const std::string& text) { return tokens::recognise(text, scratch, false); }},
  };
  if (!only.empty())
    std::erase_if(ways, [&](const way& w) { return only != w.name; });
  fmt::print("{:>8} {:>10} {:<12} {:>12} {:>14} {:>12}\n", "nodes", "bytes", "way", "median ms", "nodes/s", "MB/s");
  for (std::size_t size : sizes) {
    auto [text, nodes] = bench::frontend_text(size);
    std::vector<std::vector<double>> times(ways.size());
    for (int r = 0; r < repeats + 1; ++r) {  // the first round warms the caches; the ways take turns
      for (std::size_t w = 0; w < ways.size(); ++w) {
        auto start = std::chrono::steady_clock::now();
        const bool ok = ways[w].run(text);
        auto stop = std::chrono::steady_clock::now();
        if (!ok) {
          fmt::print(stderr, "the {} floor did not recognise the benchmark's text\n", ways[w].name);
          return 1;
        }
        if (r > 0) times[w].push_back(std::chrono::duration<double>(stop - start).count());
      }
    }
    for (std::size_t w = 0; w < ways.size(); ++w) {
      std::sort(times[w].begin(), times[w].end());
      const double t = times[w][times[w].size() / 2];
      fmt::print("{:>8} {:>10} {:<12} {:>12.3f} {:>14.0f} {:>12.1f}\n", nodes, text.size(), ways[w].name, t * 1e3,
                 static_cast<double>(nodes) / t, static_cast<double>(text.size()) / t / 1e6);
    }
  }
}

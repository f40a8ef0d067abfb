// What Spirit X3 costs before cgraph does anything. Issue 17 asks the whole front end for 5 M
// nodes/s on one core; this program measures the floor under cgraph's parser, so that
// docs/performance.md (run 30) can say how much of the gap is X3's, how much a lexer would
// take back, and what building a program costs on top. Its grammars cover frontend_bench's text
// (declarations, launches, memset and memcpy, `let`, `cond`, `parallel`, `while`, blocks,
// labels and `after`, expressions with calls, `sizeof` and the binary operators), written the
// way X3's documentation writes grammars, with no position and no diagnostic. A program, not a
// test.
//
//   frontend_floor [--repeats N] [--nodes N] [--only characters|lexer|tokens|records|descent]
//
// Five ways, taking turns: `characters`, X3 over the text with a skipper, building nothing;
// `lexer`, a hand-written lexer alone; `tokens`, that lexer and X3 over its tokens, building
// nothing; `records`, the token grammar with actions that intern names and build flat tables
// of expressions and nodes, with no syntax tree; `descent`, the same tables built from the same
// tokens by a hand-written recursive descent instead of X3.

#include "frontend_text.hpp"
#include "median.hpp"

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
#include <string_view>
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
  std::uint16_t length;  // in bytes (names and numbers are far shorter)
  std::uint32_t begin;
};

kind keyword_or_name(const char* b, std::size_t n) {
  auto is = [&]<std::size_t N>(const char (&w)[N]) { return N - 1 == n && std::memcmp(b, w, n) == 0; };
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
      out.push_back({keyword_or_name(start, static_cast<std::size_t>(p - start)), static_cast<std::uint16_t>(p - start), at(start)});
      continue;
    }
    if (cls == digit) {
      while (p != end && (class_of(*p) == digit || *p == '.')) ++p;
      out.push_back({kind::number, static_cast<std::uint16_t>(p - start), at(start)});
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
    out.push_back({k, static_cast<std::uint16_t>(n), at(start)});
    p += n;
  }
  return true;
}

// The last token that a remembering token_parser matched. X3's `_where` is the input after a
// match in Boost 1.74, not the match, so the `records` way's actions read their tokens here.
inline const token* last_matched = nullptr;

// One token of kind `k` (and, where Remember, noted in last_matched).
template <bool Remember>
struct token_parser : x3::parser<token_parser<Remember>> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  kind k;
  constexpr explicit token_parser(kind want) : k(want) {}
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const&, RCtx&, Attr&) const {
    if (first == last || first->k != k) return false;
    if constexpr (Remember) last_matched = first;
    ++first;
    return true;
  }
};
constexpr token_parser<false> t(kind k) { return token_parser<false>(k); }
constexpr token_parser<true> tk(kind k) { return token_parser<true>(k); }

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

// The token grammar again, with actions that build what a compiled program needs as they go:
// every name interned once, flat tables of expressions, nodes and arguments, `let` values
// bound, each launch's callee looked up and its arguments counted against the kernel's. No
// syntax tree is made. This is the shape issue 17's redesign would take; it is a floor because
// it checks and converts far less than cgraph does (no types, no precedence, no diagnostics).
namespace records {

namespace x3 = boost::spirit::x3;
using tokens::kind;
using tokens::t;
using tokens::tk;
using tokens::token;

// Names to dense indices: open addressing over the text's bytes, no string copied.
class interner {
public:
  std::uint32_t operator()(std::string_view name) {
    if (slots_.empty()) slots_.assign(1024, empty);
    if (names_.size() * 2 >= slots_.size()) grow();
    std::size_t i = hash(name) & (slots_.size() - 1);
    for (;; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i] == empty) {
        slots_[i] = static_cast<std::uint32_t>(names_.size());
        names_.push_back(name);
        return slots_[i];
      }
      if (names_[slots_[i]] == name) return slots_[i];
    }
  }
  void clear() {
    names_.clear();
    slots_.clear();
  }

private:
  static constexpr std::uint32_t empty = ~0u;
  static std::size_t hash(std::string_view s) {
    std::size_t h = 1469598103934665603ull;
    for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return h;
  }
  void grow() {
    std::vector<std::uint32_t> old(slots_.size() * 2, empty);
    slots_.swap(old);
    for (std::uint32_t id = 0; id < names_.size(); ++id) {
      std::size_t i = hash(names_[id]) & (slots_.size() - 1);
      while (slots_[i] != empty) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = id;
    }
  }
  std::vector<std::string_view> names_;
  std::vector<std::uint32_t> slots_;
};

enum class op : std::uint8_t { constant, name, call, unary, binary, choice };
struct expr {
  op o;
  std::uint8_t token_kind;  // the operator's, for unary and binary
  std::uint32_t a = 0, b = 0, c = 0;
};
enum class node_kind : std::uint8_t { kernel, memset, memcpy, while_loop };
struct node {
  node_kind k;
  std::uint32_t callee = 0, label = ~0u, parent = ~0u;
  std::uint32_t grid = 0, block = 0, first_arg = 0, arg_count = 0, first_after = 0, after_count = 0;
  std::uint32_t token = 0;  // where it was written, for errors
};

struct program {
  std::vector<expr> exprs;
  std::vector<node> nodes;
  std::vector<std::uint32_t> args, after;
  std::vector<std::uint32_t> kernel_params;  // by name id: a kernel's parameter count, or ~0
  std::vector<std::uint32_t> values;         // by name id: a `let`'s expression, or ~0
  void clear() {
    exprs.clear();
    nodes.clear();
    args.clear();
    after.clear();
    kernel_params.clear();
    values.clear();
  }
};

// What the actions share while one text is read.
struct state {
  const std::string* text = nullptr;
  const token* tokens = nullptr;
  interner names;
  program out;
  std::vector<std::uint32_t> operands, marks, parents, pending;  // stacks
  std::uint32_t mismatches = 0;  // launches whose argument count is not their kernel's
  std::uint32_t id(const token& tk) { return names(std::string_view(text->data() + tk.begin, tk.length)); }
  // A number token's leading decimal digits as a value (the floor reads no fraction or base).
  std::uint32_t number(const token& tk) const {
    std::uint32_t v = 0;
    for (std::uint16_t i = 0; i < tk.length; ++i) {
      const char c = text->data()[tk.begin + i];
      if (c < '0' || c > '9') break;
      v = v * 10 + static_cast<std::uint32_t>(c - '0');
    }
    return v;
  }
  std::uint32_t push(expr e) {
    out.exprs.push_back(e);
    return static_cast<std::uint32_t>(out.exprs.size() - 1);
  }
  std::uint32_t pop() {
    const std::uint32_t e = operands.back();
    operands.pop_back();
    return e;
  }
  static std::vector<std::uint32_t>& at(std::vector<std::uint32_t>& v, std::uint32_t i) {
    if (v.size() <= i) v.resize(i + 1, ~0u);
    return v;
  }
};
state* current = nullptr;

// Where the parser stands, pushed onto the marks: a node statement's first token.
struct here_parser : x3::parser<here_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const&, Ctx const&, RCtx&, Attr&) const {
    current->marks.push_back(static_cast<std::uint32_t>(first - current->tokens));
    return true;
  }
};
constexpr here_parser here{};

const auto on_number = [](auto&) {
  current->operands.push_back(current->push({op::constant, 0, current->number(*tokens::last_matched)}));
};
const auto on_name = [](auto&) {
  const std::uint32_t id = current->id(*tokens::last_matched);
  std::vector<std::uint32_t>& values = state::at(current->out.values, id);
  // A `let` is replaced by its value; anything else stays a name (a parameter, in cgraph).
  current->operands.push_back(values[id] != ~0u ? values[id] : current->push({op::name, 0, id}));
};
const auto push_name = [](auto&) { current->pending.push_back(current->id(*tokens::last_matched)); };
const auto mark_call = [](auto&) {
  current->pending.push_back(current->id(*tokens::last_matched));
  current->marks.push_back(static_cast<std::uint32_t>(current->operands.size()));
};
const auto on_call = [](auto&) {
  state& s = *current;
  const std::uint32_t from = s.marks.back();
  s.marks.pop_back();
  const auto count = static_cast<std::uint32_t>(s.operands.size() - from);
  const auto first = static_cast<std::uint32_t>(s.out.args.size());
  s.out.args.insert(s.out.args.end(), s.operands.begin() + from, s.operands.end());
  s.operands.resize(from);
  s.operands.push_back(s.push({op::call, 0, s.pending.back(), first, count}));
  s.pending.pop_back();
};
const auto on_sign = [](auto&) { current->pending.push_back(static_cast<std::uint32_t>(tokens::last_matched->k)); };
const auto on_signed = [](auto&) {
  const std::uint32_t v = current->pop();
  current->operands.push_back(current->push({op::unary, static_cast<std::uint8_t>(current->pending.back()), v}));
  current->pending.pop_back();
};
const auto on_operator = [](auto&) { current->pending.push_back(static_cast<std::uint32_t>(tokens::last_matched->k)); };
const auto on_binary = [](auto&) {
  const std::uint32_t b = current->pop(), a = current->pop();
  current->operands.push_back(current->push({op::binary, static_cast<std::uint8_t>(current->pending.back()), a, b}));
  current->pending.pop_back();
};
const auto on_choice = [](auto&) {
  const std::uint32_t c = current->pop(), b = current->pop(), a = current->pop();
  current->operands.push_back(current->push({op::choice, 0, a, b, c}));
};

const auto name = t(kind::name);
const auto binary_op = tk(kind::binop) | tk(kind::star) | tk(kind::minus);
x3::rule<struct expression_r> const expression = "expression";
x3::rule<struct unary_r> const unary = "unary";
const auto type = (name | t(kind::kw_cond)) >> -t(kind::star);
const auto call_or_name = (tk(kind::name) >> &t(kind::lparen) >> x3::eps[mark_call] >> t(kind::lparen) >>
                           -(expression % t(kind::comma)) >> t(kind::rparen))[on_call] |
                          tk(kind::name)[on_name];
const auto primary = tk(kind::number)[on_number] |
                     (t(kind::kw_sizeof) >> t(kind::lparen) >> type >> tk(kind::rparen))[on_number] | call_or_name |
                     (t(kind::lparen) >> expression >> t(kind::rparen));
const auto unary_def = ((tk(kind::minus) | tk(kind::bang))[on_sign] >> unary)[on_signed] | (primary >> *(t(kind::dot) >> name));
const auto expression_def = unary >> *(binary_op[on_operator] >> unary)[on_binary] >>
                            -(t(kind::question) >> expression >> t(kind::colon) >> expression)[on_choice];

// Statements: each node statement's action makes its node from what its parts left. A node
// statement pushes its marks only once its first token says what it is: X3 does not undo an
// action of an alternative that fails later.
const auto begin_node = [](auto&) {
  current->marks.push_back(static_cast<std::uint32_t>(current->operands.size()));
  current->marks.push_back(static_cast<std::uint32_t>(current->out.after.size()));
  current->pending.push_back(~0u);  // its label, if it has one
  current->pending.push_back(~0u);  // its callee, if it is a launch
};
const auto on_label = [](auto&) { current->pending[current->pending.size() - 2] = current->id(*tokens::last_matched); };
const auto on_callee = [](auto&) { current->pending.back() = current->id(*tokens::last_matched); };
const auto on_after = [](auto&) { current->out.after.push_back(current->id(*tokens::last_matched)); };
template <node_kind K>
struct make_node {
  template <typename Ctx>
  void operator()(Ctx&) const {
    state& s = *current;
    const std::uint32_t after_from = s.marks.back();
    s.marks.pop_back();
    const std::uint32_t from = s.marks.back();
    s.marks.pop_back();
    node n{K};
    n.token = s.marks.back();
    s.marks.pop_back();
    n.callee = s.pending.back();
    s.pending.pop_back();
    n.label = s.pending.back();
    s.pending.pop_back();
    n.parent = s.parents.empty() ? ~0u : s.parents.back();
    std::size_t at = from;
    if constexpr (K == node_kind::kernel) {
      n.grid = s.operands[at++];
      n.block = s.operands[at++];
      const std::vector<std::uint32_t>& params = state::at(s.out.kernel_params, n.callee);
      if (params[n.callee] != s.operands.size() - at) ++s.mismatches;
    }
    n.first_arg = static_cast<std::uint32_t>(s.out.args.size());
    n.arg_count = static_cast<std::uint32_t>(s.operands.size() - at);
    s.out.args.insert(s.out.args.end(), s.operands.begin() + static_cast<std::ptrdiff_t>(at), s.operands.end());
    s.operands.resize(from);
    n.first_after = after_from;
    n.after_count = static_cast<std::uint32_t>(s.out.after.size() - after_from);
    s.out.nodes.push_back(n);
  }
};
const auto on_let = [](auto&) {
  const std::uint32_t id = current->pending.back();
  current->pending.pop_back();
  state::at(current->out.values, id)[id] = current->pop();
};
const auto drop_operand = [](auto&) { current->operands.pop_back(); };
const auto open_while = [](auto&) {
  node n{node_kind::while_loop};
  n.callee = current->id(*tokens::last_matched);
  n.parent = current->parents.empty() ? ~0u : current->parents.back();
  current->out.nodes.push_back(n);
  current->parents.push_back(static_cast<std::uint32_t>(current->out.nodes.size() - 1));
};
const auto close_body = [](auto&) { current->parents.pop_back(); };

x3::rule<struct block_r> const block = "block";
x3::rule<struct statement_r> const statement = "statement";
const auto arguments = t(kind::lparen) >> -(expression % t(kind::comma)) >> t(kind::rparen);
const auto after = -(t(kind::kw_after) >> (tk(kind::name)[on_after] % t(kind::comma)));
const auto label = -(tk(kind::name) >> t(kind::colon))[on_label];
const auto start = here >> x3::eps[begin_node];
const auto launch = (&t(kind::name) >> start >> label >> tk(kind::name)[on_callee] >> t(kind::launch_open) >> expression >>
                     t(kind::comma) >> expression >> t(kind::launch_close) >> arguments >> after >>
                     t(kind::semicolon))[make_node<node_kind::kernel>{}];
const auto memset_stmt = (&t(kind::kw_memset) >> start >> t(kind::kw_memset) >> arguments >> after >>
                          t(kind::semicolon))[make_node<node_kind::memset>{}];
const auto memcpy_stmt = (&t(kind::kw_memcpy) >> start >> t(kind::kw_memcpy) >> arguments >> after >>
                          t(kind::semicolon))[make_node<node_kind::memcpy>{}];
const auto let = (t(kind::kw_let) >> tk(kind::name)[push_name] >> t(kind::assign) >> expression >> t(kind::semicolon))[on_let];
const auto cond = t(kind::kw_cond) >> name >> -(t(kind::assign) >> expression[drop_operand]) >> t(kind::semicolon);
const auto while_loop = (t(kind::kw_while) >> tk(kind::name))[open_while] >> block[close_body];
const auto parallel = t(kind::kw_parallel) >> block;
const auto statement_def = let | cond | while_loop | parallel | memset_stmt | memcpy_stmt | block | launch;
const auto block_def = t(kind::lbrace) >> *statement >> t(kind::rbrace);

const auto count_param = [](auto&) { ++current->marks.back(); };
const auto begin_params = [](auto&) { current->marks.push_back(0); };
const auto on_kernel = [](auto&) {
  const std::uint32_t id = current->pending.back();
  current->pending.pop_back();
  state::at(current->out.kernel_params, id)[id] = current->marks.back();
  current->marks.pop_back();
};
const auto drop_mark = [](auto&) {
  current->marks.pop_back();
  current->pending.pop_back();
};
const auto parameter = name >> t(kind::colon) >> type >> -(t(kind::assign) >> expression[drop_operand]);
const auto parameters = x3::eps[begin_params] >> t(kind::lparen) >> -(parameter[count_param] % t(kind::comma)) >> t(kind::rparen);
const auto kernel = (t(kind::kw_kernel) >> tk(kind::name)[push_name] >> parameters >> t(kind::semicolon))[on_kernel];
const auto graph = (t(kind::kw_graph) >> tk(kind::name)[push_name] >> parameters)[drop_mark] >> block;
const auto file = *(kernel | graph);

BOOST_SPIRIT_DEFINE(expression, unary, block, statement)

// Lexes `text` into `scratch` and empties `s` for a build from it (this way's and `descent`'s);
// false where a byte starts no token.
bool begin_build(const std::string& text, std::vector<token>& scratch, state& s) {
  scratch.clear();
  if (!tokens::lex(text, scratch)) return false;
  s.text = &text;
  s.tokens = scratch.data();
  s.names.clear();
  s.out.clear();
  for (auto* stack : {&s.operands, &s.marks, &s.parents, &s.pending}) stack->clear();  // a text that failed leaves them
  s.mismatches = 0;
  return true;
}

// Builds `s.out` from `text`; false where the text is not recognised or a launch's argument
// count is not its kernel's.
bool build(const std::string& text, std::vector<token>& scratch, state& s) {
  if (!begin_build(text, scratch, s)) return false;
  current = &s;
  const token* first = scratch.data();
  const token* const last = first + scratch.size();
  const bool ok = x3::parse(first, last, file) && first == last && s.mismatches == 0;
  current = nullptr;
  return ok;
}

}  // namespace records

// The `records` way's work without X3: the same lexer, then a hand-written recursive descent
// over its tokens, each statement's kind decided by its first token (a name by the one after
// it), writing the same tables through the same interner, with no action stack to unwind. It
// measures what X3 itself costs once the lexer and the tables are fixed, for issue 17's choice
// between keeping X3 and meeting its speed targets (docs/performance.md, run 78). main() checks
// that both ways build equal tables from the same text.
namespace descent {

using records::expr;
using records::node;
using records::node_kind;
using records::op;
using records::state;
using tokens::kind;
using tokens::token;

class parser {
public:
  parser(state& s, const token* first, const token* last) : s_(s), p_(first), end_(last) {}

  bool file() {
    while (p_ != end_) {
      const bool ok = at(kind::kw_kernel) ? kernel() : at(kind::kw_graph) && graph();
      if (!ok) return false;
    }
    return true;
  }

private:
  bool at(kind k) const { return p_ != end_ && p_->k == k; }
  bool at(std::size_t ahead, kind k) const { return end_ - p_ > static_cast<std::ptrdiff_t>(ahead) && p_[ahead].k == k; }
  bool take(kind k) {
    if (!at(k)) return false;
    ++p_;
    return true;
  }
  // The name at p_, interned and taken; ~0 when p_ is not a name.
  std::uint32_t take_name() {
    if (!at(kind::name)) return ~0u;
    return s_.id(*p_++);
  }

  bool kernel() {
    ++p_;  // `kernel`
    const std::uint32_t id = take_name();
    std::uint32_t count = 0;
    if (id == ~0u || !parameters(count) || !take(kind::semicolon)) return false;
    state::at(s_.out.kernel_params, id)[id] = count;
    return true;
  }
  bool graph() {
    ++p_;  // `graph`
    std::uint32_t count = 0;
    return take_name() != ~0u && parameters(count) && block();
  }
  bool parameters(std::uint32_t& count) {
    if (!take(kind::lparen)) return false;
    if (take(kind::rparen)) return true;
    do {
      if (!take(kind::name) || !take(kind::colon) || !type()) return false;
      if (take(kind::assign)) {
        if (!expression()) return false;
        s_.operands.pop_back();
      }
      ++count;
    } while (take(kind::comma));
    return take(kind::rparen);
  }
  bool type() {
    if (!take(kind::name) && !take(kind::kw_cond)) return false;
    take(kind::star);
    return true;
  }
  bool block() {
    if (!take(kind::lbrace)) return false;
    while (!at(kind::rbrace))
      if (p_ == end_ || !statement()) return false;
    ++p_;
    return true;
  }

  bool statement() {
    switch (p_->k) {
      case kind::kw_let: return let();
      case kind::kw_cond: return cond();
      case kind::kw_while: return while_loop();
      case kind::kw_parallel: ++p_; return block();
      case kind::kw_memset: return builtin(node_kind::memset);
      case kind::kw_memcpy: return builtin(node_kind::memcpy);
      case kind::lbrace: return block();
      case kind::name: return launch();
      default: return false;
    }
  }
  bool let() {
    ++p_;
    const std::uint32_t id = take_name();
    if (id == ~0u || !take(kind::assign) || !expression() || !take(kind::semicolon)) return false;
    state::at(s_.out.values, id)[id] = s_.pop();
    return true;
  }
  bool cond() {
    ++p_;
    if (!take(kind::name)) return false;
    if (take(kind::assign)) {
      if (!expression()) return false;
      s_.operands.pop_back();
    }
    return take(kind::semicolon);
  }
  bool while_loop() {
    ++p_;
    node n{node_kind::while_loop};
    n.callee = take_name();
    if (n.callee == ~0u) return false;
    n.parent = parent();
    s_.out.nodes.push_back(n);
    s_.parents.push_back(static_cast<std::uint32_t>(s_.out.nodes.size() - 1));
    const bool ok = block();
    s_.parents.pop_back();
    return ok;
  }
  bool builtin(node_kind k) {
    node n{k};
    n.callee = ~0u;  // as the `records` way leaves it
    n.token = index();
    ++p_;
    const auto from = static_cast<std::uint32_t>(s_.operands.size());
    return arguments() && after(n) && take(kind::semicolon) && finish(n, from, from);
  }
  bool launch() {
    node n{node_kind::kernel};
    n.token = index();
    if (at(1, kind::colon)) {
      n.label = s_.id(*p_);
      p_ += 2;
    }
    n.callee = take_name();
    const auto from = static_cast<std::uint32_t>(s_.operands.size());
    if (n.callee == ~0u || !take(kind::launch_open) || !expression() || !take(kind::comma) || !expression() ||
        !take(kind::launch_close) || !arguments() || !after(n) || !take(kind::semicolon))
      return false;
    n.grid = s_.operands[from];
    n.block = s_.operands[from + 1];
    const std::vector<std::uint32_t>& params = state::at(s_.out.kernel_params, n.callee);
    if (params[n.callee] != s_.operands.size() - from - 2) ++s_.mismatches;
    return finish(n, from, from + 2);
  }
  // The node's arguments are the operands from `args` on; the statement's from `from` on.
  bool finish(node& n, std::uint32_t from, std::uint32_t args) {
    n.parent = parent();
    n.first_arg = static_cast<std::uint32_t>(s_.out.args.size());
    n.arg_count = static_cast<std::uint32_t>(s_.operands.size() - args);
    s_.out.args.insert(s_.out.args.end(), s_.operands.begin() + args, s_.operands.end());
    s_.operands.resize(from);
    s_.out.nodes.push_back(n);
    return true;
  }
  bool arguments() {
    if (!take(kind::lparen)) return false;
    if (take(kind::rparen)) return true;
    do
      if (!expression()) return false;
    while (take(kind::comma));
    return take(kind::rparen);
  }
  bool after(node& n) {
    n.first_after = static_cast<std::uint32_t>(s_.out.after.size());
    if (take(kind::kw_after)) {
      do {
        const std::uint32_t id = take_name();
        if (id == ~0u) return false;
        s_.out.after.push_back(id);
      } while (take(kind::comma));
    }
    n.after_count = static_cast<std::uint32_t>(s_.out.after.size()) - n.first_after;
    return true;
  }

  // Expressions leave their index on s_.operands, as the `records` way's actions do.
  bool expression() {
    if (!unary()) return false;
    while (at(kind::binop) || at(kind::star) || at(kind::minus)) {
      const auto op_kind = static_cast<std::uint8_t>(p_->k);
      ++p_;
      if (!unary()) return false;
      const std::uint32_t b = s_.pop(), a = s_.pop();
      s_.operands.push_back(s_.push({op::binary, op_kind, a, b}));
    }
    if (take(kind::question)) {
      if (!expression() || !take(kind::colon) || !expression()) return false;
      const std::uint32_t c = s_.pop(), b = s_.pop(), a = s_.pop();
      s_.operands.push_back(s_.push({op::choice, 0, a, b, c}));
    }
    return true;
  }
  bool unary() {
    if (at(kind::minus) || at(kind::bang)) {
      const auto sign = static_cast<std::uint8_t>(p_->k);
      ++p_;
      if (!unary()) return false;
      const std::uint32_t v = s_.pop();
      s_.operands.push_back(s_.push({op::unary, sign, v}));
      return true;
    }
    if (!primary()) return false;
    while (take(kind::dot))
      if (!take(kind::name)) return false;
    return true;
  }
  bool primary() {
    if (p_ == end_) return false;
    switch (p_->k) {
      case kind::number: s_.operands.push_back(s_.push({op::constant, 0, s_.number(*p_++)})); return true;
      case kind::kw_sizeof:  // its value is not computed, as in the `records` way
        ++p_;
        if (!take(kind::lparen) || !type() || !take(kind::rparen)) return false;
        s_.operands.push_back(s_.push({op::constant, 0, 0}));
        return true;
      case kind::lparen:
        ++p_;
        return expression() && take(kind::rparen);
      case kind::name: break;
      default: return false;
    }
    const std::uint32_t id = s_.id(*p_++);
    if (!at(kind::lparen)) {
      std::vector<std::uint32_t>& values = state::at(s_.out.values, id);
      s_.operands.push_back(values[id] != ~0u ? values[id] : s_.push({op::name, 0, id}));
      return true;
    }
    const auto from = static_cast<std::uint32_t>(s_.operands.size());
    if (!arguments()) return false;
    const auto first = static_cast<std::uint32_t>(s_.out.args.size());
    const auto count = static_cast<std::uint32_t>(s_.operands.size() - from);
    s_.out.args.insert(s_.out.args.end(), s_.operands.begin() + from, s_.operands.end());
    s_.operands.resize(from);
    s_.operands.push_back(s_.push({op::call, 0, id, first, count}));
    return true;
  }

  std::uint32_t index() const { return static_cast<std::uint32_t>(p_ - s_.tokens); }
  std::uint32_t parent() const { return s_.parents.empty() ? ~0u : s_.parents.back(); }

  state& s_;
  const token* p_;
  const token* const end_;
};

// Whether two ways built the same program: every table, field by field.
bool same(const records::program& a, const records::program& b) {
  auto same_expr = [](const expr& x, const expr& y) {
    return x.o == y.o && x.token_kind == y.token_kind && x.a == y.a && x.b == y.b && x.c == y.c;
  };
  auto same_node = [](const node& x, const node& y) {
    return x.k == y.k && x.callee == y.callee && x.label == y.label && x.parent == y.parent && x.grid == y.grid &&
           x.block == y.block && x.first_arg == y.first_arg && x.arg_count == y.arg_count &&
           x.first_after == y.first_after && x.after_count == y.after_count && x.token == y.token;
  };
  return std::equal(a.exprs.begin(), a.exprs.end(), b.exprs.begin(), b.exprs.end(), same_expr) &&
         std::equal(a.nodes.begin(), a.nodes.end(), b.nodes.begin(), b.nodes.end(), same_node) && a.args == b.args &&
         a.after == b.after && a.kernel_params == b.kernel_params && a.values == b.values;
}

// As records::build, by descent.
bool build(const std::string& text, std::vector<token>& scratch, state& s) {
  if (!records::begin_build(text, scratch, s)) return false;
  return parser(s, scratch.data(), scratch.data() + scratch.size()).file() && s.mismatches == 0;
}

}  // namespace descent

int main(int argc, char** argv) {
  int repeats = 7;
  std::vector<std::size_t> sizes{1'000u, 10'000u, 100'000u};
  std::string only;  // one way alone, for a profiler
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--repeats") == 0) repeats = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--nodes") == 0) sizes = {static_cast<std::size_t>(std::max(1, std::atoi(argv[i + 1])))};
    if (std::strcmp(argv[i], "--only") == 0) only = argv[i + 1];
  }
  characters::add_operators();
  std::vector<tokens::token> scratch;
  // Its tables and stacks keep their capacity from one text to the next, as a front end's would
  // (the interner's slots are made again).
  records::state built, descended;
  struct way {
    const char* name;
    std::function<bool(const std::string&)> run;
  };
  std::vector<way> ways{
      {"characters", [](const std::string& text) { return characters::recognise(text); }},
      {"lexer", [&](const std::string& text) { return tokens::recognise(text, scratch, true); }},
      {"tokens", [&](const std::string& text) { return tokens::recognise(text, scratch, false); }},
      {"records", [&](const std::string& text) { return records::build(text, scratch, built); }},
      {"descent", [&](const std::string& text) { return descent::build(text, scratch, descended); }},
  };
  if (!only.empty())
    std::erase_if(ways, [&](const way& w) { return only != w.name; });
  fmt::print("{:>8} {:>10} {:<12} {:>12} {:>14} {:>12}\n", "nodes", "bytes", "way", "median ms", "nodes/s", "MB/s");
  for (std::size_t size : sizes) {
    auto [text, nodes] = bench::frontend_text(size);
    // The two ways that build must build the same program, or their times compare nothing.
    if (!records::build(text, scratch, built) || !descent::build(text, scratch, descended) ||
        !descent::same(built.out, descended.out) || built.out.nodes.size() != nodes) {
      fmt::print(stderr, "the records and descent ways built different programs from the benchmark's text\n");
      return 1;
    }
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
      const double t = bench::median(times[w]);
      fmt::print("{:>8} {:>10} {:<12} {:>12.3f} {:>14.0f} {:>12.1f}\n", nodes, text.size(), ways[w].name, t * 1e3,
                 static_cast<double>(nodes) / t, static_cast<double>(text.size()) / t / 1e6);
    }
  }
}

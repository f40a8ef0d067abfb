#pragma once
// The syntax tree of a .cgraph file. Every node carries the byte range it was parsed from.
//
// This header is shared by dsl/ and compiler/ only and is never installed, so the Spirit X3
// types used for its variants stay out of every public header.

#include <cgraph/dsl/collectives.hpp>
#include <cgraph/dsl/ast_arena.hpp>
#include <cgraph/dsl/operators.hpp>

#include <boost/optional.hpp>
#include <boost/spirit/home/x3/support/ast/variant.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cgraph::dsl::ast {

namespace x3 = boost::spirit::x3;

// Byte offsets [begin, end), set by the parser's on_success annotation. (X3's own
// position_tagged keeps iterator pairs in a side cache; plain offsets are smaller, need no
// cache to read, and map straight to cgraph::source_range.)
struct tagged {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
};

// A variant's alternative as itself: the large and the recursive ones are held through
// x3::forward_ast (a pointer), so visitors unwrap them.
template <typename T>
const T& unwrap(const T& x) { return x; }
template <typename T>
const T& unwrap(const x3::forward_ast<T>& x) { return x.get(); }

// An edge of an `after` list (LANGUAGE.md §11): `L`, `programmatic(L)` or `launched(L)`.
enum class edge_port : std::uint8_t { full, programmatic, launched };

// A name points into its source's text, which outlives the tree (the tree lives for one
// compile or one format, and every file an import adds is appended before the first parse):
// no name is copied, and an identifier is 24 bytes, not 40.
struct identifier : tagged {
  std::string_view name;
};

// A label of an `after` list, with the port its edge leaves from. Its own type, not a field of
// every identifier: there it made each identifier, and so every expression, 8 bytes larger.
struct after_label : identifier {
  edge_port port = edge_port::full;
};
using after_list = list<after_label>;

// ---- types -------------------------------------------------------------------------------

struct type_name : tagged {
  std::string_view base;  // i8 … f64, f16, bf16, bool, void, cond, or the name of a struct (in the source)
  bool pointer = false;
  bool is_const = false;  // `const T*`
};

// ---- expressions -------------------------------------------------------------------------

struct int_literal : tagged {
  std::uint64_t value = 0;
  bool too_large = false;  // does not fit 64 bits; reported by the checker
};
struct float_literal : tagged {
  double value = 0;
};
struct bool_literal : tagged {
  bool value = false;
};
struct null_literal : tagged {};

struct expression;

// min(a, b), max(a, b), ceil_div(a, b)
struct function_call : tagged {
  identifier function;
  list<expression> args;
};
struct sizeof_expr : tagged {
  type_name type;
};
struct parenthesized : tagged {
  x3::forward_ast<expression> inner;
};
struct field_init;
// NAME { FIELD: EXPR, … }
struct struct_literal : tagged {
  identifier name;
  list<field_init> fields;
};
struct operand;
// E.FIELD.FIELD…: an operand of its own, so the rest (nearly all) carry no list of fields.
struct field_access : tagged {
  x3::forward_ast<operand> base;
  list<identifier> fields;
};

// Calls, struct literals, `sizeof` and field accesses are held through a pointer: inline,
// their names, types and lists made every operand (and so every expression, six or more to a
// launch) up to 24 bytes larger, and they are rare.
struct operand : x3::variant<int_literal, float_literal, bool_literal, null_literal, x3::forward_ast<sizeof_expr>,
                             x3::forward_ast<function_call>, identifier, parenthesized,
                             x3::forward_ast<struct_literal>, x3::forward_ast<field_access>> {
  using base_type::base_type;
  using base_type::operator=;
};

// A field access binds tighter than the signs: `-p.x` is `-(p.x)`. The signs are kept as
// written, not nested, so "- - - x" needs no recursion.
struct unary : tagged {
  box<list<char>> prefix;  // `-` and `!`, outermost first; nearly always none
  operand value;
};

// An infix operator of the one table (cgraph/dsl/operators.hpp); functions are function_calls.
using dsl::binary_op;

struct operation : tagged {
  binary_op op{};
  unary rhs;
};

// A flat "a op b op c …" list; precedence is applied by the checker (one X3 rule instead of
// one per precedence level keeps every operand from being wrapped seven times).
struct choice;
struct expression_tail;

struct expression : tagged {
  unary first;
  // The operators and the `? :` after the first operand, made only for an expression that has
  // any: most (a name, a literal) are one operand, and the list and the box inline made every
  // expression 88 bytes where it is now 64, six or more to a launch (docs/performance.md, run 37).
  box<expression_tail> tail;

  // `op b op c …` after the first operand, in order; empty for most expressions.
  const list<operation>& rest() const;
  // `… ? A : B`, or null.
  const ast::choice* ternary() const;
  // The tail, made when the parser finds an operator or a `?`.
  expression_tail& add_tail() { return tail ? *tail : tail.emplace(); }
};

// `? A : B` after a condition; B holds any further `? :` (they group to the right).
struct choice : tagged {
  expression then;
  expression otherwise;
};

struct expression_tail {
  list<operation> rest;
  box<ast::choice> choice;  // `… ? A : B`, or none
};

inline const list<operation>& expression::rest() const {
  static const list<operation> none;
  return tail ? tail->rest : none;
}
inline const ast::choice* expression::ternary() const { return tail && tail->choice ? &*tail->choice : nullptr; }

// FIELD: EXPR in a struct literal.
struct field_init : tagged {
  identifier name;
  expression value;
};

// ---- statements --------------------------------------------------------------------------

struct statement;

struct block : tagged {
  list<statement> statements;
  bool else_if = false;  // `else if …`: an else body holding that one `if` (LANGUAGE.md §11)
  // A graph's body that parse() left unparsed (dsl::graph_bodies::defer): the ';' and
  // '}' inside it, about one per statement, and its ',', so its lowering can size the body's
  // nodes and the graph's arguments before parse_body hands them over. 0 for a parsed block.
  std::uint32_t deferred_ends = 0;
  std::uint32_t deferred_commas = 0;
};

// Shared by all statements that make a node: an optional label and the `after` clause, which
// may stand before the statement (`l: after a, b k<<<…>>>(…);`) or at its end
// (`l: k<<<…>>>(…) after a, b;`, `if c after a { … }`).
// `[[NAME(ARGS)]]` before a node statement (LANGUAGE.md §11).
struct attribute : tagged {
  identifier name;
  list<expression> args;
};

// What a prefix holds when it holds anything: most statements have none.
struct prefix_parts : tagged {
  list<attribute> attributes;
  boost::optional<identifier> label;
  after_list after;

  bool empty() const { return attributes.empty() && !label && after.empty(); }
};

// The parts are held through a box: inline, they made every statement 72 bytes larger (a
// statement of a block's list is the size of the largest kind), and few statements have any.
struct node_prefix : tagged {
  // Null exactly when the statement has no prefix: memo_prefix_parser makes the box only for
  // parts that are not empty, so `if (prefix.parts)` asks whether there is any.
  box<prefix_parts> parts;

  const list<attribute>& attributes() const { return parts ? parts->attributes : none_of<list<attribute>>(); }
  const identifier* label() const { return parts && parts->label ? &*parts->label : nullptr; }
  const after_list& after() const { return parts ? parts->after : none_of<after_list>(); }

private:
  template <typename List>
  static const List& none_of() {
    static const List empty;
    return empty;
  }
};

struct launch_stmt : tagged {
  node_prefix prefix;
  identifier kernel;
  list<expression> grid;   // one to three components
  list<expression> block;  // one to three components
  // Held through a pointer, as the statement variant's rare alternatives are: inline, it made
  // every statement some 140 bytes larger, and few launches give it.
  boost::optional<x3::forward_ast<expression>> shared_bytes;
  list<expression> args;
  after_list after;
};

enum class builtin_op : std::uint8_t { memcpy_op, memset_op };

struct builtin_keyword : tagged {
  builtin_op op{};
};

struct builtin_stmt : tagged {  // memcpy(dst, src, bytes) / memset(dst, value, count)
  node_prefix prefix;
  builtin_keyword keyword;
  list<expression> args;
  after_list after;
};

// record E; / wait E;  (LANGUAGE.md §11)
struct event_stmt : tagged {
  node_prefix prefix;
  bool wait = false;
  identifier event;
  after_list after;
};

// alloc NAME: T[COUNT];  free NAME;  (LANGUAGE.md §11)
struct alloc_stmt : tagged {
  node_prefix prefix;
  identifier name;
  type_name element;
  expression count;
  after_list after;
};
struct free_stmt : tagged {
  node_prefix prefix;
  identifier name;
  after_list after;
};

// all_reduce(…), send(…), … (LANGUAGE.md §15): the words are not reserved; a collective is
// one followed by '('. Arguments are checked against collectives' roles when lowering.
struct collective_keyword : tagged {
  collective_op op{};
};
struct collective_stmt : tagged {
  node_prefix prefix;
  collective_keyword keyword;
  list<expression> args;
  after_list after;
};

struct host_stmt : tagged {
  node_prefix prefix;
  identifier callback;
  list<expression> args;
  after_list after;
};

struct call_stmt : tagged {
  node_prefix prefix;
  identifier graph;
  list<expression> args;
  after_list after;
};

struct let_stmt : tagged {
  identifier name;
  expression value;
};

struct cond_stmt : tagged {
  identifier name;
  boost::optional<expression> init;
};

struct if_stmt : tagged {
  node_prefix prefix;
  identifier condition;
  after_list after;
  block then_body;
  boost::optional<block> else_body;
};

struct while_stmt : tagged {
  node_prefix prefix;
  identifier condition;
  after_list after;
  block body;
};

struct case_clause : tagged {
  expression value;
  block body;
};

struct switch_stmt : tagged {
  node_prefix prefix;
  identifier condition;
  after_list after;
  list<case_clause> cases;
};

struct repeat_stmt : tagged {
  node_prefix prefix;
  expression count;
  after_list after;
  block body;
};

struct parallel_stmt : tagged {
  block branches;  // each statement of the block is one branch
};

// group { COLLECTIVE; … }: one node that issues its collectives between ncclGroupStart and
// ncclGroupEnd (the body is a block; lowering accepts only collectives in it).
struct group_stmt : tagged {
  node_prefix prefix;
  after_list after;
  block body;
};

// on device(N) { … }: the device of every node of the block without a [[device]] of its own.
struct device_stmt : tagged {
  expression device;
  block body;
};

// for I in A..B { … } and parallel for I in A..B { … } (LANGUAGE.md §11)
struct for_stmt : tagged {
  bool parallel = false;
  identifier variable;
  expression from;
  expression to;
  block body;
};

// A statement is as large as its largest inline alternative, and a body's statements are held
// in one vector: the large and rare ones (an allocation and a cond, which hold an expression
// inline) are held through a pointer, so that the common ones (launches, copies) set the size.
struct statement : x3::variant<launch_stmt, builtin_stmt, host_stmt, call_stmt, let_stmt, event_stmt,
                               x3::forward_ast<alloc_stmt>, free_stmt, x3::forward_ast<cond_stmt>,
                               x3::forward_ast<if_stmt>, x3::forward_ast<while_stmt>, x3::forward_ast<switch_stmt>,
                               x3::forward_ast<repeat_stmt>, x3::forward_ast<parallel_stmt>, x3::forward_ast<block>, x3::forward_ast<for_stmt>,
                               collective_stmt, x3::forward_ast<group_stmt>, x3::forward_ast<device_stmt>> {
  using base_type::base_type;
  using base_type::operator=;
};

// ---- top level ---------------------------------------------------------------------------

struct string_literal : tagged {
  std::string value;
  bool raw = false;  // """…"""
};

struct parameter : tagged {
  identifier name;
  type_name type;
  boost::optional<expression> default_value;
};

struct include_decl : tagged {
  string_literal path;
};

// import "path.cgraph";  (LANGUAGE.md §10)
struct import_decl : tagged {
  string_literal path;
};

struct kernel_decl : tagged {
  identifier name;
  list<parameter> params;
  boost::optional<string_literal> symbol;  // as "…"
  boost::optional<identifier> library;     // from LIB
};

struct host_decl : tagged {
  identifier name;
  list<parameter> params;
};

enum class library_kind : std::uint8_t { module, source };

struct library_decl : tagged {  // module LIB = "file"; / source LIB = """…""";
  library_kind kind{};
  identifier name;
  string_literal text;
};

struct graph_decl : tagged {
  identifier name;
  list<parameter> params;
  block body;
};

// const NAME = EXPR;  (LANGUAGE.md §10)
struct const_decl : tagged {
  identifier name;
  expression value;
};

// struct NAME { FIELD: T; … }  (LANGUAGE.md §9)
struct field_decl : tagged {
  identifier name;
  type_name type;
};
struct struct_decl : tagged {
  identifier name;
  list<field_decl> fields;
};

struct declaration
    : x3::variant<include_decl, import_decl, kernel_decl, host_decl, library_decl, graph_decl, const_decl, struct_decl> {
  using base_type::base_type;
  using base_type::operator=;
};

struct file : tagged {
  list<declaration> declarations;
};

}  // namespace cgraph::dsl::ast

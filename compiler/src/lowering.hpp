#pragma once
// Internal interfaces of the checker/lowering (AST → IR).

#include "scope.hpp"

#include <cgraph/compiler/compile.hpp>
#include <cgraph/dsl/ast.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>

namespace cgraph::compiler::detail {

namespace ast = dsl::ast;

// An expression that already failed: operations on it report nothing more.
inline constexpr std::uint32_t bad_expr = ir::none - 1;

inline source_range range_of(const ast::tagged& node) { return {node.begin, node.end}; }

// What a top-level name was declared as.
struct global_symbol {
  enum class kind : std::uint8_t { kernel, host, library, graph, constant, structure };
  kind k = kind::kernel;
  std::uint32_t index = 0;
  source_range range;
  mutable bool used = false;  // structure: named by a type or a literal (for the unused warning)
};
using global_table = std::unordered_map<std::string_view, global_symbol>;

std::string_view describe(global_symbol::kind k);  // "a kernel", "a host callback", …

// The top-level names of one kind, as a lazy view for dsl::closest (nothing gathered).
inline auto names_of(const global_table& globals, global_symbol::kind k) {
  return globals | cgraph::detail::views::filter([k](const auto& entry) { return entry.second.k == k; }) |
         cgraph::detail::views::keys;
}

// A struct's field names, as a lazy view for dsl::closest.
inline auto field_names(const ir::structure& st) { return st.fields | cgraph::detail::views::transform(&ir::field::name); }

// The IR type a written type names, or nullopt after reporting why it is not one. A struct's
// name needs its layout done (program::structs).
std::optional<ir::type> resolve_type(const ast::type_name& t, diagnostics& diags, const global_table& globals,
                                     std::span<const ir::structure> structs);
// The type of a kernel's, host callback's or called graph's parameter whose written type is an
// error (reported at the declaration): nothing is declared with the type of `null`, so an
// argument for it is refused without a second message (expr_lowering::convert).
inline constexpr ir::type unresolved_parameter_type = ir::type::null();

// How an expression's type reads in messages: "integer", "float", "bool", "'f32*'", "cond",
// "'Params'".
std::string describe_value_type(ir::type t, std::span<const ir::structure> structs = {});

// Lays out the `struct` declarations into program.structs (by their global index): fields
// resolved in C's layout, a struct that contains itself reported.
void lower_structs(const std::vector<const ast::struct_decl*>& decls, const global_table& globals,
                   ir::program& program, diagnostics& diags);

// What a converted value is used for ("argument 2 ('x') of kernel 'k'"), formatted only when
// a message needs it: building that text for every argument would cost more than the rest of
// the conversion.
class use_description {
public:
  use_description(const char* text) : text_(text) {}  // NOLINT: implicit on purpose
  template <typename F, typename = std::enable_if_t<std::is_invocable_r_v<std::string, const F&>>>
  use_description(const F& make)  // NOLINT: implicit on purpose
      : context_(&make), make_([](const void* c) { return (*static_cast<const F*>(c))(); }) {}

  std::string str() const { return make_ ? make_(context_) : std::string(text_); }

private:
  const char* text_ = "";
  const void* context_ = nullptr;
  std::string (*make_)(const void*) = nullptr;
};

class constant_table;

// A struct constant's literal, lowered once (constant_table::literal): make_struct and constant
// expressions only, each after those it holds (the last is the literal), their `a` and their
// fields' `expr` indexing these lists. Lowering the literal again at every use lowered each
// struct constant it reads again: a chain of 20, each reading two fields of the one before,
// took 1.2 s, and 22 took 4.4 s.
struct constant_literal {
  std::vector<ir::expr> exprs;
  std::vector<ir::argument> fields;
};

// Lowers expressions into a graph's pool: resolves names, checks types, folds constants.
class expr_lowering {
public:
  expr_lowering(ir::graph& g, diagnostics& diags, const scope_stack& scope, const global_table& globals,
                std::span<const ir::structure> structs, const compile_limits& limits, constant_table* constants = nullptr)
      : graph_(g), diags_(diags), scope_(scope), globals_(globals), structs_(structs), limits_(limits),
        constants_(constants) {}

  std::uint32_t lower(const ast::expression& e);
  std::uint32_t constant(ir::value v, ir::type t, source_range range);
  // `lhs o rhs`, type-checked (an error at op_range) and folded when both are constants.
  std::uint32_t binary(dsl::binary_op o, std::uint32_t lhs, std::uint32_t rhs, source_range op_range);
  // Appends e, folding it when its operands are constants; reports folding errors.
  std::uint32_t add(ir::expr e);
  // Appends e as it is; returns its index.
  std::uint32_t push(const ir::expr& e);
  // A struct constant's lowered literal, added to the pool as lowering the literal here would
  // add it; its index.
  std::uint32_t paste(const constant_literal& literal);
  // e's index: an equal expression's already in the pool where sharing one is sound (see
  // shared), else e appended.
  std::uint32_t intern(const ir::expr& e);

  // While one lives, the expressions lowered share nothing with others but constants: a
  // parameter's default, a let's or a cond's value may be evaluated where no node reads it, so
  // a node's equal expression must not take its source range (see shared).
  class unshared {
  public:
    explicit unshared(expr_lowering& x) : x_(x) { ++x_.unshared_; }
    ~unshared() { --x_.unshared_; }
    unshared(const unshared&) = delete;
    unshared& operator=(const unshared&) = delete;

  private:
    expr_lowering& x_;
  };

  // Converts expression `e` for a use of type `target` ("argument 2 ('x') of kernel 'k'"):
  // a type that can never convert is an error now; a constant is range-checked now; anything
  // else is checked when the graph is built.
  ir::argument convert(std::uint32_t e, ir::type target, ir::check c, source_range range, const use_description& what);

  std::optional<std::int64_t> constant_integer(std::uint32_t e) const;
  const ir::expr& at(std::uint32_t e) const { return graph_.exprs[e]; }
  std::uint32_t lower_identifier(const ast::identifier& id);
  // An allocation that expression e reads (through any operand) and that is freed by now, or
  // ir::none: a `let` that reads one is used after it is freed.
  std::uint32_t freed_allocation_read(std::uint32_t e);
  // Whether e reads allocation `allocation` (graph::allocation_reads' bits stand for several
  // allocations past 64).
  bool reads_allocation_exactly(std::uint32_t e, std::uint32_t allocation) const;

private:
  std::uint32_t lower_unary(const ast::unary& u);
  std::uint32_t lower_operand(const ast::operand& o);
  std::uint32_t lower_call(const ast::function_call& call);
  std::uint32_t lower_struct_literal(const ast::struct_literal& lit);
  std::uint32_t choose(std::uint32_t condition, const ast::choice& c);  // `condition ? A : B`
  std::uint32_t to_float(std::uint32_t e);    // an integer promoted to a float
  std::uint32_t to_integer(std::uint32_t e);  // a bool as 0 or 1 (anything else unchanged)
  std::uint32_t converted(std::uint32_t e, ir::op o, ir::type result);

  // While one lives, folding errors are not reported but left to evaluation: the operands of
  // `&&`, `||` and `? :` that may never be evaluated.
  class deferral {
  public:
    deferral(expr_lowering& x, int depth) : x_(x), depth_(depth) { x_.deferring_ += depth_; }
    ~deferral() { x_.deferring_ -= depth_; }
    deferral(const deferral&) = delete;
    deferral& operator=(const deferral&) = delete;

  private:
    expr_lowering& x_;
    int depth_;
  };
  int deferring_ = 0;
  int unshared_ = 0;
  std::uint32_t lower_field(std::uint32_t e, const ast::identifier& name);
  // Field `f` of struct literal `literal`: the expression written for it.
  std::uint32_t literal_field(const ir::expr& literal, std::uint32_t f) const { return graph_.struct_fields[literal.a + f].expr; }

  ir::graph& graph_;
  diagnostics& diags_;
  const scope_stack& scope_;
  const global_table& globals_;
  std::span<const ir::structure> structs_;
  const compile_limits& limits_;
  constant_table* constants_;

  // Each expression once in the pool: `256`, `1` and `0.5` are written at every launch, and
  // `ceil_div(n, 256)` or `x + 16` at many. frontend_bench's 200 000-node graph held 475 013
  // expressions, 150 016 with constants shared and 25 021 now (issue 17), and a build evaluates
  // every one. An expression's range names its
  // first occurrence, which is also the first a build reads, so what an evaluation failure
  // reports does not change:
  // - a constant never fails, and its range is read by nothing (an argument keeps its own)
  //   except by converted(), whose fold fails only for an integer above INT64_MAX: those, a
  //   struct and a failure are not shared;
  // - an expression is not shared while folding errors are deferred (intern), so one that may
  //   never be evaluated (a branch of `?:`, an operand right of `&&`) is not the one a later
  //   occurrence reads; nor in a parameter's default, a let's or a cond's value (unshared),
  //   which no node may read;
  // - a parameter, a let and a struct literal are made once, or each their own.
  // An open-addressing table of pool indices, compared against the pool: std::unordered_map
  // cost 100 instructions more a constant.
  std::uint32_t shared(const ir::expr& e);
  void grow_shared_slots();
  std::vector<std::uint32_t> shared_slots_;  // pool indices, ir::none where empty
  std::size_t shared_count_ = 0;
};

// The top-level `const NAME = EXPR;` declarations (LANGUAGE.md §10): each evaluated once, in
// declaration order before any graph (evaluate_all) or on its first use before that (they may
// use one another in any order; a cycle is an error), folded wherever they are used, so nothing
// of them reaches the IR.
class constant_table {
public:
  constant_table(const global_table& globals, const std::vector<ir::structure>& structs, diagnostics& diags,
                 const compile_limits& limits)
      : globals_(globals), structs_(structs), diags_(diags), limits_(limits) {}

  // Registered in declaration order; `index` of its global_symbol is its position.
  void add(const ast::const_decl& d) {
    entry e;
    e.decl = &d;
    entries_.push_back(e);
  }
  // The value and type of constant `index`, evaluating it first; nullopt once reported why not.
  // A struct constant's value is meaningless: paste its literal (`literal`) where it is used.
  std::optional<std::pair<ir::value, ir::type>> resolve(std::uint32_t index, source_range use);
  const constant_literal& literal(std::uint32_t index) const { return entries_[index].literal; }
  // Evaluates every constant in declaration order (so each error is reported once, used or
  // not): a constant then finds the ones declared before it evaluated, and a chain of any length
  // written in order recurses no deeper than one. Before the graphs are lowered.
  void evaluate_all() {
    for (std::uint32_t i = 0; i < entries_.size(); ++i) resolve(i, {});
  }
  // Warns about the constants never used (§13 rule 10) declared before offset `warn_before`.
  void warn_unused(std::uint32_t warn_before = ~0u);

private:
  struct entry {
    const ast::const_decl* decl = nullptr;
    enum class state : std::uint8_t { pending, evaluating, done, failed } s = state::pending;
    ir::value value;
    ir::type type;
    bool used = false;
    constant_literal literal;  // a struct constant's
  };
  // Copies scratch's struct literal `x` (and what it holds) into `out`; its index there.
  static std::uint32_t keep_literal(const ir::graph& scratch, std::uint32_t x, constant_literal& out);
  const global_table& globals_;
  const std::vector<ir::structure>& structs_;
  diagnostics& diags_;
  const compile_limits& limits_;
  std::vector<entry> entries_;
  // Constants being evaluated now, each inside the one before: one that uses a constant
  // declared after it evaluates that one first, recursively, so a chain of those is capped at
  // limits_.max_nesting (20 000 of them overflowed the stack).
  std::size_t depth_ = 0;
};

}  // namespace cgraph::compiler::detail

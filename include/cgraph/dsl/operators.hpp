#pragma once
// The one table of the language's binary operators and built-in functions. The tokenizer,
// `fmt`, precedence climbing, the IR's `op` enum, the IR printer, evaluation, the value
// emitter and the generated-code helpers (cgraph/runtime/generated.hpp) all read it, so an
// operator is added here once.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

// X(name, spelling, precedence, operands)
//   name        the enumerator, and the function generated C++ calls (cg::add, cg::shl, …)
//   spelling    how it is written: an infix token, or a function's name
//   precedence  C's binding strength for an infix operator (higher binds tighter, all
//               left-associative); 0 for a function, written name(a, b)
//   operands    numeric (integers and floats), integer (integers only), compare (numbers,
//               and for == and != also two bools or two pointers; the result is a bool) or
//               logic (bools or integers, short-circuit; the result is a bool)
#define CGRAPH_OPERATORS(X)      \
  X(add, "+", 9, numeric)        \
  X(sub, "-", 9, numeric)        \
  X(mul, "*", 10, numeric)       \
  X(div, "/", 10, numeric)       \
  X(mod, "%", 10, integer)       \
  X(shl, "<<", 8, integer)       \
  X(shr, ">>", 8, integer)       \
  X(bit_and, "&", 5, integer)    \
  X(bit_or, "|", 3, integer)     \
  X(bit_xor, "^", 4, integer)    \
  X(min, "min", 0, numeric)      \
  X(max, "max", 0, numeric)      \
  X(ceil_div, "ceil_div", 0, integer) \
  X(eq, "==", 6, compare)        \
  X(ne, "!=", 6, compare)        \
  X(lt, "<", 7, compare)         \
  X(le, "<=", 7, compare)        \
  X(gt, ">", 7, compare)         \
  X(ge, ">=", 7, compare)        \
  X(logical_and, "&&", 2, logic) \
  X(logical_or, "||", 1, logic)

namespace cgraph::dsl {

// `C ? A : B` binds looser than every row (and groups to the right); unary `-` and `!` tighter.
inline constexpr int ternary_precedence = 0;
inline constexpr int unary_precedence = 11;


enum class binary_op : std::uint8_t {
#define CGRAPH_OPERATOR_ENUM(name, spelling, precedence, operands) name,
  CGRAPH_OPERATORS(CGRAPH_OPERATOR_ENUM)
#undef CGRAPH_OPERATOR_ENUM
};

enum class operand_kind : std::uint8_t { numeric, integer, compare, logic };

struct operator_info {
  binary_op op;
  std::string_view name;
  std::string_view spelling;
  int precedence;     // 0 for a function
  operand_kind operands;

  constexpr bool is_function() const { return precedence == 0; }
  constexpr bool integer_only() const { return operands == operand_kind::integer; }
  constexpr bool gives_bool() const { return operands == operand_kind::compare || operands == operand_kind::logic; }
};

inline constexpr std::array operators = {
#define CGRAPH_OPERATOR_ROW(name, spelling, precedence, operands) \
  operator_info{binary_op::name, #name, spelling, precedence, operand_kind::operands},
    CGRAPH_OPERATORS(CGRAPH_OPERATOR_ROW)
#undef CGRAPH_OPERATOR_ROW
};

constexpr const operator_info& info(binary_op o) { return operators[static_cast<std::size_t>(o)]; }

// The function called `name` (min, max, ceil_div), if there is one.
constexpr std::optional<binary_op> find_function(std::string_view name) {
  for (const auto& o : operators)
    if (o.is_function() && o.spelling == name) return o.op;
  return std::nullopt;
}

// The infix operator at the start of `text`, longest spelling first. A spelling of two or more
// characters followed by its own last character is not that operator, nor is a `<` or `>`
// followed by itself: `<<<` and `>>>` delimit a launch configuration. Returns nothing where no
// operator starts.
constexpr std::optional<binary_op> match_infix(std::string_view text) {
  std::optional<binary_op> best;
  std::size_t best_length = 0;
  for (const auto& o : operators) {
    std::string_view s = o.spelling;
    // The first byte first: most operators differ there, and starts_with calls memcmp.
    if (o.is_function() || s.size() <= best_length || text.empty() || s[0] != text[0] || !text.starts_with(s)) continue;
    const bool angle = s.back() == '<' || s.back() == '>';
    if ((s.size() > 1 || angle) && text.size() > s.size() && text[s.size()] == s.back()) continue;
    best = o.op;
    best_length = s.size();
  }
  return best;
}

// Whether a byte can begin an infix operator: one lookup rejects most places where none stands.
inline constexpr std::array<bool, 256> infix_start = [] {
  std::array<bool, 256> out{};
  for (const auto& o : operators)
    if (!o.is_function()) out[static_cast<unsigned char>(o.spelling.front())] = true;
  return out;
}();

constexpr bool may_start_infix(char c) { return infix_start[static_cast<unsigned char>(c)]; }

}  // namespace cgraph::dsl

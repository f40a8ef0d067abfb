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
//   operands    numeric (integers and floats) or integer (integers only)
#define CGRAPH_OPERATORS(X)   \
  X(add, "+", 5, numeric)     \
  X(sub, "-", 5, numeric)     \
  X(mul, "*", 6, numeric)     \
  X(div, "/", 6, numeric)     \
  X(mod, "%", 6, integer)     \
  X(shl, "<<", 4, integer)    \
  X(shr, ">>", 4, integer)    \
  X(bit_and, "&", 3, integer) \
  X(bit_or, "|", 1, integer)  \
  X(bit_xor, "^", 2, integer) \
  X(min, "min", 0, numeric)   \
  X(max, "max", 0, numeric)   \
  X(ceil_div, "ceil_div", 0, integer)

namespace cgraph::dsl {

enum class binary_op : std::uint8_t {
#define CGRAPH_OPERATOR_ENUM(name, spelling, precedence, operands) name,
  CGRAPH_OPERATORS(CGRAPH_OPERATOR_ENUM)
#undef CGRAPH_OPERATOR_ENUM
};

struct operator_info {
  binary_op op;
  std::string_view name;
  std::string_view spelling;
  int precedence;     // 0 for a function
  bool integer_only;

  constexpr bool is_function() const { return precedence == 0; }
};

inline constexpr std::array operators = {
#define CGRAPH_OPERATOR_ROW(name, spelling, precedence, operands) \
  operator_info{binary_op::name, #name, spelling, precedence, std::string_view(#operands) == "integer"},
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
// characters followed by its own last character is not that operator: `<<<` and `>>>` delimit
// a launch configuration. Returns nothing where no operator starts.
constexpr std::optional<binary_op> match_infix(std::string_view text) {
  std::optional<binary_op> best;
  std::size_t best_length = 0;
  for (const auto& o : operators) {
    std::string_view s = o.spelling;
    if (o.is_function() || s.size() <= best_length || !text.starts_with(s)) continue;
    if (s.size() > 1 && text.size() > s.size() && text[s.size()] == s.back()) continue;
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

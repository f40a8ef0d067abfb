#include <cgraph/dsl/ast_arena.hpp>

namespace cgraph::dsl::ast {

arena*& arena::current() noexcept {
  thread_local arena* a = nullptr;
  return a;
}

}  // namespace cgraph::dsl::ast

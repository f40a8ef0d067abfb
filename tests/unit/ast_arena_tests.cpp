// The syntax tree's list memory (dsl/internal/cgraph/dsl/ast_arena.hpp): lists made while an
// arena is current come from it and are reused by size; without one they use the heap; a list
// may be freed anywhere.

#include "support.hpp"

#include <cgraph/compiler/printers.hpp>
#include <cgraph/dsl/ast_arena.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

using namespace cgraph;
using dsl::ast::arena;
using dsl::ast::list;

TEST_CASE("ast_arena: no arena is current unless one is used, and use() restores the one before") {
  CHECK(arena::current() == nullptr);
  arena outer, inner;
  {
    const arena::use a(outer);
    CHECK(arena::current() == &outer);
    {
      const arena::use b(inner);
      CHECK(arena::current() == &inner);
    }
    CHECK(arena::current() == &outer);
  }
  CHECK(arena::current() == nullptr);
}

TEST_CASE("ast_arena: a freed block is handed out again for a list of its size") {
  arena a;
  const arena::use using_it(a);
  const int* first = nullptr;
  {
    list<int> xs{1, 2, 3};
    first = xs.data();
    CHECK(reinterpret_cast<std::uintptr_t>(first) % 16 == 0);
  }
  list<int> ys{4, 5, 6};
  CHECK(ys.data() == first);  // the same size: the block the first list gave back
  CHECK(ys == list<int>{4, 5, 6});
}

TEST_CASE("ast_arena: lists keep their elements as they grow, move and outlive the arena's use") {
  arena a;
  list<std::string> kept;
  {
    const arena::use using_it(a);
    list<std::string> xs;
    for (int i = 0; i < 1000; ++i) xs.push_back("name" + std::to_string(i) + std::string(20, 'x'));  // heap strings
    list<std::string> moved = std::move(xs);
    CHECK(moved.size() == 1000);
    CHECK(moved[999] == "name999" + std::string(20, 'x'));
    kept = std::move(moved);  // a large list: its last block came from the heap
    list<int> small{1, 2};
    kept.push_back(std::to_string(small.back()));
  }
  // Freed with no arena current: the arena's blocks are left for it, the heap's go back.
  CHECK(kept.size() == 1001);
  CHECK(kept.back() == "2");
  kept.clear();
  kept.shrink_to_fit();
}

TEST_CASE("ast_arena: without an arena, lists use the heap") {
  list<double> xs(100, 1.5);
  list<double> ys = xs;
  CHECK(ys.size() == 100);
  CHECK(ys[99] == 1.5);
}

TEST_CASE("ast_arena: compiles one after another on a thread give the same IR and diagnostics") {
  // Each compile() makes an arena for its tree and drops it; the golden files (written before
  // the arena) check the IR against a tree on the heap. Here: nothing of one compile's arena
  // leaks into the next.
  const std::string text = test::in_graph(
      "let b = ceil_div(n, 256); l: k<<<b, 256>>>(x, n); parallel { k<<<b, 256>>>(x, n - 1); { memset(x, 0, n); } } "
      "k<<<(b, 2), (64, 4)>>>(x, n) after l; cond c = 1; while c { step<<<1, 1>>>(x, c); }");
  auto first = test::compile_text(text);
  auto second = test::compile_text(text);
  REQUIRE_MESSAGE(first.ok(), first.errors());
  CHECK(print_ir(first.program(), first.source) == print_ir(second.program(), second.source));
  auto bad = test::compile_text(test::in_graph("k<<<1, 1>>>(x, n) after nowhere; k<<<1, >>>(x);"));
  CHECK_FALSE(bad.ok());
  CHECK(bad.errors() == test::compile_text(test::in_graph("k<<<1, 1>>>(x, n) after nowhere; k<<<1, >>>(x);")).errors());
}

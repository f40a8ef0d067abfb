// body_sinks (compiler/src/body_sinks.hpp): the sinks of a body from a node on, which every
// `free` and `repeat` counter waits for, read from one index against the rule itself: the nodes
// from `first` on that no node from `first` on depends on.

#include "../../compiler/src/body_sinks.hpp"
#include "support.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <random>
#include <utility>

namespace {

using cgraph::compiler::detail::body_sinks;
using namespace cgraph;

// The rule, as written: one pass over the body from `first` for each query.
std::vector<std::uint32_t> sinks_by_rule(const ir::graph& g, const ir::body& b, std::uint32_t first) {
  std::vector<bool> has_dependent(b.nodes.size(), false);
  for (std::uint32_t j = first; j < b.nodes.size(); ++j)
    for (auto d : g.deps(b.nodes[j])) has_dependent[d] = true;
  std::vector<std::uint32_t> out;
  for (std::uint32_t j = first; j < b.nodes.size(); ++j)
    if (!has_dependent[j]) out.push_back(j);
  return out;
}

// Every query from every base the index may start at, against the rule. Returns how many
// queries had a sink that a node before `first` depends on (the case the index exists for).
int check_every_first(const ir::graph& g, const ir::body& b) {
  std::vector<std::uint32_t> got{99};  // `from` clears what it is given
  int forward = 0;
  for (std::uint32_t base = 0; base <= b.nodes.size(); ++base) {
    const body_sinks index(g, b, base);
    for (std::uint32_t first = base; first <= b.nodes.size(); ++first) {
      index.from(first, got);
      const auto want = sinks_by_rule(g, b, first);
      INFO("base = " << base << ", first = " << first);
      CHECK(got == want);
      for (auto j : want)
        for (std::uint32_t k = 0; k < first; ++k)
          for (auto d : g.deps(b.nodes[k])) forward += d == j;
    }
  }
  return forward;
}

}  // namespace

TEST_CASE("body_sinks.matches_the_rule_from_every_node") {
  // A `parallel` whose branches wait for later labels, so some node has a dependent before it.
  std::mt19937 random(17);
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 2 + trial * 3;
    std::string body = "parallel {\n";
    for (int i = 0; i < n; ++i) {
      body += fmt::format("  n{}: k<<<1, 1>>>(x, n)", i);
      // Only later labels: the edges stay acyclic.
      const char* sep = " after ";
      for (int j = i + 1; j < n; ++j)
        if (random() % 4 == 0) body += fmt::format("{}n{}", std::exchange(sep, ", "), j);
      body += ";\n";
    }
    body += "}\n";  // nothing after it: a statement there would wait for every branch
    auto c = test::compile_text(test::in_graph(body));
    INFO(body);
    REQUIRE_MESSAGE(c.ok(), c.errors());
    const ir::graph& g = c.graph();
    const ir::body& b = g.root;
    REQUIRE(b.nodes.size() == static_cast<std::size_t>(n));
    const int forward = check_every_first(g, b);
    if (trial >= 3) CHECK(forward > 0);  // the trials are not all plain sequences
  }
}

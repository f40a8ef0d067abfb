// graph_state's deferred reads (graph_state.hpp, defer_reads) against the fake CUDA runtime: a
// capture hands over the nodes of all its graphs at once, interleaved as they were made, and
// each graph's handles are read in one cudaGraphGetNodes and matched to its own steps in order.

#include "testing.hpp"

#include <cgraph/runtime.hpp>
#include <cgraph/runtime/backend/graph_state.hpp>

#include <doctest/doctest.h>

#include <vector>

namespace {

using cgraph::backend::graph_handle;
using cgraph::backend::graph_state;
using made_node = graph_state::made_node;

cudaGraph_t new_graph() {
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  return g;
}

cudaGraphNode_t add_node(cudaGraph_t graph) {
  cudaGraphNode_t n = nullptr;
  REQUIRE(cudaGraphAddMemsetNode(&n, graph, nullptr, 0, nullptr) == cudaSuccess);
  return n;
}

made_node made_in(std::uint32_t step, std::uint32_t graph, bool known) {
  return {step, made_node::tag_of(graph) | (known ? 1u : 0u)};
}

// A root and two bodies, whose nodes are made in the order of `made` (each step in its graph);
// `made_nodes` gets each step's node as made, and the state knows only the steps marked known.
struct three_graphs {
  graph_state g{6, 2, 0};
  std::vector<cudaGraphNode_t> made_nodes = std::vector<cudaGraphNode_t>(6, nullptr);
  std::vector<made_node> made = {made_in(0, 0, false), made_in(1, 1, false), made_in(2, 2, true),
                                 made_in(3, 0, false), made_in(4, 1, true), made_in(5, 2, false)};

  three_graphs() {
    g.graph = graph_handle::adopt(new_graph());
    for (cudaGraph_t& b : g.bodies) b = new_graph();
    for (const made_node& m : made) {
      made_nodes[m.step] = add_node(g.graph_numbered(m.graph()));
      if (m.known()) g.nodes[m.step] = made_nodes[m.step];
    }
  }
  ~three_graphs() {
    for (cudaGraph_t b : g.bodies) cudaGraphDestroy(b);
  }
};

}  // namespace

TEST_CASE("fake_runtime.deferred_reads_give_each_graph_its_own_nodes_in_the_order_made") {
  three_graphs t;
  t.g.defer_reads(t.made);
  CHECK(t.g.nodes[0] == nullptr);  // not read until asked for
  cgraph::testing::fail_cuda_call_at(-1);
  t.g.resolve_nodes();
  CHECK(cgraph::testing::cuda_calls_made() == 3);  // one read a graph
  for (std::uint32_t s = 0; s < 6; ++s) {
    CAPTURE(s);
    CHECK(t.g.nodes[s] == t.made_nodes[s]);
  }
  t.g.resolve_nodes();
  CHECK(cgraph::testing::cuda_calls_made() == 3);  // read once
}

TEST_CASE("fake_runtime.deferred_reads_skip_a_graph_whose_nodes_are_all_known") {
  three_graphs t;
  t.made[5].tag |= 1;  // body 1: steps 2 and 5, both known
  t.g.nodes[5] = t.made_nodes[5];
  t.g.defer_reads(t.made);
  cgraph::testing::fail_cuda_call_at(-1);
  t.g.resolve_nodes();
  CHECK(cgraph::testing::cuda_calls_made() == 2);
  for (std::uint32_t s = 0; s < 6; ++s) CHECK(t.g.nodes[s] == t.made_nodes[s]);
}

TEST_CASE("fake_runtime.a_graph_whose_nodes_are_not_in_the_order_made_keeps_no_handles") {
  three_graphs t;
  t.g.nodes[4] = t.made_nodes[1];  // body 0 lists step 1's node where the state knows step 4's
  add_node(t.g.bodies[1]);         // body 1 holds a node no step made
  t.g.defer_reads(t.made);
  t.g.resolve_nodes();
  CHECK(t.g.nodes[0] == t.made_nodes[0]);  // the root is as made
  CHECK(t.g.nodes[3] == t.made_nodes[3]);
  CHECK(t.g.nodes[1] == nullptr);  // body 0's node not known: no handle rather than a wrong one
  CHECK(t.g.nodes[5] == nullptr);  // body 1's count differs
}

TEST_CASE("fake_runtime.a_failed_read_leaves_the_graphs_not_read_for_the_next_need") {
  three_graphs t;
  t.g.defer_reads(t.made);
  cgraph::testing::fail_cuda_call_at(1);  // body 0's read
  CHECK_THROWS_AS(t.g.resolve_nodes(), cgraph::cuda_error);
  cgraph::testing::fail_cuda_call_at(-1);
  CHECK(t.g.nodes[0] == t.made_nodes[0]);  // the root was read
  CHECK(t.g.nodes[1] == nullptr);
  t.g.resolve_nodes();
  CHECK(cgraph::testing::cuda_calls_made() == 2);  // the two bodies, not the root again
  for (std::uint32_t s = 0; s < 6; ++s) CHECK(t.g.nodes[s] == t.made_nodes[s]);
}

TEST_CASE("fake_runtime.a_capture_that_knows_every_node_defers_nothing") {
  three_graphs t;
  for (made_node& m : t.made) {
    m.tag |= 1;
    t.g.nodes[m.step] = t.made_nodes[m.step];
  }
  t.g.defer_reads(t.made);
  cgraph::testing::fail_cuda_call_at(-1);
  t.g.resolve_nodes();
  CHECK(cgraph::testing::cuda_calls_made() == 0);
}

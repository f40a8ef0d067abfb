// The construction plans: explicit step order, and the capture plan's streams and events.

#include "support.hpp"

#include <cgraph/compiler/plan.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace cgraph;
using cgraph::test::compile_text;
using cgraph::test::in_graph;
using cgraph::test::node_deps;

namespace {
std::vector<std::uint32_t> deps_of(const plan::step& s) { return {s.deps.begin(), s.deps.end()}; }
}  // namespace

TEST_CASE("plan.explicit_steps_go_depth_first_into_bodies") {
  auto c = compile_text(in_graph("k<<<1, 1>>>(x, n); cond c = 1; while c { step<<<1, 1>>>(x, c); } k<<<1, 1>>>(x, n);"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  auto p = plan::lower_explicit(c.graph());
  REQUIRE(p.steps.size() == 4);
  CHECK(p.steps[1].node->kind == ir::node_kind::conditional);
  CHECK(p.steps[2].parent == plan::location{1, 0});  // the body's node follows its conditional
  CHECK(deps_of(p.steps[3]) == std::vector<std::uint32_t>{1});
  CHECK(p.cond_homes.at(0) == plan::location{});
}

TEST_CASE("plan.steps_view_their_dependencies_in_one_list_that_a_move_keeps") {
  auto c = compile_text(in_graph("a: k<<<1, 1>>>(x, n); b: k<<<1, 1>>>(x, n); k<<<1, 1>>>(x, n) after a, b; "
                                 "cond c = 1; while c { d: step<<<1, 1>>>(x, c); step<<<1, 1>>>(x, c) after d; }"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  auto built = plan::lower_explicit(c.graph());
  const plan::explicit_plan p = std::move(built);  // the views must follow the list
  REQUIRE(p.steps.size() == 6);
  // Root nodes 0-3 are steps 0-3 and the body's two nodes steps 4-5: each step's dependencies
  // are its node's, renumbered so.
  const auto& root = c.graph().root.nodes;
  for (std::uint32_t i = 0; i < 4; ++i) CHECK(deps_of(p.steps[i]) == node_deps(c.graph(), root[i]));
  REQUIRE(root[3].bodies_count == 1);
  const auto& body = c.graph().bodies(root[3])[0].nodes;
  for (std::uint32_t i = 0; i < 2; ++i) {
    std::vector<std::uint32_t> expected;
    for (auto d : node_deps(c.graph(), body[i])) expected.push_back(d + 4);
    CHECK(deps_of(p.steps[4 + i]) == expected);
  }
  CHECK(deps_of(p.steps[2]).size() == 2);  // `after a, b`
  std::size_t listed = 0;
  for (const auto& s : p.steps) {
    if (!s.deps.empty()) CHECK(s.deps.data() >= p.dep_steps.data());
    if (!s.deps.empty()) CHECK(s.deps.data() + s.deps.size() <= p.dep_steps.data() + p.dep_steps.size());
    listed += s.deps.size();
  }
  CHECK(listed == p.dep_steps.size());
}

TEST_CASE("plan.capture_uses_one_stream_for_a_chain") {
  auto c = compile_text(in_graph("k<<<1, 1>>>(x, n); k<<<1, 1>>>(x, n); memset(x, 0, n); k<<<1, 1>>>(x, n);"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  auto cap = plan::lower_capture(plan::lower_explicit(c.graph()));
  REQUIRE(cap.bodies.size() == 1);
  CHECK(cap.bodies[0].streams == 1);
  for (const auto& n : cap.bodies[0].nodes) {
    CHECK(n.waits.empty());
    CHECK_FALSE(n.record_event);
  }
}

TEST_CASE("plan.capture_uses_as_many_streams_as_the_fork_is_wide") {
  auto c = compile_text(in_graph(
      "k<<<1, 1>>>(x, n);\n"
      "parallel { k<<<1, 1>>>(x, n); k<<<1, 1>>>(x, n); { k<<<1, 1>>>(x, n); k<<<1, 1>>>(x, n); } k<<<1, 1>>>(x, n); }\n"
      "k<<<1, 1>>>(x, n);"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  auto cap = plan::lower_capture(plan::lower_explicit(c.graph()));
  const auto& body = cap.bodies[0];
  CHECK(body.streams == 4);
  // The join node continues one branch's stream and waits for the other three branches.
  const auto& join = body.nodes.back();
  CHECK(join.waits.size() == 3);
  CHECK(body.joins.empty());  // every stream ended in the join: nothing left to join at the end
}

TEST_CASE("plan.capture_orders_forward_after_edges_topologically") {
  auto c = compile_text(in_graph("parallel { a: k<<<1, 1>>>(x, n) after b; b: k<<<1, 1>>>(x, n); }"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  auto steps = plan::lower_explicit(c.graph());
  // CUDA needs a node's dependencies to exist when it is added: b is created first.
  REQUIRE(steps.steps.size() == 2);
  CHECK(c.graph().label_of(*steps.steps[0].node) == "b");
  CHECK(deps_of(steps.steps[1]) == std::vector<std::uint32_t>{0});
  auto cap = plan::lower_capture(steps);
  const auto& nodes = cap.bodies[0].nodes;
  REQUIRE(nodes.size() == 2);
  CHECK(c.graph().label_of(*steps.steps[nodes[0].step].node) == "b");
  CHECK(cap.bodies[0].streams == 1);  // a continues b's stream: that edge is real
}

TEST_CASE("plan.forward_after_edges_order_the_steps_lowest_index_first") {
  // a waits for the later d, c for a: lowest ready index first gives b, d, a, c.
  auto c = compile_text(in_graph("parallel { a: k<<<1, 1>>>(x, n) after d; b: k<<<1, 1>>>(x, n); "
                                 "c: k<<<1, 1>>>(x, n) after a; d: k<<<1, 1>>>(x, n); }"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  auto steps = plan::lower_explicit(c.graph());
  REQUIRE(steps.steps.size() == 4);
  std::string order;
  for (const auto& s : steps.steps) order += c.graph().label_of(*s.node);
  CHECK(order == "bdac");
  CHECK(deps_of(steps.steps[2]) == std::vector<std::uint32_t>{1});  // a after d, d is step 1
  CHECK(deps_of(steps.steps[3]) == std::vector<std::uint32_t>{2});  // c after a
}

TEST_CASE("plan.capture_gives_each_conditional_body_its_own_plan") {
  auto c = compile_text(in_graph("cond s = 1; switch s { case 0 { k<<<1, 1>>>(x, n); } case 2 { parallel { k<<<1, 1>>>(x, n); k<<<1, 1>>>(x, n); } } }"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  auto cap = plan::lower_capture(plan::lower_explicit(c.graph()));
  REQUIRE(cap.bodies.size() == 4);  // root and three bodies (case 1 empty)
  const auto& sw = cap.bodies[0].nodes.at(0);
  REQUIRE(sw.bodies.size() == 3);
  CHECK(cap.bodies[sw.bodies[1]].nodes.empty());
  CHECK(cap.bodies[sw.bodies[2]].streams == 2);
  CHECK(cap.bodies[sw.bodies[2]].joins.size() == 1);
}

TEST_CASE("plan.capture_plans_each_body_as_if_it_were_alone") {
  // The planner shares its per-step tables between bodies, each reading only its own steps'
  // entries: two equal bodies, with a nested one planned between them, get equal plans.
  const std::string body = "parallel { k<<<1, 1>>>(x, n); k<<<1, 1>>>(x, n); k<<<1, 1>>>(x, n); } k<<<1, 1>>>(x, n); ";
  auto c = compile_text(in_graph("cond a = 1; cond b = 1;\n"
                                 "if a { " + body + "cond w = 0; while w { parallel { k<<<1, 1>>>(x, n); k<<<1, 1>>>(x, n); } } }\n"
                                 "if b { " + body + "cond v = 0; while v { parallel { k<<<1, 1>>>(x, n); k<<<1, 1>>>(x, n); } } }"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  auto steps = plan::lower_explicit(c.graph());
  auto cap = plan::lower_capture(steps);
  const auto& root = cap.bodies[0];
  REQUIRE(root.nodes.size() == 2);
  const plan::capture_body& first = cap.bodies.at(root.nodes[0].bodies.at(0));
  const plan::capture_body& second = cap.bodies.at(root.nodes[1].bodies.at(0));
  CHECK(first.streams == 3);
  REQUIRE(first.nodes.size() == second.nodes.size());
  CHECK(second.streams == first.streams);
  CHECK(second.joins.size() == first.joins.size());
  for (std::size_t i = 0; i < first.nodes.size(); ++i) {
    CHECK(second.nodes[i].stream == first.nodes[i].stream);
    CHECK(second.nodes[i].waits.size() == first.nodes[i].waits.size());
    CHECK(second.nodes[i].record_event == first.nodes[i].record_event);
  }
  // The loops inside them: two streams each, the second branch joined at the end.
  for (const auto* outer : {&first, &second}) {
    const plan::capture_body& loop = cap.bodies.at(outer->nodes.back().bodies.at(0));
    CHECK(loop.streams == 2);
    CHECK(loop.joins.size() == 1);
  }
}

TEST_CASE("plan.capture_gives_a_wide_fork_one_stream_a_branch") {
  std::string branches;
  for (int i = 0; i < 200; ++i) branches += "k<<<1, 1>>>(x, n); ";
  auto c = compile_text(in_graph("k<<<1, 1>>>(x, n); parallel { " + branches + "} k<<<1, 1>>>(x, n);"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  auto cap = plan::lower_capture(plan::lower_explicit(c.graph()));
  const auto& body = cap.bodies[0];
  CHECK(body.streams == 200);
  for (std::size_t i = 1; i <= 200; ++i) CHECK(body.nodes[i].stream == i - 1);  // the first continues the root's
  CHECK(body.nodes.back().waits.size() == 199);
  CHECK(body.joins.empty());
}

TEST_CASE("lowering.a_body_reserves_exactly_the_nodes_its_block_makes") {
  // Parallel branches, nested blocks and `on device` blocks make nodes of the same body; a
  // `let` and a `cond` make none. The body's vector is reserved with the count, so it never
  // regrows (which doubled it: a 200 000-node file peaked 7% higher). A graph's root body is
  // lowered as it is parsed, before its statements are known: it is reserved with the ';' and
  // '}' in it (15 here), a bound on its nodes unless it allocates; a conditional body, parsed
  // whole, with its count.
  auto c = compile_text(in_graph("let m = n * 2;\n"
                                 "k<<<1, 1>>>(x, m);\n"
                                 "parallel { k<<<1, 1>>>(x, n); { memset(x, 0, n); memcpy(x, x, n); } k<<<1, 1>>>(x, n); }\n"
                                 "cond c = 1;\n"
                                 "while c { step<<<1, 1>>>(x, c); k<<<1, 1>>>(x, n); }\n"
                                 "repeat 3 { k<<<1, 1>>>(x, n); }\n"
                                 "k<<<1, 1>>>(x, n);"));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const ir::body& root = c.graph().root;
  CHECK(root.nodes.size() == 9);  // k, 4 in the parallel block, while, repeat's start and loop, k
  CHECK(root.nodes.capacity() == 15);
  CHECK(c.graph().label_of(root.nodes[0]).empty());  // no label
  REQUIRE(root.nodes[5].bodies_count == 1);
  const ir::body& loop = c.graph().bodies(root.nodes[5])[0];
  CHECK(loop.nodes.size() == 2);
  CHECK(loop.nodes.capacity() == loop.nodes.size());
}

// Both strategies make the nodes in step order, which is what lets plan::launch_memory be asked
// step by step for a capture too.
TEST_CASE("plan.a_capture_makes_the_steps_in_plan_order") {
  const char* bodies[] = {
      "parallel { a: k<<<1, 1>>>(x, n) after d; b: k<<<1, 1>>>(x, n); c: k<<<1, 1>>>(x, n) after a; d: k<<<1, 1>>>(x, n); }",
      "cond s = 1; switch s { case 0 { k<<<1, 1>>>(x, n); } case 2 { parallel { k<<<1, 1>>>(x, n); k<<<2, 1>>>(x, n); } } } "
      "k<<<3, 1>>>(x, n);",
      "k<<<1, 1>>>(x, n); cond c = 1; while c { step<<<1, 1>>>(x, c); cond d = 1; if d { k<<<1, 1>>>(x, n); } else { repeat 2 { "
      "k<<<1, 1>>>(x, n); } } } parallel { k<<<1, 1>>>(x, n); memset(x, 0, n); }",
  };
  for (const char* body : bodies) {
    CAPTURE(body);
    auto c = compile_text(in_graph(body));
    REQUIRE_MESSAGE(c.ok(), c.errors());
    const auto steps = plan::lower_explicit(c.graph());
    const auto capture = plan::lower_capture(steps);
    std::vector<std::uint32_t> made;
    plan::walk_capture(steps, capture, [&](plan::capture_row_kind kind, std::uint32_t number, auto&&...) {
      if (kind == plan::capture_row_kind::node) made.push_back(number);
    });
    REQUIRE(made.size() == steps.steps.size());
    for (std::uint32_t i = 0; i < made.size(); ++i) CHECK(made[i] == i);
  }
}

TEST_CASE("plan.launch_memory_knows_a_launch_a_kernel_made_before") {
  auto c = compile_text("kernel k(p: f32*, n: i32);\nkernel h(p: f32*, n: i32);\ngraph g(x: f32*, n: i32) {\nlet b = n; "
                                 "k<<<n, 256>>>(x, 1); "            // 0: the first
                                 "k<<<n, 256>>>(x, 2); "            // 1: known
                                 "h<<<n, 256>>>(x, 0); "            // 2: another kernel
                                 "k<<<n, 128>>>(x, 3); "            // 3: another block
                                 "k<<<n + 1, 256>>>(x, 4); "        // 4: another grid expression
                                 "k<<<b, 256>>>(x, 5); "            // 5: a let is an expression of its own
                                 "k<<<n, 256, 64>>>(x, 6); "        // 6: shared bytes
                                 "k<<<(n, 1), (256, 1)>>>(x, 7); "  // 7: known, long after 1
                                 "[[device(0)]] k<<<n, 256>>>(x, 8); "    // 8: placed: never known
                                 "[[device(0)]] k<<<n, 512>>>(x, 9); "    // 9: placed, and gives nothing
                                 "k<<<n, 512>>>(x, 10); "           // 10: not known (9 was placed)
                                 "memset(x, 0, n); "                // 11: not a kernel
                                 "h<<<n, 256>>>(x, 0);\n}\n");     // 12: known (2)
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const auto steps = plan::lower_explicit(c.graph());
  REQUIRE(steps.steps.size() == 13);
  plan::launch_memory launches(c.graph());
  std::string known;
  for (const auto& s : steps.steps) known += launches.known(*s.node) ? 'y' : '-';
  CHECK(known == "-y-----y----y");
}

TEST_CASE("plan.launch_memory_keeps_every_launch_as_it_grows") {
  // More distinct launches than its first table holds, then each again: every one is known.
  std::string body;
  for (int i = 1; i <= 100; ++i) body += fmt::format("k<<<{}, 32>>>(x, n); ", i);
  for (int i = 1; i <= 100; ++i) body += fmt::format("k<<<{}, 32>>>(x, n); ", i);
  auto c = compile_text(in_graph(body));
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const auto steps = plan::lower_explicit(c.graph());
  REQUIRE(steps.steps.size() == 200);
  plan::launch_memory launches(c.graph());
  for (std::uint32_t i = 0; i < 200; ++i) {
    CAPTURE(i);
    CHECK(launches.known(*steps.steps[i].node) == (i >= 100));
  }
}

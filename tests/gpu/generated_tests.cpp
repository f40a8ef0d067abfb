// Generated C++ (cgraphc emit-cpp, built through cgraph_add_graphs): every example graph, in
// both modes, is isomorphic to the graph the run-time path builds from the same file; bad
// values fail with the run-time path's message and location; updates take the cheapest path.

#include "example_builds.hpp"
#include "gpu_support.hpp"
#include "isomorphism.hpp"
#include "kernels.cuh"

#include "testing.hpp"

#include <algorithm>
#include <filesystem>

#include "repeat_smooth.cgraph.hpp"

using namespace gpu_test;

namespace {

cgraph::registry example_registry(const cgraph::program& prog) {
  cgraph::registry reg;
  register_example_kernels(reg);
  for (const auto& h : prog.declarations().hosts) {
    if (h.params.size() == 1) reg.host(h.name, [](int) {});
    else reg.host(h.name, [](int, int) {});
  }
  return reg;
}

// The run-time graph of one example, bound as generated_example::build binds the generated one.
cgraph::graph run_time_graph(const generated_example& e, void* memory) {
  auto prog = cgraph::program::load((std::filesystem::path(CGRAPH_EXAMPLES_DIR) / e.file).string());
  const cgraph::program_info info = prog.declarations();
  const cgraph::declaration_info* g = info.find_graph(e.graph);
  REQUIRE(g);
  cgraph::args values;
  for (const auto& p : g->params)
    if (p.is_pointer()) values.emplace_back(p.name, memory);
    else if (!p.has_default) values.emplace_back(p.name, 1);
  return cgraph::graph::build(prog, e.graph, values, example_registry(prog));
}

}  // namespace

TEST_CASE("generated.every_example_matches_the_run_time_graph_in_both_modes") {
  buffer<float> memory(1 << 22);
  std::size_t compared = 0;
  for (auto* examples : {generated_examples_explicit, generated_examples_capture}) {
    for (const auto& e : examples()) {
      CAPTURE(e.file);
      CAPTURE(e.graph);
      auto expected = run_time_graph(e, memory.get());
      auto state = e.build(memory.get());
      std::string got = canonical(state->graph, [&](cudaGraphNode_t n) { return state->conditional_bodies(n); });
      CHECK(got == canonical(expected));
      ++compared;
    }
  }
  MESSAGE(compared, " generated example graphs compared with the run-time path");
  CHECK(compared == 18);
  CHECK(cgraph::testing::streams_left_capturing() == 0);
}

TEST_CASE("generated.a_bad_value_fails_as_on_the_run_time_path") {
  // n = 0 gives a grid of ceil_div(0, 256) = 0 blocks.
  namespace smooth = cgraph_generated::repeat_smooth::smooth_passes;
  buffer<float> a(16), b(16);
  std::string generated_message, run_time_message;
  try {
    smooth::build({.a = a.get(), .b = b.get(), .n = 0});
  } catch (const cgraph::build_error& e) {
    generated_message = e.what();
  }
  auto prog = cgraph::program::load((std::filesystem::path(CGRAPH_EXAMPLES_DIR) / "repeat_smooth.cgraph").string());
  try {
    cgraph::graph::build(prog, "smooth_passes", {{"a", a.get()}, {"b", b.get()}, {"n", 0}}, example_registry(prog));
  } catch (const cgraph::build_error& e) {
    run_time_message = e.what();
  }
  MESSAGE(generated_message);
  CHECK(generated_message.find("repeat_smooth.cgraph:10:") != std::string::npos);
  CHECK(generated_message.find("grid dimension x: value 0 is not positive") != std::string::npos);
  CHECK(generated_message == run_time_message);
}

TEST_CASE("generated.update_takes_the_cheapest_path") {
  namespace smooth = cgraph_generated::repeat_smooth::smooth_passes;
  buffer<float> a(1 << 16), b(1 << 16);
  smooth::parameters p{.a = a.get(), .b = b.get()};
  auto graph = smooth::build(p);
  auto exec = graph.instantiate();
  exec.launch(nullptr);

  auto r = smooth::update(exec, p);
  CHECK(r.path == cgraph::update_path::unchanged);
  p.passes = 3;  // the repeat counter's count: one node
  r = smooth::update(exec, p);
  CHECK(r.path == cgraph::update_path::node_params);
  CHECK(r.nodes_changed == 1);
  p.passes = 0;  // not positive: refused before anything changes
  CHECK_THROWS_AS(smooth::update(exec, p), cgraph::build_error);
  CHECK(exec.params().passes == 3);

  p.passes = 5;
  auto before = cgraph::testing::refuse_updates({true, false});
  r = smooth::update(exec, p);
  CHECK(r.path == cgraph::update_path::whole_graph);
  cgraph::testing::refuse_updates({true, true});
  p.n = 1 << 15;
  r = smooth::update(exec, p);
  CHECK(r.path == cgraph::update_path::reinstantiated);
  cgraph::testing::refuse_updates(before);
  exec.launch(nullptr);
  GPU_CHECK(cudaStreamSynchronize(nullptr));
}

TEST_CASE("generated.the_table_form_matches_the_run_time_graph_and_updates") {
  // table_chain.cgraph has 2 104 nodes: above the threshold, both modes write tables (the
  // capture walks them with capture_from_table). Its last kernel has 18 arguments, more than
  // the table's builder keeps inline. table_conditionals.cgraph has 1 054 nodes, 394 of them
  // conditionals (if, if/else, switch, two whiles, one of them with a kernel that takes its
  // cond, a repeat, and an if whose cond's initial value reads n) at the root, also tables in
  // both modes (the capture's bodies between their rows' enter and leave); a body run by
  // mistake adds 1000 * s to b, a loop run once too often s more.
  const int n = 1000;
  for (const table_graph& t : table_graphs()) {
    CAPTURE(t.graph);
    CAPTURE(t.mode);
    buffer<float> a(n), b(n);
    auto prog = cgraph::program::load((std::filesystem::path(CGRAPH_GPU_TESTS_DIR) / t.file).string());
    auto expected = cgraph::graph::build(prog, t.graph, {{"a", a.get()}, {"b", b.get()}, {"s", 1.0f}, {"n", n}}, kernels());
    auto state = t.build(a.get(), b.get(), 1.0f, n);
    CHECK(dynamic_cast<const cgraph::gen::table_state*>(state.get()) != nullptr);  // not the readable form
    CHECK(canonical(state->graph, [&](cudaGraphNode_t node) { return state->conditional_bodies(node); }) == canonical(expected));
    const bool chain = std::string_view(t.graph) == "table_chain";
    auto exec = t.make(a.get(), b.get(), 1.0f, n);
    exec.launch(nullptr);
    auto first = b.read();
    CHECK(std::count(first.begin(), first.end(), t.per_s) == n);
    CHECK(a.read()[0] == t.per_s);  // the memcpy
    if (chain) CHECK(a.read()[1] == 1065.0f);  // 1 + … + 7, s, 1 + … + 8, n: the wide kernel's 17 values
    exec.update(2.0f);  // every kernel that reads s (2 101 in the chain, the 654 in bodies) is set again
    exec.launch(nullptr);
    auto second = b.read();
    CHECK(std::count(second.begin(), second.end(), 2 * t.per_s) == n);
    if (chain) CHECK(a.read()[1] == 1066.0f);
  }
}

TEST_CASE("generated.long_graphs_build_and_update_in_parts") {
  // long_chain.cgraph's generated build_state and update_nodes call build_part_K/update_part_K.
  const int n = 1000;
  buffer<float> a(n), b(n);
  for (auto* make : {make_long_chain_explicit, make_long_chain_capture}) {
    const std::string mode = make == make_long_chain_explicit ? "explicit" : "capture";
    CAPTURE(mode);
    auto exec = make(a.get(), b.get(), 1.0f, n);
    exec.launch(nullptr);
    for (float v : b.read()) REQUIRE(v == 300.0f);
    exec.update(2.0f);
    exec.launch(nullptr);
    for (float v : b.read()) REQUIRE(v == 600.0f);
  }
}

// Version 2 statements (LANGUAGE.md §11) on the GPU: each graph of tests/gpu/v2.cgraph on both
// run-time strategies (whose graphs must be isomorphic) and as generated C++ in both modes,
// against a CPU reference.

#include "example_builds.hpp"
#include "gpu_support.hpp"
#include "isomorphism.hpp"
#include "v2_kernels.cuh"

#include <cgraph/runtime/registry.hpp>

#include <algorithm>
#include <filesystem>

using namespace gpu_test;

namespace {

cgraph::program v2_program() {
  return cgraph::program::load((std::filesystem::path(CGRAPH_GPU_TESTS_DIR) / "v2.cgraph").string());
}

cgraph::registry v2_kernels() {
  cgraph::registry reg;
  reg.kernel("pick_branch", pick_branch).kernel("put", put).kernel("bump", bump);
  reg.kernel("slow_put", slow_put).kernel("twice", twice);
  reg.kernel("produce_pdl", produce_pdl).kernel("consume_pdl", consume_pdl);
  reg.kernel("count_until", count_until).kernel("at_least", at_least);
  return reg;
}

// What `chain` leaves in every element for `which`.
int chain_expected(unsigned which) { return (which == 0 ? 10 : which == 1 ? 21 : which == 2 ? 30 : 40) + 100; }

// Every element (or the first `n`) is `expected`.
void check_all(const buffer<int>& out, int expected, std::size_t n = ~std::size_t{0}) {
  auto values = out.read();
  int wrong = 0;
  for (std::size_t i = 0; i < values.size() && i < n; ++i) wrong += values[i] != expected;
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("v2.else_if_chain_in_both_strategies_and_updated") {
  auto prog = v2_program();
  std::string shapes[2];
  for (auto s : both) {
    CAPTURE(name_of(s));
    buffer<int> out(256);
    auto g = cgraph::graph::build(prog, "chain", {{"out", out.get()}, {"which", 0u}}, v2_kernels(), with(s));
    shapes[s == cgraph::strategy::stream_capture] = canonical(g);
    auto exec = g.instantiate();
    for (unsigned which : {0u, 1u, 2u, 3u, 7u, 1u}) {
      CAPTURE(which);
      auto r = exec.update({{"which", which}});
      CHECK(r.path != cgraph::update_path::reinstantiated);
      run(exec);
      check_all(out, chain_expected(which));
    }
  }
  CHECK(shapes[0] == shapes[1]);
}

TEST_CASE("v2.generated_cpp_in_both_modes_matches_the_cpu") {
  for (auto* run_generated : {run_v2_chain_explicit, run_v2_chain_capture}) {
    buffer<int> out(256);
    for (unsigned which : {2u, 0u, 1u, 5u}) {
      CAPTURE(which);
      run_generated(out.get(), which, nullptr);
      check_all(out, chain_expected(which));
    }
  }
}

namespace {

// Two streams and two events, made and destroyed with the test.
struct streams_and_events {
  cudaStream_t a = nullptr, b = nullptr;
  cudaEvent_t e1 = nullptr, e2 = nullptr;
  streams_and_events() {
    GPU_CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    GPU_CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    GPU_CHECK(cudaEventCreateWithFlags(&e1, cudaEventDisableTiming));
    GPU_CHECK(cudaEventCreateWithFlags(&e2, cudaEventDisableTiming));
  }
  ~streams_and_events() {
    cudaStreamSynchronize(a);
    cudaStreamSynchronize(b);
    cudaEventDestroy(e1);
    cudaEventDestroy(e2);
    cudaStreamDestroy(a);
    cudaStreamDestroy(b);
  }
};

}  // namespace

TEST_CASE("v2.record_and_wait_synchronise_two_graphs_in_both_strategies_and_update_the_event") {
  auto prog = v2_program();
  streams_and_events s;
  for (auto how : both) {
    CAPTURE(name_of(how));
    buffer<int> buf(256), dst(256);
    buf.write(std::vector<int>(256, 0));
    auto producer_graph = cgraph::graph::build(prog, "produce", {{"buf", buf.get()}, {"value", 3}, {"done", s.e1}},
                                               v2_kernels(), with(how));
    auto consumer_graph = cgraph::graph::build(prog, "consume", {{"src", buf.get()}, {"dst", dst.get()}, {"ready", s.e1}},
                                               v2_kernels(), with(how));
    auto producer = producer_graph.instantiate();
    auto consumer = consumer_graph.instantiate();
    producer.launch(s.a);
    consumer.launch(s.b);  // waits on stream b for the record on stream a
    GPU_CHECK(cudaStreamSynchronize(s.b));
    check_all(dst, 6);

    // Another event, by the event nodes' own exec setters; then another value.
    auto r1 = producer.update({{"done", s.e2}, {"value", 4}});
    auto r2 = consumer.update({{"ready", s.e2}});
    CHECK(r1.path == cgraph::update_path::node_params);
    CHECK(r2.path == cgraph::update_path::node_params);
    producer.launch(s.a);
    consumer.launch(s.b);
    GPU_CHECK(cudaStreamSynchronize(s.b));
    check_all(dst, 8);
    GPU_CHECK(cudaStreamSynchronize(s.a));
  }
}

TEST_CASE("v2.events_generated_cpp_in_both_modes") {
  streams_and_events s;
  for (auto* run_generated : {run_v2_events_explicit, run_v2_events_capture}) {
    buffer<int> buf(256), dst(256);
    buf.write(std::vector<int>(256, 0));
    run_generated(buf.get(), dst.get(), 7, s.e1, s.a, s.b);
    check_all(dst, 14);
  }
}

TEST_CASE("v2.event_graphs_are_isomorphic_across_strategies") {
  auto prog = v2_program();
  streams_and_events s;
  buffer<int> buf(256), dst(256);
  std::string shapes[2][2];
  for (auto how : both) {
    int k = how == cgraph::strategy::stream_capture;
    shapes[k][0] = canonical(cgraph::graph::build(prog, "produce", {{"buf", buf.get()}, {"value", 1}, {"done", s.e1}},
                                                  v2_kernels(), with(how)));
    shapes[k][1] = canonical(cgraph::graph::build(prog, "consume", {{"src", buf.get()}, {"dst", dst.get()}, {"ready", s.e1}},
                                                  v2_kernels(), with(how)));
  }
  CHECK(shapes[0][0] == shapes[1][0]);
  CHECK(shapes[0][1] == shapes[1][1]);
}

TEST_CASE("v2.alloc_and_free_temporaries_in_both_strategies_updated_and_resized") {
  auto prog = v2_program();
  std::string shapes[2];
  for (auto how : both) {
    CAPTURE(name_of(how));
    buffer<int> out(512);
    auto g = cgraph::graph::build(prog, "scratch", {{"out", out.get()}, {"value", 5}}, v2_kernels(), with(how));
    shapes[how == cgraph::strategy::stream_capture] = canonical(g);
    auto exec = g.instantiate();
    run(exec);
    check_all(out, 20, 256);
    // A kernel argument: the nodes' own setters; the allocations keep their addresses.
    CHECK(exec.update({{"value", 6}}).path == cgraph::update_path::node_params);
    run(exec);
    check_all(out, 24, 256);
    // A new size: a new graph, never exec-updated (its allocations would keep the old addresses).
    CHECK(exec.update({{"n", 512}, {"value", 7}}).path == cgraph::update_path::reinstantiated);
    run(exec);
    check_all(out, 28);
  }
  CHECK(shapes[0] == shapes[1]);
}

TEST_CASE("v2.alloc_generated_cpp_in_both_modes") {
  for (auto* run_generated : {run_v2_scratch_explicit, run_v2_scratch_capture}) {
    buffer<int> out(256);
    run_generated(out.get(), 2, 3, nullptr);
    check_all(out, 12);
  }
}

TEST_CASE("v2.alloc_and_free_in_the_table_form_in_both_modes_updated_and_resized") {
  // tests/gpu/table_v2.cgraph's `table_scratch`, written as a table (alloc and free rows, the
  // kernels, the memset and the memcpy given the allocations' addresses through slots the walk
  // fills): the run-time path's graph, its results, a kernel argument updated per node, a new
  // size a new exec.
  auto prog = cgraph::program::load((std::filesystem::path(CGRAPH_GPU_TESTS_DIR) / "table_v2.cgraph").string());
  struct mode {
    const char* name;
    cgraph::strategy how;
    cgraph::gen::state_ptr (*build)(int*, int);
    table_scratch_run (*run)(int*, int, int, int, cudaStream_t);
  };
  for (const mode& m : {mode{"explicit", cgraph::strategy::explicit_nodes, build_table_scratch_explicit, run_table_scratch_explicit},
                        mode{"capture", cgraph::strategy::stream_capture, build_table_scratch_capture, run_table_scratch_capture}}) {
    CAPTURE(m.name);
    buffer<int> out(512);
    auto expected = cgraph::graph::build(prog, "table_scratch", {{"out", out.get()}, {"value", 5}}, v2_kernels(), with(m.how));
    auto state = m.build(out.get(), 5);
    CHECK(dynamic_cast<const cgraph::gen::table_state*>(state.get()) != nullptr);
    CHECK(canonical(state->graph, [&](cudaGraphNode_t node) { return state->conditional_bodies(node); }) == canonical(expected));
    const table_scratch_run r = m.run(out.get(), 5, 6, 512, nullptr);
    CHECK(r.table);
    CHECK(r.first == 20);
    CHECK(r.value_update == cgraph::update_path::node_params);
    CHECK(r.size_update == cgraph::update_path::reinstantiated);
    check_all(out, 24);  // all 512 elements: the new exec's allocations are twice the size
  }
}

namespace {
// What `attributes` leaves in its first `n` elements: 11 everywhere when on; 1 with element 0
// cleared when off.
void check_attributes(const buffer<int>& out, bool on, std::size_t n = 256) {
  auto values = out.read();
  int wrong = 0;
  std::string which;  // the first few wrong elements, "index=value", to tell which node misbehaved
  for (std::size_t i = 0; i < values.size() && i < n; ++i) {
    if (values[i] == (on ? 11 : i == 0 ? 0 : 1)) continue;
    if (++wrong <= 4) which += " " + std::to_string(i) + "=" + std::to_string(values[i]);
  }
  CHECK_MESSAGE(wrong == 0, "wrong elements (on=", on, "):", which);
}
}  // namespace

TEST_CASE("v2.attributes_priority_cluster_and_enabled_in_both_strategies") {
  auto prog = v2_program();
  std::string shapes[2];
  for (auto how : both) {
    CAPTURE(name_of(how));
    buffer<int> out(256);
    auto g = cgraph::graph::build(prog, "attributes", {{"out", out.get()}}, v2_kernels(), with(how));
    shapes[how == cgraph::strategy::stream_capture] = canonical(g);
    auto exec = g.instantiate();
    run(exec);
    check_attributes(out, true);
    for (bool on : {false, true, false}) {
      CAPTURE(on);
      auto r = exec.update({{"on", on}});
      CHECK(r.path == cgraph::update_path::node_params);  // cudaGraphNodeSetEnabled, no rebuild
      run(exec);
      check_attributes(out, on);
    }
    // Values set while a node is off leave it off (an update turns a node on or off only when
    // its `enabled` changes), and it runs with them once it is on again.
    auto r = exec.update({{"n", 128}});
    CHECK(r.path == cgraph::update_path::node_params);
    CHECK(r.nodes_changed == 2);  // put and the disabled bump, set without a flip
    out.write(std::vector<int>(256, -1));
    run(exec);
    check_attributes(out, false, 128);
    CHECK(out.read()[128] == -1);  // n = 128 reached the kernels
    CHECK(exec.update({{"on", true}}).path == cgraph::update_path::node_params);
    run(exec);
    check_attributes(out, true, 128);
    // Built off: the exec starts with the nodes disabled.
    auto off = cgraph::graph::build(prog, "attributes", {{"out", out.get()}, {"on", false}}, v2_kernels(), with(how))
                   .instantiate();
    run(off);
    check_attributes(out, false);
  }
  CHECK(shapes[0] == shapes[1]);
}

TEST_CASE("v2.attributes_generated_cpp_in_both_modes") {
  for (auto* run_generated : {run_v2_attributes_explicit, run_v2_attributes_capture}) {
    buffer<int> out(256);
    run_generated(out.get(), true, nullptr);
    check_attributes(out, false);
    run_generated(out.get(), false, nullptr);
    check_attributes(out, true);
  }
}

TEST_CASE("v2.attributes_in_the_table_form_in_both_modes") {
  // tests/gpu/table_v2.cgraph's copy of `attributes`, written as a table: the same results.
  for (auto* run_generated : {run_table_attributes_explicit, run_table_attributes_capture}) {
    buffer<int> out(256);
    CHECK(run_generated(out.get(), true, nullptr));
    check_attributes(out, false);
    CHECK(run_generated(out.get(), false, nullptr));
    check_attributes(out, true);
  }
}

namespace {
// The edges of `g`'s root with their data: "programmatic:port" for programmatic ones.
std::vector<std::string> edge_kinds(cudaGraph_t g) {
  std::size_t count = 0;
  GPU_CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &count));
  std::vector<cudaGraphNode_t> from(count), to(count);
  std::vector<cudaGraphEdgeData> data(count);
  GPU_CHECK(cudaGraphGetEdges(g, from.data(), to.data(), data.data(), &count));
  std::vector<std::string> out;
  for (const auto& e : data)
    out.push_back(e.type == cudaGraphDependencyTypeProgrammatic
                      ? (e.from_port == cudaGraphKernelNodePortProgrammatic ? "programmatic" : "launched")
                      : "full");
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST_CASE("v2.programmatic_edges_in_both_strategies") {
  auto prog = v2_program();
  for (auto how : both) {
    CAPTURE(name_of(how));
    buffer<int> a(256), b(256);
    auto g = cgraph::graph::build(prog, "pdl", {{"a", a.get()}, {"b", b.get()}, {"value", 3}}, v2_kernels(), with(how));
    CHECK(edge_kinds(g.get()) == std::vector<std::string>{"launched", "programmatic"});
    auto exec = g.instantiate();
    for (int value : {3, 5}) {
      CHECK(exec.update({{"value", value}}).path != cgraph::update_path::reinstantiated);
      run(exec);
      check_all(b, 2 * value);
      check_all(a, 4 * value);
    }
  }
}

TEST_CASE("v2.programmatic_edges_in_a_graph_that_allocates_in_both_strategies") {
  auto prog = v2_program();
  std::string shapes[2];
  for (auto how : both) {
    CAPTURE(name_of(how));
    buffer<int> b(256);
    auto g = cgraph::graph::build(prog, "pdl_scratch", {{"b", b.get()}, {"value", 9}}, v2_kernels(), with(how));
    shapes[how == cgraph::strategy::stream_capture] = canonical(g);
    CHECK(edge_kinds(g.get()) == std::vector<std::string>{"full", "full", "programmatic"});
    auto exec = g.instantiate();
    run(exec);
    check_all(b, 18);
  }
  CHECK(shapes[0] == shapes[1]);
}

TEST_CASE("v2.programmatic_edges_generated_cpp_in_both_modes") {
  for (auto* run_generated : {run_v2_pdl_explicit, run_v2_pdl_capture}) {
    buffer<int> a(256), b(256);
    run_generated(a.get(), b.get(), 7, nullptr);
    check_all(b, 14);
    check_all(a, 28);
  }
}

TEST_CASE("v2.programmatic_edges_in_the_table_form_in_both_modes") {
  // tests/gpu/table_v2.cgraph's copy of `pdl`, written as a table: both edges, the same results.
  for (auto* run_generated : {run_table_pdl_explicit, run_table_pdl_capture}) {
    buffer<int> a(256), b(256);
    CHECK(run_generated(a.get(), b.get(), 7, nullptr) == 2);
    check_all(b, 14);
    check_all(a, 28);
  }
}

namespace {
// What `caller_loop` leaves for `limit`: 1, plus 10 per iteration, plus 1000 from the `if`
// that `decide` opens once the counter reached 3.
int caller_loop_expected(int limit) { return 1 + 10 * limit + (limit >= 3 ? 1000 : 0); }
}  // namespace

TEST_CASE("v2.conds_passed_by_call_are_set_in_called_graphs_in_both_strategies") {
  auto prog = v2_program();
  std::string shapes[2];
  for (auto how : both) {
    CAPTURE(name_of(how));
    buffer<int> out(256), counter(1);
    auto g = cgraph::graph::build(prog, "caller_loop", {{"out", out.get()}, {"counter", counter.get()}, {"limit", 2}},
                                  v2_kernels(), with(how));
    shapes[how == cgraph::strategy::stream_capture] = canonical(g);
    auto exec = g.instantiate();
    for (int limit : {2, 5, 3, 1}) {
      CAPTURE(limit);
      exec.update({{"limit", limit}});  // the called graphs are built again with the same handles
      run(exec);
      check_all(out, caller_loop_expected(limit));
      CHECK(counter.read()[0] == limit);
    }
  }
  CHECK(shapes[0] == shapes[1]);
}

TEST_CASE("v2.a_graph_with_a_cond_parameter_needs_a_handle_to_be_built_alone") {
  auto prog = v2_program();
  buffer<int> out(256), counter(1);
  cgraph::args without{{"out", out.get()}, {"counter", counter.get()}, {"limit", 2}};
  CHECK_THROWS_WITH_AS(cgraph::graph::build(prog, "loop_step", without, v2_kernels()),
                       doctest::Contains("needs a value for parameter 'more'"), cgraph::build_error);
  auto zero = without;
  zero.emplace_back("more", cudaGraphConditionalHandle{0});
  CHECK_THROWS_WITH_AS(cgraph::graph::build(prog, "loop_step", zero, v2_kernels()),
                       doctest::Contains("cudaGraphConditionalHandle (not 0)"), cgraph::build_error);
}

TEST_CASE("v2.conds_passed_by_call_generated_cpp_in_both_modes") {
  for (auto* run_generated : {run_v2_caller_loop_explicit, run_v2_caller_loop_capture}) {
    buffer<int> out(256), counter(1);
    run_generated(out.get(), counter.get(), 4, 2, nullptr);
    check_all(out, caller_loop_expected(2));
  }
}

namespace {
// What `cond_default` leaves for `start`.
int cond_default_expected(unsigned start) { return start % 2 ? 5 : 6; }
}  // namespace

TEST_CASE("v2.a_cond_value_computed_from_a_parameter_in_both_strategies_and_updated") {
  auto prog = v2_program();
  std::string shapes[2];
  for (auto how : both) {
    CAPTURE(name_of(how));
    buffer<int> out(256);
    auto g = cgraph::graph::build(prog, "cond_default", {{"out", out.get()}, {"start", 3u}}, v2_kernels(), with(how));
    shapes[how == cgraph::strategy::stream_capture] = canonical(g);
    auto exec = g.instantiate();
    run(exec);
    check_all(out, cond_default_expected(3));
    for (unsigned start : {4u, 7u, 0u}) {
      CAPTURE(start);
      exec.update({{"start", start}});  // the value is fixed with the handle: the graph is built again
      run(exec);
      check_all(out, cond_default_expected(start));
    }
  }
  CHECK(shapes[0] == shapes[1]);
}

TEST_CASE("v2.a_cond_value_computed_from_a_parameter_generated_cpp_in_both_modes") {
  for (auto* run_generated : {run_v2_cond_default_explicit, run_v2_cond_default_capture}) {
    for (auto [start, then] : {std::pair{1u, 2u}, std::pair{2u, 5u}}) {
      CAPTURE(start);
      buffer<int> out(256);
      CHECK(run_generated(out.get(), start, then, nullptr) == cond_default_expected(start));
      check_all(out, cond_default_expected(then));
    }
  }
}

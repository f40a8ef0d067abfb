// Generated C++'s table form against the CUDA runtime that does nothing (bench/host_work/
// fake_cuda.cpp), so CI, which has no GPU, walks it: tests/golden/emit_table/
// table_capture_bodies.cgraph, written by cgraphc in both modes with --table-threshold 1 (a
// `while`, a `while` whose kernel takes its cond, a cond with no initial value, a folded cond,
// empty and multi-stream bodies, a conditional on a parallel's second stream). Each mode's build must make the kernel nodes the
// run-time path makes in the same strategy, in the same order and with the same values
// (capture_from_table issues the capture plan's order, as the run-time capture builder does),
// and an update of `first` must set the one kernel that reads it. Graphs `a` and `pdl`: the
// attributes, `enabled` flips and programmatic edges the run-time path sets, set the same way.
// tests/golden/emit_table/table_alloc.cgraph: graph memory, each kernel given its allocation's
// address. tests/gpu proves the table form's results on a GPU.

#include "fake_cuda.hpp"
#include "fault_sweep.hpp"
#include "plan_rows.hpp"
#include "strategies.hpp"

void tiny(float*, int) {}  // the graph's kernels, declared before the generated headers use them
// The loop's kernel takes its cond first (the fake runtime records a kernel's first 8 bytes): the
// test checks that the table's cond slot held the graph's own handle of `go`.
void spin(cudaGraphConditionalHandle, int) {}
// tests/golden/emit_table/table_alloc.cgraph's kernels, which take allocations first.
void put(int*, int) {}
void scale(float*, int) {}

#include "table_alloc_capture.hpp"
#include "table_alloc_explicit.hpp"
#include "table_capture_bodies_capture.hpp"
#include "table_capture_bodies_explicit.hpp"

#include <cgraph/compiler/compile.hpp>
#include <cgraph/runtime.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

namespace generated = cgraph_generated::table_capture_bodies;

float buffer[16];

// The golden file both modes were generated from, and its kernels, for the run-time path.
std::string golden_path() {
  return (std::filesystem::path(CGRAPH_GOLDEN_DIR) / "emit_table" / "table_capture_bodies.cgraph").string();
}
cgraph::program golden_program() { return cgraph::program::load(golden_path()); }

cgraph::registry golden_kernels() {
  cgraph::registry reg;
  reg.kernel("tiny", &tiny).kernel("spin", &spin);
  return reg;
}

using shape = std::vector<std::vector<std::size_t>>;

std::vector<cudaGraphNode_t> nodes_of(cudaGraph_t g) {
  std::size_t n = 0;
  cudaGraphGetNodes(g, nullptr, &n);
  std::vector<cudaGraphNode_t> nodes(n);
  cudaGraphGetNodes(g, nodes.data(), &n);
  return nodes;
}

// Where a graph's nodes went: for each root node, in the order CUDA lists them, the node
// count of each of its bodies (none for a node that is not a conditional).
template <typename Graph>
shape shape_of(const Graph& g) {
  shape out;
  for (cudaGraphNode_t node : nodes_of(g.get())) {
    auto& bodies = out.emplace_back();
    for (cudaGraph_t body : g.conditional_bodies(node)) bodies.push_back(nodes_of(body).size());
  }
  return out;
}

using kernels = fake_cuda::kernel_sets;

// The kernel that takes cond `go` (the graph's second cond): the third kernel made.
constexpr std::size_t spin_kernel = 2, go_cond = 1;

// A repeat's init node's second argument is its cond's handle, which differs from build to build:
// the records compared read it as 0 (the counter's, its count, is compared).
const void* const repeat_init = cgraph::gen::repeat_init_function();

// Builds the generated graph of `Traits` with first = 50 (the table form, not the readable one),
// then updates first to 51: the kernels it made and set, in order, the built graph's shape, and
// whether the loop's kernel was handed the graph's own handle of `go`, when made and when set
// again (update_from_table fills the slot from the exec's graph).
template <typename Traits>
std::tuple<kernels, shape, bool> build_and_update() {
  shape made_shape;
  bool handed_go = false;
  const kernels made = fake_cuda::grids_and_args_of([&] {
    cgraph::gen::graph<Traits> g({buffer, 50}, {});
    CHECK(dynamic_cast<const cgraph::gen::table_state*>(&g.state()) != nullptr);
    made_shape = shape_of(g);
    REQUIRE(go_cond < g.state().conds.size());
    const cudaGraphConditionalHandle go = g.state().conds[go_cond];
    handed_go = go != 0 && fake_cuda::kernels_recorded().at(spin_kernel).arg0 == go;
    auto e = g.instantiate();
    const auto r = e.update({buffer, 51});
    CHECK(r.path == cgraph::update_path::node_params);
    CHECK(r.nodes_changed == 3);
    const auto& set = fake_cuda::kernels_recorded();
    handed_go = handed_go && set.size() >= 3 && set[set.size() - 3].arg0 == go;  // the loop's kernel, set first
  }, repeat_init);
  return {made, made_shape, handed_go};
}

}  // namespace

TEST_CASE("fake_runtime.the_table_form_makes_the_run_time_paths_nodes_in_both_modes") {
  const auto prog = golden_program();
  const cgraph::registry reg = golden_kernels();
  const cgraph::args values{{"p", buffer}, {"first", 50}};
  for (auto how : cgraph_tests::both) {
    const std::string strategy = cgraph_tests::name_of(how);
    CAPTURE(strategy);
    shape expected_shape;
    const kernels expected = fake_cuda::grids_and_args_of([&] {
      expected_shape = shape_of(cgraph::graph::build(prog, "g", values, reg, cgraph_tests::with(how)));
    }, repeat_init);
    REQUIRE(expected.size() == 13);  // the graph's eleven kernel nodes and the repeat's two
    // The two whiles, the if/else (an empty then, a two-node else), the switch of four cases,
    // the parallel's kernel and its if, the repeat's init node and its loop (a kernel and the
    // counter).
    CHECK(expected_shape == shape{{1}, {2}, {0, 2}, {0, 1, 0, 3}, {}, {1}, {}, {2}});
    const auto [made, made_shape, handed_go] = how == cgraph::strategy::stream_capture
                                                   ? build_and_update<generated::capture_mode::g::traits>()
                                                   : build_and_update<generated::explicit_mode::g::traits>();
    // The build's thirteen, then the update's three: the kernels that read `first` (the loop's,
    // case 1 of the switch's and the repeat's counter, its count), in order, and no other.
    REQUIRE(made.size() == 16);
    CHECK(handed_go);  // the cond slot, filled once the cond was made, and from the exec's graph
    CHECK(kernels(made.begin(), made.end() - 3) == expected);
    CHECK(made_shape == expected_shape);
    CHECK(kernels(made.end() - 3, made.end()) == kernels{{1u, 51ull}, {1u, 51ull}, {1u, 51ull}});
  }
}

namespace {

int out_buffer[4];

// tests/golden/emit_table/table_alloc.cgraph's `scratch` in the table form of `Traits`, built
// with value = 7, then updated to 8 (the two kernels that read it, per node), then to n = 512 (a
// new size: refused, the exec made again): the kernels made and set, in order. Each kernel's
// first argument must be the address its allocation's row got (the slot the walker fills once
// the row is made): the second argument tells which (put(tmp, value), put(more, value + 1),
// scale(spare, 64)).
template <typename Traits>
kernels check_table_allocations() {
  return fake_cuda::grids_and_args_of([&] {
    cgraph::gen::graph<Traits> g({out_buffer, 7, 256}, {});
    REQUIRE(dynamic_cast<const cgraph::gen::table_state*>(&g.state()) != nullptr);
    const std::vector<void*>& allocations = g.state().allocations;
    REQUIRE(allocations.size() == 3);
    auto given = [&](std::size_t from, int value) {
      const auto& made = fake_cuda::kernels_recorded();
      REQUIRE(made.size() == from + 3);
      for (std::size_t k = from; k < made.size(); ++k) {
        CAPTURE(k);
        const unsigned long long arg1 = made[k].arg1;
        const std::size_t allocation = arg1 == 64 ? 2 : arg1 == static_cast<unsigned>(value) ? 0 : 1;
        CHECK(made[k].arg0 == reinterpret_cast<std::uintptr_t>(allocations[allocation]));
      }
    };
    given(0, 7);
    CHECK(allocations[0] != nullptr);
    CHECK(allocations[0] != allocations[1]);
    auto e = g.instantiate();
    auto r = e.update({out_buffer, 8, 256});
    CHECK(r.path == cgraph::update_path::node_params);
    CHECK(r.nodes_changed == 2);
    const auto& set = fake_cuda::kernels_recorded();
    REQUIRE(set.size() == 5);
    CHECK(set[3].arg0 == reinterpret_cast<std::uintptr_t>(allocations[0]));  // the exec's own addresses
    CHECK(set[4].arg0 == reinterpret_cast<std::uintptr_t>(allocations[1]));
    r = e.update({out_buffer, 8, 512});
    CHECK(r.path == cgraph::update_path::reinstantiated);
  });
}

}  // namespace

TEST_CASE("fake_runtime.the_table_form_gives_kernels_the_addresses_of_its_allocations_in_both_modes") {
  const auto prog =
      cgraph::program::load((std::filesystem::path(CGRAPH_GOLDEN_DIR) / "emit_table" / "table_alloc.cgraph").string());
  cgraph::registry reg;
  reg.kernel("put", &put).kernel("scale", &scale);
  for (auto how : cgraph_tests::both) {
    CAPTURE(cgraph_tests::name_of(how));
    const kernels expected = fake_cuda::grids_and_args_of([&] {
      cgraph::graph::build(prog, "scratch", {{"out", out_buffer}, {"value", 7}}, reg, cgraph_tests::with(how));
    });
    REQUIRE(expected.size() == 3);
    const kernels made = how == cgraph::strategy::stream_capture
                             ? check_table_allocations<cgraph_generated::table_alloc::capture_mode::scratch::traits>()
                             : check_table_allocations<cgraph_generated::table_alloc::explicit_mode::scratch::traits>();
    REQUIRE(made.size() == 8);  // the build's three, the update's two, the new exec's three
    CHECK(kernels(made.begin(), made.begin() + 3) == expected);
    CHECK(kernels(made.begin() + 3, made.begin() + 5) == kernels{{1u, 8ull}, {2u, 9ull}});
    CHECK(kernels(made.begin() + 5, made.end()) == kernels{{1u, 8ull}, {2u, 9ull}, {1u, 64ull}});
  }
}

// Graph `h`: its cond's initial value reads `on`. Built from the table as the run-time path
// builds it; an update of `first` sets the one kernel that reads it; an update of `on` refuses
// the per-node path (a cond's launch value is fixed when its handle is made), so the exec is
// updated as a whole, as the readable form's is.
template <typename Traits>
void check_computed_cond(const kernels& expected) {
  const kernels made = fake_cuda::grids_and_args_of([&] {
    cgraph::gen::graph<Traits> g({buffer, 50, 1}, {});
    CHECK(dynamic_cast<const cgraph::gen::table_state*>(&g.state()) != nullptr);
    auto e = g.instantiate();
    auto r = e.update({buffer, 51, 1});
    CHECK(r.path == cgraph::update_path::node_params);
    CHECK(r.nodes_changed == 1);
    r = e.update({buffer, 51, 0});
    CHECK(r.path == cgraph::update_path::whole_graph);
  });
  REQUIRE(made.size() >= 3);
  CHECK(kernels(made.begin(), made.begin() + 2) == expected);
  CHECK(made[2] == std::pair{1u, 51ull});  // the update of `first`
}

TEST_CASE("fake_runtime.the_table_form_takes_a_cond_whose_initial_value_reads_a_parameter") {
  const auto prog = golden_program();
  const cgraph::registry reg = golden_kernels();
  for (auto how : cgraph_tests::both) {
    CAPTURE(cgraph_tests::name_of(how));
    const kernels expected = fake_cuda::grids_and_args_of([&] {
      cgraph::graph::build(prog, "h", {{"p", buffer}, {"first", 50}, {"on", 1}}, reg, cgraph_tests::with(how));
    });
    REQUIRE(expected.size() == 2);
    if (how == cgraph::strategy::stream_capture) check_computed_cond<generated::capture_mode::h::traits>(expected);
    else check_computed_cond<generated::explicit_mode::h::traits>(expected);
  }
}

namespace {

// What a build, its instantiation and some updates made and set: the kernels (grid x and second
// argument, in order) and the calls beside them (fake_cuda::graph_calls).
using made_and_set = std::pair<kernels, std::vector<std::string>>;

template <typename F>
made_and_set record(F&& run) {
  std::vector<std::string> calls;
  kernels made = fake_cuda::grids_and_args_of([&] {
    run();
    calls = fake_cuda::graph_calls();
  });
  return {std::move(made), std::move(calls)};
}

// Graph `a` built on and instantiated, then turned off, then `first` changed: what each of the
// three steps made and set, on the run-time path.
std::array<made_and_set, 3> a_on_the_run_time_path(cgraph::strategy how) {
  const auto prog = golden_program();
  std::array<made_and_set, 3> out;
  std::optional<cgraph::graph_exec> e;
  out[0] = record([&] {
    e.emplace(cgraph::graph::build(prog, "a", {{"p", buffer}, {"first", 50}, {"on", true}}, golden_kernels(),
                                   cgraph_tests::with(how))
                  .instantiate());
  });
  out[1] = record([&] { CHECK(e->update({{"on", false}}).path == cgraph::update_path::node_params); });
  out[2] = record([&] { CHECK(e->update({{"first", 51}}).path == cgraph::update_path::node_params); });
  return out;
}

// The same in the table form.
template <typename Traits>
std::array<made_and_set, 3> a_in_the_table_form() {
  std::array<made_and_set, 3> out;
  std::optional<cgraph::gen::exec<Traits>> e;
  out[0] = record([&] {
    cgraph::gen::graph<Traits> g({buffer, 50, true}, {});
    CHECK(dynamic_cast<const cgraph::gen::table_state*>(&g.state()) != nullptr);
    e.emplace(g.instantiate());
  });
  out[1] = record([&] {
    const auto r = e->update({buffer, 50, false});
    CHECK(r.path == cgraph::update_path::node_params);
    CHECK(r.nodes_changed == 3);  // three flips, no values
  });
  out[2] = record([&] {
    const auto r = e->update({buffer, 51, false});
    CHECK(r.path == cgraph::update_path::node_params);
    CHECK(r.nodes_changed == 1);  // the kernel that reads `first`, off as it is
  });
  return out;
}

}  // namespace

TEST_CASE("fake_runtime.the_table_form_sets_attributes_and_flips_enabled_nodes") {
  for (auto how : cgraph_tests::both) {
    CAPTURE(cgraph_tests::name_of(how));
    const auto expected = a_on_the_run_time_path(how);
    // The priority and the cluster, then the three `enabled` values at instantiation.
    CHECK(expected[0].second == std::vector<std::string>{"priority 1", "cluster 2,1,1", "enabled", "disabled", "disabled"});
    CHECK(expected[0].first == kernels{{1u, 1ull}, {2u, 50ull}, {2u, 3ull}});
    // Turned off: the three nodes flipped, none set again (CUDA keeps a node's parameters
    // through a flip).
    CHECK(expected[1] == made_and_set{{}, {"disabled", "enabled", "enabled"}});
    // `first` changed: its kernel set again, not turned off again (a setter leaves it off).
    CHECK(expected[2] == made_and_set{{{2u, 51ull}}, {}});
    const auto made = how == cgraph::strategy::stream_capture ? a_in_the_table_form<generated::capture_mode::a::traits>()
                                                              : a_in_the_table_form<generated::explicit_mode::a::traits>();
    CHECK(made == expected);
  }
}

TEST_CASE("fake_runtime.the_table_form_keeps_programmatic_edges") {
  const auto prog = golden_program();
  for (auto how : cgraph_tests::both) {
    CAPTURE(cgraph_tests::name_of(how));
    const made_and_set expected = record([&] {
      (void)cgraph::graph::build(prog, "pdl", {{"p", buffer}, {"first", 50}}, golden_kernels(), cgraph_tests::with(how));
    });
    const std::vector<std::string> edges{
        "edge from port " + std::to_string(cudaGraphKernelNodePortProgrammatic) + " to port 0",
        "edge from port " + std::to_string(cudaGraphKernelNodePortLaunchCompletion) + " to port 0"};
    CHECK(expected.second == edges);
    REQUIRE(expected.first.size() == 3);
    const made_and_set made = record([&] {
      if (how == cgraph::strategy::stream_capture) cgraph::gen::graph<generated::capture_mode::pdl::traits>({buffer, 50}, {});
      else cgraph::gen::graph<generated::explicit_mode::pdl::traits>({buffer, 50}, {});
    });
    CHECK(made == expected);
  }
}

TEST_CASE("fake_runtime.a_failure_at_any_call_of_a_table_built_graph_is_reported_and_leaks_nothing") {
  // The generated table form of both graphs, both modes (loops, a cond slot, a repeat's rows and
  // counter, a cond that reads a parameter), and of table_alloc.cgraph's `scratch`: each CUDA
  // call of a build and its instantiation fails in turn (fault_sweep.hpp), and is reported at
  // the file.
  auto sweep = [](auto build, const std::string& file = "table_capture_bodies.cgraph") {
    return cgraph_tests::sweep_faults([&] { (void)build().instantiate(); }, file, 4);
  };
  using explicit_g = cgraph::gen::graph<generated::explicit_mode::g::traits>;
  using capture_g = cgraph::gen::graph<generated::capture_mode::g::traits>;
  using explicit_h = cgraph::gen::graph<generated::explicit_mode::h::traits>;
  using capture_h = cgraph::gen::graph<generated::capture_mode::h::traits>;
  long calls = sweep([] { return explicit_g({buffer, 50}, {}); });
  calls += sweep([] { return capture_g({buffer, 50}, {}); });
  calls += sweep([] { return explicit_h({buffer, 50, 1}, {}); });
  calls += sweep([] { return capture_h({buffer, 50, 1}, {}); });
  // Attributes (set after the rows) and programmatic edges (made as the rows are added).
  calls += sweep([] { return cgraph::gen::graph<generated::explicit_mode::a::traits>({buffer, 50, true}, {}); });
  calls += sweep([] { return cgraph::gen::graph<generated::capture_mode::a::traits>({buffer, 50, false}, {}); });
  calls += sweep([] { return cgraph::gen::graph<generated::explicit_mode::pdl::traits>({buffer, 50}, {}); });
  calls += sweep([] { return cgraph::gen::graph<generated::capture_mode::pdl::traits>({buffer, 50}, {}); });
  // Graph memory (table_alloc.cgraph): alloc and free rows, and the slots filled with their addresses.
  using explicit_alloc = cgraph::gen::graph<cgraph_generated::table_alloc::explicit_mode::scratch::traits>;
  using capture_alloc = cgraph::gen::graph<cgraph_generated::table_alloc::capture_mode::scratch::traits>;
  calls += sweep([] { return explicit_alloc({out_buffer, 7, 256}, {}); }, "table_alloc.cgraph");
  calls += sweep([] { return capture_alloc({out_buffer, 7, 256}, {}); }, "table_alloc.cgraph");
  MESSAGE(calls, " faults injected in the table form's builds and instantiations, each reported, nothing leaked");
}

TEST_CASE("fake_runtime.the_run_time_walks_read_the_rows_the_table_form_reads") {
  // The run-time path's rows of graph `g` (plan_rows.hpp), made from the compiled program, are
  // the rows cgraphc wrote into the table form from the same plans: the capture's order, streams,
  // waits, joins and recorded events, and each step's kind, graph, dependencies and bodies. The
  // two capture walks (capture_builder.cpp, capture_from_table) thus issue one order.
  const std::optional<std::string> text = cgraph::read_file(golden_path());
  REQUIRE(text.has_value());
  const cgraph::ir::program prog = cgraph::compile_or_throw(cgraph::source_file("table_capture_bodies.cgraph", *text));
  const cgraph::ir::graph* g = nullptr;
  for (const auto& each : prog.graphs) if (each.name == "g") g = &each;
  REQUIRE(g != nullptr);
  const cgraph::plan::explicit_plan plan = cgraph::plan::lower_explicit(*g);
  const cgraph::detail::capture_rows rows = cgraph::detail::flatten_capture(plan, cgraph::plan::lower_capture(plan));
  const cgraph::gen::capture_table table = generated::capture_mode::g::table_form::capture_table();
  auto list = [](const std::uint32_t* data, std::size_t size) { return std::vector<std::uint32_t>(data, data + size); };
  CHECK(rows.root_streams == table.streams);
  CHECK(list(rows.joins().data(), rows.joins().size()) == list(table.joins.data(), table.joins.size()));
  REQUIRE(rows.rows.size() == table.nodes.size());
  std::size_t bodies = 0;
  for (std::size_t i = 0; i < rows.rows.size(); ++i) {
    CAPTURE(i);
    const cgraph::gen::table_capture_node& ours = rows.rows[i];
    const cgraph::gen::table_capture_node& theirs = table.nodes.data()[i];
    CHECK(ours.op == theirs.op);
    CHECK(ours.step == theirs.step);
    CHECK(ours.stream == theirs.stream);
    CHECK(ours.record == theirs.record);
    CHECK(list(rows.waits.data() + ours.waits, ours.wait_count) == list(table.waits.data() + theirs.waits, theirs.wait_count));
    bodies += ours.op == cgraph::gen::capture_op::enter_body;
  }
  CHECK(bodies == plan.body_graphs);
  const std::vector<cgraph::detail::step_row> steps = cgraph::detail::step_rows(plan);
  const cgraph::gen::node_table nodes = generated::capture_mode::g::table();
  REQUIRE(steps.size() == nodes.nodes.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    CAPTURE(i);
    const cgraph::detail::step_row& ours = steps[i];
    const cgraph::gen::table_node& theirs = nodes.nodes.data()[i];
    CHECK(ours.kind == theirs.kind);
    CHECK(ours.graph == theirs.graph);
    CHECK(list(plan.dep_steps.data() + ours.deps, ours.dep_count) == list(nodes.deps.data() + theirs.deps, theirs.dep_count));
    if (ours.kind != cgraph::ir::node_kind::conditional) continue;
    CHECK(ours.callee == theirs.config);  // its cond
    CHECK(ours.body == theirs.args);
    CHECK(ours.bodies == theirs.function);
    CHECK(static_cast<std::uint8_t>(ours.cond_kind) == theirs.element_size);
  }
}

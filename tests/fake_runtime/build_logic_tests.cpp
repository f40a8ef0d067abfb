// The run-time path's build logic against a CUDA runtime that does nothing
// (bench/host_work/fake_cuda.cpp), so CI, which has no GPU, runs it: what a build reports and
// which paths it takes, in both strategies. Nothing runs on a device here, so nothing here
// checks a result; the GPU tests (tests/gpu) do, with the same cases where they matter.

#include "built_graph.hpp"
#include "fake_cuda.hpp"
#include "fault_sweep.hpp"
#include "plan_rows.hpp"
#include "strategies.hpp"
#include "testing.hpp"

#include <cgraph/compiler/compile.hpp>
#include <cgraph/runtime.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

void add(float*, int) {}    // host stand-ins for kernels: the fake runtime launches nothing
void clear(float*, int) {}
void as_f32(float*, float) {}
void as_u32(float*, unsigned) {}

cgraph::registry kernels() {
  cgraph::registry reg;
  reg.kernel("add", &add).kernel("clear", &clear);
  return reg;
}

using cgraph_tests::both;
using cgraph_tests::sweep_faults;
using cgraph_tests::name_of;
using cgraph_tests::with;

float buffer[64];

// The kernel every program here launches, and a graph to `call`: lines 1-4 of each program.
const std::string prelude = R"(kernel add(p: f32*, i: i32);
graph child(p: f32*, i: i32) {
  add<<<1, 32>>>(p, i);
}
)";

// The update took path `path` and changed `nodes` nodes.
void check_update(const cgraph::update_result& r, cgraph::update_path path, std::size_t nodes) {
  CHECK(r.path == path);
  CHECK(r.nodes_changed == nodes);
}

// The grids and second arguments of the kernels `update` makes or sets, in order.
using sets_t = fake_cuda::kernel_sets;
template <typename F>
sets_t sets(F&& update) {
  return fake_cuda::grids_and_args_of(std::forward<F>(update));
}

}  // namespace

TEST_CASE("fake_runtime.a_file_program_load_cannot_read_says_why") {
  // As cgraphc says it (tests/golden/usage/missing_file): the reason is what tells a missing
  // file from one the process may not read or a folder given by mistake.
  CHECK_THROWS_WITH_AS((void)cgraph::program::load("does_not_exist.cgraph"),
                       "cannot read 'does_not_exist.cgraph': No such file or directory", cgraph::build_error);
  CHECK_THROWS_WITH_AS((void)cgraph::program::load("."), "cannot read '.': it is a directory", cgraph::build_error);
}

TEST_CASE("fake_runtime.debug_dot_says_when_it_cannot_read_what_cuda_wrote") {
  // The fake cudaGraphDebugDotPrint succeeds and writes no file: debug_dot once returned ""
  // then, which reads as an empty graph. It says which file it could not read, and why.
  auto prog = cgraph::program::compile(prelude + "graph g(p: f32*) {\n  add<<<1, 32>>>(p, 1);\n}\n", "test.cgraph");
  auto g = cgraph::graph::build(prog, "g", {{"p", buffer}}, kernels());
  try {
    (void)g.debug_dot();
    FAIL("debug_dot returned with no file to read");
  } catch (const cgraph::build_error& e) {
    const std::string what = e.what();
    CHECK(what.starts_with("cannot read '"));
    CHECK(what.ends_with(".dot': No such file or directory (the DOT file cudaGraphDebugDotPrint wrote)"));
  }
}

TEST_CASE("fake_runtime.a_missing_kernel_is_named_at_its_first_node") {
  // A capture resolves each kernel once, at its first node, before the capture begins
  // (graph_templates::prepared_steps); the explicit strategy resolves it where it adds the
  // node. Both name the kernel's first node, and a build of another graph of the program
  // then runs through.
  auto prog = cgraph::program::compile(R"(kernel add(p: f32*, i: i32);
kernel missing(p: f32*);
graph g(p: f32*) {
  add<<<1, 32>>>(p, 1);
  missing<<<1, 32>>>(p);
  add<<<1, 32>>>(p, 2);
  missing<<<1, 32>>>(p);
}
graph h(p: f32*) {
  add<<<1, 32>>>(p, 1);
  add<<<1, 32>>>(p, 2);
}
)",
                                       "test.cgraph");
  for (auto how : both) {
    const std::string strategy = name_of(how);  // CAPTURE shows a string, not a pointer
    CAPTURE(strategy);
    CHECK_THROWS_WITH_AS(cgraph::graph::build(prog, "g", {{"p", buffer}}, kernels(), with(how)),
                         "test.cgraph:5:3: kernel 'missing' is not in the registry (register it with "
                         "registry.kernel(\"missing\", missing))",
                         cgraph::build_error);
    CHECK_NOTHROW((void)cgraph::graph::build(prog, "h", {{"p", buffer}}, kernels(), with(how)).instantiate());
  }
}

TEST_CASE("fake_runtime.registered_kernels_are_checked_by_their_cpp_type_without_asking_the_driver") {
  // cudaFuncGetParamInfo has no count: asked one index past the last parameter it fails, and
  // compute-sanitizer's API-error report listed that failure in every user's program. A
  // registered function's C++ type is its signature, so the check reads that (the fake's
  // driver is new enough to be asked, and answers the same sizes).
  const long asked = fake_cuda::param_info_calls();
  auto prog = cgraph::program::compile(prelude + "graph g(p: f32*) {\n  add<<<1, 32>>>(p, 1);\n  call child(p, 2);\n}\n",
                                       "test.cgraph");
  for (auto how : both) {
    const std::string strategy = name_of(how);
    CAPTURE(strategy);
    CHECK_NOTHROW((void)cgraph::graph::build(prog, "g", {{"p", buffer}}, kernels(), with(how)).instantiate());
  }
  CHECK(fake_cuda::param_info_calls() == asked);
  // A declaration the C++ type contradicts is still refused, at the kernel's first node.
  auto wrong = cgraph::program::compile("kernel add(p: f32*, i: f64);\ngraph g(p: f32*) {\n  add<<<1, 32>>>(p, 1.0);\n}\n",
                                        "test.cgraph");
  for (auto how : both)
    CHECK_THROWS_WITH_AS(cgraph::graph::build(wrong, "g", {{"p", buffer}}, kernels(), with(how)),
                         "test.cgraph:3:3: kernel 'add': parameter 2 ('i') is 8 bytes as declared ('f64') but 4 bytes in "
                         "the registered function",
                         cgraph::build_error);
  CHECK(fake_cuda::param_info_calls() == asked);
}

TEST_CASE("fake_runtime.a_module_kernel_is_probed_once_per_program") {
  // A module's kernel has no C++ type, so the driver is asked (the fake answers 8 and 4 bytes,
  // then cudaErrorInvalidValue at index 2): once while the program keeps the library loaded,
  // not again for a build with other options, which resolves its kernels anew.
  const auto folder = std::filesystem::temp_directory_path();
  std::ofstream(folder / "cgraph_fake_module.cubin") << "any bytes: the fake loads every file";
  auto prog = cgraph::program::compile(R"(module lib = "cgraph_fake_module.cubin";
kernel add(p: f32*, i: i32) from lib;
kernel wrong(p: f32*, i: f64) from lib;
graph g(p: f32*) {
  add<<<1, 32>>>(p, 1);
  add<<<1, 32>>>(p, 2);
}
graph bad(p: f32*) {
  wrong<<<1, 32>>>(p, 1.0);
}
)",
                                       "test.cgraph");
  const auto options = [&](cgraph::strategy how) {
    cgraph::build_options o = with(how);
    o.module_directory = folder.string();
    return o;
  };
  const long asked = fake_cuda::param_info_calls();
  for (auto how : both) {  // the second strategy's build asks nothing
    CHECK_NOTHROW((void)cgraph::graph::build(prog, "g", {{"p", buffer}}, {}, options(how)).instantiate());
    CHECK(fake_cuda::param_info_calls() == asked + 3);
  }
  for (auto how : both) {  // a mismatch is reported by every build, from the one answer
    CHECK_THROWS_WITH_AS(cgraph::graph::build(prog, "bad", {{"p", buffer}}, {}, options(how)),
                         "test.cgraph:9:3: kernel 'wrong': parameter 2 ('i') is 8 bytes as declared ('f64') but 4 bytes "
                         "in module 'lib'",
                         cgraph::build_error);
    CHECK(fake_cuda::param_info_calls() == asked + 6);
  }
  std::filesystem::remove(folder / "cgraph_fake_module.cubin");
}

TEST_CASE("fake_runtime.nodes_without_a_stream_call_inside_captured_bodies") {
  // In a capture, a conditional and a memset are added to the capturing graph after the
  // stream's dependencies, read in CUDA's own array (capture_session::dependencies), and a
  // kernel of constant arguments hands CUDA its template's argument list as it is
  // (graph_templates::argument_pointers). A `repeat` counter's memory is allocated before the
  // capture begins (prepared_steps), which the fake runtime checks as CUDA does: cudaMalloc
  // fails while a capture is open. Every body's nodes are then read when the exec is made, and
  // an update by name of a parameter that one kernel takes whole is a per-node one.
  auto prog = cgraph::program::compile(R"(kernel add(p: f32*, i: i32);
kernel clear(p: f32*, i: i32);
graph g(p: f32*, first: i32, go: u32 = 1) {
  cond c = go;
  cond again = 0;
  add<<<1, 32>>>(p, first);
  if c {
    memset(p, 0, 4);
    clear<<<1, 32>>>(p, 7);
    add<<<1, 32>>>(p, 8);
  } else {
    add<<<1, 32>>>(p, 9);
  }
  while again {
    clear<<<1, 32>>>(p, 10);
  }
  repeat 3 {
    add<<<1, 32>>>(p, 11);
  }
  memset(p, 0, 4);
}
)",
                                       "test.cgraph");
  for (auto how : both) {
    const std::string strategy = name_of(how);  // CAPTURE shows a string, not a pointer
    CAPTURE(strategy);
    auto g = cgraph::graph::build(prog, "g", {{"p", buffer}, {"first", 1}}, kernels(), with(how));
    auto exec = g.instantiate();
    check_update(exec.update({{"first", 2}}), cgraph::update_path::node_params, 1);
  }
}

TEST_CASE("fake_runtime.updates_take_the_cheapest_path_and_a_bad_value_changes_nothing") {
  // A parameter that one kernel takes whole is set on that node alone, through a handle or by
  // name, and so is a launch dimension (the kernel setter takes it) and a child graph's
  // argument (its node's setter); a cond's launch value, which only a new graph carries, goes
  // to the whole graph; an unchanged value calls nothing; a value the launch limits refuse is
  // reported at its line and leaves the exec as it was, so the next good update still takes
  // the per-node path.
  auto prog = cgraph::program::compile(prelude + R"(graph g(p: f32*, first: i32, blocks: u32 = 1, inner: i32 = 0, go: u32 = 1) {
  add<<<blocks, 32>>>(p, first);
  add<<<1, 32>>>(p, 2);
  call child(p, inner);
  cond c = go;
  if c { add<<<1, 32>>>(p, 3); }
}
)",
                                       "test.cgraph");
  for (auto how : both) {
    const std::string strategy = name_of(how);  // CAPTURE shows a string, not a pointer
    CAPTURE(strategy);
    auto exec = cgraph::graph::build(prog, "g", {{"p", buffer}, {"first", 1}}, kernels(), with(how)).instantiate();

    using cgraph::update_path;
    auto first = exec.parameter<int>("first");
    first = 5;
    check_update(exec.apply(), update_path::node_params, 1);
    check_update(exec.update({{"first", 5}}), update_path::unchanged, 0);
    check_update(exec.update({{"blocks", 4}}), update_path::node_params, 1);
    check_update(exec.update({{"inner", 3}}), update_path::node_params, 1);
    CHECK(exec.update({{"go", 0}}).path == update_path::whole_graph);

    CHECK_THROWS_WITH_AS(exec.update({{"blocks", 0}}), "test.cgraph:6:9: grid dimension x: value 0 is not positive",
                         cgraph::build_error);
    check_update(exec.update({{"first", 6}}), update_path::node_params, 1);
  }
}

TEST_CASE("fake_runtime.a_handle_checks_only_what_its_type_does_not_settle") {
  // A handle whose C++ type the parameter takes every value of stages it unchecked, and its
  // update stores it into arguments of the parameter's type as it is (graph.cpp,
  // fits_every_value; exec.cpp, direct_conversion::stored). Any other handle checks each value
  // at its assignment, as before: these throw there, or they would reach a kernel.
  auto prog = cgraph::program::compile(R"(kernel add(p: f32*, i: i32);
kernel as_u32(p: f32*, x: u32);
graph g(p: f32*, s: i32, u: u32) {
  add<<<1, 32>>>(p, s);
  as_u32<<<2, 32>>>(p, u);
}
)",
                                       "test.cgraph");
  cgraph::registry reg;
  reg.kernel("add", &add).kernel("as_u32", &as_u32);
  for (auto how : both) {
    const std::string strategy = name_of(how);
    CAPTURE(strategy);
    auto exec = cgraph::graph::build(prog, "g", {{"p", buffer}, {"s", 1}, {"u", 1u}}, reg, with(how)).instantiate();
    auto apply = [&](auto& handle, auto value) {
      return sets([&] {
        handle = value;
        check_update(exec.apply(), cgraph::update_path::node_params, 1);
      });
    };
    // Unchecked: every value fits.
    auto s = exec.parameter<int>("s");
    auto s16 = exec.parameter<std::uint16_t>("s");
    auto u = exec.parameter<unsigned>("u");
    auto u8 = exec.parameter<std::uint8_t>("u");
    CHECK(apply(s, -7) == sets_t{{1, 0xFFFFFFF9ull}});
    CHECK(apply(s, INT32_MAX) == sets_t{{1, 0x7FFFFFFFull}});
    CHECK(apply(s16, std::uint16_t{65535}) == sets_t{{1, 65535}});
    CHECK(apply(u, 4000000000u) == sets_t{{2, 4000000000ull}});
    CHECK(apply(u8, std::uint8_t{200}) == sets_t{{2, 200}});
    // Checked: a value outside the parameter's type is refused at the assignment.
    auto s_wide = exec.parameter<std::int64_t>("s");
    auto s_unsigned = exec.parameter<unsigned>("s");
    auto u_signed = exec.parameter<int>("u");
    CHECK_THROWS_AS(s_wide = std::int64_t{1} << 40, cgraph::build_error);
    CHECK_THROWS_AS(s_unsigned = 3000000000u, cgraph::build_error);
    CHECK_THROWS_AS(u_signed = -1, cgraph::build_error);
    CHECK(exec.apply().path == cgraph::update_path::unchanged);  // nothing was staged
    CHECK(apply(s_wide, std::int64_t{-5}) == sets_t{{1, 0xFFFFFFFBull}});
    CHECK(apply(u_signed, 7) == sets_t{{2, 7}});
  }
}

TEST_CASE("fake_runtime.a_handle_update_sets_what_the_updates_before_it_made") {
  // A parameter taken whole is updated by writing it into the exec's own values and handing
  // CUDA the kernel parameters made from them once (exec.cpp, bind_direct). An update of
  // another parameter by the general path replaces those values, and a whole-graph update drops
  // them: each later direct update must set the launch and arguments those made, not the ones
  // it saw first.
  auto prog = cgraph::program::compile(prelude + R"(graph g(p: f32*, first: i32, blocks: u32 = 1, go: u32 = 1) {
  add<<<blocks, 32>>>(p, first);
  add<<<1, 32>>>(p, first);
  cond c = go;
  if c { add<<<1, 32>>>(p, 3); }
}
)",
                                       "test.cgraph");
  using cgraph::update_path;
  for (auto how : both) {
    const std::string strategy = name_of(how);  // CAPTURE shows a string, not a pointer
    CAPTURE(strategy);
    auto exec = cgraph::graph::build(prog, "g", {{"p", buffer}, {"first", 1}}, kernels(), with(how)).instantiate();
    auto first = exec.parameter<int>("first");
    auto by_handle = [&](int value) {
      return sets([&] {
        first = value;
        check_update(exec.apply(), update_path::node_params, 2);
      });
    };
    CHECK(by_handle(2) == sets_t{{1, 2}, {1, 2}});
    CHECK(sets([&] { check_update(exec.update({{"blocks", 4}}), update_path::node_params, 1); }) == sets_t{{4, 2}});
    CHECK(by_handle(3) == sets_t{{4, 3}, {1, 3}});
    CHECK(exec.update({{"go", 0}}).path == update_path::whole_graph);
    CHECK(by_handle(4) == sets_t{{4, 4}, {1, 4}});
    CHECK(sets([&] { check_update(exec.update({{"blocks", 5}, {"first", 5}}), update_path::node_params, 2); }) ==
          sets_t{{5, 5}, {1, 5}});
    CHECK(by_handle(6) == sets_t{{5, 6}, {1, 6}});
    // Staged and applied by name together with a value that changes nothing.
    first = 7;
    CHECK(sets([&] { check_update(exec.update({{"blocks", 5}}), update_path::node_params, 2); }) ==
          sets_t{{5, 7}, {1, 7}});
  }
}

TEST_CASE("fake_runtime.a_handle_value_that_an_argument_cannot_take_fails_there_and_changes_nothing") {
  // A parameter handle's update of a parameter taken whole goes straight to the direct path
  // (exec.cpp, apply). A value that fits the parameter (i64) but not the kernel's argument (i32)
  // leaves that path with nothing changed: the full path reports it at the argument, as an
  // update by name does, and the exec keeps its values, so the next update sets only the new one.
  auto prog = cgraph::program::compile(prelude + R"(graph g(p: f32*, first: i64) {
  add<<<1, 32>>>(p, first);
}
)",
                                       "test.cgraph");
  for (auto how : both) {
    const std::string strategy = name_of(how);
    CAPTURE(strategy);
    auto exec = cgraph::graph::build(prog, "g", {{"p", buffer}, {"first", 1}}, kernels(), with(how)).instantiate();
    auto first = exec.parameter<std::int64_t>("first");
    first = 2;  // the first handle update works out the direct plan
    CHECK(sets([&] { check_update(exec.apply(), cgraph::update_path::node_params, 1); }) == sets_t{{1, 2}});
    first = 3;  // the direct path from here on
    CHECK(sets([&] { check_update(exec.apply(), cgraph::update_path::node_params, 1); }) == sets_t{{1, 3}});
    first = std::int64_t{1} << 40;
    CHECK(sets([&] {
            CHECK_THROWS_WITH_AS(exec.apply(), "test.cgraph:6:21: argument 2 ('i') of kernel 'add': value 1099511627776 does not fit i32",
                                 cgraph::build_error);
          }).empty());
    check_update(exec.update({{"first", 3}}), cgraph::update_path::unchanged, 0);
    first = 4;
    CHECK(sets([&] { check_update(exec.apply(), cgraph::update_path::node_params, 1); }) == sets_t{{1, 4}});
  }
}

TEST_CASE("fake_runtime.an_update_by_name_takes_a_braced_list_or_args_alike") {
  // A braced list takes update's initializer_list<named_arg> overload (names as string views);
  // cgraph::args, a vector made at run time, the other. Both stage, check and apply alike.
  auto prog = cgraph::program::compile(prelude + R"(graph g(p: f32*, first: i32, second: i32 = 0) {
  add<<<1, 32>>>(p, first);
  add<<<1, 32>>>(p, second);
}
)",
                                       "test.cgraph");
  auto exec = cgraph::graph::build(prog, "g", {{"p", buffer}, {"first", 1}}, kernels()).instantiate();
  CHECK(sets([&] { check_update(exec.update({{"first", 2}}), cgraph::update_path::node_params, 1); }) == sets_t{{1, 2}});
  const std::string second = "second";  // a name that is not a literal
  CHECK(sets([&] { check_update(exec.update({{second, 3}, {"first", 4}}), cgraph::update_path::node_params, 2); }) ==
        sets_t{{1, 4}, {1, 3}});
  const cgraph::args made{{"first", 5}};
  CHECK(sets([&] { check_update(exec.update(made), cgraph::update_path::node_params, 1); }) == sets_t{{1, 5}});
  // A wrong name or value fails before anything is applied, and drops what the list staged.
  CHECK_THROWS_WITH_AS(exec.update({{"first", 6}, {"third", 1}}), "test.cgraph:5:1: graph 'g' has no parameter 'third'",
                       cgraph::build_error);
  CHECK(sets([&] { check_update(exec.update({{"first", 5}}), cgraph::update_path::unchanged, 0); }).empty());
}

TEST_CASE("fake_runtime.fork_join_and_loops_build_in_both_strategies") {
  // Parallel branches (a dependency set each in a capture, joined in one call), a switch, a `while` whose
  // body sets its own cond, and a child graph: each builds, instantiates and takes a per-node
  // update in both strategies.
  auto prog = cgraph::program::compile(prelude + R"(kernel set_cond(c: cond, value: u32);
graph g(p: f32*, first: i32, which: u32 = 1) {
  add<<<1, 32>>>(p, first);
  parallel {
    add<<<1, 32>>>(p, 1);
    add<<<1, 32>>>(p, 2);
    {
      add<<<1, 32>>>(p, 3);
      add<<<1, 32>>>(p, 4);
    }
  }
  cond pick = which;
  switch pick {
    case 0 { add<<<1, 32>>>(p, 5); }
    case 1 { add<<<1, 32>>>(p, 6); memset(p, 0, 4); }
  }
  cond more = 1;
  while more {
    add<<<1, 32>>>(p, 7);
    set_cond<<<1, 1>>>(more, 0);
  }
  call child(p, 8);
}
)",
                                       "test.cgraph");
  void (*set_cond)(cudaGraphConditionalHandle, unsigned) = [](cudaGraphConditionalHandle, unsigned) {};
  for (auto how : both) {
    const std::string strategy = name_of(how);  // CAPTURE shows a string, not a pointer
    CAPTURE(strategy);
    auto reg = kernels();
    reg.kernel("set_cond", set_cond);
    auto exec = cgraph::graph::build(prog, "g", {{"p", buffer}, {"first", 1}}, reg, with(how)).instantiate();
    check_update(exec.update({{"first", 2}}), cgraph::update_path::node_params, 1);
  }
}

TEST_CASE("fake_runtime.a_capture_makes_the_edges_an_explicit_build_makes") {
  // A capture keeps a body's streams as dependency sets on one CUDA stream (capture_session.hpp):
  // branches that begin a body (no dependency), branches that fork from a node and join into
  // one, a fork inside a branch, an `after` edge, and a wide body of a conditional. The kernels'
  // edges, told apart by their second argument, are the explicit build's and the program's.
  auto prog = cgraph::program::compile(prelude + R"(graph g(p: f32*) {
  parallel {
    add<<<1, 32>>>(p, 1);
    { add<<<1, 32>>>(p, 2); add<<<1, 32>>>(p, 3); }
  }
  add<<<1, 32>>>(p, 4);
  parallel {
    add<<<1, 32>>>(p, 5);
    a: add<<<1, 32>>>(p, 6);
    { add<<<1, 32>>>(p, 7); parallel { add<<<1, 32>>>(p, 8); add<<<1, 32>>>(p, 9); } }
  }
  add<<<1, 32>>>(p, 10);
  add<<<1, 32>>>(p, 11) after a;
  cond c = 1;
  if c {
    parallel { add<<<1, 32>>>(p, 12); add<<<1, 32>>>(p, 13); }
    add<<<1, 32>>>(p, 14);
  }
}
)",
                                       "test.cgraph");
  using edges = std::vector<std::pair<unsigned long long, unsigned long long>>;
  const edges expected = {{1, 4},  {2, 3},  {3, 4},  {4, 5},   {4, 6},   {4, 7},   {5, 10},  {6, 10}, {6, 11},
                          {7, 8},  {7, 9},  {8, 10}, {9, 10},  {10, 11}, {12, 14}, {13, 14}};
  for (auto how : both) {
    const std::string strategy = name_of(how);
    CAPTURE(strategy);
    fake_cuda::record_kernels(true);
    (void)cgraph::graph::build(prog, "g", {{"p", buffer}}, kernels(), with(how));
    const edges made = fake_cuda::kernel_edges();
    fake_cuda::record_kernels(false);
    CHECK(made == expected);
  }
}

TEST_CASE("fake_runtime.a_capture_gives_back_its_streams_for_the_next") {
  // A capture session's streams stay with its thread for the thread's next session, and go back
  // to the process's pool when the thread ends or captures on another device
  // (capture_session.cpp): a capture after the first makes none, and none stays counted as
  // taken. The root takes one stream (its four branches are
  // dependency sets on it, no stream and no event of their own); a conditional's body, a
  // session's nested frame, takes another; the child graph is captured by a session of its own.
  auto prog = cgraph::program::compile(prelude + R"(graph g(p: f32*) {
  parallel {
    add<<<1, 32>>>(p, 1);
    add<<<1, 32>>>(p, 2);
    add<<<1, 32>>>(p, 3);
    add<<<1, 32>>>(p, 4);
  }
  cond c = 1;
  if c { parallel { add<<<1, 32>>>(p, 5); add<<<1, 32>>>(p, 6); } }
  call child(p, 7);
}
)",
                                       "test.cgraph");
  auto build = [&] {
    (void)cgraph::graph::build(prog, "g", {{"p", buffer}}, kernels(), with(cgraph::strategy::stream_capture));
  };
  build();  // fills the pool, and the thread's parked list, with what a build of this graph takes
  const auto before = cgraph::testing::live_handles();
  const long made = fake_cuda::streams_and_events_made();
  for (int k = 0; k < 3; ++k) build();
  CHECK(fake_cuda::streams_and_events_made() == made);  // each took the parked and pooled ones
  CHECK(cgraph::testing::live_handles() == before);     // and gave them back
  CHECK(cgraph::testing::streams_left_capturing() == 0);

  // Another thread finds the pool short of the streams this thread keeps (the child's session
  // keeps the two it took, which this thread's next session takes) and makes as many; when it
  // ends, its streams go back to the pool, where a third thread finds them.
  std::thread([&] {
    build();
    build();
  }).join();
  const long with_second_thread = fake_cuda::streams_and_events_made();
  CHECK(with_second_thread == made + 2);
  std::thread([&] { build(); }).join();
  CHECK(fake_cuda::streams_and_events_made() == with_second_thread);
  CHECK(cgraph::testing::live_handles() == before);
  build();
  CHECK(fake_cuda::streams_and_events_made() == with_second_thread);

  // On another device the thread's parked streams go back to the pool and the device's own are
  // taken (made here, the first time); back on the first device, the pool has its streams.
  REQUIRE(cudaSetDevice(1) == cudaSuccess);
  build();
  const long with_second_device = fake_cuda::streams_and_events_made();
  CHECK(with_second_device > with_second_thread);
  build();
  CHECK(fake_cuda::streams_and_events_made() == with_second_device);
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
  build();
  REQUIRE(cudaSetDevice(1) == cudaSuccess);
  build();
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
  CHECK(fake_cuda::streams_and_events_made() == with_second_device);
  CHECK(cgraph::testing::live_handles() == before);
  CHECK(cgraph::testing::streams_left_capturing() == 0);
}

TEST_CASE("fake_runtime.a_failure_at_any_call_of_build_and_instantiate_is_reported_and_leaks_nothing") {
  // Each CUDA call of a build and its instantiation fails in turn (fault_sweep.hpp), in both
  // strategies.
  auto prog = cgraph::program::compile(prelude + R"(graph g(p: f32*, first: i32, go: u32 = 1) {
  add<<<1, 32>>>(p, first);
  parallel {
    add<<<1, 32>>>(p, 1);
    add<<<1, 32>>>(p, 2);
  }
  cond c = go;
  if c { memset(p, 0, 4); add<<<1, 32>>>(p, 3); }
  repeat 2 { add<<<1, 32>>>(p, 4); }
  call child(p, 5);
}
)",
                                       "test.cgraph");
  for (auto how : both) {
    const std::string strategy = name_of(how);  // CAPTURE shows a string, not a pointer
    CAPTURE(strategy);
    const long calls = sweep_faults(
        [&] { (void)cgraph::graph::build(prog, "g", {{"p", buffer}, {"first", 1}}, kernels(), with(how)).instantiate(); },
        "test.cgraph", 10);
    MESSAGE(strategy, ": ", calls, " faults injected in build + instantiate, each reported, nothing leaked");
  }
}

TEST_CASE("fake_runtime.each_node_gets_its_values_whatever_its_template_shares") {
  // A graph's templates convert each constant part once for every node that converts the same
  // expression to the same type with the same check (value numbering makes the `1` below one
  // expression): the same expression as an i32, an f32, a u32, a grid or block dimension and
  // shared bytes must each keep its own bytes. Dimensions and shared bytes not written are 1
  // and 0 without being converted, and a dimension read from a parameter is computed per build.
  auto prog = cgraph::program::compile(R"(kernel add(p: f32*, i: i32);
kernel as_f32(p: f32*, x: f32);
kernel as_u32(p: f32*, x: u32);
graph g(p: f32*, n: i32 = 5) {
  add<<<1, 32>>>(p, 1);
  as_f32<<<1, 1>>>(p, 1);
  as_u32<<<(2, 3, 4), (1, 1, 2), 1>>>(p, 1);
  as_f32<<<n, 1>>>(p, 2.5);
  add<<<(n, 1), 64, 16>>>(p, -1);
  as_f32<<<1, 32>>>(p, -0.0);
  as_f32<<<1, 32>>>(p, 0.0);
}
)",
                                       "test.cgraph");
  cgraph::registry reg = kernels();
  reg.kernel("as_f32", &as_f32).kernel("as_u32", &as_u32);
  const auto bits = [](float f) {
    unsigned u = 0;
    std::memcpy(&u, &f, 4);
    return static_cast<unsigned long long>(u);
  };
  struct expected {
    unsigned grid[3], block[3], shared;
    unsigned long long arg1;
  };
  for (int n : {5, 7}) {
    const expected want[] = {
        {{1, 1, 1}, {32, 1, 1}, 0, 1},
        {{1, 1, 1}, {1, 1, 1}, 0, bits(1.0f)},
        {{2, 3, 4}, {1, 1, 2}, 1, 1},
        {{static_cast<unsigned>(n), 1, 1}, {1, 1, 1}, 0, bits(2.5f)},
        {{static_cast<unsigned>(n), 1, 1}, {64, 1, 1}, 16, 0xFFFFFFFFull},
        {{1, 1, 1}, {32, 1, 1}, 0, bits(-0.0f)},
        {{1, 1, 1}, {32, 1, 1}, 0, bits(0.0f)},
    };
    for (auto how : both) {
      const std::string strategy = name_of(how);  // CAPTURE shows a string, not a pointer
      CAPTURE(strategy);
      CAPTURE(n);
      fake_cuda::record_kernels(true);
      (void)cgraph::graph::build(prog, "g", {{"p", buffer}, {"n", n}}, reg, with(how));
      const std::vector<fake_cuda::kernel_record> got = fake_cuda::kernels_recorded();
      fake_cuda::record_kernels(false);
      REQUIRE(got.size() == std::size(want));
      for (std::size_t i = 0; i < got.size(); ++i) {
        CAPTURE(i);
        CHECK(got[i].grid.x == want[i].grid[0]);
        CHECK(got[i].grid.y == want[i].grid[1]);
        CHECK(got[i].grid.z == want[i].grid[2]);
        CHECK(got[i].block.x == want[i].block[0]);
        CHECK(got[i].block.y == want[i].block[1]);
        CHECK(got[i].block.z == want[i].block[2]);
        CHECK(got[i].shared == want[i].shared);
        CHECK(got[i].arg1 == want[i].arg1);
      }
    }
  }
}

TEST_CASE("fake_runtime.a_kernel_with_attributes_gets_the_values_of_one_without") {
  // A kernel node without attributes is templated straight from its launch and arguments; one
  // with attributes takes the general path (node_values.cpp). Both must give every node the
  // same launch and arguments: the same launches as above, once plain and once each with an
  // attribute, built with two parameter values in both strategies.
  const std::string launches[] = {
      "add<<<1, 32>>>(p, 1);",        "as_f32<<<1, 1>>>(p, 1);",       "as_u32<<<(2, 3, 4), (1, 1, 2), 1>>>(p, 1);",
      "as_f32<<<n, 1>>>(p, 2.5);",    "add<<<(n, 1), 64, 16>>>(p, -1);", "as_f32<<<1, 32>>>(p, -0.0);",
      "add<<<n, n>>>(p, n);",
  };
  const auto program_of = [&](std::string_view attribute) {
    std::string text = "kernel add(p: f32*, i: i32);\nkernel as_f32(p: f32*, x: f32);\n"
                       "kernel as_u32(p: f32*, x: u32);\ngraph g(p: f32*, n: i32 = 5) {\n";
    for (const auto& l : launches) text += "  " + std::string(attribute) + l + "\n";
    return cgraph::program::compile(text + "}\n", "test.cgraph");
  };
  const cgraph::program plain = program_of(""), with_attributes = program_of("[[priority(1)]] ");
  cgraph::registry reg = kernels();
  reg.kernel("as_f32", &as_f32).kernel("as_u32", &as_u32);
  const auto record = [&](const cgraph::program& prog, int n, cgraph::strategy how) {
    fake_cuda::record_kernels(true);
    (void)cgraph::graph::build(prog, "g", {{"p", buffer}, {"n", n}}, reg, with(how));
    std::vector<fake_cuda::kernel_record> got = fake_cuda::kernels_recorded();
    fake_cuda::record_kernels(false);
    return got;
  };
  for (int n : {5, 7}) {
    for (auto how : both) {
      const std::string strategy = name_of(how);
      CAPTURE(strategy);
      CAPTURE(n);
      const auto want = record(plain, n, how), got = record(with_attributes, n, how);
      REQUIRE(want.size() == std::size(launches));
      REQUIRE(got.size() == want.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        CAPTURE(i);
        CHECK(got[i].grid.x == want[i].grid.x);
        CHECK(got[i].grid.y == want[i].grid.y);
        CHECK(got[i].grid.z == want[i].grid.z);
        CHECK(got[i].block.x == want[i].block.x);
        CHECK(got[i].block.y == want[i].block.y);
        CHECK(got[i].block.z == want[i].block.z);
        CHECK(got[i].shared == want[i].shared);
        CHECK(got[i].arg1 == want[i].arg1);
      }
      // The last launch reads `n` everywhere: its values are this build's, not a template's.
      CHECK(want.back().grid.x == static_cast<unsigned>(n));
      CHECK(want.back().block.x == static_cast<unsigned>(n));
      CHECK(want.back().arg1 == static_cast<unsigned long long>(n));
    }
  }
}

namespace {

// A graph that nests: conditionals inside conditionals, parallel branches inside bodies, an
// `else if` (whose cond lives in the else body), a repeat inside a switch case and one at the
// root; compiled, and its explicit plan (which points into the program).
struct nested_plan {
  cgraph::ir::program prog = cgraph::compile_or_throw(cgraph::source_file("nest.cgraph", R"(kernel k(p: f32*, i: i32);
kernel spin(c: cond, i: i32);
graph nest(p: f32*, n: i32) {
  cond outer = 1;
  cond which = n;
  k<<<1, 32>>>(p, 0);
  while outer {
    cond inner = 1;
    cond next = 0;
    spin<<<1, 1>>>(next, 1);
    parallel { k<<<1, 32>>>(p, 1); { if inner { k<<<1, 32>>>(p, 2); } else if next { parallel { k<<<1, 32>>>(p, 3); k<<<1, 32>>>(p, 4); } } } }
    spin<<<1, 1>>>(outer, 5);
  }
  switch which { case 0 { k<<<1, 32>>>(p, 6); } case 2 { repeat 3 { k<<<1, 32>>>(p, 7); } } }
  repeat 2 { k<<<1, 32>>>(p, 8); }
  parallel { k<<<1, 32>>>(p, 8); k<<<1, 32>>>(p, 9); }
}
)"));
  cgraph::plan::explicit_plan plan = cgraph::plan::lower_explicit(prog.graphs.at(0));
};

}  // namespace

TEST_CASE("fake_runtime.capture_rows_nest_each_body_between_its_enter_and_leave_rows") {
  // Conditionals inside conditionals, parallel branches inside bodies, a repeat inside a
  // switch (nested_plan): the table form takes conditionals at the root only, so its rows
  // (table_form_tests) do not cover these. Each step is issued once, on a stream of the body
  // it belongs to, after every step it waits for; each conditional's bodies follow it in
  // order, each between its enter and leave rows; and each step's dependencies are earlier
  // steps of its own graph.
  const nested_plan nested;
  const cgraph::plan::explicit_plan& plan = nested.plan;
  const cgraph::detail::capture_rows rows = cgraph::detail::flatten_capture(plan, cgraph::plan::lower_capture(plan));
  const std::vector<cgraph::detail::step_row> steps = cgraph::detail::step_rows(plan);
  REQUIRE(steps.size() == plan.steps.size());
  for (std::uint32_t i = 0; i < steps.size(); ++i)
    for (std::uint32_t k = 0; k < steps[i].dep_count; ++k) {
      const std::uint32_t d = plan.dep_steps[steps[i].deps + k];
      CHECK(d < i);
      CHECK(steps[d].graph == steps[i].graph);
    }
  struct open_body {
    std::uint32_t graph;    // 0 the root, b + 1 body b
    std::uint32_t streams;
  };
  struct open_conditional {
    std::uint32_t next, end;  // its bodies not entered yet
  };
  std::vector<open_body> bodies{{0, rows.root_streams}};
  std::vector<open_conditional> conditionals;
  std::vector<int> issued(steps.size(), 0);
  std::uint32_t entered = 0;
  auto issued_before = [&](cgraph::backend::list<std::uint32_t> waits) {
    for (std::uint32_t w : waits)
      if (w >= issued.size() || issued[w] != 1) return false;
    return true;
  };
  // The steps row `r` waits for: its waits, or a leave row's joins.
  auto waits_of = [&](const cgraph::backend::capture_row& r) {
    return cgraph::backend::list<std::uint32_t>(rows.waits.data() + r.waits, r.wait_count);
  };
  for (const cgraph::backend::capture_row& r : rows.rows) {
    CAPTURE(r.step);
    if (r.op == cgraph::backend::capture_op::enter_body) {
      REQUIRE_FALSE(conditionals.empty());
      CHECK(r.step == conditionals.back().next);
      ++conditionals.back().next;
      ++entered;
      bodies.push_back({r.step + 1, r.stream});
    } else if (r.op == cgraph::backend::capture_op::leave_body) {
      REQUIRE(bodies.size() > 1);
      CHECK(issued_before(waits_of(r)));  // the body's joins
      bodies.pop_back();
      if (conditionals.back().next == conditionals.back().end) conditionals.pop_back();
    } else {
      REQUIRE(r.step < steps.size());
      CHECK(steps[r.step].graph == bodies.back().graph);
      CHECK(r.stream < bodies.back().streams);
      CHECK(issued_before(waits_of(r)));
      ++issued[r.step];
      const cgraph::detail::step_row& s = steps[r.step];
      if (s.kind == cgraph::ir::node_kind::conditional) conditionals.push_back({s.body, s.body + s.bodies});
    }
  }
  CHECK(bodies.size() == 1);
  CHECK(conditionals.empty());
  CHECK(entered == plan.body_graphs);
  CHECK(issued_before(rows.joins()));
  CHECK(std::count(issued.begin(), issued.end(), 1) == static_cast<std::ptrdiff_t>(steps.size()));
  CHECK(rows.root_streams == 2);  // the last parallel's second branch
}

TEST_CASE("fake_runtime.each_cond_is_listed_with_the_graph_its_conditional_lives_in") {
  // A build makes a graph's conds as it begins the graph, from the plan's conds_by_graph (plan.hpp):
  // CUDA takes a cond's handle only in the graph that holds its conditional node, so each cond
  // must be listed, once, with the graph (root or body) of the conditional it drives, and with
  // no other (nested_plan: conds at the root, in nested bodies, in an `else if`, the else
  // body's, and in a `repeat` inside a switch case).
  const nested_plan nested;
  const cgraph::plan::explicit_plan& plan = nested.plan;
  const std::vector<cgraph::detail::step_row> steps = cgraph::detail::step_rows(plan);
  const cgraph::plan::graph_conds& lists = plan.conds_by_graph;
  REQUIRE(lists.first.size() == plan.body_graphs + 2);
  REQUIRE(lists.first.back() == plan.cond_homes.size());
  REQUIRE(lists.conds.size() == plan.cond_homes.size());
  // The graph each cond's conditional lives in, from the step rows.
  std::vector<std::uint32_t> graph_of(plan.cond_homes.size(), ~0u);
  std::size_t conditionals = 0;
  for (const cgraph::detail::step_row& s : steps)
    if (s.kind == cgraph::ir::node_kind::conditional) {
      ++conditionals;
      REQUIRE(s.callee < graph_of.size());
      CHECK(graph_of[s.callee] == ~0u);  // one conditional a cond
      graph_of[s.callee] = s.graph;
    }
  CHECK(conditionals == plan.cond_homes.size());
  std::vector<int> listed(plan.cond_homes.size(), 0);
  std::size_t in_bodies = 0;
  for (std::uint32_t g = 0; g + 1 < lists.first.size(); ++g) {
    CAPTURE(g);
    CHECK(lists.first[g] <= lists.first[g + 1]);
    for (std::uint32_t k = lists.first[g]; k < lists.first[g + 1]; ++k) {
      const std::uint32_t c = lists.conds[k];
      REQUIRE(c < listed.size());
      CHECK(graph_of[c] == g);
      ++listed[c];
      if (k > lists.first[g]) CHECK(lists.conds[k - 1] < c);  // in cond order
      in_bodies += g != 0;
    }
  }
  CHECK(std::all_of(listed.begin(), listed.end(), [](int n) { return n == 1; }));
  CHECK(in_bodies >= 3);  // inner, the else-if's and the case's repeat live in bodies
}

// An exec's applied and staged parameter values (param_values): a struct's bytes are copied once
// when set, apart from the caller's, shared by copies, and let go when a number replaces them;
// values with no struct on either side copy as values alone (their list of bytes stays empty,
// which this cannot see: host_work_bench --what instantiate counts what it saves).
TEST_CASE("fake_runtime.parameter_values_copy_a_structs_bytes_once_and_share_them") {
  struct pair {
    int a, b;
  };
  pair first{1, 2}, second{3, 4};
  auto bytes_of = [](const std::optional<cgraph::ir::value>& v) { return reinterpret_cast<const pair*>(v->bits); };
  cgraph::detail::param_values applied(2), staged(2);
  staged.set(0, cgraph::ir::value::integer(7));
  staged.set(1, cgraph::ir::value::structure(&first, sizeof first));
  first.a = 99;  // the caller's struct changes after it was set
  REQUIRE(staged[1]);
  CHECK(bytes_of(staged[1]) != &first);
  CHECK(bytes_of(staged[1])->a == 1);
  CHECK(staged[1]->i == static_cast<std::int64_t>(sizeof(pair)));

  applied.copy(0, staged);
  applied.copy(1, staged);
  CHECK(applied[0] == staged[0]);
  CHECK(bytes_of(applied[1]) == bytes_of(staged[1]));  // shared, not copied again

  // A new struct staged: the applied values keep the bytes they share.
  staged.set(1, cgraph::ir::value::structure(&second, sizeof second));
  CHECK(bytes_of(applied[1])->a == 1);
  CHECK(bytes_of(staged[1])->a == 3);
  CHECK(bytes_of(staged[1]) != bytes_of(applied[1]));

  // A number where a struct was, and a copy of it: the bytes are let go on both sides, and a
  // struct copied back over a number is shared again.
  staged.set(1, cgraph::ir::value::integer(5));
  CHECK(staged[1]->k == cgraph::ir::value::kind::integer);
  cgraph::detail::param_values saved = applied;  // keeps the first struct's bytes alive
  applied.copy(1, staged);
  CHECK(applied[1] == staged[1]);
  applied.copy(1, saved);
  CHECK(bytes_of(applied[1]) == bytes_of(saved[1]));
  CHECK(bytes_of(applied[1])->a == 1);

  // No struct anywhere: values only.
  cgraph::detail::param_values plain(3), other(3);
  plain.set(2, cgraph::ir::value::floating(0.5));
  other.copy(2, plain);
  CHECK(other[2] == plain[2]);
  CHECK_FALSE(other[0]);
  const cgraph::detail::param_values copied = plain;
  CHECK(copied[2] == plain[2]);
}

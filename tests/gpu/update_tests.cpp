// Update on every path, and errors that name the .cgraph line.

#include "gpu_support.hpp"
#include "kernels.cuh"

#include "testing.hpp"

#include <algorithm>
#include <cmath>

using namespace gpu_test;

namespace {

const std::string saxpy_graph = R"(
graph g(x: f32*, y: f32*, a: f32, n: i32, go: u32 = 1) {
  fill<<<ceil_div(n, 64), 64>>>(x, 1.0, n);
  fill<<<ceil_div(n, 64), 64>>>(y, 0.0, n);
  saxpy<<<ceil_div(n, 64), 64>>>(a, x, y, n);
  cond again = go;
  while again {
    saxpy<<<ceil_div(n, 64), 64>>>(a, x, y, n);
    set_cond<<<1, 1>>>(again, 0);
  }
}
)";

}  // namespace

TEST_CASE("runtime.update_takes_the_cheapest_path") {
  auto prog = compile(saxpy_graph);
  const int n = 256;
  buffer<float> x(n), y(n), x2(n);
  auto g = cgraph::graph::build(prog, "g", {{"x", x.get()}, {"y", y.get()}, {"a", 2.0f}, {"n", n}}, kernels());
  auto exec = g.instantiate();
  run(exec);
  CHECK(y.read()[0] == 4.0f);  // two saxpy steps with a = 2

  SUBCASE("unchanged") {
    auto r = exec.update({{"a", 2.0f}});
    CHECK(r.path == cgraph::update_path::unchanged);
    CHECK(r.nodes_changed == 0);
  }
  SUBCASE("per-node, also inside a conditional body") {
    auto r = exec.update({{"a", 3.0f}});
    MESSAGE("a changed: ", cgraph::to_string(r.path), ", ", r.nodes_changed, " nodes");
    CHECK(r.nodes_changed == 2);
    CHECK(r.path == cgraph::update_path::node_params);
    run(exec);
    for (float v : y.read()) REQUIRE(v == 6.0f);
  }
  SUBCASE("a pointer and a grid size") {
    auto r = exec.update({{"x", x2.get()}, {"n", n / 2}});
    MESSAGE("x and n changed: ", cgraph::to_string(r.path));
    CHECK(r.path == cgraph::update_path::node_params);
    GPU_CHECK(cudaMemset(y.get(), 0, n * sizeof(float)));
    run(exec);
    auto v = y.read();
    CHECK(v[0] == 4.0f);
    CHECK(v[n / 2 - 1] == 4.0f);
    CHECK(v[n / 2] == 0.0f);  // the second half is no longer touched
  }
  SUBCASE("a cond's launch value needs a new graph") {
    auto r = exec.update({{"go", 0}});
    MESSAGE("cond default changed: ", cgraph::to_string(r.path));
    CHECK((r.path == cgraph::update_path::whole_graph || r.path == cgraph::update_path::reinstantiated));
    run(exec);
    for (float v : y.read()) REQUIRE(v == 2.0f);  // the loop body no longer runs
    auto again = exec.update({{"a", 5.0f}});  // per-node updates still work afterwards
    MESSAGE("then a changed: ", cgraph::to_string(again.path));
    run(exec);
    for (float v : y.read()) REQUIRE(v == 5.0f);
  }
}

TEST_CASE("runtime.an_update_of_most_nodes_stays_per_node") {
  // 70 nodes read `s`, one reads `t`. Changing s changes most nodes: per-node setters still
  // apply it, as they measured cheaper per node than a rebuild plus cudaGraphExecUpdate at
  // every size runtime_bench tries (docs/performance.md, "update all").
  std::string text = "graph g(p: f32*, s: f32, t: f32, n: i32) {\n  fill<<<ceil_div(n, 64), 64>>>(p, 1.0, n);\n";
  for (int k = 0; k < 70; ++k) text += "  scale<<<ceil_div(n, 64), 64>>>(p, s, n);\n";
  text += "  scale<<<ceil_div(n, 64), 64>>>(p, t, n);\n}\n";
  auto prog = compile(text);
  const int n = 128;
  buffer<float> p(n);
  auto g = cgraph::graph::build(prog, "g", {{"p", p.get()}, {"s", 1.0f}, {"t", 2.0f}, {"n", n}}, kernels());
  auto exec = g.instantiate();
  run(exec);
  CHECK(p.read()[0] == 2.0f);

  auto most = exec.update({{"s", 0.5f}});
  MESSAGE("s changed: ", cgraph::to_string(most.path), ", ", most.nodes_changed, " nodes");
  CHECK(most.nodes_changed == 70);
  CHECK(most.path == cgraph::update_path::node_params);
  run(exec);
  const float expected = std::ldexp(2.0f, -70);  // 1 · 0.5^70 · 2, exact in f32
  for (float v : p.read()) REQUIRE(v == expected);

  auto one = exec.update({{"t", 4.0f}});
  CHECK(one.nodes_changed == 1);
  CHECK(one.path == cgraph::update_path::node_params);
  run(exec);
  for (float v : p.read()) REQUIRE(v == 2 * expected);
}

TEST_CASE("runtime.parameter_handles_update_without_names") {
  auto prog = compile(saxpy_graph);
  const int n = 256;
  buffer<float> x(n), y(n), x2(n);
  auto g = cgraph::graph::build(prog, "g", {{"x", x.get()}, {"y", y.get()}, {"a", 2.0f}, {"n", n}}, kernels());
  auto exec = g.instantiate();
  auto a = exec.parameter<float>("a");
  auto count = exec.parameter<int>("n");
  auto input = exec.parameter<float*>("x");
  run(exec);
  CHECK(y.read()[0] == 4.0f);

  CHECK(exec.apply().path == cgraph::update_path::unchanged);  // nothing staged
  a = 3.0f;
  auto r = exec.apply();
  CHECK(r.path == cgraph::update_path::node_params);
  CHECK(r.nodes_changed == 2);  // the saxpy before the loop and the one in its body
  run(exec);
  for (float v : y.read()) REQUIRE(v == 6.0f);

  // Several handles, applied together; the exec may be moved meanwhile.
  auto moved = std::move(exec);
  input = x2.get();
  count = n / 2;
  CHECK(moved.apply().path == cgraph::update_path::node_params);
  GPU_CHECK(cudaMemset(y.get(), 0, n * sizeof(float)));
  run(moved);
  auto v = y.read();
  CHECK(v[0] == 6.0f);
  CHECK(v[n / 2 - 1] == 6.0f);
  CHECK(v[n / 2] == 0.0f);

  // A value that fails at apply() is dropped with everything staged: the exec keeps n / 2.
  count = 0;
  a = 1.0f;
  CHECK_THROWS_WITH_AS(moved.apply(), "test.cgraph:13:10: grid dimension x: value 0 is not positive", cgraph::build_error);
  CHECK(moved.apply().path == cgraph::update_path::unchanged);
  GPU_CHECK(cudaMemset(y.get(), 0, n * sizeof(float)));
  run(moved);
  v = y.read();
  CHECK(v[0] == 6.0f);
  CHECK(v[n / 2] == 0.0f);

  // Names and kinds are checked when the handle is made, values when they are staged.
  CHECK_THROWS_WITH_AS(moved.parameter<int>("m"), "test.cgraph:12:1: graph 'g' has no parameter 'm'", cgraph::build_error);
  CHECK_THROWS_WITH_AS(moved.parameter<int>("a"),
                       "test.cgraph:12:27: parameter 'a' of type 'f32' takes a floating type, not an integer type",
                       cgraph::build_error);
  auto wide = moved.parameter<double>("a");
  try {
    wide = 1e300;
    FAIL("expected a build_error");
  } catch (const cgraph::build_error& e) {
    CHECK(std::string(e.what()).rfind("test.cgraph:12:27: parameter 'a' of type 'f32': value", 0) == 0);
    CHECK(std::string(e.what()).find("does not fit f32") != std::string::npos);
  }
  CHECK(moved.apply().path == cgraph::update_path::unchanged);  // the refused value was never staged
}

TEST_CASE("runtime.a_handle_update_after_a_general_one_runs_with_its_values") {
  // A handle's update hands CUDA kernel parameters made once from the exec's own values
  // (exec.cpp, bind_direct). An update by the general path (`n` reaches the grids) and a
  // whole-graph update (`go`, a cond's launch value) replace those values between two handle
  // updates: the graph must run with n / 2, as the second handle update leaves it.
  auto prog = compile(saxpy_graph);
  const int n = 256;
  buffer<float> x(n), y(n);
  auto exec = cgraph::graph::build(prog, "g", {{"x", x.get()}, {"y", y.get()}, {"a", 2.0f}, {"n", n}}, kernels())
                  .instantiate();
  auto a = exec.parameter<float>("a");
  auto expect = [&](float value, int count) {
    GPU_CHECK(cudaMemset(y.get(), 0, n * sizeof(float)));
    run(exec);
    auto v = y.read();
    for (int i = 0; i < n; ++i) REQUIRE(v[i] == (i < count ? value : 0.0f));
  };
  a = 3.0f;
  CHECK(exec.apply().path == cgraph::update_path::node_params);
  expect(6.0f, n);  // the loop runs once: y = a x, then y += a x
  CHECK(exec.update({{"n", n / 2}}).path == cgraph::update_path::node_params);
  a = 5.0f;
  CHECK(exec.apply().path == cgraph::update_path::node_params);
  expect(10.0f, n / 2);
  const auto whole = exec.update({{"go", 0u}}).path;
  CHECK((whole == cgraph::update_path::whole_graph || whole == cgraph::update_path::reinstantiated));
  a = 4.0f;
  CHECK(exec.apply().path == cgraph::update_path::node_params);
  expect(4.0f, n / 2);  // the loop does not run
}

TEST_CASE("runtime.a_parameter_taken_whole_is_converted_into_its_arguments") {
  // `v` and `bytes` reach nodes only as whole arguments: an update of one of them alone writes
  // the converted value into those arguments without evaluating anything (exec.cpp,
  // direct_values). What it gives must be what the full path gives: the values, the nodes it
  // counts as changed, and the error, at the argument, of a value that does not convert.
  auto prog = compile(R"(
graph g(p: f32*, q: f32*, v: f64, bytes: u64, n: i32) {
  fill<<<1, 64>>>(p, v, n);
  copy_scaled<<<1, 64>>>(p, q, v, n);
  memcpy(q, p, bytes);
}
)");
  const int n = 64;
  buffer<float> p(n), q(n);
  const cgraph::args first{{"p", p.get()}, {"q", q.get()}, {"v", 2.0}, {"bytes", std::uint64_t{16 * sizeof(float)}}, {"n", n}};
  auto built = cgraph::graph::build(prog, "g", first, kernels());
  auto exec = built.instantiate();
  auto v = exec.parameter<double>("v");
  auto bytes = exec.parameter<std::uint64_t>("bytes");
  auto expect_of = [&](cgraph::graph_exec& e, float value, int copied) {
    GPU_CHECK(cudaMemset(q.get(), 0, n * sizeof(float)));
    run(e);
    auto got = q.read();
    for (int i = 0; i < n; ++i) REQUIRE(got[i] == (i < copied ? value : value * value));
  };
  auto expect = [&](float value, int copied) { expect_of(exec, value, copied); };
  expect(2.0f, 16);

  v = 3.0;
  auto r = exec.apply();
  CHECK(r.path == cgraph::update_path::node_params);
  CHECK(r.nodes_changed == 2);
  expect(3.0f, 16);

  bytes = std::uint64_t{32 * sizeof(float)};
  r = exec.apply();
  CHECK(r.path == cgraph::update_path::node_params);
  CHECK(r.nodes_changed == 1);
  expect(3.0f, 32);

  // A new value that converts to the arguments' old bytes changes no node.
  v = 3.0 + 1e-12;
  r = exec.apply();
  CHECK(r.path == cgraph::update_path::unchanged);
  CHECK(r.nodes_changed == 0);

  // A value the parameter takes but its argument does not: the error a build gives, and the
  // exec keeps what it had.
  std::string build_error;
  try {
    auto bad = first;
    bad[2].second = cgraph::arg(1e300);
    (void)cgraph::graph::build(prog, "g", bad, kernels());
  } catch (const cgraph::build_error& e) {
    build_error = e.what();
  }
  CHECK(build_error.rfind("test.cgraph:13:", 0) == 0);
  v = 1e300;
  CHECK_THROWS_WITH_AS(exec.apply(), build_error.c_str(), cgraph::build_error);
  CHECK_THROWS_WITH_AS(exec.update({{"v", 1e300}}), build_error.c_str(), cgraph::build_error);
  CHECK(exec.apply().path == cgraph::update_path::unchanged);
  expect(3.0f, 32);

  // By name, the same path.
  r = exec.update({{"v", 0.5}});
  CHECK(r.path == cgraph::update_path::node_params);
  CHECK(r.nodes_changed == 2);
  expect(0.5f, 32);

  // The values are written in place into the exec's own copy: the graph it came from, shared,
  // keeps its build's values, and so does a second exec made from it, updated or not.
  auto second = built.instantiate();
  expect_of(second, 2.0f, 16);
  second.parameter<double>("v") = 4.0;
  CHECK(second.apply().nodes_changed == 2);
  expect_of(second, 4.0f, 16);
  expect(0.5f, 32);
  expect_of(second, 4.0f, 16);
  CHECK(built.instantiate().apply().path == cgraph::update_path::unchanged);
  auto third = built.instantiate();
  expect_of(third, 2.0f, 16);
}

TEST_CASE("runtime.a_parameter_is_converted_once_per_type_for_every_node") {
  // A build (and an update) converts `v` once into f32, which both fills share, and once into
  // u32 for increment (node_values.cpp, conversion_memo). A value that fits f32 but not u32
  // fails at increment, the first node that needs that conversion, exactly as it did when
  // every node converted its own; the fills after it reuse the f32 conversion.
  auto prog = compile(R"(
graph g(p: f32*, q: u32*, v: i64, n: i32) {
  fill<<<1, 64>>>(p, v, n);
  increment<<<1, 4>>>(q, v);
  fill<<<1, 64>>>(p, v, n);
}
)");
  const int n = 64;
  buffer<float> p(n);
  buffer<unsigned> q(1);
  GPU_CHECK(cudaMemset(q.get(), 0, sizeof(unsigned)));
  const cgraph::args first{{"p", p.get()}, {"q", q.get()}, {"v", std::int64_t{5}}, {"n", n}};
  auto exec = cgraph::graph::build(prog, "g", first, kernels()).instantiate();
  unsigned total = 0;
  auto expect = [&](float value, unsigned added) {
    run(exec);
    total += added;
    auto got = p.read();
    for (int i = 0; i < n; ++i) REQUIRE(got[i] == value);
    REQUIRE(q.read()[0] == total);
  };
  expect(5.0f, 4 * 5);

  auto r = exec.update({{"v", std::int64_t{7}}});
  CHECK(r.path == cgraph::update_path::node_params);
  CHECK(r.nodes_changed == 3);
  expect(7.0f, 4 * 7);

  // -1 is an f32 but not a u32: the error is increment's (line 14), not a fill's.
  std::string build_error;
  try {
    auto bad = first;
    bad[2].second = cgraph::arg(std::int64_t{-1});
    (void)cgraph::graph::build(prog, "g", bad, kernels());
  } catch (const cgraph::build_error& e) {
    build_error = e.what();
  }
  CHECK(build_error.rfind("test.cgraph:14:", 0) == 0);
  CHECK(build_error.find("argument 2 ('by') of kernel 'increment': value -1 does not fit u32") != std::string::npos);
  CHECK_THROWS_WITH_AS(exec.update({{"v", std::int64_t{-1}}}), build_error.c_str(), cgraph::build_error);
  CHECK(exec.apply().path == cgraph::update_path::unchanged);
  expect(7.0f, 4 * 7);
}

TEST_CASE("runtime.refused_updates_fall_back_in_order") {
  // CUDA 13 accepted every change these graphs allow (a device buffer swapped for pinned host
  // memory included), so the refusals come from the test hook.
  auto prog = compile(saxpy_graph);
  const int n = 128;
  buffer<float> x(n), y(n);
  auto g = cgraph::graph::build(prog, "g", {{"x", x.get()}, {"y", y.get()}, {"a", 2.0f}, {"n", n}}, kernels());
  auto exec = g.instantiate();
  run(exec);
  cudaGraphExec_t before = exec.get();

  auto saved = cgraph::testing::refuse_updates({true, false});
  auto r = exec.update({{"a", 3.0f}});
  CHECK(r.path == cgraph::update_path::whole_graph);
  CHECK(exec.get() == before);
  run(exec);
  for (float v : y.read()) REQUIRE(v == 6.0f);

  cgraph::testing::refuse_updates({true, true});
  r = exec.update({{"a", 4.0f}});
  CHECK(r.path == cgraph::update_path::reinstantiated);
  run(exec);
  for (float v : y.read()) REQUIRE(v == 8.0f);

  cgraph::testing::refuse_updates(saved);  // and the new exec takes per-node updates again
  r = exec.update({{"a", 1.0f}});
  CHECK(r.path == cgraph::update_path::node_params);
  run(exec);
  for (float v : y.read()) REQUIRE(v == 2.0f);
}

TEST_CASE("runtime.build_and_update_errors_name_the_cgraph_line") {
  auto prog = compile(saxpy_graph);
  buffer<float> x(64), y(64);
  auto reg = kernels();
  auto g = cgraph::graph::build(prog, "g", {{"x", x.get()}, {"y", y.get()}, {"a", 1.0f}, {"n", 64}}, reg);
  auto exec = g.instantiate();

  // n = 0: the grid becomes zero. Line 13 of the text is the first fill.
  try {
    exec.update({{"n", 0}});
    FAIL("expected a build_error");
  } catch (const cgraph::build_error& e) {
    CHECK(std::string(e.what()) == "test.cgraph:13:10: grid dimension x: value 0 is not positive");
  }
  run(exec);  // the failed update changed nothing

  CHECK_THROWS_WITH_AS(cgraph::graph::build(prog, "g", {{"x", x.get()}, {"y", y.get()}, {"a", 1.0f}}, reg),
                       "test.cgraph:12:35: graph 'g' needs a value for parameter 'n'", cgraph::build_error);
  CHECK_THROWS_WITH_AS(cgraph::graph::build(prog, "g", {{"x", x.get()}, {"y", y.get()}, {"a", 1.0f}, {"n", 64}, {"m", 1}}, reg),
                       "test.cgraph:12:1: graph 'g' has no parameter 'm'", cgraph::build_error);
  CHECK_THROWS_WITH_AS(cgraph::graph::build(prog, "g", {{"x", 1}, {"y", y.get()}, {"a", 1.0f}, {"n", 64}}, reg),
                       "test.cgraph:12:9: parameter 'x' of type 'f32*': expects a pointer", cgraph::build_error);
  CHECK_THROWS_WITH_AS(cgraph::graph::build(prog, "g", {{"x", x.get()}, {"y", y.get()}, {"a", 1.0f}, {"n", 64}}, {}),
                       "test.cgraph:13:3: kernel 'fill' is not in the registry (register it with registry.kernel(\"fill\", fill))",
                       cgraph::build_error);
}

TEST_CASE("runtime.a_registry_changed_between_builds_is_resolved_again") {
  // A program keeps the symbols its last build resolved while the registry and the options
  // stay the same (values.cpp, resolve). A registration after a build, or another registry
  // object, must be seen by the next build.
  auto prog = compile(R"(
graph g(p: f32*, n: i32) {
  fill<<<1, 64>>>(p, 2.0, n);
}
)");
  const int n = 64;
  buffer<float> p(n);
  const cgraph::args values{{"p", p.get()}, {"n", n}};
  auto expect = [&](cgraph::graph_exec& exec, float value) {
    run(exec);
    auto got = p.read();
    for (int i = 0; i < n; ++i) REQUIRE(got[i] == value);
  };
  const char* missing = "test.cgraph:13:3: kernel 'fill' is not in the registry (register it with registry.kernel(\"fill\", fill))";
  cgraph::registry reg;
  for (int attempt = 0; attempt < 2; ++attempt)  // a failed build is not remembered as resolved
    CHECK_THROWS_WITH_AS(cgraph::graph::build(prog, "g", values, reg), missing, cgraph::build_error);

  reg = kernels();
  auto exec = cgraph::graph::build(prog, "g", values, reg).instantiate();
  expect(exec, 2.0f);

  // A routine registered now replaces the kernel in the next build.
  int routine_runs = 0;
  reg.routine("fill", [&](cudaStream_t s, std::span<const cgraph::value> v, dim3, dim3) {
    ++routine_runs;
    GPU_CHECK(cudaMemsetAsync(v[0].as<float*>(), 0, n * sizeof(float), s));
  });
  auto zeroing = cgraph::graph::build(prog, "g", values, reg).instantiate();
  CHECK(routine_runs == 1);
  expect(zeroing, 0.0f);

  // Another registry object with the kernel, not the routine: the kernel again.
  const cgraph::registry other = kernels();
  auto filling = cgraph::graph::build(prog, "g", values, other).instantiate();
  CHECK(routine_runs == 1);
  expect(filling, 2.0f);
}

TEST_CASE("runtime.launch_failures_name_the_cgraph_line") {
  // The block size is a parameter: a constant 4096 is a compile-time error (rule 7), a value is
  // checked when the graph is built, before CUDA sees it. (CUDA's own failures are mapped to
  // lines too: the fault sweeps of fault_tests.cpp fail every call in turn.)
  auto prog = compile(R"(
graph g(p: f32*, threads: i32) {
  fill<<<1, 32>>>(p, 1.0, 32);
  fill<<<1, threads>>>(p, 1.0, 32);
}
)");
  buffer<float> p(32);
  for (auto s : both) {
    CAPTURE(name_of(s));
    CHECK_THROWS_WITH_AS(cgraph::graph::build(prog, "g", {{"p", p.get()}, {"threads", 4096}}, kernels(), with(s)),
                         "test.cgraph:14:3: block dimension x is 4096, more than CUDA's limit of 1024", cgraph::build_error);
  }
}

TEST_CASE("runtime.registered_kernel_must_match_the_declaration") {
  auto prog = cgraph::program::compile("kernel fill(p: f32*, v: f64, n: i32);\ngraph g(p: f32*) { fill<<<1, 1>>>(p, 1.0, 1); }",
                                       "test.cgraph");
  buffer<float> p(1);
  CHECK_THROWS_WITH_AS(cgraph::graph::build(prog, "g", {{"p", p.get()}}, kernels()),
                       "test.cgraph:2:20: kernel 'fill': parameter 2 ('v') is 8 bytes as declared ('f64') but 4 bytes in the registered function",
                       cgraph::build_error);
}

TEST_CASE("runtime.compile_error_holds_every_diagnostic") {
  try {
    cgraph::program::compile("graph g() { k<<<1, 1>>>(); undefined<<<0, 1>>>(); }", "bad.cgraph");
    FAIL("expected compile_error");
  } catch (const cgraph::compile_error& e) {
    CHECK(e.diagnostics().size() == 3);  // two unknown kernels and a zero grid
    CHECK(std::string(e.what()).find("bad.cgraph:1:13: error: unknown kernel 'k'") == 0);
  }
}

TEST_CASE("runtime.dot_dumps_and_instantiate_options") {
  auto prog = compile(saxpy_graph);
  buffer<float> x(64), y(64);
  auto g = cgraph::graph::build(prog, "g", {{"x", x.get()}, {"y", y.get()}, {"a", 1.0f}, {"n", 64}}, kernels());
  CHECK(g.debug_dot().find("digraph") != std::string::npos);
  CHECK(g.ir_dot().find("saxpy<<<ceil_div(n, 64), 64>>>(a, x, y, n)") != std::string::npos);
  cudaStream_t stream;
  GPU_CHECK(cudaStreamCreate(&stream));
  cgraph::instantiate_options options;
  options.upload = true;
  options.upload_stream = stream;
  options.use_node_priority = true;
  auto exec = g.instantiate(options);
  exec.launch(stream);
  GPU_CHECK(cudaStreamSynchronize(stream));
  CHECK(y.read()[0] == 2.0f);
  GPU_CHECK(cudaStreamDestroy(stream));
}

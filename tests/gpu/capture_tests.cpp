// The capture strategy: the same graphs as the explicit one (isomorphic, same results) and a
// library routine (cuBLAS) inside a graph. (Failures at any CUDA call: fault_tests.cpp;
// threads: concurrency_tests.cpp.)

#include "gpu_support.hpp"
#include "isomorphism.hpp"
#include "kernels.cuh"

#include "testing.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>

using namespace gpu_test;

namespace {

// One graph of the GPU tests: its text, graph name, and a run that builds it with the given
// options, checks nothing, and returns the canonical form and the bytes of its outputs.
struct graph_case {
  const char* name;
  std::string body;
  std::function<std::pair<std::string, std::vector<unsigned char>>(const cgraph::program&, const cgraph::build_options&)> run;
};

template <typename T>
std::vector<unsigned char> bytes_of(const std::vector<T>& v) {
  std::vector<unsigned char> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

std::pair<std::string, std::vector<unsigned char>> run_floats(const cgraph::program& prog, const char* graph,
                                                              const cgraph::build_options& o, int n,
                                                              cgraph::args extra = {}) {
  buffer<float> a(n), b(n), c(n);
  cgraph::args values{{"a", a.get()}, {"b", b.get()}, {"c", c.get()}};
  values.insert(values.end(), extra.begin(), extra.end());
  auto g = cgraph::graph::build(prog, graph, values, kernels(), o);
  auto exec = g.instantiate();
  run(exec);
  auto out = bytes_of(a.read());
  for (auto v : {b.read(), c.read()}) {
    auto more = bytes_of(v);
    out.insert(out.end(), more.begin(), more.end());
  }
  return {canonical(g), out};
}

std::vector<graph_case> cases() {
  std::vector<graph_case> out;
  out.push_back({"chain, memset, memcpy", R"(
graph g(a: f32*, b: f32*, c: f32*, n: i32) {
  fill<<<ceil_div(n, 64), 64>>>(a, 1.5, n);
  memset(b, 2.0, n);
  saxpy<<<ceil_div(n, 64), 64>>>(3.0, a, b, n);
  memcpy(c, b, n * sizeof(f32));
})", [](const cgraph::program& p, const cgraph::build_options& o) { return run_floats(p, "g", o, 300, {{"n", 300}}); }});
  out.push_back({"parallel, after, 3D and shared memory", R"(
graph g(a: f32*, b: f32*, c: f32*, n: i32) {
  parallel {
    fa: fill<<<1, 64>>>(a, 1.0, n);
    fb: fill<<<(1, 1, 1), (64, 1, 1)>>>(b, 2.0, n);
    { fill<<<1, 64>>>(c, 0.0, n); saxpy<<<1, 64>>>(1.0, a, c, n) after fa; }
    memset(b, 0, 1) after fb;  // b: ordered after fb; c would race with the branch above
  }
  block_sum<<<1, 64, 64 * sizeof(f32)>>>(a, b, n);
  saxpy<<<1, 64>>>(10.0, b, c, n) after fa;
})", [](const cgraph::program& p, const cgraph::build_options& o) { return run_floats(p, "g", o, 64, {{"n", 64}}); }});
  out.push_back({"an after edge to a later label", R"(
graph g(a: f32*, b: f32*, c: f32*, n: i32) {
  parallel { late: scale<<<1, 64>>>(a, 2.0, n) after first; first: fill<<<1, 64>>>(a, 3.0, n); fill<<<1, 64>>>(b, 1.0, n); }
  copy_scaled<<<1, 64>>>(a, c, 1.0, n);
})", [](const cgraph::program& p, const cgraph::build_options& o) {
    auto r = run_floats(p, "g", o, 64, {{"n", 64}});
    float c0;
    std::memcpy(&c0, r.second.data() + 2 * 64 * sizeof(float), sizeof c0);
    CHECK(c0 == 6.0f);  // fill, then scale
    return r;
  }});
  out.push_back({"child graphs", R"(
graph child(p: f32*, s: f32, n: i32 = 64) { scale<<<1, 64>>>(p, s, n); }
graph g(a: f32*, b: f32*, c: f32*) {
  fill<<<1, 64>>>(a, 1.0, 64);
  call child(a, 3.0);
  parallel { call child(a, 2.0, 32); fill<<<1, 64>>>(b, 4.0, 64); }
  copy_scaled<<<1, 64>>>(a, c, 0.5, 64);
})", [](const cgraph::program& p, const cgraph::build_options& o) { return run_floats(p, "g", o, 64); }});
  out.push_back({"if/else, switch, while, repeat, nested", R"(
graph g(a: f32*, b: f32*, c: f32*, counter: u32*, limit: u32) {
  fill<<<1, 32>>>(a, 1.0, 32);
  cond c1;
  set_cond<<<1, 1>>>(c1, 0);
  if c1 { fill<<<1, 32>>>(b, 1.0, 32); } else { fill<<<1, 32>>>(b, 2.0, 32); }
  cond s;
  set_cond<<<1, 1>>>(s, 2);
  switch s { case 0 { scale<<<1, 32>>>(a, 10.0, 32); } case 2 { scale<<<1, 32>>>(a, 100.0, 32); } }
  memset(counter, 0, 1);
  cond more = 1;
  while more {
    cond take;
    set_cond<<<1, 1>>>(take, 1);
    if take { repeat 3 { scale<<<1, 32>>>(b, 2.0, 32); } }
    count_step<<<1, 1>>>(counter, limit, more);
  }
  repeat limit { saxpy<<<1, 32>>>(1.0, a, c, 32); }
})", [](const cgraph::program& p, const cgraph::build_options& o) {
    buffer<unsigned> counter(1);
    buffer<float> c(32);
    GPU_CHECK(cudaMemset(c.get(), 0, 32 * sizeof(float)));
    return run_floats(p, "g", o, 32, {{"counter", counter.get()}, {"limit", 4}});
  }});
  return out;
}

}  // namespace

TEST_CASE("capture.isomorphic_to_explicit_with_the_same_results") {
  for (const auto& c : cases()) {
    CAPTURE(c.name);
    auto prog = compile(c.body);
    std::printf("case '%s': explicit\n", c.name);
    std::fflush(stdout);
    auto explicit_result = c.run(prog, with(cgraph::strategy::explicit_nodes));
    std::printf("case '%s': capture\n", c.name);
    std::fflush(stdout);
    auto captured = c.run(prog, with(cgraph::strategy::stream_capture));
    CHECK(captured.first == explicit_result.first);
    CHECK(captured.second == explicit_result.second);
  }
  CHECK(cgraph::testing::streams_left_capturing() == 0);
}

TEST_CASE("capture.every_example_is_isomorphic") {
  // The examples' kernels live in their own programs; here each is a stub routine (an empty
  // child graph), enough to compare every other node, edge and conditional body.
  std::size_t compared = 0;
  cudaEvent_t event;  // every event parameter names it
  GPU_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  for (const auto& entry : std::filesystem::directory_iterator(CGRAPH_EXAMPLES_DIR)) {
    if (entry.path().extension() != ".cgraph") continue;
    // CUDA makes programmatic edges only between kernel nodes, which the stubs are not; the
    // example itself runs on both strategies (examples/runtime, examples/build_time).
    std::ifstream file(entry.path());
    std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (text.find("after programmatic(") != std::string::npos) continue;
    auto prog = cgraph::program::load(entry.path().string());
    cgraph::registry reg;
    const cgraph::program_info info = prog.declarations();
    for (const auto& k : info.kernels) reg.routine(k.name, [](cudaStream_t, std::span<const cgraph::value>, dim3, dim3) {});
    for (const auto& h : info.hosts) {  // stub callbacks of the declared kinds
      if (h.params.size() == 1) reg.host(h.name, [](int) {});
      else reg.host(h.name, [](int, int) {});
    }
    buffer<float> memory(1 << 22);  // every pointer parameter points here
    for (const auto& g : info.graphs) {
      CAPTURE(entry.path().filename().string());
      CAPTURE(g.name);
      // Collectives need real communicators: data_parallel runs both strategies itself, and
      // tests/gpu/multi_gpu_tests.cu compares them.
      if (std::any_of(g.params.begin(), g.params.end(), [](const auto& p) { return p.type == "comm"; })) continue;
      cgraph::args values;
      for (const auto& p : g.params)
        if (p.is_pointer()) values.emplace_back(p.name, memory.get());
        else if (p.type == "event") values.emplace_back(p.name, event);
        else if (!p.has_default) values.emplace_back(p.name, 1);
      auto a = cgraph::graph::build(prog, g.name, values, reg, with(cgraph::strategy::explicit_nodes));
      auto b = cgraph::graph::build(prog, g.name, values, reg, with(cgraph::strategy::stream_capture));
      CHECK(canonical(a) == canonical(b));
      ++compared;
    }
  }
  GPU_CHECK(cudaEventDestroy(event));
  MESSAGE(compared, " example graphs compared");
  CHECK(compared >= 9);
}

TEST_CASE("capture.cublas_routine_inside_a_graph") {
  cublasHandle_t handle;
  REQUIRE(cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS);
  auto prog = cgraph::program::compile(declarations + R"(
kernel sgemv(matrix: f32*, x: f32*, y: f32*, rows: i32, cols: i32);
graph g(m: f32*, x: f32*, y: f32*, rows: i32, cols: i32) {
  fill<<<ceil_div(cols, 64), 64>>>(x, 2.0, cols);
  sgemv<<<1, 1>>>(m, x, y, rows, cols);
  scale<<<ceil_div(rows, 64), 64>>>(y, 0.5, rows);
}
)", "test.cgraph");
  const int rows = 96, cols = 64;
  std::vector<float> matrix(rows * cols);
  for (int i = 0; i < rows * cols; ++i) matrix[i] = static_cast<float>((i * 7) % 13) - 6.0f;
  buffer<float> m(rows * cols), x(cols), y(rows);
  m.write(matrix);
  auto reg = kernels();
  reg.routine("sgemv", [handle](cudaStream_t s, std::span<const cgraph::value> v, dim3, dim3) {
    const float one = 1.0f, zero = 0.0f;
    auto* a = v[0].as<const float*>();
    auto* in = v[1].as<const float*>();
    auto* out = v[2].as<float*>();
    int r = v[3].as<int>(), c = v[4].as<int>();
    cublasSetStream(handle, s);
    cublasSgemv(handle, CUBLAS_OP_N, r, c, &one, a, r, in, 1, &zero, out, 1);  // column-major
  });
  std::string shapes[2];
  for (int k = 0; k < 2; ++k) {
    GPU_CHECK(cudaMemset(y.get(), 0xFF, rows * sizeof(float)));
    auto g = cgraph::graph::build(prog, "g", {{"m", m.get()}, {"x", x.get()}, {"y", y.get()}, {"rows", rows}, {"cols", cols}},
                                  reg, with(both[k]));
    shapes[k] = canonical(g);
    auto exec = g.instantiate();
    run(exec);
    auto got = y.read();
    for (int r = 0; r < rows; ++r) {
      double want = 0;
      for (int c = 0; c < cols; ++c) want += matrix[c * rows + r] * 2.0;
      REQUIRE(got[r] == doctest::Approx(want * 0.5).epsilon(1e-5));
    }
  }
  CHECK(shapes[0] == shapes[1]);
  cublasDestroy(handle);
}

TEST_CASE("capture.global_and_relaxed_modes") {
  auto prog = compile("\ngraph g(a: f32*) { fill<<<1, 32>>>(a, 5.0, 32); scale<<<1, 32>>>(a, 2.0, 32); }");
  buffer<float> a(32);
  for (auto mode : {cgraph::capture_mode::global, cgraph::capture_mode::relaxed}) {
    auto o = with(cgraph::strategy::stream_capture);
    o.capture_mode = mode;
    auto g = cgraph::graph::build(prog, "g", {{"a", a.get()}}, kernels(), o);
    auto exec = g.instantiate();
    run(exec);
    CHECK(a.read()[0] == 10.0f);
  }
}

TEST_CASE("capture.every_launched_kernel_keeps_its_own_node") {
  // A capture reads the nodes of its kernel launches back once per graph, in the order CUDA
  // lists them (capture_session::read_back). Each kernel here writes its own slot, on several
  // streams, beside nodes added to the graph (a memset) and inside a conditional body: updating
  // one kernel's value must take the per-node path (so its node is known) and change exactly
  // its slot (so it is the right node).
  auto prog = compile(R"(
graph g(s0: f32*, s1: f32*, s2: f32*, s3: f32*, s4: f32*, s5: f32*, z: f32*,
        v0: f32, v1: f32, v2: f32, v3: f32, v4: f32, v5: f32, go: u32 = 1) {
  fill<<<1, 1>>>(s0, v0, 1);
  parallel {
    fill<<<1, 1>>>(s1, v1, 1);
    memset(z, 0, 1);
    fill<<<1, 1>>>(s2, v2, 1);
  }
  cond again = go;
  if again {
    fill<<<1, 1>>>(s3, v3, 1);
    fill<<<1, 1>>>(s4, v4, 1);
  }
  fill<<<1, 1>>>(s5, v5, 1);
}
)");
  constexpr int slots = 6;
  buffer<float> memory(slots + 1);
  for (auto how : both) {
    CAPTURE(name_of(how));
    cgraph::args values{{"z", memory.get() + slots}};
    std::vector<float> want(slots);
    for (int k = 0; k < slots; ++k) {
      values.emplace_back("s" + std::to_string(k), memory.get() + k);
      values.emplace_back("v" + std::to_string(k), want[k] = static_cast<float>(k + 1));
    }
    auto g = cgraph::graph::build(prog, "g", values, kernels(), with(how));
    auto exec = g.instantiate();
    run(exec);
    auto got = memory.read();
    for (int k = 0; k < slots; ++k) CHECK(got[k] == want[k]);
    for (int k = 0; k < slots; ++k) {
      CAPTURE(k);
      want[k] = static_cast<float>(10 * (k + 1));
      auto r = exec.update({{"v" + std::to_string(k), want[k]}});
      CHECK(r.path == cgraph::update_path::node_params);
      CHECK(r.nodes_changed == 1);
      run(exec);
      got = memory.read();
      for (int j = 0; j < slots; ++j) CHECK(got[j] == want[j]);
    }
  }
}

TEST_CASE("capture.node_handles_are_read_when_the_graph_is_instantiated") {
  // A capture build reads no kernel's node handle (graph_state::defer_reads): instantiating
  // reads each graph's nodes, here the root's and the body's, one call each. So instantiating
  // a captured graph makes two CUDA calls more than instantiating the explicit build of it,
  // and the exec's updates, which may run on other threads, never call into the graph: its
  // first per-node update makes as many calls as its second.
  auto prog = compile(R"(
graph g(a: f32*, b: f32*, va: f32, vb: f32, go: u32 = 1) {
  fill<<<1, 1>>>(a, va, 1);
  cond again = go;
  if again { fill<<<1, 1>>>(b, vb, 1); }
}
)");
  buffer<float> memory(2);
  const cgraph::args values{{"a", memory.get()}, {"b", memory.get() + 1}, {"va", 1.0f}, {"vb", 2.0f}};
  long instantiate_calls[2] = {};
  for (auto how : both) {
    CAPTURE(name_of(how));
    auto g = cgraph::graph::build(prog, "g", values, kernels(), with(how));
    cgraph::testing::fail_cuda_call_at(-1);  // counts from 0
    auto exec = g.instantiate();
    instantiate_calls[how == cgraph::strategy::stream_capture] = cgraph::testing::cuda_calls_made();
    run(exec);
    CHECK(memory.read() == std::vector<float>{1.0f, 2.0f});
    long calls[2] = {};
    for (int k = 0; k < 2; ++k) {
      cgraph::testing::fail_cuda_call_at(-1);
      auto r = exec.update({{"vb", 3.0f + static_cast<float>(k)}});
      calls[k] = cgraph::testing::cuda_calls_made();
      CHECK(r.path == cgraph::update_path::node_params);
      CHECK(r.nodes_changed == 1);
    }
    CHECK(calls[0] == calls[1]);
    run(exec);
    CHECK(memory.read() == std::vector<float>{1.0f, 4.0f});
  }
  CHECK(instantiate_calls[1] - instantiate_calls[0] == 2);

  // A read that fails fails the instantiation, and is made again by the next one.
  auto g = cgraph::graph::build(prog, "g", values, kernels(), with(cgraph::strategy::stream_capture));
  cgraph::testing::fail_cuda_call_at(0);  // the instantiation's first call: the root's or the body's read
  CHECK_THROWS_AS(g.instantiate(), cgraph::cuda_error);
  cgraph::testing::fail_cuda_call_at(-1);
  auto exec = g.instantiate();
  auto r = exec.update({{"va", 3.0f}, {"vb", 5.0f}});
  CHECK(r.path == cgraph::update_path::node_params);
  run(exec);
  CHECK(memory.read() == std::vector<float>{3.0f, 5.0f});
}

TEST_CASE("capture.a_missing_kernel_is_named_at_its_first_node_before_anything_is_captured") {
  // A capture resolves each kernel once, at its first node (graph_templates::prepared_steps),
  // before the capture begins: the error names that node in both strategies, nothing is left
  // capturing, and the next build of the same program captures cleanly. The kernel used again
  // later, and the one registered, change nothing in that.
  auto prog = compile(R"(
kernel missing(p: f32*);
graph g(p: f32*) {
  fill<<<1, 64>>>(p, 1.0, 64);
  missing<<<1, 64>>>(p);
  fill<<<1, 64>>>(p, 2.0, 64);
  missing<<<1, 64>>>(p);
}
graph h(p: f32*) {
  fill<<<1, 64>>>(p, 1.0, 64);
  fill<<<1, 64>>>(p, 2.0, 64);
}
)");
  buffer<float> p(64);
  for (auto how : both) {
    CAPTURE(name_of(how));
    CHECK_THROWS_WITH_AS(cgraph::graph::build(prog, "g", {{"p", p.get()}}, kernels(), with(how)),
                         "test.cgraph:15:3: kernel 'missing' is not in the registry (register it with "
                         "registry.kernel(\"missing\", missing))",
                         cgraph::build_error);
    auto exec = cgraph::graph::build(prog, "h", {{"p", p.get()}}, kernels(), with(how)).instantiate();
    run(exec);
    CHECK(p.read() == std::vector<float>(64, 2.0f));
  }
}

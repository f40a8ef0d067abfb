// Every node kind, built with the explicit strategy and checked against a CPU reference.

#include "gpu_support.hpp"
#include "kernels.cuh"

#include <atomic>
#include <memory>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <thread>

using namespace gpu_test;

TEST_CASE("runtime.kernel_memset_memcpy_chain") {
  auto prog = compile(R"(
graph g(x: f32*, y: f32*, z: f32*, a: f32, n: i32) {
  let blocks = ceil_div(n, 128);
  fill<<<blocks, 128>>>(x, 1.5, n);
  memset(y, 2.0, n);
  saxpy<<<blocks, 128>>>(a, x, y, n);
  memcpy(z, y, n * sizeof(f32));
}
)");
  const int n = 1000;
  buffer<float> x(n), y(n), z(n);
  auto g = cgraph::graph::build(prog, "g", {{"x", x.get()}, {"y", y.get()}, {"z", z.get()}, {"a", 3.0f}, {"n", n}}, kernels());
  CHECK(g.node_count() == 4);
  auto exec = g.instantiate();
  run(exec);
  for (float v : z.read()) REQUIRE(v == 3.0f * 1.5f + 2.0f);
}

TEST_CASE("runtime.memset_writes_1_2_and_4_byte_elements") {
  auto prog = compile(R"(
graph g(b: u8*, h: u16*, w: u32*, f: f32*, n: i32) {
  memset(b, 0xAB, n);
  memset(h, 0xBEEF, n);
  memset(w, 0xDEADBEEF, n);
  memset(f, -0.5, n - 1);
}
)");
  const int n = 257;
  buffer<std::uint8_t> b(n);
  buffer<std::uint16_t> h(n);
  buffer<std::uint32_t> w(n);
  buffer<float> f(n);
  auto g = cgraph::graph::build(prog, "g", {{"b", b.get()}, {"h", h.get()}, {"w", w.get()}, {"f", f.get()}, {"n", n}}, {});
  auto exec = g.instantiate();
  run(exec);
  for (auto v : b.read()) REQUIRE(v == 0xAB);
  for (auto v : h.read()) REQUIRE(v == 0xBEEF);
  for (auto v : w.read()) REQUIRE(v == 0xDEADBEEFu);
  auto fv = f.read();
  for (int i = 0; i < n - 1; ++i) REQUIRE(fv[i] == -0.5f);
  std::uint32_t last;
  std::memcpy(&last, &fv[n - 1], 4);
  CHECK(last == 0xFFFFFFFFu);  // count n - 1: the poison past it is untouched
}

TEST_CASE("runtime.kernel_3d_grid_and_block_and_dynamic_shared_memory") {
  auto prog = compile(R"(
graph g(out: i32*, nx: i32, ny: i32, nz: i32, in: f32*, sum: f32*, m: i32) {
  index_3d<<<(ceil_div(nx, 4), ceil_div(ny, 2), ceil_div(nz, 2)), (4, 2, 2)>>>(out, nx, ny, nz);
  block_sum<<<1, 256, 256 * sizeof(f32)>>>(in, sum, m);
}
)");
  const int nx = 8, ny = 6, nz = 8, m = 5000;
  buffer<int> out(nx * ny * nz);
  buffer<float> in(m), sum(1);
  std::vector<float> values(m);
  std::iota(values.begin(), values.end(), 1.0f);
  for (auto& v : values) v = std::fmod(v, 7.0f);
  in.write(values);
  auto g = cgraph::graph::build(prog, "g", {{"out", out.get()}, {"nx", nx}, {"ny", ny}, {"nz", nz}, {"in", in.get()},
                                            {"sum", sum.get()}, {"m", m}}, kernels());
  auto exec = g.instantiate();
  run(exec);
  auto o = out.read();
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) REQUIRE(o[(z * ny + y) * nx + x] == x + 1000 * y + 1000000 * z);
  double expected = std::accumulate(values.begin(), values.end(), 0.0);
  CHECK(sum.read()[0] == doctest::Approx(expected).epsilon(1e-5));
}

TEST_CASE("runtime.parallel_branches_and_after_edges") {
  auto prog = compile(R"(
graph g(a: f32*, b: f32*, c: f32*, n: i32) {
  parallel {
    fa: fill<<<1, 64>>>(a, 1.0, n);
    fb: fill<<<1, 64>>>(b, 2.0, n);
    { fill<<<1, 64>>>(c, 0.0, n); saxpy<<<1, 64>>>(1.0, a, c, n) after fa; }
  }
  saxpy<<<1, 64>>>(10.0, b, c, n);
}
)");
  const int n = 64;
  buffer<float> a(n), b(n), c(n);
  auto g = cgraph::graph::build(prog, "g", {{"a", a.get()}, {"b", b.get()}, {"c", c.get()}, {"n", n}}, kernels());
  std::size_t edges = 0;
  GPU_CHECK(cudaGraphGetEdges(g.get(), nullptr, nullptr, nullptr, &edges));
  CHECK(edges == 5);  // c-fill → saxpy, fa → saxpy, and the join: fa, fb, saxpy → last
  auto exec = g.instantiate();
  run(exec);
  for (float v : c.read()) REQUIRE(v == 1.0f + 20.0f);
}

TEST_CASE("runtime.child_graphs_with_defaults") {
  auto prog = compile(R"(
graph child(p: f32*, s: f32, n: i32 = 64) { scale<<<1, 64>>>(p, s, n); }
graph parent(p: f32*) {
  fill<<<1, 64>>>(p, 1.0, 64);
  call child(p, 3.0);
  call child(p, 2.0, 32);
}
)");
  buffer<float> p(64);
  auto g = cgraph::graph::build(prog, "parent", {{"p", p.get()}}, kernels());
  auto exec = g.instantiate();
  run(exec);
  auto v = p.read();
  for (int i = 0; i < 64; ++i) REQUIRE(v[i] == (i < 32 ? 6.0f : 3.0f));
}

TEST_CASE("runtime.host_callback_outlives_registry_graph_and_program") {
  struct seen {
    std::atomic<int> calls{0};
    std::atomic<int> last_step{-1};
    std::atomic<float> last_value{0};
  };
  auto state = std::make_shared<seen>();
  std::optional<cgraph::graph_exec> exec;
  buffer<float> p(32);
  {
    auto prog = cgraph::program::compile(declarations + R"(
host record(step: i32, value: f32);
graph g(p: f32*, step: i32) { fill<<<1, 32>>>(p, 1.0, 32); host record(step, 2.5); }
)");
    cgraph::registry reg = kernels();
    reg.host("record", [state](int step, float value) {
      state->calls++;
      state->last_step = step;
      state->last_value = value;
    });
    auto g = cgraph::graph::build(prog, "g", {{"p", p.get()}, {"step", 4}}, reg);
    exec.emplace(g.instantiate());
  }  // the registry, the graph and the program are gone; the callable lives in the graph's user object
  run(*exec);
  run(*exec);
  CHECK(state->calls == 2);
  CHECK(state->last_step == 4);
  CHECK(state->last_value == 2.5f);
  auto r = exec->update({{"step", 7}});
  CHECK(r.path == cgraph::update_path::node_params);
  run(*exec);
  CHECK(state->last_step == 7);
  exec.reset();
  GPU_CHECK(cudaDeviceSynchronize());
  // The last exec is gone, so CUDA releases the callable; its destructor may run a little later
  // on a driver thread.
  for (int i = 0; i < 200 && state.use_count() > 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(state.use_count() == 1);
}

// Devices and NCCL collectives (LANGUAGE.md §15) on the GPU: tests/gpu/multi_gpu.cgraph on both
// run-time strategies (whose graphs must be isomorphic), as generated C++ in both modes, and
// updated, against a CPU reference. One GPU runs the one-rank cases; the two-GPU cases (one
// process driving both, and two processes of one rank each) need a second GPU and say so
// where there is none.

#include "example_builds.hpp"
#include "gpu_support.hpp"
#include "isomorphism.hpp"
#include "kernels.cuh"

#include <cgraph/runtime/backend/collective.hpp>
#include <cgraph/runtime/registry.hpp>

#if CGRAPH_TEST_NCCL
#include <nccl.h>
#endif

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

using namespace gpu_test;

namespace {

cgraph::program multi_gpu_program() {
  return cgraph::program::load((std::filesystem::path(CGRAPH_GPU_TESTS_DIR) / "multi_gpu.cgraph").string());
}

int gpus() {
  int n = 0;
  GPU_CHECK(cudaGetDeviceCount(&n));
  return n;
}

// Makes `device` current while alive.
struct on_device {
  explicit on_device(int device) {
    GPU_CHECK(cudaGetDevice(&previous));
    GPU_CHECK(cudaSetDevice(device));
  }
  ~on_device() { cudaSetDevice(previous); }
  int previous = 0;
};

template <typename T>
int count_not(const std::vector<T>& values, T expected) {
  int wrong = 0;
  for (const T& v : values) wrong += v != expected;
  return wrong;
}

}  // namespace

TEST_CASE("multi_gpu.placed_nodes_in_both_strategies_and_updated") {
  auto prog = multi_gpu_program();
  const int n = 1000;
  // One set of buffers for both strategies: the canonical forms compare their addresses.
  buffer<float> x(n), y(n);
  buffer<int> z(n);
  std::string shapes[2];
  for (auto s : both) {
    CAPTURE(name_of(s));
    for (float* out : {x.get(), y.get()}) GPU_CHECK(cudaMemset(out, 0xFF, n * sizeof(float)));
    GPU_CHECK(cudaMemset(z.get(), 0xFF, n * sizeof(int)));
    auto g = cgraph::graph::build(prog, "placed",
                                  {{"x", x.get()}, {"y", y.get()}, {"z", z.get()}, {"v", 3.0f}, {"s", 2.0f}, {"n", n}},
                                  multi_gpu_kernels(), with(s));
    shapes[s == cgraph::strategy::stream_capture] = canonical(g);
    auto exec = g.instantiate();
    run(exec);
    CHECK(count_not(x.read(), 3.0f) == 0);
    CHECK(count_not(y.read(), 6.0f) == 0);
    CHECK(count_not(z.read(), 0) == 0);
    auto r = exec.update({{"s", 5.0f}});
    CHECK(r.path == cgraph::update_path::node_params);
    run(exec);
    CHECK(count_not(y.read(), 15.0f) == 0);
    CHECK(exec.update({{"d", 0u}}).path == cgraph::update_path::unchanged);
  }
  CHECK(shapes[0] == shapes[1]);
}

TEST_CASE("multi_gpu.a_device_the_machine_lacks_is_a_build_error_at_its_line") {
  auto prog = multi_gpu_program();
  const auto missing = static_cast<unsigned>(gpus());
  buffer<float> x(8), y(8);
  buffer<int> z(8);
  for (auto s : both) {
    CAPTURE(name_of(s));
    std::string message;
    try {
      cgraph::graph::build(prog, "placed",
                           {{"x", x.get()}, {"y", y.get()}, {"z", z.get()}, {"v", 1.0f}, {"s", 1.0f}, {"n", 8}, {"d", missing}},
                           multi_gpu_kernels(), with(s));
    } catch (const cgraph::build_error& e) {
      message = e.what();
    }
    CAPTURE(message);
    CHECK(message.find("multi_gpu.cgraph:12:") != std::string::npos);
    CHECK(message.find("device " + std::to_string(missing) + " does not exist") != std::string::npos);
  }
}

TEST_CASE("multi_gpu.placed_nodes_on_a_second_gpu_and_moved_back") {
  if (gpus() < 2) {
    MESSAGE("one GPU: placing nodes on a second GPU needs the two-GPU machine");
    return;
  }
  auto prog = multi_gpu_program();
  const int n = 512;
  for (auto s : both) {
    CAPTURE(name_of(s));
    on_device one(1);
    buffer<float> x(n), y(n);
    buffer<int> z(n);
    cudaSetDevice(0);  // built from device 0: only the placement puts the nodes on device 1
    auto g = cgraph::graph::build(prog, "placed",
                                  {{"x", x.get()}, {"y", y.get()}, {"z", z.get()}, {"v", 2.0f}, {"s", 3.0f}, {"n", n}, {"d", 1u}},
                                  multi_gpu_kernels(), with(s));
    auto exec = g.instantiate();
    run(exec);
    CHECK(count_not(y.read(), 6.0f) == 0);
    CHECK(count_not(z.read(), 0) == 0);
  }
}

#if CGRAPH_TEST_NCCL

namespace {

// Communicators of ncclCommInitAll over devices 0 … count-1, destroyed with this.
struct communicators {
  explicit communicators(int count) : comms(static_cast<std::size_t>(count)) {
    std::vector<int> devices(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) devices[static_cast<std::size_t>(i)] = i;
    REQUIRE(ncclCommInitAll(comms.data(), count, devices.data()) == ncclSuccess);
  }
  ~communicators() {
    for (ncclComm_t c : comms) ncclCommDestroy(c);
  }
  std::vector<ncclComm_t> comms;
};

}  // namespace

TEST_CASE("multi_gpu.every_collective_with_one_rank_in_both_strategies_and_updated") {
  REQUIRE(cgraph::backend::have_nccl());
  auto prog = multi_gpu_program();
  communicators one(1);
  const int n = 300;
  std::vector<float> a_host(n);
  std::vector<int> k_host(n);
  for (int i = 0; i < n; ++i) {
    a_host[static_cast<std::size_t>(i)] = 0.5f * static_cast<float>(i);
    k_host[static_cast<std::size_t>(i)] = i - 7;
  }
  // One set of buffers for both strategies: the canonical forms compare their addresses.
  buffer<float> a(n), b(n), e(n), f(n), h(n), b2(n);
  buffer<int> k(n), m(n);
  std::string shapes[2];
  for (auto s : both) {
    CAPTURE(name_of(s));
    a.write(a_host);
    k.write(k_host);
    for (float* out : {b.get(), e.get(), f.get(), h.get(), b2.get()}) GPU_CHECK(cudaMemset(out, 0xFF, n * sizeof(float)));
    GPU_CHECK(cudaMemset(m.get(), 0xFF, n * sizeof(int)));
    cgraph::args values{{"a", a.get()}, {"b", b.get()}, {"e", e.get()}, {"f", f.get()}, {"h", h.get()},
                        {"k", k.get()}, {"m", m.get()}, {"n", n}, {"c", one.comms[0]}};
    auto g = cgraph::graph::build(prog, "every_collective", values, multi_gpu_kernels(), with(s));
    shapes[s == cgraph::strategy::stream_capture] = canonical(g);
    auto exec = g.instantiate();
    run(exec);
    // With one rank: max and avg of one value, a gather and a scatter of one block, a
    // broadcast from rank 0, a product of one value, a send to itself.
    CHECK(b.read() == a_host);
    CHECK(e.read() == a_host);
    CHECK(f.read() == a_host);
    CHECK(h.read() == a_host);
    CHECK(k.read() == k_host);
    CHECK(m.read() == k_host);
    // A new receive buffer: the collectives are captured again.
    auto r = exec.update({{"b", b2.get()}});
    CHECK(r.path != cgraph::update_path::unchanged);
    run(exec);
    CHECK(b2.read() == a_host);
  }
  CHECK(shapes[0] == shapes[1]);
}

TEST_CASE("multi_gpu.data_parallel_step_with_one_rank_matches_the_cpu") {
  auto prog = multi_gpu_program();
  communicators one(1);
  const int n = 4096, steps = 3;
  const float value = 1.5f, lr = -0.25f;
  // w starts at 0; with one rank the all-reduce is g itself. `steps` launches on n elements,
  // then `steps` more after an update to n / 2 (the collective's count changes).
  auto check = [&](const std::vector<float>& w) {
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += w[static_cast<std::size_t>(i)] != (i < n / 2 ? 2 : 1) * steps * lr * value;
    CHECK(wrong == 0);
  };
  for (auto s : both) {
    CAPTURE(name_of(s));
    buffer<float> g(n), w(n);
    w.write(std::vector<float>(n, 0.0f));
    auto exec = cgraph::graph::build(prog, "dp_rank",
                                     {{"g", g.get()}, {"w", w.get()}, {"value", value}, {"lr", lr}, {"n", n},
                                      {"c", one.comms[0]}},
                                     multi_gpu_kernels(), with(s))
                    .instantiate();
    for (int i = 0; i < steps; ++i) exec.launch(nullptr);
    GPU_CHECK(cudaDeviceSynchronize());
    auto r = exec.update({{"n", n / 2}});
    CHECK(r.path != cgraph::update_path::unchanged);
    for (int i = 0; i < steps; ++i) exec.launch(nullptr);
    GPU_CHECK(cudaDeviceSynchronize());
    check(w.read());
  }
  for (auto* generated : {run_dp_rank_explicit, run_dp_rank_capture}) {
    buffer<float> g(n), w(n);
    w.write(std::vector<float>(n, 0.0f));
    generated(g.get(), w.get(), value, lr, n, one.comms[0], 0u, steps, nullptr);
    check(w.read());
  }
}

TEST_CASE("multi_gpu.two_gpus_driven_by_one_process") {
  if (gpus() < 2) {
    MESSAGE("one GPU: the one-process two-GPU step needs the two-GPU machine");
    return;
  }
  auto prog = multi_gpu_program();
  communicators two(2);
  const int n = 1 << 20, steps = 3;
  const float lr = 0.5f, expected = steps * lr * 3.0f;  // g0 = 1, g1 = 2: both all-reduce to 3
  // One set of buffers for every run: the canonical forms compare their addresses.
  std::vector<std::unique_ptr<buffer<float>>> g, w;
  for (int d = 0; d < 2; ++d) {
    on_device here(d);
    g.push_back(std::make_unique<buffer<float>>(n));
    w.push_back(std::make_unique<buffer<float>>(n));
  }
  auto check_step = [&](auto&& build_and_run) {
    for (int d = 0; d < 2; ++d) {
      on_device here(d);
      w[static_cast<std::size_t>(d)]->write(std::vector<float>(n, 0.0f));
    }
    build_and_run(g[0]->get(), g[1]->get(), w[0]->get(), w[1]->get());
    for (int d = 0; d < 2; ++d) {
      on_device here(d);
      CHECK(count_not(g[static_cast<std::size_t>(d)]->read(), 3.0f) == 0);
      CHECK(count_not(w[static_cast<std::size_t>(d)]->read(), expected) == 0);
    }
  };
  std::string shapes[2];
  for (auto s : both) {
    CAPTURE(name_of(s));
    check_step([&](float* g0, float* g1, float* w0, float* w1) {
      auto g = cgraph::graph::build(prog, "dp_two",
                                    {{"g0", g0}, {"g1", g1}, {"w0", w0}, {"w1", w1}, {"lr", lr}, {"n", n},
                                     {"c0", two.comms[0]}, {"c1", two.comms[1]}},
                                    multi_gpu_kernels(), with(s));
      shapes[s == cgraph::strategy::stream_capture] = canonical(g);
      auto exec = g.instantiate();
      for (int i = 0; i < steps; ++i) exec.launch(nullptr);
      GPU_CHECK(cudaDeviceSynchronize());
    });
  }
  CHECK(shapes[0] == shapes[1]);
  // An update of a count and of a buffer: n / 2 elements, and rank 1's weights in a new buffer.
  // Both strategies; the collectives are captured again.
  for (auto s : both) {
    CAPTURE(name_of(s));
    std::unique_ptr<buffer<float>> w1b;
    {
      on_device here(1);
      w1b = std::make_unique<buffer<float>>(n);
      w1b->write(std::vector<float>(n, 0.0f));
    }
    for (int d = 0; d < 2; ++d) {
      on_device here(d);
      w[static_cast<std::size_t>(d)]->write(std::vector<float>(n, 0.0f));
    }
    auto exec = cgraph::graph::build(prog, "dp_two",
                                     {{"g0", g[0]->get()}, {"g1", g[1]->get()}, {"w0", w[0]->get()}, {"w1", w[1]->get()},
                                      {"lr", lr}, {"n", n}, {"c0", two.comms[0]}, {"c1", two.comms[1]}},
                                     multi_gpu_kernels(), with(s))
                    .instantiate();
    for (int i = 0; i < steps; ++i) exec.launch(nullptr);
    GPU_CHECK(cudaDeviceSynchronize());
    auto r = exec.update({{"n", n / 2}, {"w1", w1b->get()}});
    CHECK(r.path != cgraph::update_path::unchanged);
    for (int i = 0; i < steps; ++i) exec.launch(nullptr);
    GPU_CHECK(cudaDeviceSynchronize());
    // w0: n / 2 elements stepped twice as often; w1 as first built; w1b: the first n / 2 only.
    std::vector<float> w0 = w[0]->read(), w1 = w[1]->read(), w1_new;
    {
      on_device here(1);
      w1_new = w1b->read();
    }
    int wrong = 0;
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      wrong += w0[k] != (i < n / 2 ? 2 : 1) * expected;
      wrong += w1[k] != expected;
      wrong += w1_new[k] != (i < n / 2 ? expected : 0.0f);
    }
    CHECK(wrong == 0);
  }
  for (auto* generated : {run_dp_two_explicit, run_dp_two_capture})
    check_step([&](float* g0, float* g1, float* w0, float* w1) {
      generated(g0, g1, w0, w1, lr, n, two.comms[0], two.comms[1], steps, nullptr);
    });
}

TEST_CASE("multi_gpu.every_collective_over_two_ranks_of_one_process_in_both_strategies") {
  if (gpus() < 2) {
    MESSAGE("one GPU: collectives over two ranks need the two-GPU machine");
    return;
  }
  auto prog = multi_gpu_program();
  communicators two(2);
  const int n = 4096;
  // Values whose sums, halves and maxima are exact in f32.
  std::vector<float> a_host[2] = {std::vector<float>(2 * n), std::vector<float>(2 * n)};
  std::vector<int> k_host[2] = {std::vector<int>(n), std::vector<int>(n)};
  for (int i = 0; i < 2 * n; ++i) {
    a_host[0][static_cast<std::size_t>(i)] = 0.5f * static_cast<float>(i);
    a_host[1][static_cast<std::size_t>(i)] = 1000.0f - static_cast<float>(i);
  }
  for (int i = 0; i < n; ++i) {
    k_host[0][static_cast<std::size_t>(i)] = i;
    k_host[1][static_cast<std::size_t>(i)] = -3 - i;
  }
  // The CPU's answers, the same on both ranks except where said.
  std::vector<float> max_ab(n), gathered(2 * n), avg_of[2] = {std::vector<float>(n), std::vector<float>(n)},
                                                 from_rank_1(n), min_ab(n);
  for (int i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    max_ab[k] = std::max(a_host[0][k], a_host[1][k]);
    min_ab[k] = std::min(a_host[0][k], a_host[1][k]);
    gathered[k] = a_host[0][k];
    gathered[k + static_cast<std::size_t>(n)] = a_host[1][k];
    from_rank_1[k] = a_host[1][k];
    for (std::size_t r = 0; r < 2; ++r)
      avg_of[r][k] = (a_host[0][r * static_cast<std::size_t>(n) + k] + a_host[1][r * static_cast<std::size_t>(n) + k]) / 2;
  }
  // One set of buffers per rank on its GPU, for both strategies: the canonical forms compare addresses.
  struct rank_buffers {
    buffer<float> a, b, e, f, h, r, b_new;
    buffer<int> k, m;
    explicit rank_buffers(int n) : a(2 * n), b(n), e(2 * n), f(n), h(n), r(n), b_new(n), k(n), m(n) {}
  };
  std::vector<std::unique_ptr<rank_buffers>> rb;
  for (int d = 0; d < 2; ++d) {
    on_device here(d);
    rb.push_back(std::make_unique<rank_buffers>(n));
  }
  std::string shapes[2];
  for (auto s : both) {
    CAPTURE(name_of(s));
    for (int d = 0; d < 2; ++d) {
      on_device here(d);
      rank_buffers& x = *rb[static_cast<std::size_t>(d)];
      x.a.write(a_host[d]);
      x.k.write(k_host[d]);
      for (float* out : {x.b.get(), x.e.get(), x.f.get(), x.h.get(), x.r.get(), x.b_new.get()})
        GPU_CHECK(cudaMemset(out, 0xFF, static_cast<std::size_t>(out == x.e.get() ? 2 * n : n) * sizeof(float)));
      GPU_CHECK(cudaMemset(x.m.get(), 0xFF, n * sizeof(int)));
    }
    rank_buffers& x0 = *rb[0];
    rank_buffers& x1 = *rb[1];
    cgraph::args values{{"a0", x0.a.get()}, {"a1", x1.a.get()}, {"b0", x0.b.get()}, {"b1", x1.b.get()},
                        {"e0", x0.e.get()}, {"e1", x1.e.get()}, {"f0", x0.f.get()}, {"f1", x1.f.get()},
                        {"h0", x0.h.get()}, {"h1", x1.h.get()}, {"r0", x0.r.get()}, {"r1", x1.r.get()},
                        {"k0", x0.k.get()}, {"k1", x1.k.get()}, {"m0", x0.m.get()}, {"m1", x1.m.get()},
                        {"n", n},           {"c0", two.comms[0]}, {"c1", two.comms[1]}};
    auto g = cgraph::graph::build(prog, "every_collective_two", values, multi_gpu_kernels(), with(s));
    shapes[s == cgraph::strategy::stream_capture] = canonical(g);
    auto exec = g.instantiate();
    exec.launch(nullptr);
    GPU_CHECK(cudaDeviceSynchronize());
    for (int d = 0; d < 2; ++d) {
      CAPTURE(d);
      on_device here(d);
      GPU_CHECK(cudaDeviceSynchronize());
      const rank_buffers& x = *rb[static_cast<std::size_t>(d)];
      CHECK(x.b.read() == max_ab);
      CHECK(x.e.read() == gathered);
      CHECK(x.f.read() == avg_of[d]);
      CHECK(x.h.read() == from_rank_1);
      if (d == 1) CHECK(x.r.read() == min_ab);  // the reduction's root
      CHECK(x.m.read() == k_host[1 - d]);      // each rank sent its k to the other
    }
    // A new receive buffer on rank 1: its group is captured again, the rest stays.
    auto r = exec.update({{"b1", x1.b_new.get()}});
    CHECK(r.path != cgraph::update_path::unchanged);
    exec.launch(nullptr);
    GPU_CHECK(cudaDeviceSynchronize());
    on_device here(1);
    GPU_CHECK(cudaDeviceSynchronize());
    CHECK(x1.b_new.read() == max_ab);
  }
  CHECK(shapes[0] == shapes[1]);
}

TEST_CASE("multi_gpu.two_processes_of_one_rank_each") {
  if (gpus() < 2) {
    MESSAGE("one GPU: two ranks in two processes need the two-GPU machine");
    return;
  }
  // Rank 0 writes the NCCL unique id to a file that rank 1 reads (cgraph_nccl_rank).
  for (const char* strategy : {"explicit", "capture"}) {
    CAPTURE(strategy);
    std::string id_file = (std::filesystem::temp_directory_path() / ("cgraph_nccl_id_" + std::to_string(getpid()))).string();
    std::filesystem::remove(id_file);
    pid_t ranks[2] = {};
    for (int r = 0; r < 2; ++r) {
      std::string rank = std::to_string(r);
      char* argv[] = {const_cast<char*>(CGRAPH_NCCL_RANK), rank.data(), id_file.data(), const_cast<char*>(strategy), nullptr};
      REQUIRE(posix_spawn(&ranks[r], CGRAPH_NCCL_RANK, nullptr, nullptr, argv, environ) == 0);
    }
    for (pid_t p : ranks) {
      int status = 0;
      REQUIRE(waitpid(p, &status, 0) == p);
      CHECK(WIFEXITED(status));
      CHECK(WEXITSTATUS(status) == 0);
    }
    std::filesystem::remove(id_file);
  }
}

#else

TEST_CASE("multi_gpu.collectives_without_nccl_are_a_build_error_at_their_line") {
  CHECK_FALSE(cgraph::backend::have_nccl());
  auto prog = multi_gpu_program();
  buffer<float> g(8), w(8);
  std::string message;
  try {
    int fake = 0;  // never used: the build stops at the collective
    cgraph::graph::build(prog, "dp_rank", {{"g", g.get()}, {"w", w.get()}, {"value", 1.0f}, {"lr", 1.0f}, {"n", 8}, {"c", &fake}},
                         multi_gpu_kernels());
  } catch (const cgraph::build_error& e) {
    message = e.what();
  }
  CHECK(message.find("multi_gpu.cgraph:24:") != std::string::npos);
  CHECK(message.find("no NCCL") != std::string::npos);
}

#endif

// Concurrency: graphs built, instantiated, launched and updated from 8 threads at once, on the
// run-time path (both strategies) and from generated C++ (both modes), each thread on its own
// stream and memory, results checked. No doctest assertion runs inside a thread (a failed
// REQUIRE would throw across it): each thread records what went wrong, checked after the join.

#include "example_builds.hpp"
#include "gpu_support.hpp"
#include "kernels.cuh"

#include "testing.hpp"

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace gpu_test;

namespace {

constexpr int thread_count = 8;

// Runs `work(t, stream, a, b, n)` on `thread_count` threads, each with its own stream and
// buffers of n = 1000 + t floats; returns what each thread reported ("" when all went well).
std::vector<std::string> on_threads(const std::function<std::string(int, cudaStream_t, float*, float*, int)>& work) {
  std::vector<std::string> failures(thread_count);
  std::vector<std::thread> threads;
  for (int t = 0; t < thread_count; ++t)
    threads.emplace_back([&, t] {
      const int n = 1000 + t;
      float *a = nullptr, *b = nullptr;
      cudaStream_t stream = nullptr;
      try {
        cgraph::detail_check_for_tests(cudaMalloc(reinterpret_cast<void**>(&a), n * sizeof(float)), "cudaMalloc");
        cgraph::detail_check_for_tests(cudaMalloc(reinterpret_cast<void**>(&b), n * sizeof(float)), "cudaMalloc");
        cgraph::detail_check_for_tests(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
        failures[t] = work(t, stream, a, b, n);
      } catch (const std::exception& e) {
        failures[t] = e.what();
      }
      cudaStreamDestroy(stream);
      cudaFree(a);
      cudaFree(b);
    });
  for (auto& th : threads) th.join();
  return failures;
}

// Copies b back on `stream` and checks every element is `expected`.
bool b_holds(cudaStream_t stream, const float* b, int n, float expected) {
  std::vector<float> host(n);
  cgraph::detail_check_for_tests(cudaMemcpyAsync(host.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost, stream),
                                 "cudaMemcpyAsync");
  cgraph::detail_check_for_tests(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  for (float v : host)
    if (v != expected) return false;
  return true;
}

}  // namespace

TEST_CASE("concurrency.run_time_graphs_from_eight_threads_in_both_strategies") {
  auto prog = cgraph::program::load(CGRAPH_GPU_TESTS_DIR "/stress.cgraph");
  auto reg = kernels();
  auto failures = on_threads([&](int t, cudaStream_t stream, float* a, float* b, int n) -> std::string {
    for (int round = 0; round < 5; ++round) {
      auto how = both[(t + round) % 2];
      auto g = cgraph::graph::build(prog, "stress", {{"a", a}, {"b", b}, {"s", float(t)}, {"n", n}}, reg, with(how));
      auto exec = g.instantiate();
      exec.launch(stream);
      if (!b_holds(stream, b, n, 3.0f * float(t))) return std::string("wrong results before the update, ") + name_of(how);
      exec.update({{"s", float(t + 1)}});
      exec.launch(stream);
      if (!b_holds(stream, b, n, 3.0f * float(t + 1))) return std::string("wrong results after the update, ") + name_of(how);
    }
    return {};
  });
  for (int t = 0; t < thread_count; ++t) CHECK_MESSAGE(failures[t].empty(), "thread ", t, ": ", failures[t]);
  CHECK(cgraph::testing::streams_left_capturing() == 0);
}

TEST_CASE("concurrency.generated_graphs_from_eight_threads_in_both_modes") {
  auto failures = on_threads([&](int t, cudaStream_t stream, float* a, float* b, int n) -> std::string {
    for (int round = 0; round < 5; ++round) {
      bool capture = (t + round) % 2;
      auto exec = (capture ? make_stress_capture : make_stress_explicit)(a, b, float(t), n);
      exec.launch(stream);
      if (!b_holds(stream, b, n, 3.0f * float(t))) return capture ? "wrong results, capture mode" : "wrong results, explicit mode";
      exec.update(float(t + 1));
      exec.launch(stream);
      if (!b_holds(stream, b, n, 3.0f * float(t + 1)))
        return capture ? "wrong results after the update, capture mode" : "wrong results after the update, explicit mode";
    }
    return {};
  });
  for (int t = 0; t < thread_count; ++t) CHECK_MESSAGE(failures[t].empty(), "thread ", t, ": ", failures[t]);
  CHECK(cgraph::testing::streams_left_capturing() == 0);
}

TEST_CASE("concurrency.execs_of_one_captured_graph_updated_from_eight_threads") {
  // Execs made from one graph share its node handles, which a capture leaves unread until the
  // graph is instantiated (graph_state::defer_reads). Here eight threads update their execs of
  // one captured graph at once: each must take the per-node path with its own values, without
  // calling into the shared graph. (stress.cgraph's `repeat` would not do: CUDA instantiates a
  // graph with conditional nodes once at a time.)
  auto prog = compile(R"(
graph shared(a: f32*, b: f32*, s: f32, n: i32) {
  parallel { fill<<<ceil_div(n, 64), 64>>>(a, 1.0, n); fill<<<ceil_div(n, 64), 64>>>(b, 0.0, n); }
  saxpy<<<ceil_div(n, 64), 64>>>(s, a, b, n);
  saxpy<<<ceil_div(n, 64), 64>>>(s, a, b, n);
  saxpy<<<ceil_div(n, 64), 64>>>(s, a, b, n);
}
)");
  constexpr int n = 1000;  // every thread's buffers hold at least this many
  buffer<float> a0(n), b0(n);
  auto g = cgraph::graph::build(prog, "shared", {{"a", a0.get()}, {"b", b0.get()}, {"s", 1.0f}, {"n", n}}, kernels(),
                                with(cgraph::strategy::stream_capture));
  std::vector<cgraph::graph_exec> execs;
  for (int t = 0; t < thread_count; ++t) execs.push_back(g.instantiate());
  auto failures = on_threads([&](int t, cudaStream_t stream, float* a, float* b, int) -> std::string {
    auto r = execs[t].update({{"a", a}, {"b", b}, {"s", float(t)}});
    if (r.path != cgraph::update_path::node_params) return "the update took " + std::string(cgraph::to_string(r.path));
    execs[t].launch(stream);
    if (!b_holds(stream, b, n, 3.0f * float(t))) return "wrong results after the update";
    return {};
  });
  for (int t = 0; t < thread_count; ++t) CHECK_MESSAGE(failures[t].empty(), "thread ", t, ": ", failures[t]);
}

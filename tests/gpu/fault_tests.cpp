// Fault injection: every CUDA call cgraph makes to build, instantiate or update a graph is made
// to fail in turn (cgraph::testing::fail_cuda_call_at), on the run-time path in both strategies
// and in generated C++ in both modes. After each failure: the error names the CUDA call and a
// .cgraph location, every CUDA object cgraph made is destroyed (testing::live_handles), no
// stream is left capturing, no error is left pending, and the next build works and computes
// the right values.

#include "example_builds.hpp"
#include "gpu_support.hpp"
#include "kernels.cuh"

#include "testing.hpp"

#include <filesystem>
#include <functional>
#include <optional>

#if CGRAPH_TEST_NCCL
#include <nccl.h>
#endif

using namespace gpu_test;

namespace {

// What one sweep found: calls made, faults injected, and how each fault ended.
struct sweep {
  long faults = 0;
  long errors = 0;     // the operation threw cuda_error, as it should
  long recovered = 0;  // an update fell back to another path and still succeeded
};

// Turns injection off when a sweep ends, also when an assertion ends it early: a fault left
// armed would fail whatever runs next.
struct disarm_on_exit {
  disarm_on_exit() = default;
  disarm_on_exit(const disarm_on_exit&) = delete;
  disarm_on_exit& operator=(const disarm_on_exit&) = delete;
  ~disarm_on_exit() { cgraph::testing::fail_cuda_call_at(-1); }
};

// Each sweep fails call i once (the calls after it work), then fails call i and every call after
// it (CUDA gone bad for good: each fallback fails too).
enum class failure { once, for_good };
constexpr failure both_failures[] = {failure::once, failure::for_good};

void arm(long i, failure f) {
  if (f == failure::once) cgraph::testing::fail_cuda_call_at(i);
  else cgraph::testing::fail_cuda_calls_from(i);
}

// Calls `one(i, f)` for each of `calls` calls and each kind of failure, with both captured for
// the failure messages.
template <typename One>
void for_each_fault(long calls, One one) {
  for (auto f : both_failures) {
    const std::string how_it_fails = f == failure::once ? "once" : "for good";
    CAPTURE(how_it_fails);
    for (long i = 0; i < calls; ++i) {
      CAPTURE(i);
      one(i, f);
    }
  }
}

// Nothing left behind by the operation that just failed.
void check_clean(const cgraph::testing::handle_counts& before) {
  REQUIRE(cgraph::testing::live_handles() == before);
  REQUIRE(cgraph::testing::streams_left_capturing() == 0);
  REQUIRE(cudaGetLastError() == cudaSuccess);
}

// The error names the call and a place in the .cgraph file.
void check_error(const cgraph::cuda_error& e, const std::string& file) {
  REQUIRE(e.code() == cudaErrorNotPermitted);
  REQUIRE(e.api().rfind("cuda", 0) == 0);
  INFO("call ", e.api(), " at '", e.location(), "'");
  REQUIRE(e.location().find(file + ":") != std::string::npos);
  REQUIRE(std::string(e.what()).find(e.location()) != std::string::npos);
}

// Runs `operation` once to count its CUDA calls, then once per call with that call failing:
// each must throw. Its objects must be gone when it returns or throws (the handle counts are
// compared). A first run, not counted, fills the capture stream and event pool: a run that
// creates pooled streams makes more calls than the runs after it.
sweep fail_each_call(const std::string& file, const std::function<void()>& operation) {
  disarm_on_exit disarm;
  cgraph::testing::fail_cuda_call_at(-1);
  operation();
  auto before = cgraph::testing::live_handles();
  cgraph::testing::fail_cuda_call_at(-1);
  operation();
  long calls = cgraph::testing::cuda_calls_made();
  REQUIRE(calls > 0);
  check_clean(before);
  sweep s;
  for_each_fault(calls, [&](long i, failure f) {
    arm(i, f);
    ++s.faults;
    try {
      operation();
      FAIL("call ", i, " was meant to fail");
    } catch (const cgraph::cuda_error& e) {
      check_error(e, file);
      ++s.errors;
    }
    cgraph::testing::fail_cuda_call_at(-1);
    check_clean(before);
  });
  return s;
}

// An update under test: `prepare` makes a fresh exec and launches it (no faults), `update`
// changes it, `verify` launches it and checks the changed values, `release` drops it.
struct update_case {
  std::function<void()> prepare, update, verify, release;
};

// Fails each CUDA call of `c.update` in turn. An update may survive a fault by falling back to
// another path (it must then compute the right values); when it throws, the same exec must
// take the update again once the fault is gone.
sweep fail_each_update_call_on_one_path(const std::string& file, const update_case& c) {
  disarm_on_exit disarm;
  cgraph::testing::fail_cuda_call_at(-1);
  c.prepare();  // a first round, not counted, fills the capture pool (see fail_each_call)
  c.update();
  c.release();
  auto before = cgraph::testing::live_handles();
  c.prepare();
  cgraph::testing::fail_cuda_call_at(-1);
  c.update();
  long calls = cgraph::testing::cuda_calls_made();
  c.verify();
  c.release();
  REQUIRE(calls > 0);
  check_clean(before);
  sweep s;
  for_each_fault(calls, [&](long i, failure f) {
    c.prepare();
    arm(i, f);
    ++s.faults;
    try {
      c.update();
      REQUIRE(cgraph::testing::cuda_calls_made() > i);  // the fault did happen, and was survived
      cgraph::testing::fail_cuda_call_at(-1);
      ++s.recovered;
    } catch (const cgraph::cuda_error& e) {
      cgraph::testing::fail_cuda_call_at(-1);
      check_error(e, file);
      ++s.errors;
      c.update();
    }
    c.verify();
    c.release();
    check_clean(before);
  });
  return s;
}

// The sweep on each update path in turn: CUDA's cheapest path, then (through the test
// refusals) the whole-graph update, then a new instantiation, so every fallback's calls fail too.
sweep fail_each_update_call(const std::string& file, const update_case& c) {
  const cgraph::testing::update_refusals paths[] = {{}, {.node_params = true}, {.node_params = true, .whole_graph = true}};
  sweep total;
  for (auto refusals : paths) {
    CAPTURE(refusals.node_params);
    CAPTURE(refusals.whole_graph);
    auto previous = cgraph::testing::refuse_updates(refusals);
    auto s = fail_each_update_call_on_one_path(file, c);
    cgraph::testing::refuse_updates(previous);
    total.faults += s.faults;
    total.errors += s.errors;
    total.recovered += s.recovered;
  }
  return total;
}

const char* fault_program = R"(
host note(i: i32);
graph child(p: f32*) { scale<<<1, 32>>>(p, 2.0, 32); }
graph g(a: f32*, b: f32*, counter: u32*, e: event, s: f32 = 2.0, go: u32 = 1) {
  parallel { fill<<<1, 32>>>(a, 1.0, 32); memset(b, 3.0, 32); }
  call child(a);
  host note(1);
  memcpy(b, a, 32 * sizeof(f32));
  cond c = go;
  if c { repeat 2 { scale<<<1, 32>>>(b, s, 32); } } else { fill<<<1, 32>>>(b, 0.0, 32); }
  cond x = 0;
  cond y;
  set_cond<<<1, 1>>>(y, go);
  if x { fill<<<1, 32>>>(b, 0.0, 32); } else if y { scale<<<1, 32>>>(b, 1.0, 32); }
  record e;
  wait e;
  memset(counter, 0, 1);
  cond more = 1;
  while more { count_step<<<1, 1>>>(counter, 3, more); }
}
)";

// The event of fault_program's record and wait nodes, made once for the test program.
cudaEvent_t fault_event() {
  static cudaEvent_t e = [] {
    cudaEvent_t made = nullptr;
    GPU_CHECK(cudaEventCreateWithFlags(&made, cudaEventDisableTiming));
    return made;
  }();
  return e;
}

}  // namespace

TEST_CASE("faults.run_time_build_and_instantiate_in_both_strategies") {
  auto prog = compile(fault_program);
  buffer<float> a(32), b(32);
  buffer<unsigned> counter(1);
  auto reg = kernels();
  reg.host("note", [](int) {});
  cgraph::args values{{"a", a.get()}, {"b", b.get()}, {"counter", counter.get()}, {"e", fault_event()}};
  for (auto how : both) {
    const std::string strategy = name_of(how);
    CAPTURE(strategy);
    auto s = fail_each_call("test.cgraph", [&] {
      auto g = cgraph::graph::build(prog, "g", values, reg, with(how));
      auto e = g.instantiate();
    });
    MESSAGE("run-time path, ", strategy, ": ", s.faults, " faults injected in build + instantiate, ", s.errors,
            " errors, nothing leaked");
    CHECK(s.errors == s.faults);
    auto g = cgraph::graph::build(prog, "g", values, reg, with(how));
    auto exec = g.instantiate();
    run(exec);
    for (float v : b.read()) REQUIRE(v == 8.0f);  // a = 2 after the child; b = a, doubled twice
    CHECK(counter.read()[0] == 3);
  }
}

TEST_CASE("faults.run_time_update_in_both_strategies") {
  auto prog = compile(fault_program);
  buffer<float> a(32), b(32);
  buffer<unsigned> counter(1);
  auto reg = kernels();
  reg.host("note", [](int) {});
  cgraph::args values{{"a", a.get()}, {"b", b.get()}, {"counter", counter.get()}, {"e", fault_event()}};
  struct change {
    const char* what;
    cgraph::args values;
    float b;  // every element of b after a launch
  };
  // A kernel argument (per-node setters first), and a cond's default (fixed when its handle is
  // made: a rebuilt graph, applied by whole-graph update or a new instantiation).
  const change changes[] = {{"kernel argument", {{"s", 3.0f}}, 18.0f}, {"cond default", {{"go", 0}}, 0.0f}};
  for (auto how : both)
    for (const auto& ch : changes) {
      const std::string strategy = name_of(how);
      CAPTURE(strategy);
      const std::string what = ch.what;
      CAPTURE(what);
      std::optional<cgraph::graph> g;
      std::optional<cgraph::graph_exec> exec;
      update_case c{[&] {
                      g.emplace(cgraph::graph::build(prog, "g", values, reg, with(how)));
                      exec.emplace(g->instantiate());
                      run(*exec);
                    },
                    [&] { exec->update(ch.values); },
                    [&] {
                      run(*exec);
                      for (float v : b.read()) REQUIRE(v == ch.b);
                      REQUIRE(counter.read()[0] == 3);
                    },
                    [&] {
                      exec.reset();
                      g.reset();
                    }};
      auto s = fail_each_update_call("test.cgraph", c);
      MESSAGE("run-time path, ", strategy, ", update of a ", what, ", every path: ", s.faults, " faults injected, ", s.errors,
              " errors, ", s.recovered, " survived by a fallback path, nothing leaked");
    }
}

namespace {
// The version 2 node kinds fault_program lacks: graph memory, programmatic edges (made as the
// kernel is added), kernel attributes, `[[enabled]]`, and a cond passed by `call` (a child
// built during the capture). a: 1 from the temporary, doubled, tripled when `on`.
const char* fault_program_v2 = R"(
graph counted(counter: u32*, more: cond) { count_step<<<1, 1>>>(counter, 3, more); }
graph g(a: f32*, counter: u32*, on: bool = true) {
  alloc tmp: f32[32];
  first: fill<<<1, 32>>>(tmp, 1.0, 32);
  saxpy<<<1, 32>>>(1.0, tmp, a, 32) after programmatic(first);
  [[priority(1), cluster(2, 1, 1)]] scale<<<2, 16>>>(a, 2.0, 32);
  [[enabled(on)]] scale<<<1, 32>>>(a, 3.0, 32);
  memset(counter, 0, 1);
  cond more = 1;
  while more { call counted(counter, more); }
}
)";
}  // namespace

TEST_CASE("faults.v2_node_kinds_build_instantiate_and_update_in_both_strategies") {
  auto prog = compile(fault_program_v2);
  buffer<float> a(32);
  buffer<unsigned> counter(1);
  cgraph::args values{{"a", a.get()}, {"counter", counter.get()}};
  auto reset_a = [&] { GPU_CHECK(cudaMemset(a.get(), 0, 32 * sizeof(float))); };
  for (auto how : both) {
    const std::string strategy = name_of(how);
    CAPTURE(strategy);
    auto s = fail_each_call("test.cgraph", [&] {
      auto g = cgraph::graph::build(prog, "g", values, kernels(), with(how));
      auto e = g.instantiate();
    });
    MESSAGE("run-time path, ", strategy, ", version 2 node kinds: ", s.faults, " faults injected in build + instantiate, ",
            s.errors, " errors, nothing leaked");
    CHECK(s.errors == s.faults);
    std::optional<cgraph::graph> g;
    std::optional<cgraph::graph_exec> exec;
    update_case c{[&] {
                    g.emplace(cgraph::graph::build(prog, "g", values, kernels(), with(how)));
                    exec.emplace(g->instantiate());
                    reset_a();
                    run(*exec);
                    for (float v : a.read()) REQUIRE(v == 6.0f);
                  },
                  [&] { exec->update({{"on", false}}); },
                  [&] {
                    reset_a();
                    run(*exec);
                    for (float v : a.read()) REQUIRE(v == 2.0f);
                    REQUIRE(counter.read()[0] == 3);
                  },
                  [&] {
                    exec.reset();
                    g.reset();
                  }};
    auto u = fail_each_update_call("test.cgraph", c);
    MESSAGE("run-time path, ", strategy, ", update of [[enabled]], every path: ", u.faults, " faults injected, ", u.errors,
            " errors, ", u.recovered, " survived by a fallback path, nothing leaked");
  }
}

TEST_CASE("faults.placed_nodes_and_collectives_in_both_strategies") {
  // tests/gpu/multi_gpu.cgraph: `placed` (kernel, memcpy and memset nodes on a device) and, with
  // NCCL, `every_collective` on a one-rank communicator (streams, events, the warm-up's scratch
  // and the capture around NCCL's calls; NCCL's own calls are not injected).
  auto prog = cgraph::program::load((std::filesystem::path(CGRAPH_GPU_TESTS_DIR) / "multi_gpu.cgraph").string());
  cgraph::registry reg = multi_gpu_kernels();
  buffer<float> x(64), y(64), e(64), f(64), h(64);
  buffer<int> z(64), k(64);
  for (auto how : both) {
    const std::string strategy = name_of(how);
    CAPTURE(strategy);
    auto s = fail_each_call("multi_gpu.cgraph", [&] {
      auto g = cgraph::graph::build(prog, "placed",
                                    {{"x", x.get()}, {"y", y.get()}, {"z", z.get()}, {"v", 1.0f}, {"s", 2.0f}, {"n", 64}},
                                    reg, with(how));
      auto exec = g.instantiate();
    });
    CHECK(s.errors == s.faults);
    MESSAGE("run-time path, ", strategy, ", placed nodes: ", s.faults, " faults injected in build + instantiate, ",
            s.errors, " errors, nothing leaked");
#if CGRAPH_TEST_NCCL
    ncclComm_t comm = nullptr;
    int device = 0;
    REQUIRE(ncclCommInitAll(&comm, 1, &device) == ncclSuccess);
    auto c = fail_each_call("multi_gpu.cgraph", [&] {
      auto g = cgraph::graph::build(prog, "every_collective",
                                    {{"a", x.get()}, {"b", y.get()}, {"e", e.get()}, {"f", f.get()}, {"h", h.get()},
                                     {"k", z.get()}, {"m", k.get()}, {"n", 64}, {"c", comm}},
                                    reg, with(how));
      auto exec = g.instantiate();
    });
    CHECK(c.errors == c.faults);
    MESSAGE("run-time path, ", strategy, ", every collective: ", c.faults, " faults injected in build + instantiate, ",
            c.errors, " errors, nothing leaked");
    ncclCommDestroy(comm);
    // Two GPUs: `dp_two` places kernels on both and captures one group over both devices (a
    // stream, scratch and fork/join events per device), so every one of those calls fails once.
    int gpus = 0;
    GPU_CHECK(cudaGetDeviceCount(&gpus));
    if (gpus >= 2) {
      ncclComm_t comms[2] = {};
      int devices[2] = {0, 1};
      REQUIRE(ncclCommInitAll(comms, 2, devices) == ncclSuccess);
      GPU_CHECK(cudaSetDevice(1));
      buffer<float> g1(64), w1(64);  // on device 1 (freed wherever the test stops)
      GPU_CHECK(cudaSetDevice(0));
      auto t = fail_each_call("multi_gpu.cgraph", [&] {
        auto g = cgraph::graph::build(prog, "dp_two",
                                      {{"g0", x.get()}, {"g1", g1.get()}, {"w0", y.get()}, {"w1", w1.get()}, {"lr", 1.0f}, {"n", 64},
                                       {"c0", comms[0]}, {"c1", comms[1]}},
                                      reg, with(how));
        auto exec = g.instantiate();
      });
      CHECK(t.errors == t.faults);
      MESSAGE("run-time path, ", strategy, ", two GPUs (dp_two): ", t.faults, " faults injected in build + instantiate, ",
              t.errors, " errors, nothing leaked");
      for (ncclComm_t each : comms) ncclCommDestroy(each);
    }
#endif
  }
}

TEST_CASE("faults.generated_build_and_instantiate_in_both_modes") {
  buffer<float> memory(1 << 22);
  for (auto* examples : {generated_examples_explicit, generated_examples_capture}) {
    sweep total;
    for (const auto& e : examples()) {
      CAPTURE(e.file);
      CAPTURE(e.graph);
      auto s = fail_each_call(e.file, [&] {
        auto state = e.build(memory.get());
        cgraph::gen::exec_core core(state, {});
      });
      CHECK(s.errors == s.faults);
      total.faults += s.faults;
      total.errors += s.errors;
    }
    MESSAGE("generated C++, ", std::string(examples == generated_examples_explicit ? "explicit" : "capture"), " mode, every example: ",
            total.faults, " faults injected in build + instantiate, ", total.errors, " errors, nothing leaked");
  }
}

TEST_CASE("faults.generated_update_in_both_modes") {
  const int n = 1000;
  buffer<float> a(n), b(n);
  for (auto* make : {make_stress_explicit, make_stress_capture}) {
    std::string mode = make == make_stress_explicit ? "explicit" : "capture";
    CAPTURE(mode);
    std::optional<generated_stress> exec;
    update_case c{[&] {
                    exec = make(a.get(), b.get(), 1.0f, n);
                    exec->launch(nullptr);
                  },
                  [&] { exec->update(2.0f); },
                  [&] {
                    exec->launch(nullptr);
                    for (float v : b.read()) REQUIRE(v == 6.0f);
                  },
                  [&] { exec.reset(); }};
    auto s = fail_each_update_call("stress.cgraph", c);
    MESSAGE("generated C++, ", mode, " mode, update of a kernel argument, every path: ", s.faults, " faults injected, ", s.errors,
            " errors, ", s.recovered, " survived by a fallback path, nothing leaked");
  }
}

TEST_CASE("faults.the_table_form_in_both_modes") {
  // table_chain.cgraph's 2 104 nodes and table_conditionals.cgraph's 1 054 (394 conditionals, two
  // `while`s, a `repeat` and a cond computed from n among them) take the table form in both modes: build_from_table (explicit) and
  // capture_from_table (capture) fail at each of their calls, then update_from_table's.
  const int n = 1000;
  buffer<float> a(n), b(n);
  for (const table_graph& t : table_graphs()) {
    CAPTURE(t.graph);
    CAPTURE(t.mode);
    auto built = fail_each_call(t.file, [&] {
      auto state = t.build(a.get(), b.get(), 1.0f, n);
      cgraph::gen::exec_core core(state, {});
    });
    CHECK(built.errors == built.faults);
    std::optional<generated_stress> exec;
    update_case c{[&] {
                    exec = t.make(a.get(), b.get(), 1.0f, n);
                    exec->launch(nullptr);
                  },
                  [&] { exec->update(2.0f); },
                  [&] {
                    exec->launch(nullptr);
                    for (float v : b.read()) REQUIRE(v == 2 * t.per_s);
                  },
                  [&] { exec.reset(); }};
    auto updated = fail_each_update_call_on_one_path(t.file, c);  // the fallbacks rebuild, as swept above
    MESSAGE("generated C++, table form, ", std::string(t.file), ", ", std::string(t.mode), " mode: ", built.faults,
            " faults injected in build + instantiate, ", built.errors, " errors; update of s (CUDA's cheapest path): ",
            updated.faults, " faults, ", updated.errors, " errors, ", updated.recovered,
            " survived by a fallback path; nothing leaked");
  }
}

TEST_CASE("faults.loading_modules_and_sources_in_both_strategies") {
  // A fresh program each time: a program loads its libraries once, on its first build.
  const std::string module_text = R"(
module lib = "module_kernels.fatbin";
kernel m_fill(p: f32*, v: f32, n: i32) from lib;
graph g(p: f32*, n: i32) { m_fill<<<1, 64>>>(p, 3.0, n); }
)";
  const std::string source_text = R"(
source jit = """
extern "C" __global__ void twice(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= 2.0f;
}
""";
kernel twice(p: f32*, n: i32) from jit;
graph g(p: f32*, n: i32) { twice<<<1, 64>>>(p, n); }
)";
  buffer<float> p(64);
  for (const auto* text : {&module_text, &source_text})
    for (auto how : both) {
      const std::string strategy = name_of(how);
      CAPTURE(strategy);
      const std::string library = *text == module_text ? std::string("module") : std::string("source");
      CAPTURE(library);
      cgraph::build_options options = with(how);
      options.module_directory = CGRAPH_TEST_MODULE_DIR;
      auto s = fail_each_call("test.cgraph", [&] {
        auto prog = cgraph::program::compile(*text, "test.cgraph");
        auto g = cgraph::graph::build(prog, "g", {{"p", p.get()}, {"n", 64}}, {}, options);
        auto e = g.instantiate();
      });
      CHECK(s.errors == s.faults);
      MESSAGE(library, ", ", strategy, ": ", s.faults,
              " faults injected in load + build + instantiate, ", s.errors, " errors, nothing leaked");
    }
}

TEST_CASE("faults.an_update_that_fails_half_way_is_put_right_by_the_next") {
  // Two nodes read `s`. With every CUDA call failing from call n of the update on, the update
  // may set the first node's new value, be refused on the second, and fail to rebuild: the
  // exec then holds a mix. The next update, even back to the old value, must put it right.
  auto prog = compile(R"(
graph two(a: f32*, s: f32) { fill<<<1, 32>>>(a, 1.0, 32); scale<<<1, 32>>>(a, s, 32); scale<<<1, 32>>>(a, s, 32); }
)");
  buffer<float> a(32);
  auto expect = [&](cgraph::graph_exec& exec, float value) {
    run(exec);
    for (float v : a.read()) REQUIRE(v == value);
  };
  for (auto how : both) {
    const std::string strategy = name_of(how);
    CAPTURE(strategy);
    disarm_on_exit disarm;
    auto before = cgraph::testing::live_handles();
    long errors = 0;
    for (long n = 0;; ++n) {
      CAPTURE(n);
      {
        auto g = cgraph::graph::build(prog, "two", {{"a", a.get()}, {"s", 2.0f}}, kernels(), with(how));
        auto exec = g.instantiate();
        expect(exec, 4.0f);
        cgraph::testing::fail_cuda_calls_from(n);
        bool threw = false;
        try {
          exec.update({{"s", 3.0f}});
        } catch (const cgraph::cuda_error& e) {
          threw = true;
          check_error(e, "test.cgraph");
        }
        cgraph::testing::fail_cuda_call_at(-1);
        if (!threw) {
          expect(exec, 9.0f);
          break;  // n is past the update's last call
        }
        ++errors;
        exec.update({{"s", 2.0f}});  // back to where the exec started
        expect(exec, 4.0f);
        exec.update({{"s", 3.0f}});
        expect(exec, 9.0f);
      }
      check_clean(before);
    }
    MESSAGE("run-time path, ", strategy, ": an update failing for good from each of its calls: ",
            errors, " errors, each put right by the next update");
    CHECK(errors >= 2);  // the setter of the second node, and the rebuild after it
  }
}

TEST_CASE("faults.a_generated_update_that_fails_half_way_is_put_right_by_the_next") {
  // long_chain.cgraph: 300 nodes read `s`. Failing for good from setter n on leaves n nodes
  // with the new value when the whole-graph fallback fails too.
  const int elements = 256;
  buffer<float> a(elements), b(elements);
  auto expect = [&](generated_stress& exec, float value) {
    exec.launch(nullptr);
    for (float v : b.read()) REQUIRE(v == value);
  };
  for (auto* make : {make_long_chain_explicit, make_long_chain_capture}) {
    const std::string mode = make == make_long_chain_explicit ? "explicit" : "capture";
    CAPTURE(mode);
    disarm_on_exit disarm;
    auto before = cgraph::testing::live_handles();
    for (long n : {0L, 1L, 150L}) {
      CAPTURE(n);
      {
        auto exec = make(a.get(), b.get(), 1.0f, elements);
        expect(exec, 300.0f);
        cgraph::testing::fail_cuda_calls_from(n);
        try {
          exec.update(2.0f);
          FAIL("the update was meant to fail");
        } catch (const cgraph::cuda_error& e) {
          check_error(e, "long_chain.cgraph");
        }
        cgraph::testing::fail_cuda_call_at(-1);
        exec.update(1.0f);  // back to where the exec started
        expect(exec, 300.0f);
        exec.update(2.0f);
        expect(exec, 600.0f);
      }
      check_clean(before);
    }
  }
}

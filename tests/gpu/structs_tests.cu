// LANGUAGE.md §9 structs on the GPU: a graph's struct parameter given as the kernels' own C++
// struct, struct literals built from its fields, a struct constant, a host callback and a child
// graph taking structs, and an update of the struct parameter, through both run-time
// strategies and generated C++ in both modes, against a CPU reference.

#include "example_builds.hpp"
#include "gpu_support.hpp"
#include "isomorphism.hpp"
#include "structs_kernels.cuh"

#include <cgraph/runtime/registry.hpp>

#include <cmath>
#include <filesystem>

using namespace gpu_test;

namespace {

constexpr int n = 1000;
constexpr int split = 600;  // p.range = [0, split); q.range = [split, n)

// Small integers and dyadic steps: every product is exact, so the GPU's fused multiply-adds
// give the CPU's results bit for bit.
struct device_run {
  buffer<float> pos{n}, vel{n}, bias{n};
  buffer<int> marks{n};
  std::vector<float> pos0, vel0, bias0;
  device_run() {
    for (int i = 0; i < n; ++i) {
      pos0.push_back(static_cast<float>(i % 7));
      vel0.push_back(static_cast<float>(i % 3));
      bias0.push_back(static_cast<float>(i % 5));
    }
    pos.write(pos0);
    vel.write(vel0);
    bias.write(bias0);
    marks.write(std::vector<int>(n, 0));
  }
  SimParams params(float dt, bool move) const {
    return SimParams{dt, 0.5, Range{0, split}, bias.get(), __float2half(2.0f), move};
  }
  // Every parameter of graph `sim`, with params(dt, move).
  cgraph::args values(float dt, bool move) const {
    return {{"p", params(dt, move)}, {"pos", pos.get()}, {"vel", vel.get()}, {"marks", marks.get()}, {"n", n}};
  }
};

// What the host callback saw.
struct seen {
  int calls = 0;
  float dt = 0;
  int begin = 0, end = 0;
  float gain = 0;
  long long lo = 0;
  int width = 0;
};

void check_against_cpu(const device_run& run, float dt, bool move) {
  auto pos = run.pos.read();
  auto vel = run.vel.read();
  auto marks = run.marks.read();
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    const bool first = i < split;
    const float step = first ? dt : 2 * dt, gain = first ? 2.0f : 0.5f;
    float v = static_cast<float>(static_cast<double>(run.vel0[i]) * 0.5) + step * (run.bias0[i] * gain);
    float p = run.pos0[i] + ((first ? move : true) ? step * v : 0.0f);
    int mark = i >= n - 4 ? 9 : first ? 7 : 0;
    if (vel[i] != v || pos[i] != p || marks[i] != mark) ++wrong;
  }
  CHECK(wrong == 0);
}

void check_seen(const seen& s, float dt) {
  CHECK(s.calls == 1);
  CHECK(s.dt == 2 * dt);
  CHECK(s.begin == split);
  CHECK(s.end == n);
  CHECK(s.gain == 0.5f);
  CHECK(s.lo == split);
  CHECK(s.width == 3);
}

// The kernels, and the host callback recording what it saw into `host`.
cgraph::registry structs_registry(seen& host) {
  cgraph::registry reg;
  reg.kernel("advance", advance).kernel("fill_window", fill_window).kernel("drift", drift).kernel("gather_next", gather_next);
  reg.kernel("span_fill", span_fill).kernel("span_add", span_add);
  reg.host("record", [&host](SimParams p, WindowC w) {
    ++host.calls;
    host.dt = p.dt;
    host.begin = p.range.begin;
    host.end = p.range.end;
    host.gain = __half2float(p.gain);
    host.lo = w.lo;
    host.width = w.width;
  });
  return reg;
}

cgraph::program structs_program() {
  return cgraph::program::load((std::filesystem::path(CGRAPH_GPU_TESTS_DIR) / "structs.cgraph").string());
}

}  // namespace

TEST_CASE("structs.parameters_literals_host_and_child_graph_in_both_strategies") {
  auto prog = structs_program();
  for (auto s : both) {
    CAPTURE(name_of(s));
    seen host;
    cgraph::registry reg = structs_registry(host);
    device_run run;
    auto exec = cgraph::graph::build(prog, "sim", run.values(0.25f, false), reg, with(s)).instantiate();
    gpu_test::run(exec);
    check_against_cpu(run, 0.25f, false);
    check_seen(host, 0.25f);

    // A new struct value: every node that reads p changes, by node parameters.
    device_run again;
    host = {};
    auto r = exec.update({{"p", again.params(0.5f, true)}, {"pos", again.pos.get()}, {"vel", again.vel.get()},
                          {"marks", again.marks.get()}});
    CHECK(r.path != cgraph::update_path::unchanged);
    gpu_test::run(exec);
    check_against_cpu(again, 0.5f, true);
    check_seen(host, 0.5f);
  }
}

TEST_CASE("structs.a_parameter_handle_takes_the_kernels_own_struct") {
  // The handle of a struct parameter takes the C++ struct the kernels take; an apply() changes
  // every node that reads it, the literals built from its fields and the host callback included.
  auto prog = structs_program();
  for (auto s : both) {
    CAPTURE(name_of(s));
    seen host;
    cgraph::registry reg = structs_registry(host);
    device_run run;
    auto exec = cgraph::graph::build(prog, "sim", run.values(0.25f, false), reg, with(s)).instantiate();
    auto p = exec.parameter<SimParams>("p");
    auto pos = exec.parameter<float*>("pos");
    auto vel = exec.parameter<float*>("vel");
    auto marks = exec.parameter<int*>("marks");
    gpu_test::run(exec);
    check_against_cpu(run, 0.25f, false);

    device_run again;
    host = {};
    SimParams next = again.params(0.5f, true);
    p = next;
    next.dt = 99.0f;  // staging copied the bytes: a later change of the caller's struct is not seen
    pos = again.pos.get();
    vel = again.vel.get();
    marks = again.marks.get();
    auto r = exec.apply();
    CHECK(r.path != cgraph::update_path::unchanged);
    gpu_test::run(exec);
    check_against_cpu(again, 0.5f, true);
    check_seen(host, 0.5f);
  }

  // A C++ type of another size, or of another kind, fails where the handle is made.
  device_run run;
  seen ignored;
  auto exec = cgraph::graph::build(prog, "sim", run.values(0.25f, false), structs_registry(ignored)).instantiate();
  struct too_small {
    float dt;
  };
  const std::string file = (std::filesystem::path(CGRAPH_GPU_TESTS_DIR) / "structs.cgraph").string();
  CHECK_THROWS_WITH_AS(exec.parameter<too_small>("p"),
                       (file + ":26:11: parameter 'p' of type 'SimParams' takes a struct of 40 bytes, not one of 4").c_str(),
                       cgraph::build_error);
  CHECK_THROWS_WITH_AS(exec.parameter<int>("p"),
                       (file + ":26:11: parameter 'p' of type 'SimParams' takes a struct, not an integer type").c_str(),
                       cgraph::build_error);
  CHECK_THROWS_WITH_AS(exec.parameter<WindowC>("n"),
                       (file + ":26:60: parameter 'n' of type 'i32' takes an integer type, not a struct").c_str(),
                       cgraph::build_error);
}

TEST_CASE("structs.a_struct_of_the_wrong_size_fails_at_build_with_the_parameter") {
  auto prog = structs_program();
  struct too_small {
    float dt;
  };
  device_run run;
  std::string message;
  try {
    cgraph::registry reg;
    cgraph::graph::build(prog, "sim", {{"p", too_small{1}}, {"pos", run.pos.get()}, {"vel", run.vel.get()},
                                       {"marks", run.marks.get()}, {"n", n}}, reg);
  } catch (const cgraph::build_error& e) {
    message = e.what();
  }
  MESSAGE(message);
  CHECK(message.find("structs.cgraph:26:11") != std::string::npos);
  CHECK(message.find("expects a struct of 40 bytes, not one of 4") != std::string::npos);
}

TEST_CASE("structs.generated_cpp_in_both_modes_matches_the_cpu") {
  for (auto* run_generated : {run_structs_explicit, run_structs_capture}) {
    device_run run;
    structs_seen host;
    run_generated({run.pos.get(), run.vel.get(), run.marks.get(), run.bias.get(), n, split, 0.25f}, host, nullptr);
    GPU_CHECK(cudaStreamSynchronize(nullptr));
    check_against_cpu(run, 0.25f, false);
    CHECK(host.calls == 1);
    CHECK(host.dt == 0.5f);
    CHECK(host.lo == split);
    CHECK(host.width == 3);
  }
}

namespace {

// Graph `particles` on n particles whose `next` is the following one (the last's the first),
// with small integers and dt = 0.5 or 0.25, so every sum is exact.
struct particle_run {
  static constexpr int count = 300;
  buffer<Particle> ps{count};
  buffer<float> out{count};
  std::vector<Particle> start;
  particle_run() {
    for (int i = 0; i < count; ++i)
      start.push_back(Particle{static_cast<float>(i % 7), static_cast<float>(i % 3), ps.get() + (i + 1) % count, nullptr});
    ps.write(start);
  }
  cgraph::args values(float dt) const { return {{"ps", ps.get()}, {"n", count}, {"dt", dt}, {"out", out.get()}}; }

  // drift moved particles 1..n-2 (ps + 1, n - 1 of them; the last is then zeroed), memset
  // zeroed the last two whole, gather_next read the copy made first and, through `next`, ps
  // (or, `gathered_first`, ran before the others: `table_particles`).
  void check(float dt, bool gathered_first = false) const {
    std::vector<Particle> after = start;
    for (int i = 1; i < count; ++i) after[i].pos += dt * after[i].vel;
    for (int i = count - 2; i < count; ++i) after[i] = Particle{0, 0, nullptr, nullptr};
    auto got = ps.read();
    auto sums = out.read();
    int wrong = 0;
    for (int i = 0; i < count; ++i) {
      if (got[i].pos != after[i].pos || got[i].vel != after[i].vel || got[i].next != after[i].next) ++wrong;
      if (sums[i] != start[i].pos + (gathered_first ? start : after)[(i + 1) % count].pos) ++wrong;
    }
    CHECK(wrong == 0);
  }
};

}  // namespace

TEST_CASE("structs.pointers_to_structs_offset_memset_and_allocate_in_both_strategies") {
  auto prog = structs_program();
  for (auto s : both) {
    CAPTURE(name_of(s));
    seen ignored;
    cgraph::registry reg = structs_registry(ignored);
    particle_run run;
    auto exec = cgraph::graph::build(prog, "particles", run.values(0.5f), reg, with(s)).instantiate();
    gpu_test::run(exec);
    run.check(0.5f);

    // Another array and step: the pointer and the float change by node parameters.
    particle_run again;
    auto r = exec.update(again.values(0.25f));
    CHECK(r.path != cgraph::update_path::unchanged);
    gpu_test::run(exec);
    again.check(0.25f);

    // A parameter handle of the kernels' own pointer type.
    particle_run third;
    exec.parameter<Particle*>("ps") = third.ps.get();
    exec.parameter<float*>("out") = third.out.get();
    exec.apply();
    gpu_test::run(exec);
    third.check(0.25f);
  }
}

TEST_CASE("structs.pointers_to_structs_as_generated_cpp_in_both_modes") {
  for (auto* run_generated : {run_particles_explicit, run_particles_capture}) {
    particle_run run;
    run_generated(run.ps.get(), particle_run::count, 0.5f, run.out.get(), nullptr);
    run.check(0.5f);
  }
}

TEST_CASE("structs.pointers_to_structs_in_the_table_form_in_both_modes") {
  for (auto* run_generated : {run_table_particles_explicit, run_table_particles_capture}) {
    particle_run run;
    CHECK(run_generated(run.ps.get(), particle_run::count, 0.5f, run.out.get(), nullptr));
    run.check(0.5f, true);
  }
}

namespace {

constexpr int span_count = 1000;

// Graph `spans`: out[i] = 4·base + 3·i.
void check_spans(const std::vector<int>& out, int base) {
  int wrong = 0;
  for (int i = 0; i < span_count; ++i)
    if (out[i] != 4 * base + 3 * i) ++wrong;
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("structs.an_allocation_read_by_fields_lets_offsets_and_a_child_in_both_strategies") {
  auto prog = structs_program();
  std::string shapes[2];
  for (auto s : both) {
    CAPTURE(name_of(s));
    seen ignored;
    cgraph::registry reg = structs_registry(ignored);
    buffer<int> out{span_count};
    auto g = cgraph::graph::build(prog, "spans", {{"out", out.get()}, {"n", span_count}}, reg, with(s));
    shapes[s == cgraph::strategy::stream_capture] = canonical(g);
    auto exec = g.instantiate();
    gpu_test::run(exec);
    check_spans(out.read(), 10);

    // The fills read `base`: set on their nodes, each still given the allocation's address.
    auto r = exec.update({{"base", 20}});
    CHECK(r.path == cgraph::update_path::node_params);
    CHECK(r.nodes_changed == 2);
    gpu_test::run(exec);
    check_spans(out.read(), 20);
  }
  CHECK(shapes[0] == shapes[1]);  // the capture's child graph, built during it, is the explicit build's
}

TEST_CASE("structs.an_allocation_read_by_fields_lets_offsets_and_a_child_as_generated_cpp_in_both_modes") {
  for (auto* run_generated : {run_spans_explicit, run_spans_capture}) {
    buffer<int> out{span_count};
    run_generated(out.get(), span_count, 10, nullptr);
    check_spans(out.read(), 10);
  }
}

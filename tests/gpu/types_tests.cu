// LANGUAGE.md §9 types on the GPU: f16 and bf16 values and pointers, pointers to const, i64
// kernels taking `long long`, a null default, an 8-byte memset and a full-range u64, through
// both run-time strategies and generated C++ in both modes, against a CPU reference.

#include "example_builds.hpp"
#include "gpu_support.hpp"
#include "types_registry.hpp"

#include <filesystem>

using namespace gpu_test;

namespace {

constexpr int n = 1000;

struct inputs {
  std::vector<__half> x, y;
  std::vector<__nv_bfloat16> b;
  std::vector<float> xf;
};

inputs make_inputs() {
  inputs in;
  for (int i = 0; i < n; ++i) {
    in.x.push_back(__float2half(0.25f * static_cast<float>(i % 17) - 2.0f));
    in.y.push_back(__float2half(0.125f * static_cast<float>(i % 5)));
    in.b.push_back(__float2bfloat16(1.0f + 0.01f * static_cast<float>(i % 31)));
    in.xf.push_back(0.5f * static_cast<float>(i % 7));
  }
  return in;
}

// The device buffers of one run, filled from `in` (out is poisoned: the memset must clear it).
struct device_run {
  buffer<__half> x{n}, y{n};
  buffer<__nv_bfloat16> b{n};
  buffer<float> xf{n};
  buffer<double> out{n};
  buffer<unsigned long long> tag{1};
  explicit device_run(const inputs& in) {
    x.write(in.x);
    y.write(in.y);
    b.write(in.b);
    xf.write(in.xf);
  }
  mixed_types_inputs pointers() { return {x.get(), y.get(), b.get(), xf.get(), out.get(), tag.get(), n}; }
  // Graph `mixed`'s buffers and n (a and s keep their defaults).
  cgraph::args values() const {
    return {{"x", x.get()}, {"y", y.get()}, {"b", b.get()}, {"xf", xf.get()}, {"out", out.get()}, {"tag", tag.get()}, {"n", n}};
  }
};

// Checks one run's results against the CPU, computing as the kernels do (float arithmetic,
// rounded to the 2-byte type), with a = 0.5 and s = 2 (the defaults) unless given.
void check_against_cpu(device_run& run, const inputs& in, float a = 0.5f, float s = 2.0f) {
  auto y = run.y.read();
  auto b = run.b.read();
  auto out = run.out.read();
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    float expected_y = __half2float(__float2half(a * __half2float(in.x[i]) + __half2float(in.y[i])));
    float expected_b = __bfloat162float(__float2bfloat16(s * __bfloat162float(in.b[i])));
    double expected_out = static_cast<double>(in.xf[i]);
    if (__half2float(y[i]) != expected_y || __bfloat162float(b[i]) != expected_b || out[i] != expected_out) ++wrong;
  }
  CHECK(wrong == 0);
  CHECK(run.tag.read()[0] == 0xFFFF'FFFF'FFFF'FFF0ull);
}

cgraph::program types_program() {
  return cgraph::program::load((std::filesystem::path(CGRAPH_GPU_TESTS_DIR) / "types.cgraph").string());
}

}  // namespace

TEST_CASE("types.half_bfloat16_const_null_and_wide_memset_in_both_strategies") {
  auto in = make_inputs();
  auto prog = types_program();
  for (auto s : both) {
    CAPTURE(name_of(s));
    device_run run(in);
    auto exec = cgraph::graph::build(prog, "mixed", run.values(), types_registry(), with(s)).instantiate();
    gpu_test::run(exec);
    check_against_cpu(run, in);

    // New 2-byte values by update, given as the CUDA types (a) and as a float (s).
    device_run again(in);
    cgraph::args moved{{"x", again.x.get()}, {"y", again.y.get()}, {"b", again.b.get()}, {"xf", again.xf.get()},
                       {"out", again.out.get()}, {"tag", again.tag.get()}, {"a", __float2half(-1.5f)}, {"s", 0.75f}};
    auto r = exec.update(moved);
    CHECK(r.path == cgraph::update_path::node_params);
    gpu_test::run(exec);
    check_against_cpu(again, in, -1.5f, 0.75f);
  }
}

TEST_CASE("types.parameter_handles_of_2_byte_floats") {
  // Handles of f16 and bf16 parameters take CUDA's own types, or any floating type, rounded to
  // the parameter's type when staged, as update() rounds them; pointer handles take pointers to
  // const and to 2-byte floats.
  auto in = make_inputs();
  auto prog = types_program();
  for (auto s : both) {
    CAPTURE(name_of(s));
    device_run run(in);
    auto exec = cgraph::graph::build(prog, "mixed", run.values(), types_registry(), with(s)).instantiate();
    auto a = exec.parameter<__half>("a");
    auto scale = exec.parameter<__nv_bfloat16>("s");
    auto x = exec.parameter<const __half*>("x");
    auto y = exec.parameter<__half*>("y");
    auto b = exec.parameter<__nv_bfloat16*>("b");
    auto xf = exec.parameter<float*>("xf");
    auto out = exec.parameter<double*>("out");
    auto tag = exec.parameter<unsigned long long*>("tag");
    auto point_at = [&](device_run& r) {
      x = r.x.get();
      y = r.y.get();
      b = r.b.get();
      xf = r.xf.get();
      out = r.out.get();
      tag = r.tag.get();
    };
    gpu_test::run(exec);
    check_against_cpu(run, in);

    device_run again(in);
    a = __float2half(-1.5f);
    scale = __float2bfloat16(0.75f);
    point_at(again);
    CHECK(exec.apply().path == cgraph::update_path::node_params);
    gpu_test::run(exec);
    check_against_cpu(again, in, -1.5f, 0.75f);

    // A float handle of the same f16 parameter: a value beyond f16 is refused and never staged;
    // 0.3 is rounded to the f16 nearest to it.
    auto wide = exec.parameter<float>("a");
    CHECK_THROWS_AS(wide = 1e6f, cgraph::build_error);
    CHECK(exec.apply().path == cgraph::update_path::unchanged);
    device_run third(in);
    wide = 0.3f;
    point_at(third);
    CHECK(exec.apply().path == cgraph::update_path::node_params);
    gpu_test::run(exec);
    check_against_cpu(third, in, __half2float(__float2half(0.3f)), 0.75f);
  }
}

TEST_CASE("types.generated_cpp_in_both_modes_matches_the_cpu") {
  auto in = make_inputs();
  for (auto* run_generated : {run_mixed_types_explicit, run_mixed_types_capture}) {
    device_run run(in);
    run_generated(run.pointers(), nullptr);
    GPU_CHECK(cudaStreamSynchronize(nullptr));
    check_against_cpu(run, in);
  }
}

TEST_CASE("types.values_beyond_a_2_byte_float_fail_at_build_with_the_line") {
  auto prog = types_program();
  device_run run(make_inputs());
  cgraph::args values = run.values();
  values.emplace_back("a", 70000.0);
  std::string message;
  try {
    cgraph::graph::build(prog, "mixed", values, types_registry());
  } catch (const cgraph::build_error& e) {
    message = e.what();
  }
  MESSAGE(message);
  CHECK(message.find("types.cgraph:13:") != std::string::npos);
  CHECK(message.find("does not fit f16") != std::string::npos);
}

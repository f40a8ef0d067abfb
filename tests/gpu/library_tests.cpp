// Kernels from module files (fatbin, PTX) and NVRTC sources, and the checks against the real
// kernels' parameters.

#include "gpu_support.hpp"
#include "kernels.cuh"

#include "testing.hpp"

#include <filesystem>
#include <fstream>

using namespace gpu_test;

namespace {

cgraph::build_options modules() { return {CGRAPH_TEST_MODULE_DIR}; }

std::vector<float> run_on(const cgraph::program& prog, const cgraph::build_options& options, int n = 64) {
  buffer<float> p(n);
  auto g = cgraph::graph::build(prog, "g", {{"p", p.get()}, {"n", n}}, {}, options);
  auto exec = g.instantiate();
  run(exec);
  return p.read();
}

std::string error_of(const cgraph::program& prog, const cgraph::build_options& options = {}) {
  try {
    run_on(prog, options);
  } catch (const cgraph::build_error& e) {
    return e.what();
  }
  return "no error";
}

const char* jit_source = R"(
source jit = """
extern "C" __global__ void twice(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= 2.0f;
}
template <typename T> __global__ void add_t(T* p, T v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += v;
}
""";
kernel fill(p: f32*, v: f32, n: i32);
kernel twice(p: f32*, n: i32) from jit;
kernel add_f(p: f32*, v: f32, n: i32) as "add_t<float>" from jit;
)";

}  // namespace

TEST_CASE("modules.fatbin_built_by_the_test") {
  auto prog = cgraph::program::compile(R"(
module lib = "module_kernels.fatbin";
kernel m_fill(p: f32*, v: f32, n: i32) from lib;
kernel m_scale(p: f32*, s: f32, n: i32) from lib;
graph g(p: f32*, n: i32) { m_fill<<<1, 64>>>(p, 3.0, n); m_scale<<<1, 64>>>(p, 0.5, n); }
)", "test.cgraph");
  for (float v : run_on(prog, modules())) REQUIRE(v == 1.5f);
}

TEST_CASE("modules.ptx_file") {
  auto prog = cgraph::program::compile(R"(
module ptx = "module_kernels.ptx";
kernel m_fill(p: f32*, v: f32, n: i32) from ptx;
graph g(p: f32*, n: i32) { m_fill<<<1, 64>>>(p, -2.0, n); }
)", "test.cgraph");
  for (float v : run_on(prog, modules())) REQUIRE(v == -2.0f);
}

TEST_CASE("modules.relative_paths_start_at_the_cgraph_file") {
  auto path = std::filesystem::path(CGRAPH_TEST_MODULE_DIR) / "relative.cgraph";
  std::ofstream(path) << "module lib = \"module_kernels.fatbin\";\n"
                         "kernel m_fill(p: f32*, v: f32, n: i32) from lib;\n"
                         "graph g(p: f32*, n: i32) { m_fill<<<1, 64>>>(p, 7.0, n); }\n";
  auto prog = cgraph::program::load(path.string());
  for (float v : run_on(prog, {})) REQUIRE(v == 7.0f);
}

TEST_CASE("sources.nvrtc_with_templates_through_as") {
  auto prog = cgraph::program::compile(std::string(jit_source) + R"(
graph g(p: f32*, n: i32) { twice<<<1, 64>>>(p, n); add_f<<<1, 64>>>(p, 1.5, n); twice<<<1, 64>>>(p, n); }
)", "test.cgraph");
  buffer<float> p(64);
  p.write(std::vector<float>(64, 1.0f));
  auto g = cgraph::graph::build(prog, "g", {{"p", p.get()}, {"n", 64}}, {});
  auto exec = g.instantiate();
  run(exec);
  for (float v : p.read()) REQUIRE(v == (1.0f * 2 + 1.5f) * 2);

  // The same source is compiled once per process, whichever program asks.
  unsigned before = cgraph::testing::nvrtc_compilations();
  auto again = cgraph::program::compile(std::string(jit_source) + "graph g(p: f32*, n: i32) { twice<<<1, 64>>>(p, n); }",
                                        "other.cgraph");
  run_on(again, {});
  CHECK(cgraph::testing::nvrtc_compilations() == before);
}

TEST_CASE("sources.compile_errors_show_the_log_at_cgraph_lines") {
  auto prog = cgraph::program::compile(R"(
source bad = """
extern "C" __global__ void broken(float* p, int n) {
  p[0] = undefined_name;
}
""";
kernel broken(p: f32*, n: i32) from bad;
graph g(p: f32*, n: i32) { broken<<<1, 1>>>(p, n); }
)", "test.cgraph");
  std::string e = error_of(prog);
  MESSAGE(e);
  CHECK(e.find("test.cgraph:2:14: source 'bad' does not compile") == 0);
  CHECK(e.find("test.cgraph:4: error: identifier \"undefined_name\" is undefined") != std::string::npos);
}

TEST_CASE("modules.declarations_are_checked_against_the_real_kernels") {
  auto arity = cgraph::program::compile(R"(
module lib = "module_kernels.fatbin";
kernel m_scale(p: f32*, s: f32) from lib;
graph g(p: f32*, n: i32) { m_scale<<<1, 64>>>(p, 2.0); }
)", "test.cgraph");
  CHECK(error_of(arity, modules()) ==
        "test.cgraph:4:28: kernel 'm_scale' is declared with 2 parameters but module 'lib' takes 3");
  auto sizes = cgraph::program::compile(R"(
module lib = "module_kernels.fatbin";
kernel m_scale(p: f32*, s: f64, n: i32) from lib;
graph g(p: f32*, n: i32) { m_scale<<<1, 64>>>(p, 2.0, n); }
)", "test.cgraph");
  CHECK(error_of(sizes, modules()) ==
        "test.cgraph:4:28: kernel 'm_scale': parameter 2 ('s') is 8 bytes as declared ('f64') but 4 bytes in module 'lib'");
  auto jit = cgraph::program::compile(std::string(jit_source) + "graph g(p: f32*, n: i32) { add_f<<<1, 64>>>(p, 1.0, n); }\n"
                                                                "kernel add_wrong(p: f32*, v: f64, n: i32) as \"add_t<float>\" from jit;",
                                      "test.cgraph");
  CHECK(run_on(jit, {}).size() == 64);
}

TEST_CASE("modules.missing_file_and_missing_symbol") {
  auto missing = cgraph::program::compile(R"(
module lib = "missing.fatbin";
kernel m_fill(p: f32*, v: f32, n: i32) from lib;
graph g(p: f32*, n: i32) { m_fill<<<1, 64>>>(p, 1.0, n); }
)", "test.cgraph");
  std::string e = error_of(missing, modules());
  CHECK(e.find("test.cgraph:2:14: module 'lib': no file '") == 0);
  CHECK(e.find("missing.fatbin'") != std::string::npos);
  auto symbol = cgraph::program::compile(R"(
module lib = "module_kernels.fatbin";
kernel nothere(p: f32*, v: f32, n: i32) from lib;
graph g(p: f32*, n: i32) { nothere<<<1, 64>>>(p, 1.0, n); }
)", "test.cgraph");
  e = error_of(symbol, modules());
  CHECK(e.find("test.cgraph:3:1: kernel 'nothere': no kernel 'nothere' in module 'lib' (") == 0);
}

TEST_CASE("modules.ptx_newer_than_the_driver_is_refused") {
  auto dir = std::filesystem::path(CGRAPH_TEST_MODULE_DIR);
  std::ofstream(dir / "future.ptx") << "//\n.version 99.9\n.target sm_90\n.address_size 64\n";
  auto prog = cgraph::program::compile(R"(
module future = "future.ptx";
kernel k(p: f32*, v: f32, n: i32) from future;
graph g(p: f32*, n: i32) { k<<<1, 64>>>(p, 1.0, n); }
)", "test.cgraph");
  buffer<float> p(64);
  try {
    cgraph::graph::build(prog, "g", {{"p", p.get()}, {"n", 64}}, {}, modules());
    FAIL("expected incompatible_code");
  } catch (const cgraph::incompatible_code& e) {
    MESSAGE(std::string(e.what()));
    CHECK(std::string(e.what()).find("is PTX ISA 99.9, newer than this driver") != std::string::npos);
  }
}

TEST_CASE("modules.paths_cannot_leave_the_module_directory_unless_allowed") {
  auto dir = std::filesystem::path(CGRAPH_TEST_MODULE_DIR);
  std::filesystem::create_directories(dir / "inner");
  cgraph::build_options inner;
  inner.module_directory = (dir / "inner").string();
  std::vector<std::string> paths{"../module_kernels.fatbin", (dir / "module_kernels.fatbin").string()};
  for (const std::string& path : paths) {
    CAPTURE(path);
    auto prog = cgraph::program::compile("module lib = \"" + path + R"(";
kernel m_scale(p: f32*, s: f32, n: i32) from lib;
graph g(p: f32*, n: i32) { m_scale<<<1, 64>>>(p, 2.0, n); }
)", "test.cgraph");
    std::string e = error_of(prog, inner);
    MESSAGE(e);
    CHECK(e.find("test.cgraph:1:14: module 'lib': the path '" + path + "' leaves the module directory") == 0);
    cgraph::build_options anywhere = inner;
    anywhere.allow_module_paths_outside_directory = true;
    CHECK_NOTHROW(run_on(prog, anywhere));
  }
}

// On a machine without a GPU (or driver): a program linked with the runtime starts, compiles
// .cgraph text, and fails with a clear cuda_error only when it first touches CUDA. Skipped (77)
// where a GPU is present: the GPU tests cover that case.

#define DOCTEST_CONFIG_IMPLEMENT
#include <cgraph/runtime.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <string>

// Which parameters a handle of each C++ type stands for (graph_exec::parameter): checked when
// this file compiles, so any machine's build proves it (the GPU tests use such handles).
namespace handle_kinds {
using cgraph::detail::handle_kind;
struct params_t {
  float dt;
  double damping;
  const float* bias;
};
static_assert(handle_kind<bool>() == 'b');
static_assert(handle_kind<int>() == 'i' && handle_kind<std::uint64_t>() == 'i' && handle_kind<char>() == 'i');
static_assert(handle_kind<float>() == 'f' && handle_kind<double>() == 'f');
static_assert(handle_kind<__half>() == 'f' && handle_kind<__nv_bfloat16>() == 'f');  // not structs of 2 bytes
static_assert(handle_kind<float*>() == 'p' && handle_kind<const __half*>() == 'p' && handle_kind<params_t*>() == 'p');
static_assert(handle_kind<params_t>() == 's');
static_assert(!cgraph::detail::is_handle_type<std::string>);  // not trivially copyable: no handle
}  // namespace handle_kinds

TEST_CASE("runtime.without_a_gpu_fails_clearly_when_cuda_is_touched") {
  auto prog = cgraph::program::compile("kernel k(n: i32);\ngraph g(n: i32) { k<<<1, 1>>>(n); }", "no_gpu.cgraph");
  CHECK(prog.declarations().graphs.size() == 1);
  try {
    cgraph::graph::build(prog, "g", {{"n", 1}}, {});
    FAIL("building a graph without a GPU must fail");
  } catch (const cgraph::cuda_error& e) {
    MESSAGE("error: ", std::string(e.what()));
    CHECK(e.api().find("cudaGraphCreate") == 0);
    CHECK(e.location() == "no_gpu.cgraph:2:1");
    CHECK(e.code() != cudaSuccess);
  }
}

TEST_CASE("runtime.a_registry_version_changes_with_every_registration") {
  // A program reuses the symbols it resolved while registry::current_version() is the same
  // (runtime/src/values.cpp, resolve): every change, and every other registry object, must
  // give another version.
  cgraph::registry reg;
  const auto first = reg.current_version();
  CHECK(reg.current_version() == first);
  reg.host("h", [](int) {});
  const auto second = reg.current_version();
  CHECK_FALSE(second == first);
  CHECK(second.id == first.id);
  reg.routine("r", [](cudaStream_t, std::span<const cgraph::value>, dim3, dim3) {});
  CHECK_FALSE(reg.current_version() == second);

  cgraph::registry copy = reg;
  CHECK(copy.current_version().id != reg.current_version().id);
  CHECK(copy.find_host("h") != nullptr);
  const auto before_move = reg.current_version();
  cgraph::registry moved = std::move(reg);
  CHECK_FALSE(reg.current_version() == before_move);  // NOLINT: emptied, and no longer that version
  CHECK(moved.current_version().id != before_move.id);
  CHECK(moved.find_host("h") != nullptr);
  copy = moved;
  CHECK(copy.current_version().id != moved.current_version().id);
}

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
    std::printf("skipped: a CUDA device is present (the GPU tests cover it)\n");
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}

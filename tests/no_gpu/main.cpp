// On a machine without a GPU (or driver): a program linked with the runtime starts, compiles
// .cgraph text, and fails with a clear cuda_error only when it first touches CUDA. Skipped (77)
// where a GPU is present: the GPU tests cover that case.

#define DOCTEST_CONFIG_IMPLEMENT
#include <cgraph/runtime.hpp>

#include <doctest/doctest.h>

#include <cstdio>
#include <string>

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

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
    std::printf("skipped: a CUDA device is present (the GPU tests cover it)\n");
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}

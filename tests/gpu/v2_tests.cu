// Version 2 statements (LANGUAGE.md §11) on the GPU: each graph of tests/gpu/v2.cgraph on both
// run-time strategies (whose graphs must be isomorphic) and as generated C++ in both modes,
// against a CPU reference.

#include "example_builds.hpp"
#include "gpu_support.hpp"
#include "isomorphism.hpp"
#include "v2_kernels.cuh"

#include <cgraph/runtime/registry.hpp>

#include <filesystem>

using namespace gpu_test;

namespace {

cgraph::program v2_program() {
  return cgraph::program::load((std::filesystem::path(CGRAPH_GPU_TESTS_DIR) / "v2.cgraph").string());
}

cgraph::registry v2_kernels() {
  cgraph::registry reg;
  reg.kernel("pick_branch", pick_branch).kernel("put", put).kernel("bump", bump);
  return reg;
}

// What `chain` leaves in every element for `which`.
int chain_expected(unsigned which) { return (which == 0 ? 10 : which == 1 ? 21 : which == 2 ? 30 : 40) + 100; }

void check_all(const buffer<int>& out, int expected) {
  int wrong = 0;
  for (int v : out.read()) wrong += v != expected;
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("v2.else_if_chain_in_both_strategies_and_updated") {
  auto prog = v2_program();
  std::string shapes[2];
  for (auto s : both) {
    CAPTURE(name_of(s));
    buffer<int> out(256);
    auto g = cgraph::graph::build(prog, "chain", {{"out", out.get()}, {"which", 0u}}, v2_kernels(), with(s));
    shapes[s == cgraph::strategy::stream_capture] = canonical(g);
    auto exec = g.instantiate();
    for (unsigned which : {0u, 1u, 2u, 3u, 7u, 1u}) {
      CAPTURE(which);
      auto r = exec.update({{"which", which}});
      CHECK(r.path != cgraph::update_path::reinstantiated);
      run(exec);
      check_all(out, chain_expected(which));
    }
  }
  CHECK(shapes[0] == shapes[1]);
}

TEST_CASE("v2.generated_cpp_in_both_modes_matches_the_cpu") {
  for (auto* run_generated : {run_v2_chain_explicit, run_v2_chain_capture}) {
    buffer<int> out(256);
    for (unsigned which : {2u, 0u, 1u, 5u}) {
      CAPTURE(which);
      run_generated(out.get(), which, nullptr);
      check_all(out, chain_expected(which));
    }
  }
}

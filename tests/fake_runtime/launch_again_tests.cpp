// Generated C++ skips the launch check for a launch the same build already checked
// (cg::add_kernel_again, c.launch_again; docs/architecture.md, "A launch checked once a build"),
// against the CUDA runtime that does nothing: fake_runtime/launch_again.cgraph, written by
// cgraphc in its readable form and in its table form, in both modes. Each must make the
// run-time path's kernel nodes (grid, block, argument, in order); a block too large must still
// fail the build at the first launch that has it, with the run-time path's message (a launch
// wrongly taken as checked would reach the fake runtime, which accepts anything); and a CUDA
// call that fails must name its line and leave nothing held. All of them, the run-time path
// too, take the rule from one place (plan::launch_memory).

#include "fake_cuda.hpp"
#include "fault_sweep.hpp"
#include "strategies.hpp"

void spread(float*, int) {}  // the graph's kernel, declared before the generated headers use it

#include "launch_again_capture.hpp"
#include "launch_again_explicit.hpp"
#include "launch_again_table_capture.hpp"
#include "launch_again_table_explicit.hpp"

#include <cgraph/runtime.hpp>

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace {

namespace generated = cgraph_generated::launch_again;
namespace table = cgraph_generated::launch_again_table;  // the same file, as the table form

float buffer[16];

// Each kernel node made: grid x, block x, the second argument.
using launches = std::vector<std::tuple<unsigned, unsigned, unsigned long long>>;

template <typename F>
launches launches_of(F&& build) {
  fake_cuda::record_kernels(true);
  build();
  launches out;
  for (const fake_cuda::kernel_record& k : fake_cuda::kernels_recorded()) out.emplace_back(k.grid.x, k.block.x, k.arg1);
  fake_cuda::record_kernels(false);
  return out;
}

template <typename Traits>
void build_generated(int threads) {
  cgraph::gen::graph<Traits> g({buffer, 2, threads}, {});
}

// The build error `build` throws, or "".
template <typename F>
std::string build_error_of(F&& build) {
  try {
    build();
  } catch (const cgraph::build_error& e) {
    return e.what();
  }
  return {};
}

// What `error` says after the first `file` in it, or "" (the table form's copy of the file has
// another name and folder).
std::string after_file(const std::string& error, std::string_view file) {
  const auto at = error.find(file);
  return at == std::string::npos ? std::string() : error.substr(at + file.size());
}

cgraph::registry spread_kernel() {
  cgraph::registry reg;
  reg.kernel("spread", &spread);
  return reg;
}

}  // namespace

TEST_CASE("fake_runtime.generated_code_checks_a_repeated_launch_once_and_makes_the_same_nodes") {
  const auto prog = cgraph::program::load(CGRAPH_LAUNCH_AGAIN_FILE);
  const cgraph::registry reg = spread_kernel();
  for (auto how : cgraph_tests::both) {
    CAPTURE(cgraph_tests::name_of(how));
    const bool capture = how == cgraph::strategy::stream_capture;
    auto generated_build = [&](int threads) {
      if (capture) build_generated<generated::capture_mode::g::traits>(threads);
      else build_generated<generated::explicit_mode::g::traits>(threads);
    };
    auto table_build = [&](int threads) {
      if (capture) build_generated<table::capture_mode::g::traits>(threads);
      else build_generated<table::explicit_mode::g::traits>(threads);
    };
    auto run_time_build = [&](int threads) {
      (void)cgraph::graph::build(prog, "g", {{"p", buffer}, {"blocks", 2}, {"threads", threads}}, reg, cgraph_tests::with(how));
    };

    const launches expected = launches_of([&] { run_time_build(64); });
    CHECK(expected == launches{{2u, 32u, 0ull}, {2u, 64u, 1ull}, {2u, 64u, 2ull}, {2u, 32u, 3ull}, {3u, 64u, 4ull}});
    CHECK(launches_of([&] { generated_build(64); }) == expected);
    CHECK(launches_of([&] { table_build(64); }) == expected);

    // 2048 threads: the second kernel (checked) fails, as on the run-time path; the third (again)
    // is never reached.
    const std::string expected_error = build_error_of([&] { run_time_build(2048); });
    CHECK(expected_error.find("launch_again.cgraph:7:3: block dimension x is 2048, more than CUDA's limit of 1024") !=
          std::string::npos);
    CHECK(build_error_of([&] { generated_build(2048); }) == expected_error);
    CHECK(after_file(build_error_of([&] { table_build(2048); }), "launch_again_table.cgraph") ==
          after_file(expected_error, "launch_again.cgraph"));

    cgraph_tests::sweep_faults([&] { generated_build(64); }, "launch_again.cgraph", 5);
    cgraph_tests::sweep_faults([&] { table_build(64); }, "launch_again_table.cgraph", 5);
  }
}

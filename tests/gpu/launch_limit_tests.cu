// LANGUAGE.md §13 rule 7 at build and update time, against the real device and kernel (the
// graph also uses a top-level const, folded on every path): a kernel needing 100 KiB of
// dynamic shared memory is opted in and runs (both strategies and generated C++); a block
// larger than the kernel's maxThreadsPerBlock, a grid beyond CUDA's limits, and more shared
// memory than the device offers are build errors at the launch's .cgraph line, also when an
// update brings them.

#include "example_builds.hpp"
#include "gpu_support.hpp"
#include "types_registry.hpp"

#include <filesystem>
#include <numeric>

using namespace gpu_test;

namespace {

cgraph::program limits_program() {
  return cgraph::program::load((std::filesystem::path(CGRAPH_GPU_TESTS_DIR) / "types.cgraph").string());
}

constexpr int big_n = 25600;  // 100 KiB of floats

void check_reversed(const buffer<float>& out) {
  auto got = out.read();
  int wrong = 0;
  for (int i = 0; i < big_n; ++i)
    if (got[i] != static_cast<float>(big_n - 1 - i)) ++wrong;
  CHECK(wrong == 0);
}

// The message of the build_error `f` throws, or empty.
template <typename F>
std::string build_error_of(F f) {
  try {
    f();
  } catch (const cgraph::build_error& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST_CASE("limits.a_kernel_with_100_KiB_of_dynamic_shared_memory_runs") {
  std::vector<float> input(big_n);
  std::iota(input.begin(), input.end(), 0.0f);
  buffer<float> in(big_n);
  in.write(input);
  auto prog = limits_program();
  for (auto s : both) {
    CAPTURE(name_of(s));
    buffer<float> out(big_n);
    auto exec = cgraph::graph::build(prog, "big_shared", {{"in", in.get()}, {"out", out.get()}, {"n", big_n}},
                                     types_registry(), with(s))
                    .instantiate();
    gpu_test::run(exec);
    check_reversed(out);
  }
  for (auto* run_generated : {run_big_shared_explicit, run_big_shared_capture}) {
    buffer<float> out(big_n);
    run_generated(in.get(), out.get(), big_n, nullptr);
    check_reversed(out);
  }
}

TEST_CASE("limits.values_beyond_the_kernel_or_device_fail_at_build_naming_the_line") {
  auto prog = limits_program();
  buffer<float> p(256);
  int device = 0, opt_in = 0;
  GPU_CHECK(cudaGetDevice(&device));
  GPU_CHECK(cudaDeviceGetAttribute(&opt_in, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  for (auto s : both) {
    CAPTURE(name_of(s));
    auto build = [&](cgraph::args extra) {
      extra.emplace_back("p", p.get());
      return cgraph::graph::build(prog, "limits", extra, types_registry(), with(s));
    };
    auto ok = build({}).instantiate();  // the defaults are within every limit
    gpu_test::run(ok);

    std::string threads = build_error_of([&] { build({{"threads", 256}}); });
    MESSAGE(threads);
    CHECK(threads.find("types.cgraph:35:3") != std::string::npos);
    CHECK(threads.find("a block of 256 threads, more than this kernel can run: 128") != std::string::npos);

    std::string grid = build_error_of([&] { build({{"blocks_y", 100000}}); });
    CHECK(grid.find("types.cgraph:35:3") != std::string::npos);
    CHECK(grid.find("grid dimension y is 100000, more than CUDA's limit of 65535") != std::string::npos);

    // Within what any GPU offers, but not with the kernel's 1 KiB of static shared memory.
    std::string shared = build_error_of([&] { build({{"shared", opt_in - 512}}); });
    MESSAGE(shared);
    CHECK(shared.find("types.cgraph:36:3") != std::string::npos);
    CHECK(shared.find("more than this device offers the kernel") != std::string::npos);

    // An update that breaks a limit is refused by the node setter, and the rebuild it falls
    // back to names the line.
    std::string update = build_error_of([&] { ok.update({{"p", p.get()}, {"threads", 512}}); });
    CHECK(update.find("types.cgraph:35:3") != std::string::npos);
    CHECK(update.find("more than this kernel can run") != std::string::npos);
  }
}

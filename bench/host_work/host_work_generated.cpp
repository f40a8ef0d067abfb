// Host work alone on the generated-C++ path and on the hand-written one: builds runtime_bench's
// graphs through the C++ that `cgraphc emit-cpp` writes (forms explicit, capture and table, which
// at 1 000 nodes are all the table form, and readable-explicit and readable-capture, the form of
// every graph under 1 000 nodes, written with --table-threshold=0), or by
// hand as runtime_bench's references do (hand_graphs.hpp; forms hand-explicit, hand-capture),
// against the CUDA runtime that does nothing (fake_cuda.cpp). host_work_bench does the same for
// a compiled program. What a path counts beyond its hand-written reference is its own host work,
// the part of its build time that cgraph adds, measured on any machine without the GPU time that
// runtime_bench's generated column costs. A program, not a test:
//
//   host_work_generated [--form explicit|capture|table|readable-explicit|readable-capture|hand-explicit|hand-capture]
//                       [--shape chain|fork-join|conditionals] [--repeats N]
//
//   valgrind --tool=callgrind --toggle-collect='host_work::build_*' \
//     build/bench/host_work_generated --form explicit --shape conditionals --repeats 40
//
// The graphs have HOST_WORK_GENERATED_NODES nodes (bench/CMakeLists.txt: each size is a
// compiled header). Every build, the hand-written ones too, ends with its graph destroyed, as a
// generated state's does. It prints the mean time per node after one warm-up build.

#include "host_work_generated.hpp"

#include "../hand_graphs.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>

namespace {

int usage() {
  std::fprintf(stderr, "usage: host_work_generated [--form explicit|capture|table|readable-explicit|readable-capture|"
                       "hand-explicit|hand-capture] "
                       "[--shape chain|fork-join|conditionals] [--repeats N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string form = "explicit", shape = "chain";
  int repeats = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--form" && has_value) form = argv[++i];
    else if (a == "--shape" && has_value) shape = argv[++i];
    else if (a == "--repeats" && has_value) repeats = std::atoi(argv[++i]);
    else return usage();
  }
  if (repeats < 1) return usage();
  static float buffer[4];
  std::function<bool(int)> build;
  if (form == "hand-explicit" || form == "hand-capture") {
    const std::optional<bench::shape> named = bench::shape_named(shape);
    if (!named) return usage();
    static cudaStream_t stream, side;
    (void)cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    (void)cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    build = [s = *named, capture = form == "hand-capture"](int) {
      bench::hand_graph h = capture ? bench::hand_capture(s, HOST_WORK_GENERATED_NODES, buffer, stream, side)
                                    : bench::hand_explicit(s, HOST_WORK_GENERATED_NODES, buffer);
      return h.graph != nullptr && cudaGraphDestroy(h.graph) == cudaSuccess;
    };
  } else if (const host_work::generated_build generated = host_work::generated_builder(form, shape)) {
    build = [generated](int first) { return generated(buffer, first) != nullptr; };
  } else {
    std::fprintf(stderr, "host_work_generated: no %s form of the %s graph was generated\n", form.c_str(), shape.c_str());
    return 2;
  }

  if (!build(0)) return 1;  // warm-up
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < repeats; ++r)
    if (!build(r)) return 1;
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s, %s, %d nodes: %.3f us per node\n", form.c_str(), shape.c_str(), HOST_WORK_GENERATED_NODES,
              us / repeats / HOST_WORK_GENERATED_NODES);
  return 0;
}

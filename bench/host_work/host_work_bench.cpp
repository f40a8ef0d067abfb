// cgraph's host work alone: builds and updates runtime_bench's graphs from a compiled program
// against a CUDA runtime that does nothing (fake_cuda.cpp), so the time and the instructions
// measured are cgraph's own, on any machine. A program, not a test; run it under callgrind to
// count instructions per node:
//
//   host_work_bench [--what build|text|instantiate|update-all|update-one|handle|first-update] [--shape chain|fork-join|conditionals]
//                   [--capture] [--nodes N] [--repeats N]
//
//   valgrind --tool=callgrind --toggle-collect='cgraph::detail::build_graph*' \
//     build/bench/host_work_bench --what build --nodes 10000 --repeats 5
//
// It prints the mean time per node (per update for update-one and handle, per instantiation
// and the exec's destruction for instantiate), after one warm-up build, which also makes the
// program's templates. It exits 1 when a one-node update does not take the per-node path,
// which would time another path than the one it names.

#include <cgraph/runtime.hpp>

#include "../bench_kernels.hpp"
#include "../bench_shapes.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

namespace {

int usage() {
  std::fprintf(stderr, "usage: host_work_bench [--what build|text|instantiate|update-all|update-one|handle|first-update] "
                       "[--shape chain|fork-join|conditionals] [--capture] [--nodes N] [--repeats N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string what = "build";
  bench::shape shape = bench::shape::chain;
  bool capture = false;
  int nodes = 10000, repeats = 5;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool has_value = i + 1 < argc;
    if (a == "--what" && has_value) what = argv[++i];
    else if (a == "--shape" && has_value) {
      const std::optional<bench::shape> named = bench::shape_named(argv[++i]);
      if (!named) return usage();
      shape = *named;
    } else if (a == "--capture") capture = true;
    else if (a == "--nodes" && has_value) nodes = std::atoi(argv[++i]);
    else if (a == "--repeats" && has_value) repeats = std::atoi(argv[++i]);
    else return usage();
  }
  if (nodes < 3 || repeats < 1) return usage();

  static float buffer[4], other[4];
  cgraph::registry reg;
  reg.kernel("tiny", bench::tiny_function());  // host_kernels.cpp: a host function; nothing runs
  cgraph::build_options options;
  if (capture) options.strategy = cgraph::strategy::stream_capture;
  const auto program = cgraph::program::compile(bench::text_of(shape, nodes), "bench.cgraph");
  const cgraph::args values{{"p", buffer}, {"first", 0}};
  auto exec = cgraph::graph::build(program, "g", values, reg, options).instantiate();
  auto first = exec.parameter<int>("first");

  double per = nodes;
  auto start = std::chrono::steady_clock::now();
  if (what == "build") {
    for (int r = 0; r < repeats; ++r) (void)cgraph::graph::build(program, "g", values, reg, options);
  } else if (what == "text") {  // runtime_bench's "text -> graph": a compile, then a build
    const std::string text = bench::text_of(shape, nodes);
    for (int r = 0; r < repeats; ++r)
      (void)cgraph::graph::build(cgraph::program::compile(text, "bench.cgraph"), "g", values, reg, options);
  } else if (what == "instantiate") {  // cgraph's part of an instantiation: its exec object
    per = 1;
    const auto built = cgraph::graph::build(program, "g", values, reg, options);
    for (int r = 0; r < repeats; ++r) (void)built.instantiate();
  } else if (what == "update-all") {
    for (int r = 0; r < repeats; ++r) exec.update({{"p", r % 2 ? buffer : other}});
  } else if (what == "update-one" || what == "handle") {
    // One node changes each time: its own setter must take it. Any other path means the build
    // lost the node's handle (a capture's read-back, for one), and the figure would time
    // another path than the one named.
    per = 1;
    bool per_node = true;
    for (int r = 0; r < repeats; ++r) {
      cgraph::update_result result;
      if (what == "handle") {
        first = r + 1;
        result = exec.apply();
      } else {
        result = exec.update({{"first", r + 1}});
      }
      per_node = per_node && result.path == cgraph::update_path::node_params && result.nodes_changed == 1;
    }
    if (!per_node) {
      std::fprintf(stderr, "host_work_bench: a one-node update did not take the per-node path\n");
      return 1;
    }
  } else if (what == "first-update") {
    // One update by name on an exec just built and instantiated (the build is timed too: run
    // it under callgrind with --toggle-collect='cgraph::graph_exec::update*' to count the
    // update alone).
    per = 1;
    for (int r = 0; r < repeats; ++r) {
      auto fresh = cgraph::graph::build(program, "g", values, reg, options).instantiate();
      (void)fresh.update({{"first", r + 1}});
    }
  } else {
    return usage();
  }
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s %s%s, %d nodes: %.3f us per %s\n", what.c_str(), bench::name(shape), capture ? " (capture)" : "", nodes,
              us / repeats / per, per != 1 ? "node" : what == "instantiate" ? "instantiation" : "update");
  return 0;
}

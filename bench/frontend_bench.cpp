// Front-end throughput: parse + check + lower, in nodes per second on one core, for generated
// files of 1k, 10k and 100k nodes. A program, not a test: run it from a Release build.
//
//   frontend_bench [--repeats N] [--nodes N] [--write FILE] [--memory] [--unique]
//     --nodes: one size alone, for a profiler
//     --write: write the generated file of the (last) size to FILE and stop, for `cgraphc check`
//     --memory: compile the (last) size once and print the peak resident memory it added, in
//               bytes a node beyond the text (issue 17's target: 300), then stop. One size a
//               process: a high-water mark says nothing of a second compile whose memory the
//               allocator kept from the first.
//     --unique: no two units of the text write an equal expression (bench::expressions), so
//               the compiler shares nothing among them but constants

#include <cgraph/compiler/compile.hpp>

#include "frontend_text.hpp"
#include "median.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <sys/resource.h>

namespace {

// The process's resident high-water mark, in bytes (Linux reports kilobytes).
long peak_resident_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss * 1024L;
}

// Whether the benchmark's text compiled to its `nodes` nodes; says why not on stderr.
bool compiled_as_expected(const cgraph::source_file& src, const cgraph::compile_result& result, std::size_t nodes) {
  if (result.program && result.program->graphs[0].node_count == nodes) return true;
  fmt::print(stderr, "generated file did not compile as expected:\n{}\n",
             cgraph::format_diagnostics(src, result.diags).substr(0, 2000));
  return false;
}

// One compile of `nodes` nodes; prints the resident memory it added at its peak, a node.
int measure_memory(std::size_t nodes_wanted, bench::expressions kind) {
  auto [text, nodes] = bench::frontend_text(nodes_wanted, kind);
  cgraph::source_file src("bench.cgraph", std::move(text));  // the text, counted before
  const long before = peak_resident_bytes();
  auto result = cgraph::compile(src);
  const long after = peak_resident_bytes();
  if (!compiled_as_expected(src, result, nodes)) return 1;
  fmt::print("{:>8} {:>10} {:>16} {:>16}\n", "nodes", "bytes", "peak added, KB", "bytes a node");
  fmt::print("{:>8} {:>10} {:>16} {:>16.0f}\n", nodes, src.text().size(), (after - before) / 1024,
             static_cast<double>(after - before) / static_cast<double>(nodes));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 7;
  std::vector<std::size_t> sizes{1'000u, 10'000u, 100'000u};
  const char* write_to = nullptr;
  bool memory = false;
  auto kind = bench::expressions::repeating;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--memory") == 0) memory = true;
    if (std::strcmp(argv[i], "--unique") == 0) kind = bench::expressions::unique;
    if (i + 1 == argc) break;
    if (std::strcmp(argv[i], "--repeats") == 0) repeats = std::max(1, std::atoi(argv[i + 1]));
    // One size alone, for a profiler (callgrind over all three takes minutes).
    if (std::strcmp(argv[i], "--nodes") == 0) sizes = {static_cast<std::size_t>(std::max(1, std::atoi(argv[i + 1])))};
    if (std::strcmp(argv[i], "--write") == 0) write_to = argv[i + 1];
  }
  if (write_to) {
    std::ofstream out(write_to, std::ios::binary);
    out << bench::frontend_text(sizes.back(), kind).first;
    return out ? 0 : 1;
  }
  if (memory) return measure_memory(sizes.back(), kind);

  fmt::print("{:>8} {:>10} {:>12} {:>14} {:>12}\n", "nodes", "bytes", "median ms", "nodes/s", "MB/s");
  for (std::size_t size : sizes) {
    auto [text, nodes] = bench::frontend_text(size, kind);
    cgraph::source_file src("bench.cgraph", text);
    std::vector<double> times;
    for (int r = 0; r < repeats + 1; ++r) {  // the first run warms caches and the allocator
      auto start = std::chrono::steady_clock::now();
      auto result = cgraph::compile(src);
      auto stop = std::chrono::steady_clock::now();
      if (!compiled_as_expected(src, result, nodes)) return 1;
      if (r > 0) times.push_back(std::chrono::duration<double>(stop - start).count());
    }
    double t = bench::median(times);
    fmt::print("{:>8} {:>10} {:>12.3f} {:>14.0f} {:>12.1f}\n", nodes, text.size(), t * 1e3, static_cast<double>(nodes) / t,
               static_cast<double>(text.size()) / t / 1e6);
  }
}

// Front-end throughput: parse + check + lower, in nodes per second on one core, for generated
// files of 1k, 10k and 100k nodes. A program, not a test: run it from a Release build.
//
//   frontend_bench [--repeats N] [--nodes N] [--write FILE] [--memory [--cold]] [--unique]
//     each size: compiles for 0.2 s unmeasured, then the median of at least N (default 7) timed
//     compiles and at least 0.5 s of them
//     --nodes: one size alone, for a profiler
//     --write: write the generated file of the (last) size to FILE and stop, for `cgraphc check`
//     --memory: compile the (last) size once and print the peak resident memory it added, in
//               bytes a node beyond the text (issue 17's target: 300), then stop. One size a
//               process: a high-water mark says nothing of a second compile whose memory the
//               allocator kept from the first. The smallest text of the same kind is compiled
//               before, so the compiler's code pages are not counted as the nodes' memory
//     --cold: with --memory, without that first compile (runs 39 and before measured so)
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


namespace {

// A line of /proc/self/status in bytes ("VmRSS", "VmHWM"; Linux reports kilobytes), or -1.
long status_bytes(const char* key) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind(key, 0) == 0 && line.size() > std::strlen(key) && line[std::strlen(key)] == ':')
      return std::atol(line.c_str() + std::strlen(key) + 1) * 1024L;
  return -1;
}

// Sets the resident high-water mark to what is resident now (Linux's clear_refs, "5"), so the
// next peak is the compile's own: building the text grew a string by doubling, and that
// transient (up to twice the text) left a mark a compile's peak then had to pass before it
// counted at all, which hid up to 40 bytes a node (runs 39 and before).
bool reset_peak() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

// Whether the benchmark's text compiled to its `nodes` nodes; says why not on stderr.
bool compiled_as_expected(const cgraph::source_file& src, const cgraph::compile_result& result, std::size_t nodes) {
  if (result.program && result.program->graphs[0].node_count == nodes) return true;
  fmt::print(stderr, "generated file did not compile as expected:\n{}\n",
             cgraph::format_diagnostics(src, result.diags).substr(0, 2000));
  return false;
}

// One compile of `nodes` nodes; prints the resident memory it added at its peak, a node.
int measure_memory(std::size_t nodes_wanted, bench::expressions kind, bool warm) {
  auto [text, nodes] = bench::frontend_text(nodes_wanted, kind);
  cgraph::source_file src("bench.cgraph", std::move(text));  // the text, counted before
  if (warm) {
    // The smallest text of the same kind compiled first, as `cgraphc check`'s figure takes off
    // a small check's: the code this text runs is paged in (up to 350 KB, most of a 1 000-node
    // figure), and that is no node's memory.
    cgraph::source_file small("small.cgraph", bench::frontend_text(1, kind).first);
    if (!cgraph::compile(small).program) return 1;
  }
  if (!reset_peak()) {
    fmt::print(stderr, "--memory needs /proc/self/clear_refs (Linux) to reset the resident high-water mark\n");
    return 1;
  }
  const long before = status_bytes("VmRSS");
  auto result = cgraph::compile(src);
  const long after = status_bytes("VmHWM");
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
  bool warm = true;
  auto kind = bench::expressions::repeating;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--memory") == 0) memory = true;
    if (std::strcmp(argv[i], "--unique") == 0) kind = bench::expressions::unique;
    if (std::strcmp(argv[i], "--cold") == 0) warm = false;
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
  if (memory) return measure_memory(sizes.back(), kind, warm);

  fmt::print("{:>8} {:>10} {:>12} {:>14} {:>12}\n", "nodes", "bytes", "median ms", "nodes/s", "MB/s");
  for (std::size_t size : sizes) {
    auto [text, nodes] = bench::frontend_text(size, kind);
    cgraph::source_file src("bench.cgraph", text);
    std::vector<double> times;
    // Warm-up compiles for at least kWarmSeconds (caches, the allocator, and the core's clock:
    // after one warm-up compile of 1 000 nodes, about 2 ms, the device host read 0.54 M nodes/s
    // at that size against 0.85 M at the next, run 59), then at least `repeats` timed ones and
    // kTimedSeconds.
    constexpr double kWarmSeconds = 0.2, kTimedSeconds = 0.5;
    double warm_spent = 0, timed_spent = 0;
    for (bool warming = true;;) {
      auto start = std::chrono::steady_clock::now();
      auto result = cgraph::compile(src);
      auto stop = std::chrono::steady_clock::now();
      if (!compiled_as_expected(src, result, nodes)) return 1;
      const double spent = std::chrono::duration<double>(stop - start).count();
      if (warming) {
        warm_spent += spent;
        warming = warm_spent < kWarmSeconds;
        continue;
      }
      times.push_back(spent);
      timed_spent += spent;
      if (static_cast<int>(times.size()) >= repeats && timed_spent >= kTimedSeconds) break;
    }
    double t = bench::median(times);
    fmt::print("{:>8} {:>10} {:>12.3f} {:>14.0f} {:>12.1f}\n", nodes, text.size(), t * 1e3, static_cast<double>(nodes) / t,
               static_cast<double>(text.size()) / t / 1e6);
  }
}

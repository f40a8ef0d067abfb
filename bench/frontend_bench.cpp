// Front-end throughput: parse + check + lower, in nodes per second on one core, for generated
// files of 1k, 10k and 100k nodes. A program, not a test: run it from a Release build.
//
//   frontend_bench [--repeats N] [--nodes N] [--write FILE]
//     --nodes: one size alone, for a profiler
//     --write: write the generated file of the (last) size to FILE and stop, for `cgraphc check`

#include <cgraph/compiler/compile.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

// A realistic mix: launches with computed grids, memsets and memcpys, parallel branches,
// labels with `after`, and a few conditionals with bodies. Returns the text and its node count.
std::pair<std::string, std::size_t> generate(std::size_t target_nodes) {
  std::string s =
      "kernel saxpy(a: f32, x: f32*, y: f32*, n: i32);\n"
      "kernel step(x: f32*, n: i32, more: cond);\n"
      "graph big(x: f32*, y: f32*, a: f32 = 2.0, n: i32 = 1 << 20) {\n"
      "  let blocks = ceil_div(n, 256);\n";
  std::size_t nodes = 0, block = 0;
  while (nodes < target_nodes) {
    std::string b = std::to_string(block++);
    s += "  l" + b + ": saxpy<<<blocks, 256>>>(a, x, y, n);\n";
    s += "  saxpy<<<ceil_div(n, 128), 128>>>(a * 0.5, x + 16, y, n - 16);\n";
    s += "  parallel {\n    saxpy<<<blocks, 256>>>(a, x, y, n);\n"
         "    { memset(y, 0, n); memcpy(x, y, n * sizeof(f32)); }\n  }\n";
    s += "  saxpy<<<blocks, 256>>>(a, y, x, n) after l" + b + ";\n";
    s += "  cond c" + b + " = 1;\n  while c" + b + " { step<<<1, 1>>>(x, n, c" + b + "); }\n";
    nodes += 8;  // 6 in the sequence, the while node and its body's node
  }
  s += "}\n";
  return {s, nodes};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 7;
  std::vector<std::size_t> sizes{1'000u, 10'000u, 100'000u};
  const char* write_to = nullptr;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--repeats") == 0) repeats = std::max(1, std::atoi(argv[i + 1]));
    // One size alone, for a profiler (callgrind over all three takes minutes).
    if (std::strcmp(argv[i], "--nodes") == 0) sizes = {static_cast<std::size_t>(std::max(1, std::atoi(argv[i + 1])))};
    if (std::strcmp(argv[i], "--write") == 0) write_to = argv[i + 1];
  }
  if (write_to) {
    std::ofstream out(write_to, std::ios::binary);
    out << generate(sizes.back()).first;
    return out ? 0 : 1;
  }

  fmt::print("{:>8} {:>10} {:>12} {:>14} {:>12}\n", "nodes", "bytes", "median ms", "nodes/s", "MB/s");
  for (std::size_t size : sizes) {
    auto [text, nodes] = generate(size);
    cgraph::source_file src("bench.cgraph", text);
    std::vector<double> times;
    for (int r = 0; r < repeats + 1; ++r) {  // the first run warms caches and the allocator
      auto start = std::chrono::steady_clock::now();
      auto result = cgraph::compile(src);
      auto stop = std::chrono::steady_clock::now();
      if (!result.program || result.program->graphs[0].node_count != nodes) {
        fmt::print(stderr, "generated file did not compile as expected:\n{}\n",
                   cgraph::format_diagnostics(src, result.diags).substr(0, 2000));
        return 1;
      }
      if (r > 0) times.push_back(std::chrono::duration<double>(stop - start).count());
    }
    double t = median(times);
    fmt::print("{:>8} {:>10} {:>12.3f} {:>14.0f} {:>12.1f}\n", nodes, text.size(), t * 1e3, static_cast<double>(nodes) / t,
               static_cast<double>(text.size()) / t / 1e6);
  }
}

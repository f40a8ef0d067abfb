// Writes the benchmark's graphs as .cgraph files (DIR/<shape>_<nodes>.cgraph) for the
// generated-C++ column of runtime_bench: the build compiles them with cgraph_add_graphs.
//   write_bench_graphs DIR            every shape and size of bench_shapes.hpp
//   write_bench_graphs DIR SHAPE N    DIR/SHAPE_N.cgraph alone, SHAPE one of chain, fork_join,
//                                     conditionals (table_form_bench, host_work_generated)

#include "bench_shapes.hpp"

#include <cstdio>
#include <fstream>
#include <string>

namespace {

bool write(const std::string& dir, bench::shape s, int nodes) {
  std::string path = dir + "/" + bench::file_name(s) + "_" + std::to_string(nodes) + ".cgraph";
  std::ofstream out(path);
  out << bench::text_of(s, nodes, true);
  if (!out) std::fprintf(stderr, "write_bench_graphs: cannot write %s\n", path.c_str());
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4) {
    for (auto s : bench::shapes)
      if (argv[2] == std::string(bench::file_name(s))) return write(argv[1], s, std::stoi(argv[3])) ? 0 : 1;
  }
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_bench_graphs DIR [chain|fork_join|conditionals N]\n");
    return 2;
  }
  for (auto s : bench::shapes)
    for (int nodes : bench::sizes)
      if (!write(argv[1], s, nodes)) return 1;
  return 0;
}

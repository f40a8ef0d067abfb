// Writes the benchmark's graphs as .cgraph files (DIR/<shape>_<nodes>.cgraph) for the
// generated-C++ column of runtime_bench: the build compiles them with cgraph_add_graphs.
//   write_bench_graphs DIR

#include "bench_shapes.hpp"

#include <cstdio>
#include <fstream>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_bench_graphs DIR\n");
    return 2;
  }
  for (auto s : {bench::shape::chain, bench::shape::wide, bench::shape::conditional})
    for (int nodes : bench::sizes) {
      std::string path = std::string(argv[1]) + "/" + bench::file_name(s) + "_" + std::to_string(nodes) + ".cgraph";
      std::ofstream out(path);
      out << bench::text_of(s, nodes, true);
      if (!out) {
        std::fprintf(stderr, "write_bench_graphs: cannot write %s\n", path.c_str());
        return 1;
      }
    }
  return 0;
}

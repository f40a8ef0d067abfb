#include <cgraph/compiler/compile.hpp>
#include <cgraph/dsl/source.hpp>
#include <cgraph/compiler/ir.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
int main(int, char** argv) {
  std::printf("expr %zu node %zu arg %zu launch %zu\n", sizeof(cgraph::ir::expr), sizeof(cgraph::ir::node), sizeof(cgraph::ir::argument), sizeof(cgraph::ir::launch_config));
  std::ifstream f(argv[1]); std::stringstream ss; ss << f.rdbuf();
  cgraph::source_file src("x", ss.str());
  auto r = cgraph::compile(src);
  for (auto& g : r.program->graphs) std::printf("%s exprs %zu nodes %zu args %zu (cap %zu) launches %zu (cap %zu)\n", g.name.c_str(), g.exprs.size(), g.node_count, g.arg_pool.size(), g.arg_pool.capacity(), g.launches.size(), g.launches.capacity());
}

#pragma once
// The benchmark's graphs built by generated C++ (cgraphc emit-cpp through cgraph_add_graphs,
// bench/CMakeLists.txt with CGRAPH_BENCH_GENERATED=ON).

#include <cgraph/runtime/generated.hpp>

#include <functional>
#include <string_view>

namespace bench {

using generated_build = std::function<cgraph::gen::state_ptr(float* p, int first)>;

// The build of graph `shape` ("chain", "fork-join", "conditionals") of `nodes` nodes in one
// mode, or an empty function where none was generated.
generated_build generated_builder(std::string_view shape, int nodes, bool capture);

}  // namespace bench

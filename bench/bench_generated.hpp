#pragma once
// The benchmark's graphs built by generated C++ (cgraphc emit-cpp through cgraph_add_graphs,
// bench/CMakeLists.txt with CGRAPH_BENCH_GENERATED=ON).

#include <cgraph/runtime/generated.hpp>

#include <functional>
#include <string_view>

namespace bench {

using generated_build = std::function<cgraph::gen::state_ptr(float* p, int first)>;

// How the graph was generated: the explicit mode (the table form from cgraphc's threshold on,
// the readable form below it), the capture mode, or the explicit mode in the table form at
// every size (chains and fork-joins: conditionals do not take it).
enum class generated_form { explicit_mode, capture_mode, table_form };

// The build of graph `shape` ("chain", "fork-join", "conditionals") of `nodes` nodes in one
// form, or an empty function where none was generated.
generated_build generated_builder(std::string_view shape, int nodes, generated_form form);

}  // namespace bench

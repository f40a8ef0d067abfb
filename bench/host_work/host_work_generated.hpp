#pragma once
// The graphs host_work_generated builds through generated C++: one function per form and shape,
// each in a translation unit of its own that bench/CMakeLists.txt writes around the header
// `cgraphc emit-cpp` made.

#include <cgraph/runtime/generated.hpp>

#include <string_view>

namespace host_work {

using generated_build = cgraph::gen::state_ptr (*)(float* p, int first);

// `form`: explicit, capture, table, readable-explicit or readable-capture; `shape`: chain,
// fork-join or conditionals. Null where none was generated.
generated_build generated_builder(std::string_view form, std::string_view shape);

}  // namespace host_work

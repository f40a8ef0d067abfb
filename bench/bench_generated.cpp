#include "bench_generated.hpp"

namespace bench {

// In bench_generated_<mode>.cu, written by bench/CMakeLists.txt.
generated_build generated_builder_explicit(std::string_view shape, int nodes);
generated_build generated_builder_capture(std::string_view shape, int nodes);

generated_build generated_builder(std::string_view shape, int nodes, bool capture) {
  return capture ? generated_builder_capture(shape, nodes) : generated_builder_explicit(shape, nodes);
}

}  // namespace bench

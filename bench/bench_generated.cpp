#include "bench_generated.hpp"

namespace bench {

// In bench_generated_<mode>.cu, written by bench/CMakeLists.txt.
generated_build generated_builder_explicit(std::string_view shape, int nodes);
generated_build generated_builder_capture(std::string_view shape, int nodes);
generated_build generated_builder_table(std::string_view shape, int nodes);

generated_build generated_builder(std::string_view shape, int nodes, generated_form form) {
  switch (form) {
    case generated_form::explicit_mode: return generated_builder_explicit(shape, nodes);
    case generated_form::capture_mode: return generated_builder_capture(shape, nodes);
    case generated_form::table_form: return generated_builder_table(shape, nodes);
  }
  return {};
}

}  // namespace bench

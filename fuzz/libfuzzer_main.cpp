// libFuzzer entry point (built by scripts/fuzz.sh with clang's -fsanitize=fuzzer).

#include "fuzz_compile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cgraph::fuzz::compile_one(data, size);
  return 0;
}

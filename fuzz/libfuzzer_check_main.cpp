// libFuzzer entry point of the second target, the front end alone (built by scripts/fuzz.sh
// with FUZZ_TARGET=check).

#include "fuzz_compile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cgraph::fuzz::check_one(data, size);
  return 0;
}

#pragma once
// One fuzz input through everything the compiler does with untrusted text: parse, check,
// lower to both construction plans, print IR and DOT, emit C++ in both modes, and format.
// Besides "no crash, no hang, no leak" (the sanitizers' job) it checks two properties whose
// failure is a bug even without a crash; on a violation it prints why and aborts.

#include <cstddef>
#include <cstdint>

namespace cgraph::fuzz {

void compile_one(const std::uint8_t* data, std::size_t size);

// The front end alone (parse, check, lower, diagnostics), without the backends and the `fmt`
// properties, so the parser and checks are fuzzed at full speed (the second target,
// cgraph_fuzz_check; issue 17).
void check_one(const std::uint8_t* data, std::size_t size);

}  // namespace cgraph::fuzz

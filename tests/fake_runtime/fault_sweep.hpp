#pragma once
// The GPU suite's fault sweep (tests/gpu/fault_tests.cpp) in small, on CI: each CUDA call that
// `operation` makes fails in turn (once, through the backend's seam). Each must throw a
// cuda_error that names the call and a place in `file`, with no CUDA object held afterwards and
// no stream left capturing. Returns how many calls failed in turn: more than `more_than`, so a
// seam that counts nothing fails the test instead of passing on no faults.

#include "testing.hpp"

#include <cgraph/runtime.hpp>

#include <doctest/doctest.h>

#include <string>

namespace cgraph_tests {

template <typename Operation>
long sweep_faults(Operation&& operation, const std::string& file, long more_than) {
  operation();  // fills the capture pool: later runs make the same calls
  const auto before = cgraph::testing::live_handles();
  cgraph::testing::fail_cuda_call_at(-1);
  operation();
  const long calls = cgraph::testing::cuda_calls_made();
  REQUIRE(calls > more_than);
  for (long i = 0; i < calls; ++i) {
    CAPTURE(i);
    cgraph::testing::fail_cuda_call_at(i);
    try {
      operation();
      FAIL("call ", i, " was meant to fail");
    } catch (const cgraph::cuda_error& e) {
      CHECK(e.code() == cudaErrorNotPermitted);
      CHECK(e.location().find(file + ":") != std::string::npos);
    }
    cgraph::testing::fail_cuda_call_at(-1);
    REQUIRE(cgraph::testing::live_handles() == before);
    REQUIRE(cgraph::testing::streams_left_capturing() == 0);
  }
  return calls;
}

}  // namespace cgraph_tests

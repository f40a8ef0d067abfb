// The seam's state: fault injection, update refusals and the handle ledger behind
// cgraph/runtime/testing.hpp. Per thread where a test drives one thread's calls; the ledger is
// process-wide.

#include "seam.hpp"

#include <cgraph/runtime/backend/exec_core.hpp>
#include <cgraph/runtime/backend/handle.hpp>
#include <cgraph/runtime/testing.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <string>
#include <utility>

namespace cgraph::testing {

namespace {
thread_local update_refusals refusals;
thread_local long fault_at = -1;
thread_local bool fault_persists = false;  // every call from fault_at on fails
thread_local long calls = 0;
std::array<std::atomic<long>, static_cast<std::size_t>(backend::owned::kinds)> live{};
std::atomic<unsigned> left_capturing{0};
}  // namespace

update_refusals refuse_updates(update_refusals r) { return std::exchange(refusals, r); }

void fail_cuda_call_at(long n) {
  fault_at = n;
  fault_persists = false;
  calls = 0;
}
void fail_cuda_calls_from(long n) {
  fail_cuda_call_at(n);
  fault_persists = true;
}
long cuda_calls_made() { return calls; }

handle_counts live_handles() {
  auto n = [](backend::owned k) { return live[static_cast<std::size_t>(k)].load(); };
  using backend::owned;
  return {n(owned::graph),   n(owned::exec),           n(owned::event),        n(owned::device_memory),
          n(owned::library), n(owned::capture_stream), n(owned::capture_event)};
}

unsigned streams_left_capturing() { return left_capturing.load(); }

}  // namespace cgraph::testing

namespace cgraph::backend {

bool inject_fault() noexcept {
  long call = testing::calls++;
  return call == testing::fault_at || (testing::fault_persists && testing::fault_at >= 0 && call > testing::fault_at);
}

bool refused_by_test(update_path path) noexcept {
  return path == update_path::node_params ? testing::refusals.node_params : testing::refusals.whole_graph;
}

void ledger(owned kind, long delta) noexcept { testing::live[static_cast<std::size_t>(kind)] += delta; }

void count_left_capturing() noexcept { ++testing::left_capturing; }

void cuda_failed(cudaError_t status, std::string_view api, const site& at) {
  (void)cudaGetLastError();  // clear a non-sticky error so the next call starts clean
  throw cuda_error(status, std::string(api.substr(0, api.find('('))), at.str());
}

}  // namespace cgraph::backend

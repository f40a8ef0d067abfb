// The test programs' hooks into the backend's seam (runtime/src/backend/seam.hpp): fault
// injection and update refusals per thread, where a test drives one thread's calls; the handle
// ledger process-wide. Installed before main, so the ledger sees every CUDA object.

#include "testing.hpp"

#include "backend/seam.hpp"
#include "nvrtc.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <utility>

namespace cgraph::testing {

namespace {

thread_local update_refusals refusals;
thread_local long fault_at = -1;
thread_local bool fault_persists = false;  // every call from fault_at on fails
thread_local long calls = 0;

class hooks final : public backend::test_hooks {
public:
  bool fail_call() noexcept override {
    long call = calls++;
    return call == fault_at || (fault_persists && fault_at >= 0 && call > fault_at);
  }
  bool refuse(update_path path) noexcept override {
    return path == update_path::node_params ? refusals.node_params : refusals.whole_graph;
  }
  void count(backend::owned kind, long delta) noexcept override { live[static_cast<std::size_t>(kind)] += delta; }
  void left_capturing() noexcept override { ++capturing; }
  // Handles freed after this object (static destructors at exit) are no longer counted.
  ~hooks() { backend::install_test_hooks(nullptr); }

  std::array<std::atomic<long>, static_cast<std::size_t>(backend::owned::kinds)> live{};
  std::atomic<unsigned> capturing{0};
};

hooks the_hooks;
[[maybe_unused]] const bool installed = (backend::install_test_hooks(&the_hooks), true);

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
  auto n = [](backend::owned k) { return the_hooks.live[static_cast<std::size_t>(k)].load(); };
  using backend::owned;
  return {n(owned::graph),   n(owned::exec),           n(owned::event), n(owned::device_memory),
          n(owned::library), n(owned::capture_stream)};
}

unsigned streams_left_capturing() { return the_hooks.capturing.load(); }

unsigned nvrtc_compilations() { return detail::nvrtc_compile_count(); }

}  // namespace cgraph::testing

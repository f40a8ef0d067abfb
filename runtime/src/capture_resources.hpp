#pragma once
// The process-wide pool of streams and events that captures use, shared by the run-time
// capture builder and the capture sessions of generated code.

#include "check.hpp"

#include <map>
#include <mutex>
#include <vector>

namespace cgraph::detail {

// Streams and events for captures, kept for the process and shared by every build: a wide
// graph needs as many streams as branches, and creating them per build cost more than the
// whole capture (runtime_bench, fork-join). Per device; never destroyed (they may outlive
// CUDA's own teardown at exit).
class capture_resources {
public:
  static capture_resources& instance() {
    static auto* pool = new capture_resources;
    return *pool;
  }

  template <typename At>
  cudaStream_t stream(const At& at) {
    return take_or_make(streams_, owned::capture_stream, at, [&](cudaStream_t& made) {
      CGRAPH_CUDA(cudaStreamCreateWithFlags(&made, cudaStreamNonBlocking), at);
    });
  }

  template <typename At>
  cudaEvent_t event(const At& at) {
    return take_or_make(events_, owned::capture_event, at, [&](cudaEvent_t& made) {
      CGRAPH_CUDA(cudaEventCreateWithFlags(&made, cudaEventDisableTiming), at);
    });
  }

  // Returns handles taken on the current device. Never throws: it runs in cleanup. Without a
  // current device (CUDA torn down) the handles are dropped, and the ledger keeps them.
  void give_back(const std::vector<cudaStream_t>& streams, const std::vector<cudaEvent_t>& events) noexcept {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) {
      (void)cudaGetLastError();
      return;
    }
    ledger(owned::capture_stream, -static_cast<long>(streams.size()));
    ledger(owned::capture_event, -static_cast<long>(events.size()));
    std::lock_guard<std::mutex> guard(lock_);
    streams_[device].insert(streams_[device].end(), streams.begin(), streams.end());
    events_[device].insert(events_[device].end(), events.begin(), events.end());
  }

  // A pooled handle of the current device, or a new one from `make`; counted as taken.
  template <typename Handle, typename At, typename Make>
  Handle take_or_make(std::map<int, std::vector<Handle>>& pool, owned kind, const At& at, Make make) {
    int device = current_device(at);
    Handle h = nullptr;
    {
      std::lock_guard<std::mutex> guard(lock_);
      auto& free = pool[device];
      if (!free.empty()) {
        h = free.back();
        free.pop_back();
      }
    }
    if (!h) make(h);
    ledger(kind, 1);
    return h;
  }

  template <typename At>
  static int current_device(const At& at) {
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice", at);
    return device;
  }

private:
  std::mutex lock_;
  std::map<int, std::vector<cudaStream_t>> streams_;
  std::map<int, std::vector<cudaEvent_t>> events_;
};

}  // namespace cgraph::detail

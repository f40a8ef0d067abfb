#pragma once
// One owning-handle template for every CUDA object cgraph keeps past one call: graphs, execs,
// events, device memory and libraries. It keeps the leak ledger (counted where the test programs
// install their hooks, see backend/seam.hpp):
// `adopt` counts the object in, destruction counts it out, so no owner can forget either.

#include <cuda_runtime_api.h>

#include <utility>

namespace cgraph::backend {

// The kinds the ledger counts. Capture streams are pooled, and a thread parks its last
// session's (capture_session): the ledger counts those an open session has taken.
enum class owned : unsigned { graph, exec, event, device_memory, library, capture_stream, kinds };

void ledger(owned kind, long delta) noexcept;

// How each kind is destroyed (backend/handles.cpp); never throws.
struct graph_kind {
  using type = cudaGraph_t;
  static constexpr owned counted = owned::graph;
  static void destroy(type) noexcept;
};
struct exec_kind {
  using type = cudaGraphExec_t;
  static constexpr owned counted = owned::exec;
  static void destroy(type) noexcept;
};
struct event_kind {
  using type = cudaEvent_t;
  static constexpr owned counted = owned::event;
  static void destroy(type) noexcept;  // waits for the event first: a fence guards what is freed next
};
struct device_memory_kind {
  using type = void*;
  static constexpr owned counted = owned::device_memory;
  static void destroy(type) noexcept;
};
struct library_kind {
  using type = cudaLibrary_t;
  static constexpr owned counted = owned::library;
  static void destroy(type) noexcept;
};

template <typename Kind>
class handle {
public:
  using type = typename Kind::type;

  handle() = default;
  // Takes ownership of an object CUDA just made, and counts it.
  static handle adopt(type h) noexcept {
    handle out;
    out.h_ = h;
    if (h) ledger(Kind::counted, 1);
    return out;
  }
  handle(handle&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  handle& operator=(handle&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  handle(const handle&) = delete;
  handle& operator=(const handle&) = delete;
  ~handle() { reset(); }

  void reset() noexcept {
    if (h_) {
      Kind::destroy(h_);
      ledger(Kind::counted, -1);
      h_ = nullptr;
    }
  }
  type get() const noexcept { return h_; }
  operator type() const noexcept { return h_; }  // NOLINT: handles pass where CUDA takes the raw one
  explicit operator bool() const noexcept { return h_ != nullptr; }

private:
  type h_ = nullptr;
};

using graph_handle = handle<graph_kind>;
using exec_handle = handle<exec_kind>;
using event_handle = handle<event_kind>;
using device_memory = handle<device_memory_kind>;
using library_handle = handle<library_kind>;

}  // namespace cgraph::backend

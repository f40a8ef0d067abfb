#pragma once
// Scratch storage a thread keeps between uses, so that a warm build or capture allocates none
// of its working lists. Used by the run-time builders' build_scratch and by the capture
// session's lists: one mechanism for both (each had its own lease before).

#include <memory>

namespace cgraph::backend {

// A lease of the thread's spare T: the one the thread's last lease left, or a new one where the
// thread's is taken (a child graph built or captured while its parent's build is still open).
// When the lease ends, its T becomes the thread's spare, with whatever storage its lists grew,
// unless the thread has a spare again (a nested lease ended first): then it is freed. What a T
// holds is the user's to clear.
template <typename T>
class thread_spare {
public:
  thread_spare() : item_(spare() ? std::move(spare()) : std::make_unique<T>()) {}
  ~thread_spare() {
    if (!spare()) spare() = std::move(item_);
  }
  thread_spare(const thread_spare&) = delete;
  thread_spare& operator=(const thread_spare&) = delete;

  T& operator*() const { return *item_; }
  T* operator->() const { return item_.get(); }

private:
  // A function-local thread_local: one per T, defined where a lease of T is first made.
  static std::unique_ptr<T>& spare() {
    thread_local std::unique_ptr<T> kept;
    return kept;
  }
  std::unique_ptr<T> item_;
};

}  // namespace cgraph::backend

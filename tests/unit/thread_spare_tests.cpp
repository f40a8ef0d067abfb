// backend::thread_spare (include/cgraph/runtime/backend/thread_spare.hpp): the scratch a thread
// keeps between builds and captures, a new one for a lease nested inside another.

#include <cgraph/runtime/backend/thread_spare.hpp>

#include <doctest/doctest.h>

#include <thread>
#include <vector>

namespace {

// A type of its own, so no other test's leases share its spare.
struct scratch {
  std::vector<int> list;
};
using lease = cgraph::backend::thread_spare<scratch>;

}  // namespace

TEST_CASE("thread_spare: a lease takes the storage the thread's last lease left") {
  const scratch* first = nullptr;
  {
    lease a;
    first = &*a;
    a->list.reserve(100);
    a->list.push_back(1);
  }
  lease b;
  CHECK(&*b == first);               // the same scratch, not a new one
  CHECK(b->list.capacity() >= 100);  // with the storage its list grew
  CHECK(b->list.size() == 1);        // and what it holds: the user's to clear
  b->list.clear();
}

TEST_CASE("thread_spare: a nested lease gets a scratch of its own, and one of the two is kept") {
  const scratch* outer_item = nullptr;
  const scratch* inner_item = nullptr;
  {
    lease outer;
    outer_item = &*outer;
    {
      lease inner;  // a child graph built while its parent's build is open
      inner_item = &*inner;
      CHECK(inner_item != outer_item);
    }
  }
  // The inner lease ended first, so its scratch is the spare now; the outer's was freed.
  lease next;
  CHECK(&*next == inner_item);
}

TEST_CASE("thread_spare: each thread keeps its own") {
  const scratch* here = nullptr;
  {
    lease a;
    here = &*a;
  }
  const scratch* there = nullptr;
  std::thread([&] {
    lease b;
    there = &*b;
  }).join();
  CHECK(there != here);  // a scratch of its own: this thread's is still kept
  lease c;
  CHECK(&*c == here);  // the other thread's lease took nothing from this one
}

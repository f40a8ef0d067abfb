#pragma once
// Hardware counters around a timed body (Linux perf_event_open), for runtime_bench
// --counters: how many instructions and cycles a path spends in user space (cgraph, the CUDA
// runtime and the driver's user-space library all run there) and in the kernel (the driver's
// ioctls, page faults), and how many page faults it takes. A wall-clock ratio says a path is
// slower; these say whether it runs more instructions, or the same ones more slowly.
//
// Counting needs perf_event_paranoid ≤ 2 for user space (≤ 1 for the kernel) and a machine or
// container that passes the PMU through. Where a counter cannot be opened it reads as absent
// (`available()` false for it): the benchmark then prints what it has and says what it lacks.

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#if defined(__linux__)
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace bench {

class hw_counters {
public:
  // Task clock is the nanoseconds the thread ran on a CPU: against the wall clock it tells a
  // body that works from one that waits (a lock, the driver's own thread); context switches
  // count the waits. Both are software events, which hosts without a PMU still count.
  enum which : std::size_t {
    user_instructions,
    user_cycles,
    kernel_instructions,
    kernel_cycles,
    page_faults,
    context_switches,
    task_clock_ns,
    count
  };
  static constexpr std::array<const char*, count> names = {"user instructions", "user cycles", "kernel instructions",
                                                           "kernel cycles",     "page faults", "context switches",
                                                           "task clock ns"};
  using readings = std::array<double, count>;  // per body; negative where the counter is absent

  hw_counters() {
#if defined(__linux__)
    fds_[user_instructions] = open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, scope::user);
    fds_[user_cycles] = open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, scope::user);
    fds_[kernel_instructions] = open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, scope::kernel);
    fds_[kernel_cycles] = open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, scope::kernel);
    fds_[page_faults] = open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, scope::user);
    fds_[context_switches] = open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, scope::both);
    fds_[task_clock_ns] = open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, scope::both);
#endif
  }
  ~hw_counters() {
#if defined(__linux__)
    for (int fd : fds_)
      if (fd >= 0) close(fd);
#endif
  }
  hw_counters(const hw_counters&) = delete;
  hw_counters& operator=(const hw_counters&) = delete;

  bool available(which w) const { return fds_[w] >= 0; }
  bool any() const {
    for (int fd : fds_)
      if (fd >= 0) return true;
    return false;
  }
  // Why none could be opened, for the benchmark's report.
  const std::string& why_not() const { return why_not_; }

  // Counts only what runs between start() and stop() on this thread.
  void start() {
#if defined(__linux__)
    for (int fd : fds_)
      if (fd >= 0) {
        ioctl(fd, PERF_EVENT_IOC_RESET, 0);
        ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
      }
#endif
  }
  readings stop() {
    readings r;
    r.fill(-1);
#if defined(__linux__)
    for (int fd : fds_)
      if (fd >= 0) ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    for (std::size_t k = 0; k < count; ++k) {
      std::uint64_t v = 0;
      if (fds_[k] >= 0 && read(fds_[k], &v, sizeof v) == static_cast<ssize_t>(sizeof v)) r[k] = static_cast<double>(v);
    }
#endif
    return r;
  }

private:
#if defined(__linux__)
  // What a counter counts: what runs in user space, in the kernel, or both.
  enum class scope { user, kernel, both };
  // One counter of this thread, disabled until start().
  int open(std::uint32_t type, std::uint64_t config, scope where) {
    perf_event_attr a;
    std::memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = type;
    a.config = config;
    a.disabled = 1;
    a.exclude_hv = 1;
    a.exclude_user = where == scope::kernel ? 1 : 0;
    a.exclude_kernel = where == scope::user ? 1 : 0;
    const long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    if (fd < 0 && why_not_.empty()) why_not_ = std::string("perf_event_open: ") + std::strerror(errno);
    return static_cast<int>(fd);
  }
#endif
  std::array<int, count> fds_ = [] {
    std::array<int, count> closed;
    closed.fill(-1);
    return closed;
  }();
  std::string why_not_;
};

}  // namespace bench

// Device placement (backend/device.hpp).

#include "seam.hpp"

#include <cgraph/runtime/backend/device.hpp>

#include <fmt/format.h>

namespace cgraph::backend {

int device_count(const site& at) {
  // Fixed for the life of the process (CUDA_VISIBLE_DEVICES is read once, at initialisation).
  static const int count = [&] {
    int n = 0;
    CGRAPH_CUDA(cudaGetDeviceCount(&n), at);
    return n;
  }();
  return count;
}

void device_scope::enter(int device, const site& at) {
  const int count = device_count(at);
  if (device >= count)
    throw build_error(at.str(), fmt::format("device {} does not exist: this machine has {} GPU{} (devices 0 to {})", device,
                                            count, count == 1 ? "" : "s", count - 1));
  int current = 0;
  CGRAPH_CUDA(cudaGetDevice(&current), at);
  if (current == device) return;
  CGRAPH_CUDA(cudaSetDevice(device), at);
  previous_ = current;
}

void device_scope::leave() noexcept { (void)cudaSetDevice(previous_); }

}  // namespace cgraph::backend

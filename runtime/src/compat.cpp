#include "compat.hpp"

#include "check.hpp"

namespace cgraph::detail {

int driver_version() {
  static const int version = [] {
    int v = 0;
    check(cudaDriverGetVersion(&v), "cudaDriverGetVersion");
    return v;
  }();
  return version;
}

void require_driver(const char* feature, int needed) {
  int found = driver_version();
  if (found < needed) throw feature_unavailable(feature, needed, found);
}

}  // namespace cgraph::detail

#include "compat.hpp"

#include "check.hpp"

namespace cgraph::detail {

int read_driver_version() {
  int v = 0;
  check(cudaDriverGetVersion(&v), "cudaDriverGetVersion");
  return v;
}

void driver_too_old(const char* feature, int needed) { throw feature_unavailable(feature, needed, driver_version()); }

}  // namespace cgraph::detail

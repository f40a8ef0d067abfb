// The seam's out-of-line half: the installed test hooks, the ledger and the error thrower.

#include "seam.hpp"

#include <string>

namespace cgraph::backend {

test_hooks* installed_hooks = nullptr;

void install_test_hooks(test_hooks* hooks) noexcept { installed_hooks = hooks; }

void ledger(owned kind, long delta) noexcept {
  if (installed_hooks) installed_hooks->count(kind, delta);
}

void cuda_failed(cudaError_t status, std::string_view api, const site& at) {
  (void)cudaGetLastError();  // clear a non-sticky error so the next call starts clean
  throw cuda_error(status, std::string(api.substr(0, api.find('('))), at.str());
}

}  // namespace cgraph::backend

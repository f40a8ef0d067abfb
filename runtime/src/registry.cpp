#include <cgraph/runtime/registry.hpp>

namespace cgraph {

const registry::kernel_entry* registry::find_kernel(std::string_view name) const {
  auto it = kernels_.find(name);
  return it == kernels_.end() ? nullptr : &it->second;
}

std::shared_ptr<const captured_routine> registry::find_routine(std::string_view name) const {
  auto it = routines_.find(name);
  return it == routines_.end() ? nullptr : it->second;
}

const registry::host_entry* registry::find_host(std::string_view name) const {
  auto it = hosts_.find(name);
  return it == hosts_.end() ? nullptr : &it->second;
}

}  // namespace cgraph

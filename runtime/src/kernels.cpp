// Resolving a kernel node's function, from the registry, a module or NVRTC, and checking it
// against the .cgraph declaration.

#include "built_graph.hpp"
#include "libraries.hpp"

#include <cgraph/runtime/error.hpp>

#include <mutex>
#include <string_view>

#include <fmt/format.h>

namespace cgraph::detail {

namespace {

void check_signature(const ir::kernel& k, const std::vector<std::size_t>& sizes, std::string_view source,
                     const where& at) {
  if (sizes.size() != k.params.size())
    throw build_error(at.str(), fmt::format("kernel '{}' is declared with {} parameters but {} takes {}", k.name,
                                            k.params.size(), source, sizes.size()));
  for (std::size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] != ir::size_of(k.params[i].t))
      throw build_error(at.str(), fmt::format("kernel '{}': parameter {} ('{}') is {} bytes as declared ('{}') but {} "
                                              "bytes in {}", k.name, i + 1, k.params[i].name, ir::size_of(k.params[i].t),
                                              ir::to_string(k.params[i].t), sizes[i], source));
}

}  // namespace

const void* resolve_kernel_function(const program_state& p, const resolved_symbols& s, std::uint32_t kernel,
                                    const where& at) {
  std::lock_guard<std::mutex> guard(s.lock);
  if (const void* f = s.functions[kernel].load(std::memory_order_relaxed)) return f;
  const ir::kernel& k = p.program.kernels[kernel];
  const void* function = nullptr;
  if (k.library == ir::none) {
    const auto& entry = s.registered[kernel];
    if (!entry.function)
      throw build_error(at.str(), fmt::format("kernel '{}' is not in the registry (register it with "
                                              "registry.kernel(\"{}\", {}))", k.name, k.name, k.symbol));
    function = entry.function;
    // Its C++ type is the kernel's signature (registry::kernel took the sizes from it): the
    // driver is not asked, so a program of registered kernels makes no failing CUDA call.
    check_signature(k, entry.param_sizes, "the registered function", at);
    p.checked_registered[kernel].store(function, std::memory_order_release);
  } else {
    const ir::library& lib = p.program.libraries[k.library];
    auto found = library_kernel(p, kernel, s.module_directory.empty() ? p.directory : s.module_directory,
                                s.allow_module_paths_outside_directory);
    function = found.function;
    // The real kernel's parameters where the driver can tell.
    if (*found.params)
      check_signature(k, **found.params,
                      fmt::format("{} '{}'", lib.k == ir::library::kind::module ? "module" : "source", lib.name), at);
  }
  s.functions[kernel].store(function, std::memory_order_release);
  return function;
}

}  // namespace cgraph::detail

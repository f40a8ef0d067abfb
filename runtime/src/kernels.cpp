// Resolving a kernel node's function, from the registry, a module or NVRTC, and checking it
// against the .cgraph declaration.

#include "built_graph.hpp"
#include "compat.hpp"

#include <cgraph/runtime/error.hpp>

#include <map>
#include <mutex>
#include <optional>

#include <fmt/format.h>

namespace cgraph::detail {

namespace {

// The byte size of each parameter of the real kernel, or nullopt where the driver cannot say.
// CUDA has no parameter count: the index past the last parameter answers cudaErrorInvalidValue
// (so compute-sanitizer's API-error report lists one such call per kernel function). Answers
// for registered functions are cached for the process; a library's kernel handle is not a
// stable key (after its library is unloaded the same value can name another kernel).
std::optional<std::vector<std::size_t>> probe_param_sizes(const void* function);

std::optional<std::vector<std::size_t>> real_param_sizes(const void* function, bool stable) {
  if (!stable) return probe_param_sizes(function);
  static std::mutex lock;
  static std::map<const void*, std::optional<std::vector<std::size_t>>> cache;
  std::lock_guard<std::mutex> guard(lock);
  auto [it, inserted] = cache.try_emplace(function);
  if (inserted) it->second = probe_param_sizes(function);
  return it->second;
}

std::optional<std::vector<std::size_t>> probe_param_sizes(const void* function) {
  if (driver_version() < parameter_info_version) return std::nullopt;
  std::vector<std::size_t> sizes;
  for (std::size_t i = 0; i < 1024; ++i) {
    std::size_t offset = 0, size = 0;
    cudaError_t status = cudaFuncGetParamInfo(function, i, &offset, &size);
    if (status != cudaSuccess) {
      (void)cudaGetLastError();
      if (status == cudaErrorInvalidValue) break;  // past the last parameter
      return std::nullopt;
    }
    sizes.push_back(size);
  }
  return sizes;
}

void check_signature(const ir::kernel& k, const std::vector<std::size_t>& sizes,
                     const std::string& source, const where& at) {
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
  std::string source;
  std::vector<std::size_t> declared_by_cpp;
  if (k.library == ir::none) {
    const auto& entry = s.registered[kernel];
    if (!entry.function)
      throw build_error(at.str(), fmt::format("kernel '{}' is not in the registry (register it with "
                                              "registry.kernel(\"{}\", {}))", k.name, k.name, k.symbol));
    function = entry.function;
    declared_by_cpp = entry.param_sizes;
    source = "the registered function";
  } else {
    const ir::library& lib = p.program.libraries[k.library];
    function = library_kernel(p, kernel, s.module_directory.empty() ? p.directory : s.module_directory,
                              s.allow_module_paths_outside_directory);
    source = fmt::format("{} '{}'", lib.k == ir::library::kind::module ? "module" : "source", lib.name);
  }
  // The real kernel's parameters where the driver can tell; else the registered C++ signature.
  auto real = real_param_sizes(function, k.library == ir::none);
  if (real) check_signature(k, *real, source, at);
  else if (!declared_by_cpp.empty() || k.library == ir::none) check_signature(k, declared_by_cpp, source, at);
  if (k.library == ir::none) p.checked_registered[kernel].store(function, std::memory_order_release);
  s.functions[kernel].store(function, std::memory_order_release);
  return function;
}

}  // namespace cgraph::detail

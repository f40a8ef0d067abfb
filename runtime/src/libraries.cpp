#include "libraries.hpp"

#include "built_graph.hpp"
#include "compat.hpp"
#include "nvrtc.hpp"

#include <cgraph/runtime/error.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <utility>

#include <fmt/format.h>

namespace cgraph::detail {

namespace {

// CUDA has no parameter count: the index past the last parameter answers
// cudaErrorInvalidValue, so compute-sanitizer's API-error report lists this one call (and the
// cudaGetLastError that clears it) per library kernel. Registered functions are never probed:
// their C++ type is their signature.
param_sizes probe_param_sizes(const void* function) {
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

}  // namespace

int max_ptx_isa(int driver) {
  // CUDA version → the PTX ISA its driver loads (PTX ISA release notes).
  static constexpr std::array<std::pair<int, int>, 10> table{{{12000, 80}, {12010, 81}, {12020, 82}, {12030, 83},
                                                              {12040, 84}, {12050, 85}, {12060, 85}, {12080, 87},
                                                              {12090, 88}, {13000, 90}}};
  if (driver > table.back().first) return 0;
  int isa = 0;
  for (auto [version, ptx] : table)
    if (driver >= version) isa = ptx;
  return isa;
}

namespace {

where where_at(const program_state& p, source_range r) { return where::in(p.source, r.begin); }

// The ".version M.m" of a PTX file, as M * 10 + m, or 0 when the file is not PTX.
int ptx_version(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  auto at = head.find(".version");
  if (at == std::string::npos || head.find('\0') != std::string::npos) return 0;
  unsigned major = 0, minor = 0;
  if (std::sscanf(head.c_str() + at, ".version %u.%u", &major, &minor) != 2) return 0;
  return static_cast<int>(major * 10 + minor);
}

std::string position(const program_state& p, source_range r) { return p.source.position(r.begin); }

std::shared_ptr<loaded_library> load_module(const program_state& p, const ir::library& lib, const std::filesystem::path& path) {
  std::string where = position(p, lib.text_range);
  if (!std::filesystem::is_regular_file(path))
    throw build_error(where, fmt::format("module '{}': no file '{}'", lib.name, path.string()));
  if (int ptx = ptx_version(path)) {
    int driver = driver_version(), isa = max_ptx_isa(driver);
    if (isa && ptx > isa)
      throw incompatible_code(where, fmt::format("module '{}': '{}' is PTX ISA {}.{}, newer than this driver (CUDA {}.{}) "
                                                 "loads (up to {}.{}); build it for an older PTX ISA or update the driver",
                                                 lib.name, path.string(), ptx / 10, ptx % 10, driver / 1000,
                                                 driver % 1000 / 10, isa / 10, isa % 10));
  }
  auto loaded = std::make_shared<loaded_library>();
  cudaLibrary_t made = nullptr;
  CGRAPH_CUDA(cudaLibraryLoadFromFile(&made, path.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0),
              where_at(p, lib.text_range));
  loaded->handle = backend::library_handle::adopt(made);
  return loaded;
}

std::shared_ptr<loaded_library> load_source(const program_state& p, std::uint32_t index, const ir::library& lib) {
  std::vector<std::string> names;
  for (const auto& k : p.program.kernels)
    if (k.library == index && std::find(names.begin(), names.end(), k.symbol) == names.end()) names.push_back(k.symbol);
  unsigned first_line = p.source.location(lib.text_range.begin).line;
  auto out = nvrtc_compile(lib.text, names, p.source.name(), first_line, position(p, lib.text_range),
                           fmt::format("source '{}'", lib.name));
  auto loaded = std::make_shared<loaded_library>();
  loaded->lowered_names = std::move(out.lowered_names);
  cudaLibrary_t made = nullptr;
  CGRAPH_CUDA(cudaLibraryLoadData(&made, out.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
              where_at(p, lib.text_range));
  loaded->handle = backend::library_handle::adopt(made);
  return loaded;
}

}  // namespace

namespace {

// Whether `path` lies inside `directory` once both are made absolute and `..` is resolved
// (symbolic links too, where they exist).
bool inside(const std::filesystem::path& path, const std::filesystem::path& directory) {
  std::error_code ec;
  auto base = std::filesystem::weakly_canonical(std::filesystem::absolute(directory, ec), ec);
  auto full = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  if (ec) return false;
  auto rel = full.lexically_relative(base);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

library_kernel_info library_kernel(const program_state& p, std::uint32_t kernel, const std::string& directory,
                                   bool allow_outside) {
  const ir::kernel& k = p.program.kernels[kernel];
  const ir::library& lib = p.program.libraries[k.library];
  bool is_module = lib.k == ir::library::kind::module;
  std::filesystem::path path = is_module ? std::filesystem::path(lib.text) : std::filesystem::path();
  std::filesystem::path base = directory.empty() ? std::filesystem::path(".") : std::filesystem::path(directory);
  if (is_module && path.is_relative()) path = base / path;
  if (is_module && !allow_outside && !inside(path, base))
    throw build_error(position(p, lib.text_range),
                      fmt::format("module '{}': the path '{}' leaves the module directory '{}' (set "
                                  "build_options::allow_module_paths_outside_directory to load it)",
                                  lib.name, lib.text, base.string()));

  std::lock_guard<std::mutex> guard(p.libraries->lock);
  std::string key = fmt::format("{}\n{}", k.library, path.string());
  auto& loaded = p.libraries->loaded[key];
  if (!loaded) loaded = is_module ? load_module(p, lib, path) : load_source(p, k.library, lib);
  std::string symbol = is_module ? k.symbol : loaded->lowered_names.at(k.symbol);
  cudaKernel_t function = nullptr;
  cudaError_t status = cudaLibraryGetKernel(&function, loaded->handle, symbol.c_str());
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    throw build_error(position(p, k.range),
                      fmt::format("kernel '{}': no kernel '{}' in {} '{}'{} ({})", k.name, symbol,
                                  is_module ? "module" : "source", lib.name,
                                  is_module ? " (" + path.string() + ")" : std::string(), cudaGetErrorName(status)));
  }
  auto [params, inserted] = loaded->params.try_emplace(std::move(symbol));
  if (inserted) params->second = probe_param_sizes(reinterpret_cast<const void*>(function));
  // A map's nodes stay put, and nothing unloads a library while its program lives.
  return {reinterpret_cast<const void*>(function), &params->second};
}

}  // namespace cgraph::detail

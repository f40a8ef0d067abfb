#include "nvrtc.hpp"

#include "compat.hpp"

#include <cgraph/runtime/error.hpp>

#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <regex>

#include <dlfcn.h>

#include <fmt/format.h>

namespace cgraph::detail {

namespace {

// The NVRTC entry points cgraph uses, looked up in the library once.
struct nvrtc_api {
  void* library = nullptr;
  std::string load_error;
  decltype(&nvrtcVersion) version = nullptr;
  decltype(&nvrtcGetErrorString) error_string = nullptr;
  decltype(&nvrtcCreateProgram) create = nullptr;
  decltype(&nvrtcDestroyProgram) destroy = nullptr;
  decltype(&nvrtcAddNameExpression) add_name = nullptr;
  decltype(&nvrtcCompileProgram) compile = nullptr;
  decltype(&nvrtcGetProgramLogSize) log_size = nullptr;
  decltype(&nvrtcGetProgramLog) log = nullptr;
  decltype(&nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype(&nvrtcGetCUBIN) cubin = nullptr;
  decltype(&nvrtcGetLoweredName) lowered_name = nullptr;
};

// The toolkit, found as at build time: CUDA_PATH, CUDA_HOME, then /usr/local/cuda.
std::vector<std::string> toolkit_roots() {
  std::vector<std::string> roots;
  for (const char* var : {"CUDA_PATH", "CUDA_HOME"})
    if (const char* v = std::getenv(var); v && *v) roots.emplace_back(v);
  roots.emplace_back("/usr/local/cuda");
  return roots;
}

template <typename F>
void bind(nvrtc_api& api, F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(api.library, name));
  if (!f && api.load_error.empty()) api.load_error = fmt::format("{} is missing from it", name);
}

const nvrtc_api& nvrtc() {
  static const nvrtc_api api = [] {
    nvrtc_api a;
    std::vector<std::string> candidates{"libnvrtc.so.13", "libnvrtc.so"};
    for (const auto& root : toolkit_roots()) candidates.push_back(root + "/lib64/libnvrtc.so");
    std::string errors;
    for (const auto& name : candidates) {
      if ((a.library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
      errors += fmt::format("\n  {}: {}", name, dlerror());
    }
    if (!a.library) {
      a.load_error = "could not be loaded:" + errors;
      return a;
    }
    bind(a, a.version, "nvrtcVersion");
    bind(a, a.error_string, "nvrtcGetErrorString");
    bind(a, a.create, "nvrtcCreateProgram");
    bind(a, a.destroy, "nvrtcDestroyProgram");
    bind(a, a.add_name, "nvrtcAddNameExpression");
    bind(a, a.compile, "nvrtcCompileProgram");
    bind(a, a.log_size, "nvrtcGetProgramLogSize");
    bind(a, a.log, "nvrtcGetProgramLog");
    bind(a, a.cubin_size, "nvrtcGetCUBINSize");
    bind(a, a.cubin, "nvrtcGetCUBIN");
    bind(a, a.lowered_name, "nvrtcGetLoweredName");
    return a;
  }();
  return api;
}

std::atomic<unsigned> compilations{0};

// Owns an nvrtcProgram (the shared-ownership RAII the seeds ask for is not needed: a program
// never leaves nvrtc_compile).
struct program_handle {
  nvrtcProgram program = nullptr;
  ~program_handle() {
    if (program) nvrtc().destroy(&program);
  }
};

std::string rewrite_log(const std::string& log, const std::string& program_name, const std::string& file,
                        unsigned first_line) {
  std::string out;
  std::regex reference(std::regex_replace(program_name, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                       R"(\((\d+)\))");
  auto begin = std::sregex_iterator(log.begin(), log.end(), reference);
  std::size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    out.append(log, last, static_cast<std::size_t>(it->position()) - last);
    out += fmt::format("{}:{}", file, first_line + std::stoul((*it)[1].str()) - 1);
    last = static_cast<std::size_t>(it->position() + it->length());
  }
  out.append(log, last);
  return out;
}

void check_nvrtc(nvrtcResult r, const char* call, const std::string& location) {
  if (r != NVRTC_SUCCESS) throw build_error(location, fmt::format("{} failed: {}", call, nvrtc().error_string(r)));
}

}  // namespace

unsigned nvrtc_compile_count() { return compilations.load(); }

int nvrtc_version() {
  const auto& api = nvrtc();
  if (!api.library || !api.version) return 0;
  int major = 0, minor = 0;
  api.version(&major, &minor);
  return major * 1000 + minor * 10;
}

nvrtc_output nvrtc_compile(const std::string& code, const std::vector<std::string>& name_expressions,
                           const std::string& file, unsigned first_line, const std::string& location,
                           const std::string& what) {
  const auto& api = nvrtc();
  if (!api.load_error.empty())
    throw build_error(location, fmt::format("{} needs NVRTC, which {}", what, api.load_error));
  // Refuse what the driver may not load: NVRTC newer than the driver makes code for a newer CUDA.
  int found = driver_version(), nvrtc = nvrtc_version();
  if (nvrtc / 10 > found / 10)
    throw incompatible_code(location, fmt::format("{}: NVRTC {}.{} is newer than this driver's CUDA {}.{}; "
                                                  "its output may not load", what, nvrtc / 1000, nvrtc % 1000 / 10,
                                                  found / 1000, found % 1000 / 10));
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    (void)cudaGetLastError();
    throw build_error(location, fmt::format("{}: no CUDA device to compile for", what));
  }
  std::vector<std::string> options{fmt::format("--gpu-architecture=sm_{}{}", prop.major, prop.minor), "-std=c++17"};
  for (const auto& root : toolkit_roots()) options.push_back("-I" + root + "/include");

  static std::mutex lock;
  static std::map<std::string, nvrtc_output> cache;
  std::string key = code;
  for (const auto& o : options) key += '\0' + o;
  for (const auto& n : name_expressions) key += '\1' + n;
  std::lock_guard<std::mutex> guard(lock);
  if (auto it = cache.find(key); it != cache.end()) return it->second;

  const std::string program_name = file + ".source";
  program_handle p;
  check_nvrtc(api.create(&p.program, code.c_str(), program_name.c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram",
              location);
  for (const auto& n : name_expressions) check_nvrtc(api.add_name(p.program, n.c_str()), "nvrtcAddNameExpression", location);
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  ++compilations;
  nvrtcResult compiled = api.compile(p.program, static_cast<int>(argv.size()), argv.data());
  std::size_t log_size = 0;
  api.log_size(p.program, &log_size);
  std::string log(log_size, '\0');
  if (log_size > 1) api.log(p.program, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  if (compiled != NVRTC_SUCCESS)
    throw build_error(location, fmt::format("{} does not compile (NVRTC: {}):\n{}", what, api.error_string(compiled),
                                            rewrite_log(log, program_name, file, first_line)));
  nvrtc_output out;
  std::size_t size = 0;
  check_nvrtc(api.cubin_size(p.program, &size), "nvrtcGetCUBINSize", location);
  out.cubin.resize(size);
  check_nvrtc(api.cubin(p.program, out.cubin.data()), "nvrtcGetCUBIN", location);
  for (const auto& n : name_expressions) {
    const char* lowered = nullptr;
    check_nvrtc(api.lowered_name(p.program, n.c_str(), &lowered), "nvrtcGetLoweredName", location);
    out.lowered_names[n] = lowered;
  }
  return cache.emplace(std::move(key), std::move(out)).first->second;
}

}  // namespace cgraph::detail

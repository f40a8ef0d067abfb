#pragma once
// NVRTC, loaded lazily with dlopen so programs that never use `source` do not need it.

#include <map>
#include <string>
#include <vector>

namespace cgraph::detail {

struct nvrtc_output {
  std::string cubin;
  std::map<std::string, std::string> lowered_names;  // name expression → mangled name
};

// Compiles `code` for the current device's architecture, registering `name_expressions`.
// Results are cached per process by code, options and names. On a compile error, throws
// build_error at `location` with the program log, whose "NAME(LINE)" references are rewritten
// to "file:line" (`first_line` is the .cgraph line holding the code's first line).
nvrtc_output nvrtc_compile(const std::string& code, const std::vector<std::string>& name_expressions,
                           const std::string& file, unsigned first_line, const std::string& location,
                           const std::string& what);

// How many programs NVRTC has compiled in this process (the cache serves the rest).
unsigned nvrtc_compile_count();

// NVRTC's version as major * 1000 + minor * 10 (e.g. 13000), or 0 when NVRTC cannot be loaded.
int nvrtc_version();

}  // namespace cgraph::detail

#include <cgraph/runtime/error.hpp>

#include <fmt/format.h>

namespace cgraph {

namespace {

std::string version_text(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

std::string cuda_message(cudaError_t code, const std::string& api, const std::string& location,
                         const std::string& detail) {
  std::string prefix = location.empty() ? "" : location + ": ";
  std::string extra = detail.empty() ? "" : " (" + detail + ")";
  return fmt::format("{}{} failed: {}: {}{}", prefix, api, cudaGetErrorName(code), cudaGetErrorString(code), extra);
}

}  // namespace

cuda_error::cuda_error(cudaError_t code, std::string api, std::string location, std::string detail)
    : std::runtime_error(cuda_message(code, api, location, detail)), code_(code), api_(std::move(api)),
      location_(std::move(location)) {}

feature_unavailable::feature_unavailable(std::string feature, int needed, int found)
    : std::runtime_error(fmt::format("{} needs a CUDA driver of version {} or newer; this driver is {}", feature,
                                     version_text(needed), version_text(found))),
      feature_(std::move(feature)), needed_(needed), found_(found) {}

build_error::build_error(std::string location, const std::string& message)
    : std::runtime_error(location.empty() ? message : location + ": " + message), location_(std::move(location)) {}

}  // namespace cgraph

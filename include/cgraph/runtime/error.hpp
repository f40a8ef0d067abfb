#pragma once
// Run-time errors. Mistakes in .cgraph text are compile_error (cgraph/dsl/diagnostic.hpp); these
// are what building, instantiating, updating and launching can throw.

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace cgraph {

// A CUDA call failed: its error, the API call, and the .cgraph file:line:col of the node being
// built or updated when there is one ("" otherwise).
class cuda_error : public std::runtime_error {
public:
  cuda_error(cudaError_t code, std::string api, std::string location, std::string detail = {});

  cudaError_t code() const noexcept { return code_; }
  const std::string& api() const noexcept { return api_; }
  const std::string& location() const noexcept { return location_; }

private:
  cudaError_t code_;
  std::string api_;
  std::string location_;
};

// The driver is too old for a feature the graph uses (conditional nodes need 12.3, if/else and
// switch need 12.8).
class feature_unavailable : public std::runtime_error {
public:
  feature_unavailable(std::string feature, int needed_version, int found_version);

  const std::string& feature() const noexcept { return feature_; }
  int needed_version() const noexcept { return needed_; }  // e.g. 12080 for 12.8
  int found_version() const noexcept { return found_; }

private:
  std::string feature_;
  int needed_;
  int found_;
};

// A value or binding that is only known when the graph is built or updated is wrong: a launch
// dimension that evaluates to zero, an argument out of range, an unknown parameter, a kernel
// missing from the registry. The message starts with the .cgraph file:line:col when there is one.
class build_error : public std::runtime_error {
public:
  build_error(std::string location, const std::string& message);

  const std::string& location() const noexcept { return location_; }

private:
  std::string location_;
};

// Code the driver cannot load: a PTX module of a newer ISA than the driver knows, or NVRTC
// newer than the driver. Raised before the confusing load error it prevents.
class incompatible_code : public build_error {
public:
  using build_error::build_error;
};

}  // namespace cgraph

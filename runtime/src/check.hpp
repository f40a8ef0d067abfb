#pragma once
// Checking CUDA calls on the run-time path. The seam itself (CGRAPH_CUDA, CGRAPH_CUDA_STATUS,
// fault injection) is the backend's (backend/seam.hpp); this adds `where`, the run-time path's
// place in a .cgraph file, which build errors name too.

#include "backend/seam.hpp"

#include <cgraph/runtime/backend/handle.hpp>
#include <cgraph/runtime/backend/site.hpp>
#include <cgraph/runtime/error.hpp>
#include <cgraph/source.hpp>

#include <cuda_runtime_api.h>

#include <string>
#include <string_view>

namespace cgraph::detail {

// A place in a .cgraph file, or nowhere.
struct where {
  const source_file* file = nullptr;
  source_range range{};

  std::string str() const { return file ? file->position(range.begin) : std::string(); }
  operator backend::site() const { return file ? backend::site::in(*file, range.begin) : backend::site{}; }  // NOLINT
};

inline void check(cudaError_t status, std::string_view api, const where& at = {}) { backend::check(status, api, at); }

using backend::ledger;
using backend::owned;

}  // namespace cgraph::detail

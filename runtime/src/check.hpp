#pragma once
// Checking CUDA calls on the run-time path, through the backend's seam (backend/seam.hpp:
// CGRAPH_CUDA, CGRAPH_CUDA_STATUS, fault injection).

#include "backend/seam.hpp"

#include <cgraph/runtime/backend/handle.hpp>
#include <cgraph/runtime/backend/site.hpp>
#include <cgraph/runtime/error.hpp>
#include <cgraph/dsl/source.hpp>

#include <cuda_runtime_api.h>

#include <string>
#include <string_view>

namespace cgraph::detail {

// A place in a .cgraph file, or nowhere: the backend's site, which build errors name too.
using where = backend::site;

inline void check(cudaError_t status, std::string_view api, const where& at = {}) { backend::check(status, api, at); }

using backend::ledger;
using backend::owned;

}  // namespace cgraph::detail

// How each owned kind is destroyed, and sites as text.

#include "launch_check.hpp"

#include <cgraph/runtime/backend/handle.hpp>
#include <cgraph/runtime/backend/site.hpp>

namespace cgraph::backend {

void graph_kind::destroy(cudaGraph_t g) noexcept { cudaGraphDestroy(g); }
void exec_kind::destroy(cudaGraphExec_t e) noexcept { cudaGraphExecDestroy(e); }
void event_kind::destroy(cudaEvent_t e) noexcept {
  cudaEventSynchronize(e);  // a fence: a queued launch may still read what is freed next
  cudaEventDestroy(e);
}
void device_memory_kind::destroy(void* p) noexcept { cudaFree(p); }
void library_kind::destroy(cudaLibrary_t l) noexcept {
  cudaLibraryUnload(l);
  kernels_unloaded();  // a later library's kernel may take an unloaded one's address
}

std::string site::str() const {
  if (source) return source->position(offset);
  return line ? format_position(file, line, column) : std::string();
}

}  // namespace cgraph::backend

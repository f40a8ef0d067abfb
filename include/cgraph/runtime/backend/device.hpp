#pragma once
// Which GPU a node is made on (LANGUAGE.md §15). CUDA adds a kernel, memcpy or memset node in
// the context of the device current at the call, and a graph may hold nodes of several
// devices; so placing a node is making its device current while it is added.

#include <cgraph/runtime/backend/site.hpp>

namespace cgraph::backend {

// The number of GPUs this process sees (asked once).
int device_count(const site& at);

// Makes `device` current until destroyed, after checking the machine has it (a build_error at
// the node's line otherwise); `device` < 0 leaves the current device alone.
class device_scope {
public:
  // Inline for the common case, a node on the current device: nothing to do per node.
  device_scope(int device, const site& at) {
    if (device >= 0) enter(device, at);
  }
  ~device_scope() {
    if (previous_ >= 0) leave();
  }
  device_scope(const device_scope&) = delete;
  device_scope& operator=(const device_scope&) = delete;

private:
  void enter(int device, const site& at);
  void leave() noexcept;

  int previous_ = -1;  // the device to make current again, or -1 when none was changed
};

}  // namespace cgraph::backend

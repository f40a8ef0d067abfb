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
  device_scope(int device, const site& at);
  ~device_scope();
  device_scope(const device_scope&) = delete;
  device_scope& operator=(const device_scope&) = delete;

private:
  int previous_ = -1;  // the device to make current again, or -1 when none was changed
};

}  // namespace cgraph::backend

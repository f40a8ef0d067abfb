#pragma once
// CUDA parameter structs from a node's converted values, shared by building (add node) and
// updating (exec setters), so both hand CUDA exactly the same thing.

#include "built_graph.hpp"

#include <vector>

namespace cgraph::detail {

inline void* as_pointer(const ir::converted& c) { return reinterpret_cast<void*>(c.as_u64()); }

// `pointers` receives the address of each argument; keep it and `v` alive until CUDA has read them.
inline cudaKernelNodeParams kernel_params(const void* function, node_values& v, std::vector<void*>& pointers) {
  pointers.clear();
  for (auto& a : v.args) pointers.push_back(a.bytes.data());
  cudaKernelNodeParams p{};
  p.func = const_cast<void*>(function);
  p.gridDim = v.grid;
  p.blockDim = v.block;
  p.sharedMemBytes = v.shared_bytes;
  p.kernelParams = pointers.data();
  return p;
}

inline cudaMemsetParams memset_params(const ir::node& n, const node_values& v) {
  cudaMemsetParams p{};
  p.dst = as_pointer(v.args[0]);
  p.value = static_cast<unsigned>(v.args[1].as_u64());
  p.elementSize = n.element_size;
  p.width = v.args[2].as_u64();
  p.height = 1;
  return p;
}

}  // namespace cgraph::detail

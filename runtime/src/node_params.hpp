#pragma once
// Backend parameter structs from a node's converted values, shared by building (add, capture)
// and updating (exec setters), so both hand CUDA exactly the same thing.

#include "built_graph.hpp"

#include <cgraph/runtime/backend/collective.hpp>
#include <cgraph/runtime/generated.hpp>
#include <cgraph/runtime/backend/node_ops.hpp>

#include <vector>

namespace cgraph::detail {

inline void* as_pointer(const ir::converted_bytes& c) { return reinterpret_cast<void*>(c.as_u64()); }

// `out` receives the address of each argument (v.args.size() of them); keep it and `v` alive,
// with their buffers, until CUDA has read them.
inline cudaKernelNodeParams kernel_params(const void* function, node_values& v, void** out) {
  const std::size_t count = v.args.size();  // read once: the stores below may alias it
  for (std::size_t i = 0; i < count; ++i) out[i] = v.argument_address(i);
  return gen::launch_params(function, v.grid, v.block, v.shared_bytes, out);
}
// The same into `pointers`, which only grows (CUDA reads as many as the kernel takes).
inline cudaKernelNodeParams kernel_params(const void* function, node_values& v, std::vector<void*>& pointers) {
  if (pointers.size() < v.args.size()) pointers.resize(v.args.size());
  return kernel_params(function, v, pointers.data());
}

inline backend::memcpy_params memcpy_params(const node_values& v) {
  return {as_pointer(v.args[0]), as_pointer(v.args[1]), v.args[2].as_u64()};
}

inline cudaMemsetParams memset_params(std::uint32_t element_size, const node_values& v) {
  return gen::memset_call(as_pointer(v.args[0]), static_cast<unsigned>(v.args[1].as_u64()), element_size,
                          v.args[2].as_u64());
}
inline cudaMemsetParams memset_params(const ir::node& n, const node_values& v) { return memset_params(n.element_size, v); }

// The calls of a collective node (graph::collectives, collective_slots values each) into `out`;
// each call's errors name its own statement.
inline void collective_calls(const built_graph& g, const ir::node& n, const node_values& v,
                             std::vector<backend::collective_call>& out) {
  out.clear();
  for (std::size_t k = 0; (k + 1) * ir::collective_slots <= v.args.size(); ++k) {
    const ir::collective_call& c = g.ir().collectives[n.callee + k];
    const ir::converted_bytes* a = &v.args[k * ir::collective_slots];
    out.push_back({c.op, c.reduction, c.element, as_pointer(a[ir::slot_send]), as_pointer(a[ir::slot_recv]),
                   a[ir::slot_count].as_u64(), static_cast<std::int32_t>(static_cast<std::uint32_t>(a[ir::slot_peer].as_u64())),
                   static_cast<ncclComm*>(as_pointer(a[ir::slot_comm])), v.device, g.at(c.range)});
  }
}

// The event of a `record` or `wait` node.
inline cudaEvent_t event_params(const node_values& v) { return static_cast<cudaEvent_t>(as_pointer(v.args[0])); }

// The built-in kernel's arguments of a repeat_init or repeat_counter node, as generated code
// makes them (its params() points into it: keep it alive until CUDA has read them).
inline gen::repeat_call repeat_params(const ir::node& n, const node_values& v, const backend::graph_state& g) {
  bool init = n.kind == ir::node_kind::repeat_init;
  return {g.repeat_counts[n.cond].get(), init ? 0u : static_cast<unsigned>(v.args[0].as_u64()), g.conds[n.cond], init};
}

}  // namespace cgraph::detail

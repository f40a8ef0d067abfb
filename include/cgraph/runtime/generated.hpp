#pragma once
// Support for the C++ that `cgraphc emit-cpp` generates. Users do not call this directly:
// each generated graph namespace gives them
//
//   namespace cgraph_generated::saxpy::main {
//     struct parameters { float* x = nullptr; …; std::int32_t n = 1048576; };
//     struct callbacks  { std::function<void(std::int32_t)> report; };
//     graph build(const parameters&, const callbacks& = {});   // cgraph::gen::graph<traits>
//     update_result update(exec&, const parameters&);           // cheapest path first
//   }
//
// Generated code computes each node's values and hands them to the backend
// (cgraph/runtime/backend/), the same code the run-time path builds, captures and updates
// through: it calls no CUDA graph API itself. What lives here is what every generated graph
// needs the same way: checked arithmetic with the run-time path's messages, value
// conversions, parameter structs, and thin forms of the backend's calls that keep generated
// code short. Errors name the .cgraph file:line:col.

#include <cgraph/compiler/ir.hpp>
#include <cgraph/runtime/error.hpp>
#include <cgraph/runtime/graph.hpp>
#include <cgraph/runtime/backend/capture_rows.hpp>
#include <cgraph/runtime/backend/capture_session.hpp>
#include <cgraph/runtime/backend/collective.hpp>
#include <cgraph/runtime/backend/exec_core.hpp>
#include <cgraph/runtime/backend/graph_state.hpp>
#include <cgraph/runtime/backend/node_ops.hpp>

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace cgraph::gen {

// ---- where: a .cgraph position ----------------------------------------------------------------

using site = backend::site;

// Throws build_error at the site: "<what>: <message>".
[[noreturn]] void value_failed(const site& at, const std::string& what, const std::string& message);

// ---- checked arithmetic, with the messages of the run-time path (cgraph::ir::apply) -----------

std::int64_t int_op(ir::op o, std::int64_t a, std::int64_t b, const site& at);
double float_op(ir::op o, double a, double b, const site& at);

// A comparison of two values of the value domain (integers, doubles, bools or addresses).
bool compare_op(ir::op o, const ir::value& a, const ir::value& b);

// One helper per row of the operator table (cgraph/dsl/operators.hpp): cg::add, cg::shl,
// cg::lt, …; integer-only rows have no floating-point overload, and `&&` and `||` none at all
// (generated code writes them as C++'s, which short-circuit as the language does).
#define CGRAPH_GEN_OP_integer(name) \
  inline std::int64_t name(std::int64_t a, std::int64_t b, const site& at) { return int_op(ir::op::name, a, b, at); }
#define CGRAPH_GEN_OP_numeric(name) \
  CGRAPH_GEN_OP_integer(name)       \
  inline double name(double a, double b, const site& at) { return float_op(ir::op::name, a, b, at); }
#define CGRAPH_GEN_OP_compare(name)                                                                               \
  inline bool name(std::int64_t a, std::int64_t b, const site&) {                                                 \
    return compare_op(ir::op::name, ir::value::integer(a), ir::value::integer(b));                                \
  }                                                                                                               \
  inline bool name(double a, double b, const site&) {                                                             \
    return compare_op(ir::op::name, ir::value::floating(a), ir::value::floating(b));                              \
  }                                                                                                               \
  inline bool name(bool a, bool b, const site&) { return compare_op(ir::op::name, ir::value::boolean(a), ir::value::boolean(b)); } \
  inline bool name(std::uint64_t a, std::uint64_t b, const site&) {                                               \
    return compare_op(ir::op::name, ir::value::pointer(a), ir::value::pointer(b));                                \
  }
#define CGRAPH_GEN_OP_logic(name)
#define CGRAPH_GEN_OP(name, spelling, precedence, operands) CGRAPH_GEN_OP_##operands(name)
CGRAPH_OPERATORS(CGRAPH_GEN_OP)
#undef CGRAPH_GEN_OP
#undef CGRAPH_GEN_OP_numeric
#undef CGRAPH_GEN_OP_integer
#undef CGRAPH_GEN_OP_compare
#undef CGRAPH_GEN_OP_logic
// A condition: a bool, or an integer as C reads one.
inline bool truth(bool v) { return v; }
inline bool truth(std::int64_t v) { return v != 0; }

inline std::int64_t neg(std::int64_t a, const site& at) { return int_op(ir::op::neg, a, 0, at); }
inline double neg(double a, const site&) { return -a; }

// Pointers are addresses while expressions are computed, as in the IR.
template <typename T>
std::uint64_t address(T* p) {
  return reinterpret_cast<std::uint64_t>(p);
}
std::uint64_t ptr_offset(std::uint64_t address, std::int64_t elements, std::uint32_t element_size, bool add,
                         const site& at);

// A u64 parameter enters 64-bit signed arithmetic (as cgraph::arg does at run time).
std::int64_t from_u64(std::uint64_t v, const site& at, const char* name);

// ---- conversions to a parameter's or field's type (cgraph::ir::convert's checks) --------------

[[noreturn]] void conversion_failed(ir::value v, ir::type target, bool positive, const site& at, const char* what);

template <typename T>
constexpr ir::type type_of() {
  if constexpr (std::is_same_v<T, bool>) return ir::type::of(ir::scalar::boolean);
  else if constexpr (std::is_same_v<T, float>) return ir::type::of(ir::scalar::f32);
  else if constexpr (std::is_same_v<T, double>) return ir::type::of(ir::scalar::f64);
  else if constexpr (std::is_signed_v<T>)
    return ir::type::of(sizeof(T) == 1 ? ir::scalar::i8 : sizeof(T) == 2 ? ir::scalar::i16 : sizeof(T) == 4 ? ir::scalar::i32 : ir::scalar::i64);
  else return ir::type::of(sizeof(T) == 1 ? ir::scalar::u8 : sizeof(T) == 2 ? ir::scalar::u16 : sizeof(T) == 4 ? ir::scalar::u32 : ir::scalar::u64);
}

// An integer into an integer or floating type; `positive` for launch dimensions and counts.
template <typename T>
T to(std::int64_t v, bool positive, const site& at, const char* what) {
  if constexpr (std::is_floating_point_v<T>) {
    return to<T>(static_cast<double>(v), positive, at, what);
  } else {
    bool fits = v >= 0 ? static_cast<std::uint64_t>(v) <= std::numeric_limits<T>::max()
                       : std::is_signed_v<T> && v >= static_cast<std::int64_t>(std::numeric_limits<T>::min());
    if (!fits || (positive && v <= 0)) conversion_failed(ir::value::integer(v), type_of<T>(), positive, at, what);
    return static_cast<T>(v);
  }
}

template <typename T>
  requires std::is_floating_point_v<T>
T to(double v, bool positive, const site& at, const char* what) {
  bool bad = (positive && !(v > 0)) ||
             (std::is_same_v<T, float> && !(v <= std::numeric_limits<float>::max() && v >= -std::numeric_limits<float>::max()));
  if (bad) conversion_failed(ir::value::floating(v), type_of<T>(), positive, at, what);
  return static_cast<T>(v);
}

template <typename P>
  requires std::is_pointer_v<P>
P to(std::uint64_t address, bool, const site&, const char*) {
  return reinterpret_cast<P>(address);
}

// CUDA's 2-byte floats (__half, __nv_bfloat16) by their bits, so neither this header nor the
// generated code depends on cuda_fp16.h's conversions (which -D__CUDA_NO_HALF_CONVERSIONS__,
// common in large code bases, removes). Rounding and range are cgraph::ir::convert's.
std::uint16_t small_float_bits(double v, ir::scalar s, bool positive, const site& at, const char* what);
double small_float_value(std::uint16_t bits, ir::scalar s);

template <typename T>
T from_bits(std::uint16_t bits) {
  static_assert(sizeof(T) == 2 && std::is_trivially_copyable_v<T>, "a 2-byte float type");
  T out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}
template <typename T, ir::scalar S>
T to_small_float(double v, bool positive, const site& at, const char* what) {
  return from_bits<T>(small_float_bits(v, S, positive, at, what));
}
template <ir::scalar S, typename T>
double small_float_to_double(const T& v) {
  std::uint16_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  return gen::small_float_value(bits, S);
}

// Whether a parameter changed, comparing bits (a NaN equals itself; 0.0 differs from -0.0).
template <typename T>
bool differs(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) != 0;
}

// ---- structs ------------------------------------------------------------------------------------

// A .cgraph struct in generated C++ is the C++ struct of its name at global scope when one is
// declared there (the kernels' own type), else `Fallback`, a struct of the same layout.
// (Generated code declares `struct NAME;` first, so the name always exists.)
template <typename T, typename = void>
struct is_complete : std::false_type {};
template <typename T>
struct is_complete<T, std::void_t<decltype(sizeof(T))>> : std::true_type {};
template <typename T, typename Fallback>
using complete_or = std::conditional_t<is_complete<T>::value, T, Fallback>;

// ---- kernel signatures --------------------------------------------------------------------------

// A kernel's C++ parameter P matches a declared .cgraph type D by ABI, as the run-time path
// checks by size: the same type; integers of the same size and signedness (`long long` for an
// `i64`); pointers to same-size pointees, or either side `void*`, where a declared `const T*`
// needs a pointer to const (a declared `T*` may be a kernel's `const T*`). f16 and bf16 are
// declared as __half and __nv_bfloat16, so they match those types only. A struct matches a
// trivially copyable class of the same size and alignment.
template <typename P, typename D>
constexpr bool parameter_matches() {
  using p = std::remove_cv_t<P>;
  using d = std::remove_cv_t<D>;
  if constexpr (std::is_same_v<p, d>) {
    return true;
  } else if constexpr (std::is_integral_v<p> && std::is_integral_v<d> && !std::is_same_v<p, bool> &&
                       !std::is_same_v<d, bool>) {
    return sizeof(p) == sizeof(d) && std::is_signed_v<p> == std::is_signed_v<d>;
  } else if constexpr (std::is_pointer_v<p> && std::is_pointer_v<d>) {
    using pe = std::remove_pointer_t<p>;
    using de = std::remove_pointer_t<d>;
    constexpr bool const_ok = !std::is_const_v<de> || std::is_const_v<pe>;
    if constexpr (std::is_void_v<pe> || std::is_void_v<de>) return const_ok;
    else return const_ok && sizeof(pe) == sizeof(de);
  } else if constexpr (std::is_class_v<p> && std::is_class_v<d>) {  // a struct by value: its layout's size
    return sizeof(p) == sizeof(d) && alignof(p) == alignof(d) && std::is_trivially_copyable_v<p>;
  } else {
    return false;
  }
}

template <typename Function>
struct kernel_signature;
template <typename... P>
struct kernel_signature<void (*)(P...)> {
  static constexpr std::size_t count = sizeof...(P);
  using types = std::tuple<P...>;
};

// How many parameters the kernel `Function` takes.
template <typename Function>
constexpr std::size_t parameter_count() {
  return kernel_signature<Function>::count;
}

// Whether parameter I of the kernel matches D; true when the kernel has no parameter I (the
// count's own static_assert reports that), so each mismatch is reported once, at its parameter.
template <typename Function, std::size_t I, typename D>
constexpr bool parameter_at_matches() {
  using signature = kernel_signature<Function>;
  if constexpr (I >= signature::count) return true;
  else return parameter_matches<std::tuple_element_t<I, typename signature::types>, D>();
}

// ---- the state one build makes ----------------------------------------------------------------

using graph_state = backend::graph_state;
using state_ptr = backend::state_ptr;
using backend::create_graph;
using backend::repeat_count;
using backend::repeat_init_function;
using backend::repeat_counter_function;

using backend::cond_init;
using backend::create_conds;
// What add_conditional and capture::conditional take: the backend makes the node's parameters.
inline backend::conditional_node::spec conditional_params(cudaGraphConditionalHandle handle, ir::cond_kind kind,
                                                          unsigned bodies) {
  return {handle, kind, bodies};
}

// ---- the values of one node ----------------------------------------------------------------------

// A kernel launch as CUDA takes it; `arguments` holds each argument's address. Generated code
// and the run-time path (node_params.hpp) both make their launches here.
inline cudaKernelNodeParams launch_params(const void* function, dim3 grid, dim3 block, unsigned shared_bytes,
                                          void** arguments) {
  // Every member named, in order: zeroing the struct first and then writing it was a memset
  // call a node (16 instructions, host_work_generated, run 46).
  return cudaKernelNodeParams{const_cast<void*>(function), grid, block, shared_bytes, arguments, nullptr};
}

template <typename... A>
struct kernel_call {
  dim3 grid{1, 1, 1};
  dim3 block{1, 1, 1};
  unsigned shared_bytes = 0;
  std::tuple<A...> args;
  void* pointers[sizeof...(A) > 0 ? sizeof...(A) : 1] = {};

  // Points at this object's arguments: keep it alive until CUDA has read them.
  cudaKernelNodeParams params(const void* function) {
    std::apply([this](auto&... a) {
      std::size_t i = 0;
      ((pointers[i++] = static_cast<void*>(&a)), ...);
    }, args);
    return launch_params(function, grid, block, shared_bytes, pointers);
  }
};

// The arguments of a repeat's init node (count_done, handle) or counter node (count_done,
// count, handle), for the built-in kernels; the run-time path makes the same struct.
struct repeat_call {
  void* count_done = nullptr;
  unsigned count = 0;  // the counter node only
  cudaGraphConditionalHandle handle = 0;
  bool init = false;
  void* pointers[3] = {};

  cudaKernelNodeParams params() {
    pointers[0] = &count_done;
    pointers[1] = init ? static_cast<void*>(&handle) : static_cast<void*>(&count);
    pointers[2] = &handle;
    return launch_params(init ? repeat_init_function() : repeat_counter_function(), dim3(1), dim3(1), 0, pointers);
  }
};

using memcpy_call = backend::memcpy_params;

// A memset value as the bits of the destination's element type (a memset node writes them).
template <typename T>
unsigned memset_bits(T value) {
  static_assert(sizeof(T) <= sizeof(unsigned));
  unsigned bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}

inline cudaMemsetParams memset_call(void* dst, unsigned value, unsigned element_size, std::size_t count) {
  cudaMemsetParams p{};
  p.dst = dst;
  p.value = value;
  p.elementSize = element_size;
  p.width = count;
  p.height = 1;
  return p;
}

// A host node's user data: the callable and its arguments, owned by a CUDA user object the
// graph retains (so the graph and every exec made from it keep it alive).
using host_slot_base = backend::host_slot;
using backend::run_host_slot;
template <typename... A>
struct host_slot final : host_slot_base {
  host_slot(std::function<void(A...)> f, std::tuple<A...> a) : function(std::move(f)), args(std::move(a)) {}
  void run() override { std::apply(function, args); }
  std::function<void(A...)> function;
  std::tuple<A...> args;
};

template <typename... A>
cudaHostNodeParams host_call(const std::function<void(A...)>& f, std::tuple<A...> args, cudaGraph_t owner,
                             const char* name, const site& at) {
  if (!f) value_failed(at, std::string("host callback '") + name + "'", "no callable was given for it in the callbacks struct");
  return backend::own_host_slot(std::make_unique<host_slot<A...>>(f, std::move(args)), owner, at);
}

// ---- the explicit strategy: one add-node call per step, through the backend's tables -----------

using node_list = std::initializer_list<cudaGraphNode_t>;
template <typename T>
backend::list<T> view(std::initializer_list<T> l) {
  return {l.begin(), l.size()};
}

// `device`: a placed node's GPU (`[[device]]`, `on device`), or -1 for the current one.
template <typename... A>
void add_kernel(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, const void* function,
                kernel_call<A...> call, const site& at, int device = -1) {
  backend::kernel_node::add(g, step, parent, view(d), call.params(function), at, device);
}
// A kernel launching what a kernel added before it launched, which passed the launch check
// (the compiler decides, by the rule of every construction path: plan::launch_memory).
template <typename... A>
void add_kernel_again(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, const void* function,
                      kernel_call<A...> call, const site& at) {
  backend::kernel_node::add_checked(g, step, parent, view(d), call.params(function), at);
}
// explicit_plan::late_readers, in both strategies, once the graph is made.
template <typename... A>
void refresh_kernel(graph_state& g, std::uint32_t step, const void* function, kernel_call<A...> call, const site& at) {
  backend::kernel_node::refresh(g, step, call.params(function), at);
}
// `[[priority(N)]]` and `[[cluster(…)]]` once the graph is made; `[[enabled(…)]]`'s value.
inline void set_kernel_attributes(graph_state& g, std::uint32_t step, bool has_priority, int priority, dim3 cluster,
                                  const site& at) {
  backend::kernel_node::set_attributes(g, step, has_priority ? &priority : nullptr, cluster, at);
}
inline void set_enabled(graph_state& g, std::uint32_t step, bool on) { backend::set_enabled(g, step, on); }
using port_step = plan::port_step;
inline void add_repeat(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, repeat_call call, const site& at) {
  backend::kernel_node::add(g, step, parent, view(d), call.params(), at);
}
inline void add_memcpy(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, memcpy_call call, const site& at,
                       int device = -1) {
  backend::memcpy_node::add(g, step, parent, view(d), call, at, device);
}
inline void add_memset(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, const cudaMemsetParams& call,
                       const site& at, int device = -1) {
  backend::memset_node::add(g, step, parent, view(d), call, at, device);
}
inline void add_host(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, const cudaHostNodeParams& call,
                     const site& at) {
  backend::host_node::add(g, step, parent, view(d), call, at);
}
inline void add_event_record(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, cudaEvent_t e,
                             const site& at) {
  backend::event_record_node::add(g, step, parent, view(d), e, at);
}
inline void add_event_wait(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, cudaEvent_t e,
                           const site& at) {
  backend::event_wait_node::add(g, step, parent, view(d), e, at);
}
inline void add_alloc(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, std::uint32_t index,
                      std::uint64_t bytes, const site& at) {
  backend::alloc_node::add(g, step, parent, view(d), index, bytes, at);
}
inline void add_free(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, std::uint32_t index,
                     const site& at) {
  backend::free_node::add(g, step, parent, view(d), index, at);
}
// The child's counters and host slots must outlive every exec of this graph: the state keeps it.
inline void add_child(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, state_ptr child, const site& at) {
  backend::child_node::add(g, step, parent, view(d), child->graph, at);
  g.set_child(step, std::move(child));
}
inline void add_conditional(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d,
                            backend::conditional_node::spec s, std::uint32_t first_body, const site& at) {
  backend::conditional_node::add(g, step, parent, view(d), s, first_body, at);
}

// A collective node's calls (LANGUAGE.md §15), captured into a graph kept by a state of its own,
// which both strategies embed as a child graph (add_child, capture_session::child).
using backend::collective_call;
template <std::size_t N>
using collective_list = std::array<collective_call, N>;
template <std::size_t N>
state_ptr capture_collectives(const collective_list<N>& calls, const site& at) {
  auto s = std::make_shared<graph_state>(0, 0, 0);
  s->graph = backend::capture_collectives({calls.data(), N}, cudaStreamCaptureModeThreadLocal, at);
  return s;
}

// ---- the capture strategy ------------------------------------------------------------------------

// The backend's capture session, with one short call per node kind.
using backend::relaxed_capture_mode;

class capture_session : public backend::capture_session {
public:
  using backend::capture_session::capture_session;

  void end(std::initializer_list<std::uint32_t> joins) { backend::capture_session::end(view(joins)); }
  void leave_body(std::initializer_list<std::uint32_t> joins) { backend::capture_session::leave_body(view(joins)); }

  template <typename... A>
  void launch(unsigned k, std::uint32_t step, const void* function, kernel_call<A...> call, const site& at,
              int device = -1) {
    backend::kernel_node::capture(*this, k, step, call.params(function), at, device);
  }
  // As add_kernel_again: a kernel captured before passed the check with this launch.
  template <typename... A>
  void launch_again(unsigned k, std::uint32_t step, const void* function, kernel_call<A...> call, const site& at) {
    backend::kernel_node::capture_checked(*this, k, step, call.params(function), at);
  }
  void launch_repeat(unsigned k, std::uint32_t step, repeat_call call, const site& at) {
    backend::kernel_node::capture(*this, k, step, call.params(), at);
  }
  void memcpy(unsigned k, std::uint32_t step, memcpy_call call, const site& at, int device = -1) {
    backend::memcpy_node::capture(*this, k, step, call, at, device);
  }
  void host(unsigned k, std::uint32_t step, const cudaHostNodeParams& call, const site& at) {
    backend::host_node::capture(*this, k, step, call, at);
  }
  void memset(unsigned k, std::uint32_t step, const cudaMemsetParams& call, const site& at, int device = -1) {
    backend::memset_node::capture(*this, k, step, call, at, device);
  }
  void event_record(unsigned k, std::uint32_t step, cudaEvent_t e, const site& at) {
    backend::event_record_node::capture(*this, k, step, e, at);
  }
  void event_wait(unsigned k, std::uint32_t step, cudaEvent_t e, const site& at) {
    backend::event_wait_node::capture(*this, k, step, e, at);
  }
  void alloc(unsigned k, std::uint32_t step, std::uint32_t index, std::uint64_t bytes, const site& at) {
    backend::alloc_node::capture(*this, k, step, index, bytes, at);
  }
  void free(unsigned k, std::uint32_t step, std::uint32_t index, const site& at) {
    backend::free_node::capture(*this, k, step, index, at);
  }
  void child(unsigned k, std::uint32_t step, state_ptr child, const site& at) {
    backend::child_node::capture(*this, k, step, child->graph, at);
    state().set_child(step, std::move(child));
  }
  void conditional(unsigned k, std::uint32_t step, backend::conditional_node::spec s, std::uint32_t first_body,
                   const site& at) {
    backend::conditional_node::capture(*this, k, step, s, first_body, at);
  }
};

// ---- execs and updates ------------------------------------------------------------------------

using exec_core = backend::exec_core;

// Applies per-node changes to an exec through the backend's setters. Generated code runs its
// update once as a dry run (every value computed and checked, nothing applied: a bad value
// throws before anything changes), then for real. A node kind whose per-node update needs a new
// object kept alive (a host callback, a child graph) or a new launch value (a cond) refuses, and
// the exec is updated as a whole.
class node_updater {
public:
  node_updater(const exec_core& e, bool dry_run) : exec_(e), dry_run_(dry_run) {}

  const graph_state& values_from() const { return *exec_.current(); }  // cond handles, counters
  template <typename... A>
  void kernel(std::uint32_t step, const void* function, kernel_call<A...> call) {
    if (start()) finish(backend::kernel_node::set(exec_.get(), exec_.node(step), call.params(function)));
  }
  // A kernel's parameters made by the table form (build_from_table).
  void kernel_params(std::uint32_t step, const cudaKernelNodeParams& params) {
    if (start()) finish(backend::kernel_node::set(exec_.get(), exec_.node(step), params));
  }
  void repeat(std::uint32_t step, repeat_call call) {
    if (start()) finish(backend::kernel_node::set(exec_.get(), exec_.node(step), call.params()));
  }
  void memcpy(std::uint32_t step, memcpy_call call) {
    if (start()) finish(backend::memcpy_node::set(exec_.get(), exec_.node(step), call));
  }
  void memset(std::uint32_t step, const cudaMemsetParams& call) {
    if (start()) finish(backend::memset_node::set(exec_.get(), exec_.node(step), call));
  }
  void enabled(std::uint32_t step, bool on) {
    if (start()) finish(exec_.set_enabled(step, on));
  }
  void event_record(std::uint32_t step, cudaEvent_t e) {
    if (start()) finish(backend::event_record_node::set(exec_.get(), exec_.node(step), e));
  }
  void event_wait(std::uint32_t step, cudaEvent_t e) {
    if (start()) finish(backend::event_wait_node::set(exec_.get(), exec_.node(step), e));
  }
  void refuse() {
    ++changed_;
    refused_ = true;
  }

  std::size_t changed() const { return changed_; }
  bool refused() const { return refused_; }

private:
  bool start() {
    ++changed_;
    return !dry_run_ && !refused_;
  }
  void finish(bool applied) { refused_ = refused_ || !applied; }

  const exec_core& exec_;
  bool dry_run_;
  bool refused_ = false;
  std::size_t changed_ = 0;
};

// ---- the table form: large graphs as constant arrays walked by one loop ----------------------
//
// Above cgraphc's threshold (emit_options::table_threshold), a graph of kernel, memcpy,
// memset, alloc and free nodes (and conditionals and `repeat` loops at its root whose bodies
// hold kernels, memcpys and memsets) is
// written as tables instead of a function per node: the per-kernel static_asserts and every
// node's .cgraph line stay, and the C++ grows by tens of bytes per node instead of hundreds.
// Each argument reads a list entry: a constant that cgraphc converted to the argument's type
// (emit_cpp.hpp, table_converted_entry), or a slot, converted when the node is built: one of
// the parameters' expressions, which generated code computes (each distinct expression once),
// or a constant cgraphc could not convert. Slots convert with the run-time path's conversion
// (ir::convert), so errors read as they do there. A kernel argument that names a cond
// (`while c { k(c); }`) is a computed slot too, which the table's walker fills with the cond's
// handle once the handle exists (node_table::cond_slots); an argument that names an `alloc`
// is a computed slot that the walker fills with the address once the alloc row is made
// (node_table::allocation_slots).

// What an argument is converted to, and what its errors call it.
struct table_argument {
  ir::type target;
  ir::check check;
  const char* what;
};
// A node's arguments (a kernel's, or a memcpy's or memset's three): arguments[first, first + count).
struct table_shape {
  std::uint32_t first;
  std::uint32_t count;
};
// A conditional row keeps its own values in the kernel's fields: its cond_kind in element_size,
// its body count in function, its cond in config and its first body in args; its shape has no
// arguments (a repeat's loop: its count, which the counter row reads). Its cond is made before
// the first row (create_conds; in the capture mode once the root's capture begins, from
// capture_table::conds). A repeat's init and counter rows name the loop's cond in config, whose
// counter memory (graph_state::repeat_counts) the build made before the rows (repeat_count);
// the counter's one argument is the iteration count. A kernel row's element_size is 1 where both
// walks make it without the launch check (plan::launch_memory: a row before it launched the
// same; a capture makes the rows in step order too). An alloc or free row names its allocation
// in config (graph_state::allocations); the alloc's one argument is its byte count.
struct table_node {
  ir::node_kind kind;          // kernel, memcpy, memset, conditional, repeat_init, repeat_counter, mem_alloc or mem_free
  std::uint8_t element_size;   // memset: 1, 2 or 4; conditional: its ir::cond_kind; kernel: 1 where its launch is known
  std::uint16_t function;      // kernel: index into node_table::functions; conditional: its bodies
  std::uint16_t shape;         // index into node_table::shapes: its arguments' targets
  std::uint32_t line;
  std::uint32_t column;
  std::uint32_t config;        // kernel: 7 entries (grid, block, shared bytes) at slot_lists[config]; conditional, repeat: its cond;
                               // alloc, free: its allocation
  std::uint32_t args;          // its arguments' entries at slot_lists[args] (memcpy, memset: 3); conditional: its first body
  std::uint32_t deps;          // its dependencies, steps at node_table::deps[deps, deps + dep_count)
  std::uint32_t dep_count;
  std::uint32_t graph;         // the graph it is added to: 0 the root, b + 1 body b
};
// Computed slot `slot` (s[slot], after the constants) holds the handle of cond `cond`.
struct table_cond_slot {
  std::uint32_t slot;
  std::uint32_t cond;
};
struct node_table {
  const char* file;
  backend::list<table_node> nodes;
  backend::list<std::uint32_t> slot_lists;
  backend::list<std::uint32_t> deps;
  backend::list<table_shape> shapes;
  backend::list<table_argument> arguments;
  backend::list<const void*> functions;
  // The constant slots: kinds[k] is 'i' (an integer, bits its two's complement), 'f' (a double,
  // its IEEE bits), 'b' (a bool) or 'p' (a pointer), and bits[k] its bits. The computed slots
  // follow them.
  const char* constant_kinds;
  backend::list<std::uint64_t> constant_bits;
  backend::list<std::uint64_t> converted;  // constants as their arguments take them
  backend::list<table_cond_slot> cond_slots;  // the computed slots that hold cond handles
  // By allocation, the computed slot that holds its address, or ir::none where no argument
  // names it; empty for a graph that allocates nothing.
  backend::list<std::uint32_t> allocation_slots;
};
// The statement of row `n` of table `t`.
inline site row_site(const node_table& t, const table_node& n) { return site{t.file, n.line, n.column}; }
// A table-form graph's state: a step's site is its row's, worked out when an error needs one
// (the readable form's state has a constant table of sites instead).
struct table_state final : graph_state {
  explicit table_state(const node_table& t, std::size_t body_count = 0, std::size_t cond_count = 0)
      : graph_state(t.nodes.size(), body_count, cond_count, t.allocation_slots.size()), table(t) {}
  site step_site(std::uint32_t step) const override { return row_site(table, table.nodes.data()[step]); }
  node_table table;
};
// The capture mode's order of a table's rows: backend::capture_row, one op a row (a node, or a
// conditional body's start or end), walked by backend::walk_capture_rows
// (cgraph/runtime/backend/capture_rows.hpp), which the run-time capture walks too.
using capture_op = backend::capture_op;
using table_capture_node = backend::capture_row;
struct capture_table {
  unsigned streams;                            // the root's streams, 1 for a chain
  backend::list<table_capture_node> nodes;     // every step of the node table once, each body's enter and leave
  backend::list<std::uint32_t> waits;
  backend::list<std::uint32_t> joins;          // last steps of streams 1… that stream 0 waits for at the end
  backend::list<cond_init> conds;              // made in the root graph once its capture begins
};
// Room for the `computed` slots, which generated code fills (s[k] is slot constants + k), but
// for the cond slots, which the walkers below fill.
std::vector<value> table_slots(std::size_t computed);
// Adds every node of `t` to g.graph (made already, with its conds), in order, with `computed`'s
// values.
void build_from_table(graph_state& g, const node_table& t, std::vector<value>& computed);
// Captures every node of `t` into a new g.graph, in `c`'s order, with `computed`'s values: the
// stream-capture strategy of the table form. `at` is the graph's statement.
void capture_from_table(graph_state& g, const node_table& t, const capture_table& c, std::vector<value>& computed,
                        const site& at);
// Sets again each node that reads a computed slot whose value differs between `before` and `now`
// (a cond slot holds the exec's handle in both).
void update_from_table(node_updater& u, const node_table& t, std::vector<value>& before, std::vector<value>& now);

template <typename Traits>
class exec {
public:
  using parameters = typename Traits::parameters;
  using callbacks = typename Traits::callbacks;

  exec(state_ptr s, const parameters& p, const callbacks& c, const instantiate_options& o)
      : core_(std::move(s), o), params_(p), callbacks_(c) {}

  cudaGraphExec_t get() const { return core_.get(); }
  void upload(cudaStream_t stream) { core_.upload(stream); }
  void launch(cudaStream_t stream) { core_.launch(stream); }

  // Re-computes the values the changed parameters reach and applies them by the backend's
  // update policy (exec_core.hpp): per-node setters, then cudaGraphExecUpdate, then a new
  // instantiation.
  update_result update(const parameters& p) {
    node_updater dry(core_, true);
    Traits::update_nodes(dry, params_, p);
    if (dry.changed() == 0 && core_.settled()) {
      params_ = p;
      return {update_path::unchanged, 0};
    }
    update_path path = core_.update(
        [&] {
          if (dry.refused()) return false;
          node_updater real(core_, false);
          Traits::update_nodes(real, params_, p);
          return !real.refused();
        },
        [&] { return Traits::build_state(p, callbacks_); });
    params_ = p;
    return {path, dry.changed()};
  }

  const parameters& params() const { return params_; }

private:
  exec_core core_;
  parameters params_;
  callbacks callbacks_;
};

template <typename Traits>
class graph {
public:
  using parameters = typename Traits::parameters;
  using callbacks = typename Traits::callbacks;

  graph(const parameters& p, const callbacks& c) : state_(Traits::build_state(p, c)), params_(p), callbacks_(c) {}

  cudaGraph_t get() const { return state_->graph; }
  const graph_state& state() const { return *state_; }
  std::size_t node_count() const;  // CUDA nodes in the root graph
  std::vector<cudaGraph_t> conditional_bodies(cudaGraphNode_t node) const { return state_->conditional_bodies(node); }
  exec<Traits> instantiate(const instantiate_options& o = {}) const { return exec<Traits>(state_, params_, callbacks_, o); }

private:
  state_ptr state_;
  parameters params_;
  callbacks callbacks_;
};

// CUDA nodes in the root graph of `g`.
std::size_t root_node_count(const graph_state& g);
template <typename Traits>
std::size_t graph<Traits>::node_count() const {
  return root_node_count(*state_);
}

}  // namespace cgraph::gen

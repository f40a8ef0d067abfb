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
// The generated code calls CUDA itself (add-node calls, or launches during stream capture);
// what lives here is what every generated graph needs the same way: checked arithmetic with
// the run-time path's messages, value conversions, the state a built graph owns, the capture
// session, and the exec with its update fallbacks. Errors name the .cgraph file:line:col.

#include <cgraph/ir.hpp>
#include <cgraph/runtime/error.hpp>
#include <cgraph/runtime/graph.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace cgraph::detail {
// The fault-injection seam (cgraph/runtime/testing.hpp): true when the CUDA call about to be
// made should fail instead. Generated code's calls pass it like the run-time path's.
bool inject_fault() noexcept;
}  // namespace cgraph::detail

namespace cgraph::gen {

// ---- where: a .cgraph position ----------------------------------------------------------------

struct site {
  const char* file = "";
  unsigned line = 0;
  unsigned column = 0;

  std::string str() const;  // "file:line:col"
};

// Throws cuda_error naming the call and the site.
[[noreturn]] void cuda_failed(cudaError_t status, const char* api, const site& at);
// Throws build_error at the site: "<what>: <message>".
[[noreturn]] void value_failed(const site& at, const std::string& what, const std::string& message);

inline void check(cudaError_t status, const char* api, const site& at) {
  if (status != cudaSuccess) cuda_failed(status, api, at);
}

// ---- checked arithmetic, with the messages of the run-time path (cgraph::ir::apply) -----------

std::int64_t int_op(ir::op o, std::int64_t a, std::int64_t b, const site& at);
double float_op(ir::op o, double a, double b, const site& at);

#define CGRAPH_GEN_OP(name)                                                                          \
  inline std::int64_t name(std::int64_t a, std::int64_t b, const site& at) { return int_op(ir::op::name, a, b, at); } \
  inline double name(double a, double b, const site& at) { return float_op(ir::op::name, a, b, at); }
CGRAPH_GEN_OP(add)
CGRAPH_GEN_OP(sub)
CGRAPH_GEN_OP(mul)
CGRAPH_GEN_OP(div)
CGRAPH_GEN_OP(min)
CGRAPH_GEN_OP(max)
#undef CGRAPH_GEN_OP
#define CGRAPH_GEN_INT_OP(name) \
  inline std::int64_t name(std::int64_t a, std::int64_t b, const site& at) { return int_op(ir::op::name, a, b, at); }
CGRAPH_GEN_INT_OP(mod)
CGRAPH_GEN_INT_OP(shl)
CGRAPH_GEN_INT_OP(shr)
CGRAPH_GEN_INT_OP(bit_and)
CGRAPH_GEN_INT_OP(bit_or)
CGRAPH_GEN_INT_OP(bit_xor)
CGRAPH_GEN_INT_OP(ceil_div)
#undef CGRAPH_GEN_INT_OP
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

// Whether a parameter changed, comparing bits (a NaN equals itself; 0.0 differs from -0.0).
template <typename T>
bool differs(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) != 0;
}

// ---- kernel signatures --------------------------------------------------------------------------

// A kernel's C++ parameter P matches a declared .cgraph type D when they are the same type,
// or pointers to the same type up to const/volatile (a `f32*` may be a `const float*`).
template <typename P, typename D>
constexpr bool parameter_matches() {
  using p = std::remove_cv_t<P>;
  if constexpr (std::is_same_v<p, D>) return true;
  else if constexpr (std::is_pointer_v<p> && std::is_pointer_v<D>)
    return std::is_same_v<std::remove_cv_t<std::remove_pointer_t<p>>, std::remove_pointer_t<D>>;
  else return false;
}

template <typename... Declared>
struct declared {};

template <typename Function, typename Declared>
struct signature_matches : std::false_type {};

template <typename... P, typename... D>
  requires(sizeof...(P) == sizeof...(D))
struct signature_matches<void (*)(P...), declared<D...>> : std::bool_constant<(parameter_matches<P, D>() && ...)> {};

// ---- the state one build makes ----------------------------------------------------------------

// What a generated build owns: the graph, a node handle per plan step, the body graphs of its
// conditional nodes, cond handles, repeat counters and child graphs. Launches of any exec made
// from it may read these, so execs share ownership.
struct graph_state {
  graph_state(std::size_t steps, std::size_t bodies, std::size_t conds);
  graph_state(const graph_state&) = delete;
  graph_state& operator=(const graph_state&) = delete;
  ~graph_state();

  cudaGraph_t graph = nullptr;
  site graph_site;                               // the `graph` declaration
  std::vector<cudaGraphNode_t> nodes;            // by plan step
  std::vector<site> sites;                       // by plan step: the statement that made it
  std::vector<cudaGraph_t> bodies;               // by body index (owned by their conditional node)
  std::vector<std::uint32_t> body_steps;         // by body index: the conditional's step
  std::vector<cudaGraphConditionalHandle> conds;  // by cond index
  std::vector<void*> repeat_counts;              // by cond index: a repeat's iteration count
  std::vector<std::shared_ptr<graph_state>> children;  // by plan step, child-graph nodes

  // The .cgraph site of a node of this graph or of a child it embeds ("" when unknown).
  std::string site_of(cudaGraphNode_t node) const;
  // The body graphs of a conditional node of this graph (empty for any other node).
  std::vector<cudaGraph_t> conditional_bodies(cudaGraphNode_t node) const;
};

using state_ptr = std::shared_ptr<graph_state>;

// Creates the cond handles `conds` live in `graph` (a root or a body), in cond order.
struct cond_init {
  std::uint32_t cond;
  unsigned value;
  bool has_default;
  site at;
};
void create_conds(graph_state& g, cudaGraph_t graph, std::initializer_list<cond_init> conds);
// The device counter a `repeat` (cond `cond`) counts iterations in, allocated once.
void* repeat_count(graph_state& g, std::uint32_t cond, const site& at);
const void* repeat_init_function();
const void* repeat_counter_function();
// Conditional-node parameters after checking the driver supports the kind.
cudaGraphNodeParams conditional_params(cudaGraphConditionalHandle handle, ir::cond_kind kind, unsigned bodies);
// Records the body graphs a conditional node made for step `step`, from body index `first`.
void keep_bodies(graph_state& g, std::uint32_t step, std::uint32_t first, const cudaGraphNodeParams& p);
// Puts `g.nodes[step]`'s site in place (for error mapping at instantiate time).
inline void mark(graph_state& g, std::uint32_t step, const site& at) { g.sites[step] = at; }

// ---- the values of one node ----------------------------------------------------------------------

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
    cudaKernelNodeParams p{};
    p.func = const_cast<void*>(function);
    p.gridDim = grid;
    p.blockDim = block;
    p.sharedMemBytes = shared_bytes;
    p.kernelParams = pointers;
    return p;
  }
};

struct repeat_call {
  void* count_done = nullptr;
  unsigned count = 0;  // the counter node only
  cudaGraphConditionalHandle handle = 0;
  bool init = false;
  void* pointers[3] = {};
  cudaKernelNodeParams p{};

  cudaKernelNodeParams* params() {
    pointers[0] = &count_done;
    pointers[1] = init ? static_cast<void*>(&handle) : static_cast<void*>(&count);
    pointers[2] = &handle;
    p.func = const_cast<void*>(init ? repeat_init_function() : repeat_counter_function());
    p.gridDim = dim3(1);
    p.blockDim = dim3(1);
    p.kernelParams = pointers;
    return &p;
  }
};

struct memcpy_call {
  void* dst;
  const void* src;
  std::size_t bytes;
};

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
void CUDART_CB run_host_slot(void* slot);
struct host_slot_base {
  virtual ~host_slot_base() = default;
  virtual void run() = 0;
};
template <typename... A>
struct host_slot final : host_slot_base {
  host_slot(std::function<void(A...)> f, std::tuple<A...> a) : function(std::move(f)), args(std::move(a)) {}
  void run() override { std::apply(function, args); }
  std::function<void(A...)> function;
  std::tuple<A...> args;
};
// Hands `slot` to a user object retained by `owner`; returns the host-node parameters.
cudaHostNodeParams own_host_slot(std::unique_ptr<host_slot_base> slot, cudaGraph_t owner, const site& at);

template <typename... A>
cudaHostNodeParams host_call(const std::function<void(A...)>& f, std::tuple<A...> args, cudaGraph_t owner,
                             const char* name, const site& at) {
  if (!f) value_failed(at, std::string("host callback '") + name + "'", "no callable was given for it in the callbacks struct");
  return own_host_slot(std::make_unique<host_slot<A...>>(f, std::move(args)), owner, at);
}

// ---- the explicit strategy: one add-node call per step ------------------------------------------

using node_list = std::initializer_list<cudaGraphNode_t>;

template <typename... A>
void add_kernel(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, const void* function,
                kernel_call<A...> call, const site& at) {
  mark(g, step, at);
  cudaKernelNodeParams p = call.params(function);
  check(detail::inject_fault() ? cudaErrorNotPermitted : cudaGraphAddKernelNode(&g.nodes[step], parent, d.begin(), d.size(), &p),
        "cudaGraphAddKernelNode", at);
}
void add_repeat(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, repeat_call call, const site& at);
void add_memcpy(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, memcpy_call call, const site& at);
void add_memset(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, const cudaMemsetParams& call,
                const site& at);
void add_host(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, const cudaHostNodeParams& call,
              const site& at);
void add_child(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, state_ptr child, const site& at);
void add_conditional(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, cudaGraphNodeParams p,
                     std::uint32_t first_body, const site& at);
void create_graph(graph_state& g, const site& at);

// ---- the capture strategy ------------------------------------------------------------------------

// One stream capture of a graph and its conditional bodies. Each body (the root first) is
// captured on streams of its own: stream 0 begins and ends it, the others fork from it and join
// it at the end. A failure anywhere ends every open capture, innermost first, and the
// destructor gives the streams and events back, so no stream is left capturing.
class capture_session {
public:
  capture_session(graph_state& g, const site& at, cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal);
  capture_session(const capture_session&) = delete;
  capture_session& operator=(const capture_session&) = delete;
  ~capture_session();

  void begin(unsigned streams);              // the root graph
  void end(std::initializer_list<std::uint32_t> joins);
  void enter_body(std::uint32_t body, unsigned streams);  // a body of the conditional just added
  void leave_body(std::initializer_list<std::uint32_t> joins);

  cudaGraph_t graph() const;                 // the graph of the body being captured
  cudaStream_t stream(unsigned k) const;     // stream k of the body being captured
  void wait(unsigned k, std::uint32_t step);    // stream k waits for step's event
  void record(unsigned k, std::uint32_t step);  // records step's event on stream k
  // The node the last call on stream k captured becomes step's node.
  void captured(unsigned k, std::uint32_t step, const site& at);

  template <typename... A>
  void launch(unsigned k, std::uint32_t step, const void* function, kernel_call<A...> call, const site& at) {
    mark(g_, step, at);
    cudaKernelNodeParams p = call.params(function);
    check(detail::inject_fault() ? cudaErrorNotPermitted
                                 : cudaLaunchKernel(p.func, p.gridDim, p.blockDim, p.kernelParams, p.sharedMemBytes, stream(k)),
          "cudaLaunchKernel", at);
    captured(k, step, at);
  }
  void launch_repeat(unsigned k, std::uint32_t step, repeat_call call, const site& at);
  void memcpy(unsigned k, std::uint32_t step, memcpy_call call, const site& at);
  void host(unsigned k, std::uint32_t step, const cudaHostNodeParams& call, const site& at);
  // Nodes without a stream call are added to the capturing graph and made the stream's dependency.
  void memset(unsigned k, std::uint32_t step, const cudaMemsetParams& call, const site& at);
  void child(unsigned k, std::uint32_t step, state_ptr child, const site& at);
  void conditional(unsigned k, std::uint32_t step, cudaGraphNodeParams p, std::uint32_t first_body, const site& at);
  // The root graph being captured (host slots are owned by it).
  cudaGraph_t root() const;

private:
  template <typename Add>
  void add_node(unsigned k, std::uint32_t step, const site& at, Add add);
  void fork(unsigned streams);
  void join(std::initializer_list<std::uint32_t> joins);
  cudaGraph_t close_frame(std::initializer_list<std::uint32_t> joins);
  cudaEvent_t event_of(std::uint32_t step);
  void abort() noexcept;

  graph_state& g_;
  site at_;
  cudaStreamCaptureMode mode_;
  std::vector<std::vector<cudaStream_t>> frames_;  // per open body: its streams
  std::vector<bool> frame_is_body_;
  std::vector<cudaStream_t> taken_;
  std::vector<cudaStream_t> free_;
  std::vector<cudaEvent_t> events_;
  std::vector<cudaEvent_t> step_events_;
  cudaGraph_t root_ = nullptr;
};

// ---- execs and updates ------------------------------------------------------------------------

// The non-generic half of an exec: the handle, the graph it was instantiated from (whose node
// handles name its nodes), the graph whose values it holds now, and a fence for launches.
class exec_core {
public:
  exec_core(state_ptr from, const instantiate_options& options);
  exec_core(exec_core&&) noexcept;
  exec_core& operator=(exec_core&&) noexcept;
  ~exec_core();

  cudaGraphExec_t get() const { return exec_; }
  void upload(cudaStream_t stream);
  void launch(cudaStream_t stream);
  const graph_state& origin() const { return *origin_; }
  const graph_state& current() const { return *current_; }
  // Applies a whole rebuilt graph: cudaGraphExecUpdate, else a new instantiation.
  update_path replace(state_ptr rebuilt);

private:
  void release() noexcept;
  cudaGraphExec_t exec_ = nullptr;
  instantiate_options options_;
  state_ptr origin_;
  state_ptr current_;
  cudaEvent_t last_launch_ = nullptr;
};

// Applies per-node changes to an exec. Generated code runs its update once as a dry run (every
// value computed and checked, nothing applied: a bad value throws before anything changes), then
// for real. A node kind the exec setters cannot change in place (a host callback, a child graph,
// a cond's launch value) refuses, and the exec is updated as a whole.
class node_updater {
public:
  node_updater(const exec_core& e, bool dry_run) : exec_(e), dry_run_(dry_run) {}

  const graph_state& values_from() const { return exec_.current(); }  // cond handles, counters
  template <typename... A>
  void kernel(std::uint32_t step, const void* function, kernel_call<A...> call) {
    if (!start()) return;
    cudaKernelNodeParams p = call.params(function);
    finish(detail::inject_fault() ? cudaErrorNotPermitted
                                  : cudaGraphExecKernelNodeSetParams(exec_.get(), exec_.origin().nodes[step], &p));
  }
  void repeat(std::uint32_t step, repeat_call call);
  void memcpy(std::uint32_t step, memcpy_call call);
  void memset(std::uint32_t step, const cudaMemsetParams& call);
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
  void finish(cudaError_t status);

  const exec_core& exec_;
  bool dry_run_;
  bool refused_ = false;
  std::size_t changed_ = 0;
};

// Whether test hooks (cgraph::testing::refuse_updates) refuse a path for this thread.
bool refused_by_test(update_path path);

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

  // Re-computes the values the changed parameters reach and applies them by the cheapest path
  // CUDA accepts: per-node setters, then cudaGraphExecUpdate, then a new instantiation.
  update_result update(const parameters& p) {
    if (mixed_) {  // a failed update left some nodes holding values that `params_` does not give
      update_path path = core_.replace(Traits::build_state(p, callbacks_));
      mixed_ = false;
      params_ = p;
      return {path, 0};
    }
    node_updater dry(core_, true);
    Traits::update_nodes(dry, params_, p);
    if (dry.changed() == 0) {
      params_ = p;
      return {update_path::unchanged, 0};
    }
    if (!dry.refused() && !refused_by_test(update_path::node_params)) {
      node_updater real(core_, false);
      Traits::update_nodes(real, params_, p);
      if (!real.refused()) {
        params_ = p;
        return {update_path::node_params, real.changed()};
      }
      // Nodes set before the refusal hold new values until the whole graph is applied; if
      // that fails, only a whole-graph update puts the exec right.
      mixed_ = true;
    }
    update_path path = core_.replace(Traits::build_state(p, callbacks_));
    mixed_ = false;
    params_ = p;
    return {path, dry.changed()};
  }

  const parameters& params() const { return params_; }

private:
  exec_core core_;
  parameters params_;
  callbacks callbacks_;
  bool mixed_ = false;  // see update()
};

template <typename Traits>
class graph {
public:
  using parameters = typename Traits::parameters;
  using callbacks = typename Traits::callbacks;

  graph(const parameters& p, const callbacks& c) : state_(Traits::build_state(p, c)), params_(p), callbacks_(c) {}

  cudaGraph_t get() const { return state_->graph; }
  const graph_state& state() const { return *state_; }
  std::size_t node_count() const {  // CUDA nodes in the root graph
    std::size_t n = 0;
    check(cudaGraphGetNodes(state_->graph, nullptr, &n), "cudaGraphGetNodes", {});
    return n;
  }
  std::vector<cudaGraph_t> conditional_bodies(cudaGraphNode_t node) const { return state_->conditional_bodies(node); }
  exec<Traits> instantiate(const instantiate_options& o = {}) const { return exec<Traits>(state_, params_, callbacks_, o); }

private:
  state_ptr state_;
  parameters params_;
  callbacks callbacks_;
};

}  // namespace cgraph::gen

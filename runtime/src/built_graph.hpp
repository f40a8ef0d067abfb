#pragma once
// The state behind cgraph::graph and cgraph::graph_exec: a CUDA graph built from an explicit
// plan, with a record per plan step (its node handle and the values it was built with).

#include "plan_rows.hpp"
#include "check.hpp"
#include "libraries.hpp"

#include <cgraph/compiler/eval.hpp>
#include <cgraph/runtime/backend/graph_state.hpp>
#include <cgraph/compiler/plan.hpp>
#include <cgraph/runtime/args.hpp>
#include <cgraph/runtime/graph.hpp>
#include <cgraph/runtime/registry.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <cstring>
#include <vector>

namespace cgraph::detail {

// What a change of each graph parameter reaches, so an update touches only that.
struct graph_dependencies {
  ir::dependency_index exprs;
  std::vector<std::vector<std::uint32_t>> steps_by_param;  // plan steps whose values read the parameter
  // Whether a cond's launch value reads it: bytes, not std::vector<bool>, whose bit proxy cost a
  // parameter handle's update ten instructions.
  std::vector<std::uint8_t> cond_defaults_by_param;
  // The expressions that read an `alloc`'s address (ir::graph::reads_allocation), which exists
  // only once its node is added, after the build has evaluated its pool (resolve_allocations
  // puts it in): the alloc references themselves, and the expressions that read one through an
  // operand (a struct field, `? :`, a `let`), both increasing. Each has a slot of its own in a
  // build's pool, as an expression that reads a parameter has. Empty unless the graph allocates.
  std::vector<std::uint32_t> allocation_refs, allocation_readers;
};
graph_dependencies index_graph(const ir::graph& g, const plan::explicit_plan& plan);

struct graph_templates;
struct resolved_symbols;

// What a program makes for one of its graphs the first time it is needed and then keeps (its
// templates, its capture plan): by graph index, made under a lock, so builds on several threads
// make each once.
template <typename T>
class made_once_per_graph {
public:
  // Graph `index`'s (of `graphs`), from `make()` (a std::unique_ptr<T>) the first time.
  template <typename Make>
  const T& get(std::uint32_t index, std::size_t graphs, Make make) const {
    std::lock_guard<std::mutex> guard(lock_);
    if (made_.size() < graphs) made_.resize(graphs);
    if (!made_[index]) made_[index] = make();
    return *made_[index];
  }

private:
  mutable std::mutex lock_;
  mutable std::vector<std::unique_ptr<T>> made_;
};

struct program_state {
  program_state(source_file s, ir::program p)
      : source(std::move(s)), program(std::move(p)),
        checked_registered(std::make_unique<std::atomic<const void*>[]>(program.kernels.size())) {}

  source_file source;
  ir::program program;
  std::vector<plan::explicit_plan> plans;         // by graph index
  std::vector<graph_dependencies> dependencies;   // by graph index
  std::string directory;                   // where relative module paths start: the file's folder
  std::shared_ptr<library_cache> libraries = std::make_shared<library_cache>();

  // Graph `index`'s templates, made the first time it is built (node_values.cpp); they live as
  // long as the program.
  const graph_templates& templates(std::uint32_t index) const;
  // Graph `index`'s capture plan (over its explicit plan's steps) as rows (plan_rows.hpp),
  // made the first time it is built with stream capture: a program built only with explicit
  // nodes never plans a capture (it was a fifth of a 1 000-node text -> graph build of
  // conditionals).
  const capture_rows& capture(std::uint32_t index) const;

  // By IR kernel index: the registered function last checked against the kernel's declaration
  // (kernels.cpp), so a later build with the same function takes it as resolved (resolve). A
  // module's or NVRTC's kernel handle is not a stable key: those are checked by every build.
  mutable std::unique_ptr<std::atomic<const void*>[]> checked_registered;

  // The symbols the last build resolved, and against what: a build with the same registry
  // version and options takes them as they are (resolve, values.cpp).
  struct resolved_for {
    std::shared_ptr<const resolved_symbols> symbols;
    registry::version version;
    build_options options;
  };
  mutable std::mutex symbols_lock;
  mutable resolved_for last_symbols;

private:
  std::unique_ptr<graph_templates> make_templates(std::uint32_t index) const;  // node_values.cpp
  made_once_per_graph<graph_templates> templates_;
  made_once_per_graph<capture_rows> capture_rows_;
};

// Where one graph's kernels and callbacks come from. The registry's entries are copied out at
// build time, so graphs and execs do not depend on the registry object; kernels are resolved
// (from the registry, a module or NVRTC) and checked against their declaration on first use.
struct resolved_symbols {
  std::vector<registry::kernel_entry> registered;  // by IR kernel index; function null when absent
  std::vector<registry::host_entry> hosts;         // by IR host index; function null when absent
  std::vector<std::shared_ptr<const captured_routine>> routines;  // by IR kernel index, or null
  bool any_routine = false;  // whether any of `routines` is set: a build then asks per kernel node
  std::string module_directory;
  bool allow_module_paths_outside_directory = false;
  strategy how = strategy::explicit_nodes;
  cudaStreamCaptureMode capture_mode = cudaStreamCaptureModeThreadLocal;

  mutable std::mutex lock;  // resolving and checking a kernel the first time
  // Resolved and checked functions by IR kernel index; read without the lock once set.
  mutable std::unique_ptr<std::atomic<const void*>[]> functions;
};

// kernel_function for a kernel this build has not resolved yet (kernels.cpp).
const void* resolve_kernel_function(const program_state& p, const resolved_symbols& s, std::uint32_t kernel,
                                    const where& at);

// The function of kernel `kernel` for a kernel node, resolved and checked once: declared
// parameter count and sizes against the registered function's C++ signature, or a library
// kernel's real ones (cudaFuncGetParamInfo, driver 12.4+).
// Inline: every kernel node of a build asks, and all but the first find it at once.
inline const void* kernel_function(const program_state& p, const resolved_symbols& s, std::uint32_t kernel,
                                   const where& at) {
  if (const void* f = s.functions[kernel].load(std::memory_order_acquire)) return f;
  return resolve_kernel_function(p, s, kernel, at);
}

// Graph parameter values by index. A struct's bytes are copied into a buffer of its own, shared
// by copies and never written: copying is cheap, and one address is one content (an update
// compares parameters by value). The buffers' list stays empty until a struct is set, so
// copying the values of a graph without struct parameters (two copies an instantiation) makes
// one allocation, not two.
class param_values {
public:
  param_values() = default;
  explicit param_values(std::size_t n) : values_(n) {}

  std::size_t size() const { return values_.size(); }
  const std::optional<ir::value>& operator[](std::size_t i) const { return values_[i]; }
  std::span<const std::optional<ir::value>> view() const { return values_; }
  // Sets parameter i (a struct's bytes are copied).
  void set(std::size_t i, const ir::value& v) {
    if (v.k == ir::value::kind::structure || !bytes_.empty()) return set_with_bytes(i, v);
    values_[i] = v;  // no struct set or held: the common case, a handle's assignment
  }

  // Takes parameter i as `from` holds it (a struct's bytes shared, not copied).
  void copy(std::size_t i, const param_values& from) {
    if (!bytes_.empty() || !from.bytes_.empty()) copy_bytes(i, from);  // first: it may throw
    values_[i] = from.values_[i];
  }

private:
  std::vector<std::optional<ir::value>> values_;
  // By parameter, a struct's bytes; empty while no struct was set.
  std::vector<std::shared_ptr<const std::byte[]>> bytes_;

  // set() and copy() where either side holds a struct's bytes: rare, kept out of their line.
  [[gnu::noinline]] void set_with_bytes(std::size_t i, const ir::value& v) {
    if (v.k != ir::value::kind::structure || v.bits == 0) {
      values_[i] = v;
      if (!bytes_.empty()) bytes_[i].reset();
      return;
    }
    // What may throw comes first: a failure leaves parameter i as it was.
    if (bytes_.empty()) bytes_.resize(values_.size());
    auto size = static_cast<std::size_t>(v.i);
    auto copy = std::make_shared<std::byte[]>(size);
    std::memcpy(copy.get(), reinterpret_cast<const void*>(v.bits), size);
    values_[i] = ir::value::structure(copy.get(), static_cast<std::uint32_t>(size));
    bytes_[i] = std::move(copy);  // lets the bytes it held before go
  }
  [[gnu::noinline]] void copy_bytes(std::size_t i, const param_values& from) {
    const bool from_struct = !from.bytes_.empty() && from.bytes_[i];
    if (!from_struct && (bytes_.empty() || !bytes_[i])) return;
    if (bytes_.empty()) bytes_.resize(values_.size());
    bytes_[i] = from_struct ? from.bytes_[i] : nullptr;  // a shared count
  }
};

// A host node's user data: the callable and its arguments (backend::host_slot), run through
// backend::run_host_slot like generated code's slots. A built graph's slots are owned by CUDA
// user objects retained by the graph; an update makes a new one, kept by the exec. A struct
// argument's bytes are copied into the slot.
struct host_slot final : backend::host_slot {
  host_slot(std::shared_ptr<const host_function> f, std::span<const ir::value> a, std::span<const std::byte> struct_bytes)
      : function(std::move(f)), args(a.begin(), a.end()), bytes(struct_bytes.begin(), struct_bytes.end()) {
    const auto base = reinterpret_cast<std::uint64_t>(struct_bytes.data());
    for (auto& v : args)
      if (v.k == ir::value::kind::structure) v.bits = reinterpret_cast<std::uint64_t>(bytes.data()) + (v.bits - base);
  }
  void run() override { (*function)(args); }

  std::shared_ptr<const host_function> function;
  std::vector<ir::value> args;
  std::vector<std::byte> bytes;
};

// Whether two converted values are the same bytes of the same size. The bytes past `size` are
// zero (ir::converted_bytes), so one load compares them all.
inline bool same_bytes(const ir::converted_bytes& x, const ir::converted_bytes& y) {
  return x.size == y.size && x.as_u64() == y.as_u64();
}

// The values of one node, converted as CUDA wants them. A built graph does not keep them: they
// follow from its evaluated pool (compute_values), and a build computes each node's into one
// buffer, used until the next node. An exec keeps its own copy of a node's values once an
// update changes them (exec_state).
struct node_values {
  dim3 grid{1, 1, 1};
  dim3 block{1, 1, 1};
  unsigned shared_bytes = 0;
  std::int8_t enabled = -1;  // `[[enabled(…)]]`: 0 or 1; -1 for a node without it
  int device = -1;           // `[[device(…)]]` / `on device(…)`: the GPU; -1 for the current one
  std::vector<ir::converted_bytes> args;  // kernel and host arguments; memcpy/memset operands
  std::vector<ir::value> values;    // host and child-graph arguments as values of their types
  // Struct arguments' bytes: such an argument's `args` entry is `indirect`, its as_u64() the
  // offset here, and its value in `values` points here.
  std::vector<std::byte> struct_bytes;

  // Exchanges two nodes' values, buffers included.
  void swap(node_values& other) noexcept {
    std::swap(grid, other.grid);
    std::swap(block, other.block);
    std::swap(shared_bytes, other.shared_bytes);
    std::swap(enabled, other.enabled);
    std::swap(device, other.device);
    args.swap(other.args);
    values.swap(other.values);
    struct_bytes.swap(other.struct_bytes);
  }

  // Takes `other`'s values into this node's buffers (no allocation once they are large enough).
  void assign(const node_values& other) {
    grid = other.grid;
    block = other.block;
    shared_bytes = other.shared_bytes;
    enabled = other.enabled;
    device = other.device;
    args.assign(other.args.begin(), other.args.end());
    values.assign(other.values.begin(), other.values.end());
    struct_bytes.assign(other.struct_bytes.begin(), other.struct_bytes.end());
  }

  // The address CUDA reads argument i from.
  void* argument_address(std::size_t i) {
    ir::converted_bytes& a = args[i];
    return a.indirect ? static_cast<void*>(struct_bytes.data() + a.as_u64()) : static_cast<void*>(a.bytes.data());
  }

  // Whether a node's setter would be handed the same thing: launch dimensions, device and every
  // argument's bytes (`values` repeat what `args` hold). `enabled` has a setter of its own, and
  // neither setter changes what the other set (cudaGraphNodeSetEnabled: "existing node
  // parameters are not affected by disabling/enabling the node").
  friend bool same_setter_values(const node_values& a, const node_values& b) {
    return a.grid.x == b.grid.x && a.grid.y == b.grid.y && a.grid.z == b.grid.z && a.block.x == b.block.x &&
           a.block.y == b.block.y && a.block.z == b.block.z && a.shared_bytes == b.shared_bytes && a.device == b.device &&
           std::equal(a.args.begin(), a.args.end(), b.args.begin(), b.args.end(), same_bytes) &&
           std::equal(a.struct_bytes.begin(), a.struct_bytes.end(), b.struct_bytes.begin(), b.struct_bytes.end());
  }
  // Whether CUDA would be handed the same thing, `enabled` included. How update() tells which
  // nodes changed.
  friend bool operator==(const node_values& a, const node_values& b) {
    return a.enabled == b.enabled && same_setter_values(a, b);
  }
};

// One part of a node's values: a launch dimension (`index` 0–2), the dynamic shared memory, an
// attribute, or argument `index`.
struct value_part {
  enum class kind : std::uint8_t { grid, block, shared, enabled, device, argument };
  kind k;
  std::uint32_t index;
};

// A part of a node's values that a build converts (graph_templates::dynamic), with what the
// program works out about it once.
struct dynamic_part {
  value_part part;
  // Where a build keeps this part's conversion (conversion_memo), shared by every part of the
  // graph that converts the same expression to the same type with the same check; ir::none for
  // a struct argument and for a handle made while the graph is built.
  std::uint32_t memo = ir::none;
  ir::argument argument;  // part_argument's answer, found once
};

// One build's (or one update's) conversions of dynamic parts that several nodes share: a
// graph of 1 000 kernels taking the same pointer parameter converts it once. The first part to
// need a conversion makes it, so a failure is reported at the first node, as without the memo;
// the others copy it. Valid for one evaluated pool: reset() before each.
class conversion_memo {
public:
  // Forgets every conversion at once: a slot holds one when it was made since the last reset
  // (its generation), so an update that touches one node of a graph with many slots does not
  // clear them all. 64 bits: an exec updated every microsecond would take 584 000 years to wrap.
  void reset(std::size_t count) {
    if (slots_.size() < count) slots_.resize(count);
    ++generation_;
  }
  bool known(std::uint32_t slot) const { return slots_[slot].made == generation_; }
  const ir::converted_bytes& bytes(std::uint32_t slot) const { return slots_[slot].bytes; }
  void keep(std::uint32_t slot, const ir::converted_bytes& c) { slots_[slot] = {c, generation_}; }

private:
  struct entry {
    ir::converted_bytes bytes;
    std::uint64_t made = 0;  // the generation that converted it
  };
  std::vector<entry> slots_;
  std::uint64_t generation_ = 0;
};

// Where one step's arguments lie in graph_templates::arguments, or its dynamic parts in
// graph_templates::dynamic.
struct template_slice {
  std::uint32_t first = 0, count = 0;
};

// A node's values as far as they are the same on every build: the parts whose expressions read
// no parameter, converted once per program; a build converts only the dynamic parts. Not usable
// (every part converted on each build) for host and child-graph nodes, whose values are kept as
// values too, for struct arguments, and where a constant part fails, so the build reports it.
// Small, and kept with its graph's others in plan order: a build reads them one after another
// (run 27), where a template holding a whole node_values spread them over three times the
// memory.
struct value_template {
  dim3 grid{1, 1, 1};
  dim3 block{1, 1, 1};
  unsigned shared_bytes = 0;
  std::int8_t enabled = -1;
  bool usable = false;
  // Usable, and every dynamic part an argument with a conversion_memo slot: a kernel's launch
  // can point at the template's constants and the build's memo (step_builder::kernel_launch).
  bool launch_in_place = false;
  int device = -1;
  template_slice arguments;  // in graph_templates::arguments (every step has its slice)
  template_slice dynamic;    // in graph_templates::dynamic, in the order compute_values fills them
};

// What every build of one graph starts from, made on its first build (program_state::templates):
// the expression pool with the expressions that read no parameter evaluated, and a template per
// plan step. Building from a compiled program then evaluates and converts only what a
// parameter reaches.
struct graph_templates {
  std::vector<ir::value> constants;        // by expression; those that read a parameter unset
  std::vector<std::uint32_t> param_exprs;  // the expressions that read a parameter, increasing
  std::vector<std::uint32_t> slot;         // by expression: its index in param_exprs, or ir::none
  std::vector<value_template> steps;       // by plan step
  std::vector<step_row> rows;              // by plan step: what the walks read of it (plan_rows.hpp)
  // Every step's arguments in plan order: a usable template's constants converted (its dynamic
  // parts zero), zero for any other step.
  std::vector<ir::converted_bytes> arguments;
  // The address of each of `arguments`' bytes: a kernel's argument list as the driver takes it,
  // for a template without dynamic parts whole, for others copied and patched per build
  // (step_builder::kernel_launch), where it was built from `arguments` per node.
  std::vector<void*> argument_pointers;
  std::vector<dynamic_part> dynamic;       // every usable template's dynamic parts, in plan order
  // The steps a capture must prepare before it begins (capture_builder::materialize), in plan
  // order: each repeat_init, collective and child-graph step, and the first kernel step of each
  // kernel (resolving a kernel once resolves it for its every node). Where the registry has
  // captured routines, which are per node, the capture prepares every kernel step instead.
  std::vector<std::uint32_t> prepared_steps;
  std::uint32_t memo_slots = 0;            // the conversion_memo slots the dynamic parts name
  // The conds' launch values (cond_defaults), when no parameter reaches them and they convert:
  // the same on every build, which then copies them (a graph of 500 `if`s converted 500 values
  // per build).
  std::optional<std::vector<unsigned>> cond_defaults;

  std::span<const dynamic_part> dynamic_parts(const value_template& t) const {
    return {dynamic.data() + t.dynamic.first, t.dynamic.count};
  }
};

// A graph built on the run-time path: the backend's graph state (graph, node handles, bodies,
// conds, counters, children) plus what each node's values follow from: the program's templates,
// the parameters and the pool evaluated with them. Keeping the values themselves, a record of
// some 150 bytes a node, cost 5% of a build (docs/performance.md, run 27).
struct built_graph final : backend::graph_state {
  built_graph(std::shared_ptr<const program_state> p, std::shared_ptr<const resolved_symbols> s, std::uint32_t index,
              param_values parameters);

  std::shared_ptr<const program_state> program;
  std::shared_ptr<const resolved_symbols> symbols;
  std::uint32_t graph_index = 0;
  const graph_templates* templates;                  // the program's, for this graph
  std::vector<unsigned> cond_defaults;               // by cond index (0 when none)
  param_values params;                               // by parameter index
  ir::layered_pool values;                           // the evaluated expression pool, over the templates' constants

  const ir::graph& ir() const { return program->program.graphs[graph_index]; }
  const plan::explicit_plan& plan() const { return program->plans[graph_index]; }
  const capture_rows& capture() const { return program->capture(graph_index); }
  where at(source_range r) const { return where::in(program->source, r.begin); }
  const built_graph& child(std::uint32_t step) const { return static_cast<const built_graph&>(*child_at(step)); }
  // The statement of step `step`'s node, from the program: a build keeps no sites.
  backend::site step_site(std::uint32_t step) const override { return at(plan().steps[step].node->range); }
};

// A type's kind as registered callables and parameter handles name it: i integer, f float,
// b bool, p pointer, s struct.
inline char kind_of(ir::type t) {
  return t.is_pointer() ? 'p' : t.is_float() ? 'f' : t.is_bool() ? 'b' : t.is_struct() ? 's' : 'i';
}

// Checks and converts user-supplied parameter values for graph `index`; unknown names, kinds
// that do not fit, and missing values without defaults are build_errors.
param_values bind_params(const program_state& p, std::uint32_t index, const args& values);
param_values bind_params(const program_state& p, std::uint32_t index, std::span<const named_arg> values);
// The index of parameter `name` of graph `index` (a build_error when it has none).
std::uint32_t find_param(const program_state& p, std::uint32_t index, std::string_view name);
// `a` as parameter `param` of graph `index` takes it (a build_error where it does not fit).
ir::value checked_param(const program_state& p, std::uint32_t index, std::uint32_t param, const arg& a);
// Checks and converts `a` for parameter `param` of graph `index` into `out`.
void bind_param(const program_state& p, std::uint32_t index, std::uint32_t param, const arg& a, param_values& out);

// A failed evaluation, as a build_error at its expression.
[[noreturn]] void fail_at(const program_state& p, const ir::eval_error& e);

// Every expression of `g`'s graph with its parameters (node_values.cpp): the program's
// constants, with only the expressions that read a parameter evaluated again. A failure is a
// build_error at the offending expression.
ir::layered_pool evaluate_pool(const built_graph& g);

// Puts the addresses of `g`'s allocations made so far into its pool, and evaluates again the
// expressions that read one (graph_dependencies::allocation_readers): called once an alloc
// node is made, before any node after it takes its values. An allocation not made yet reads
// as null until its own node calls this.
void resolve_allocations(built_graph& g);

// The values of plan step `step` of `g` into `out` (whose memory it reuses), from an evaluated
// pool and `g`'s cond handles and allocations (node_values.cpp). `kernel_values`: also fill
// `values` for a kernel node (a captured routine receives them). `memo`: the conversions
// already made from this pool (reset to g.templates->memo_slots before the first node).
inline void compute_values(const built_graph& g, std::uint32_t step, const ir::layered_pool& pool, node_values& out,
                           bool kernel_values, conversion_memo& memo);
// compute_values for a step without a usable template, or with `kernel_values`: every part
// converted (node_values.cpp).
void compute_values_in_full(const built_graph& g, std::uint32_t step, const ir::layered_pool& pool, node_values& out,
                            bool kernel_values);
// Converts one dynamic part of step `step` into `out`, through `memo` (node_values.cpp).
void convert_part(const built_graph& g, std::uint32_t step, const ir::layered_pool& pool, node_values& out,
                  const dynamic_part& d, conversion_memo& memo);

// Inline, as a build computes every step here: the constant parts as converted once, then what
// the parameters reach, most of it (a chain of kernels taking one pointer parameter) converted
// by an earlier node already.
inline void compute_values(const built_graph& g, std::uint32_t step, const ir::layered_pool& pool, node_values& out,
                           bool kernel_values, conversion_memo& memo) {
  const graph_templates& templates = *g.templates;
  const value_template& t = templates.steps[step];
  if (!t.usable || kernel_values) return compute_values_in_full(g, step, pool, out, kernel_values);
  out.grid = t.grid;
  out.block = t.block;
  out.shared_bytes = t.shared_bytes;
  out.enabled = t.enabled;
  out.device = t.device;
  const ir::converted_bytes* first = templates.arguments.data() + t.arguments.first;
  out.args.assign(first, first + t.arguments.count);
  out.values.clear();
  out.struct_bytes.clear();
  for (const dynamic_part& d : templates.dynamic_parts(t)) {
    if (d.part.k == value_part::kind::argument && d.memo != ir::none && memo.known(d.memo))
      out.args[d.part.index] = memo.bytes(d.memo);
    else
      convert_part(g, step, pool, out, d, memo);
  }
}
// The expression, target type and check of one part of node `n`'s values.
ir::argument part_argument(const ir::graph& g, const ir::node& n, value_part part);

// The default launch value of every cond (0 where none).
std::vector<unsigned> cond_defaults(const program_state& p, std::uint32_t index, const ir::layered_pool& pool);

// Builds graph `index` with the explicit node API.
std::shared_ptr<built_graph> build_graph(std::shared_ptr<const program_state> p,
                                         std::shared_ptr<const resolved_symbols> symbols, std::uint32_t index,
                                         param_values params);

std::shared_ptr<const resolved_symbols> resolve(const program_state& p, const registry& r, const build_options& options);

}  // namespace cgraph::detail

#pragma once
// The run-time path: .cgraph text → program → graph (cudaGraph_t) → graph_exec.
//
//   auto prog = cgraph::program::compile(text);                       // throws compile_error
//   auto g = cgraph::graph::build(prog, "main", {{"x", d_x}, {"n", n}}, reg);
//   auto exec = g.instantiate();
//   exec.launch(stream);
//   exec.update({{"x", d_x}, {"n", n / 2}});                         // cheapest path first

#include <cgraph/compiler/compile.hpp>
#include <cgraph/dsl/diagnostic.hpp>
#include <cgraph/dsl/source.hpp>
#include <cgraph/runtime/args.hpp>
#include <cgraph/runtime/error.hpp>
#include <cgraph/runtime/registry.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace cgraph {

namespace detail {
struct program_state;
struct built_graph;
struct exec_state;
// Stages `value` for parameter `index` of the exec (checked now); parameter_handle's assignment.
void stage(exec_state& s, std::uint32_t index, const arg& value);
// Stages `v` for parameter `index` with nothing to check: a handle whose C++ type the parameter
// takes every value of (graph_exec::parameter works that out once).
void stage_fitting(exec_state& s, std::uint32_t index, const value& v);

// The C++ types a parameter handle takes: numbers, bools, pointers, 2-byte floats and structs
// (any trivially copyable class; its size is checked against the struct's when the handle is
// made).
template <typename T>
inline constexpr bool is_handle_type =
    std::is_arithmetic_v<T> || std::is_pointer_v<T> || (std::is_class_v<T> && std::is_trivially_copyable_v<T>);
// The kind of parameter that a handle of type T stands for: a host callback's parameter kinds
// (registry.hpp, kind_of), but for a 2-byte float, which a handle takes as a number, as an arg
// does.
template <typename T>
constexpr char handle_kind() {
  if constexpr (is_two_byte_float<T>) return 'f';
  else return kind_of<T>();
}
// What graph_exec::parameter checks a handle's C++ type against: its kind, size and signedness.
struct handle_type {
  char kind;
  std::size_t bytes;
  bool is_signed;
  bool is_two_byte_float;
};
template <typename T>
constexpr handle_type handle_type_of() {
  return {handle_kind<T>(), sizeof(T), std::is_signed_v<T>, is_two_byte_float<T>};
}
// The parameter a handle stands for, and whether it takes every value of the handle's type
// unchecked.
struct handle_target {
  std::uint32_t index;
  bool fits;
};
}  // namespace detail

// One parameter of a graph_exec, found by name once (graph_exec::parameter). Assigning stages a
// value for the next graph_exec::apply(), checked against the parameter's type at once (a
// build_error, as update() gives); apply() then looks nothing up by name. Valid while its
// exec lives (moving the exec keeps it valid).
template <typename T>
class parameter_handle {
public:
  parameter_handle& operator=(const T& value) {
    if constexpr (detail::handle_kind<T>() == 's')
      // Staging copies the struct's bytes (the exec keeps its own), so the handle lends them
      // without a copy of its own.
      detail::stage(*state_, index_, arg::borrow_struct(&value, sizeof(T)));
    else if (fits_)
      detail::stage_fitting(*state_, index_, detail::scalar_value(value));
    else
      detail::stage(*state_, index_, arg(value));
    return *this;
  }
  std::uint32_t index() const { return index_; }

private:
  friend class graph_exec;
  parameter_handle(detail::exec_state* s, detail::handle_target t) : state_(s), index_(t.index), fits_(t.fits) {}
  detail::exec_state* state_;
  std::uint32_t index_;
  // The parameter takes every value of T as it is (an int for an i32 or i64, a pointer, a
  // bool, a double for an f64): an assignment checks nothing (a handle's update is issue 13's
  // one-node path, a hand setter's cost the target).
  bool fits_;
};

// What a program declares, by name, for tools and tests that register stand-ins or bind every
// parameter: its kernels, host callbacks and graphs with their parameters.
struct parameter_info {
  std::string name;
  std::string type;          // as written: "f32*", "i32", "cond"
  bool has_default = false;  // a graph parameter with `= EXPR`
  bool is_pointer() const { return !type.empty() && type.back() == '*'; }
};
struct declaration_info {
  std::string name;
  std::vector<parameter_info> params;
};
struct program_info {
  std::vector<declaration_info> kernels;
  std::vector<declaration_info> hosts;
  std::vector<declaration_info> graphs;
  const declaration_info* find_graph(std::string_view name) const;
};

// A compiled .cgraph text, immutable and cheap to copy (shared).
class program {
public:
  // Compiles `text`; `file` names it in diagnostics and error locations. Throws compile_error.
  // Without `imports`, an `import` in the text is an error; with them, paths start at
  // imports->directory (confined to it unless imports->confine is false).
  static program compile(std::string text, std::string file = "<string>",
                         std::optional<import_options> imports = std::nullopt);
  // Reads and compiles a .cgraph file; its imports start in its folder (imports.directory
  // when set) and may not leave that folder unless imports.confine is false.
  static program load(const std::string& path, import_options imports = {});

  program_info declarations() const;
  const source_file& source() const;
  // The IR as Graphviz DOT (as `cgraphc dot` prints it); one graph, or all when empty.
  std::string ir_dot(std::string_view graph = {}) const;

private:
  explicit program(std::shared_ptr<const detail::program_state> s) : state_(std::move(s)) {}
  std::shared_ptr<const detail::program_state> state_;
  friend class graph;
};

// How the graph is made: explicit node calls, or stream capture. Both make the same graph.
enum class strategy { explicit_nodes, stream_capture };

// cudaStreamCaptureMode for the capture strategy. Thread-local lets several threads build at
// once; global and relaxed are CUDA's other two.
enum class capture_mode { thread_local_mode, global, relaxed };

struct build_options {
  // Where relative `module` paths start. Empty: the folder of the .cgraph file for
  // program::load, the current directory for program::compile.
  std::string module_directory;
  // A `module` path is refused when it leaves module_directory ("../x.fatbin", "/abs/x.fatbin"),
  // so .cgraph text from users or configuration files cannot load arbitrary files. Set to
  // load modules from anywhere.
  bool allow_module_paths_outside_directory = false;
  cgraph::strategy strategy = strategy::explicit_nodes;
  cgraph::capture_mode capture_mode = capture_mode::thread_local_mode;
};

struct instantiate_options {
  bool upload = false;                  // cudaGraphInstantiateFlagUpload, on `upload_stream`
  cudaStream_t upload_stream = nullptr;
  bool auto_free_on_launch = false;     // cudaGraphInstantiateFlagAutoFreeOnLaunch
  bool device_launch = false;           // cudaGraphInstantiateFlagDeviceLaunch
  bool use_node_priority = false;       // cudaGraphInstantiateFlagUseNodePriority
};

// Which update path ran, cheapest first.
enum class update_path {
  unchanged,       // no value changed: nothing was called
  node_params,     // per-node exec setters on the changed nodes only
  whole_graph,     // a graph rebuilt with the new values, applied with cudaGraphExecUpdate
  reinstantiated,  // both refused: a new exec was instantiated
};
std::string_view to_string(update_path p);

struct update_result {
  update_path path = update_path::unchanged;
  std::size_t nodes_changed = 0;
};

class graph_exec;

// Owns a built cudaGraph_t and what its nodes point at. Move-only.
class graph {
public:
  // Builds graph `name` of `prog` with the explicit node API. Throws build_error (values,
  // bindings), cuda_error (CUDA calls, with the .cgraph location) or feature_unavailable.
  static graph build(const program& prog, std::string_view name, const args& values = {},
                     const registry& kernels_and_callbacks = {}, const build_options& options = {});
  // The same for a braced list of values, `build(prog, "g", {{"x", d_x}, {"n", n}}, reg)`, which
  // takes this overload: nothing is allocated for the list (graph_exec::update likewise).
  static graph build(const program& prog, std::string_view name, std::initializer_list<named_arg> values,
                     const registry& kernels_and_callbacks = {}, const build_options& options = {});

  graph(graph&&) noexcept;
  graph& operator=(graph&&) noexcept;
  ~graph();

  cudaGraph_t get() const;
  std::size_t node_count() const;  // CUDA nodes in the root graph
  // The driver's DOT dump (cudaGraphDebugDotPrint) with its flags, through a temporary file;
  // build_error if that file cannot be read back (never an empty string for a graph).
  std::string debug_dot(unsigned flags = cudaGraphDebugDotFlagsVerbose) const;
  // The IR's DOT (deterministic, with .cgraph labels and lines).
  std::string ir_dot() const;
  // The body graphs of one of this graph's conditional nodes (CUDA has no query for them),
  // empty for any other node. For tools that walk a graph, such as isomorphism checks.
  std::vector<cudaGraph_t> conditional_bodies(cudaGraphNode_t node) const;

  graph_exec instantiate(const instantiate_options& options = {}) const;

private:
  explicit graph(std::shared_ptr<detail::built_graph> s);
  std::shared_ptr<detail::built_graph> state_;
};

// Owns a cudaGraphExec_t. Move-only. Keeps everything its nodes point at alive, also after
// the graph, the registry and the program objects are gone.
class graph_exec {
public:
  graph_exec(graph_exec&&) noexcept;
  graph_exec& operator=(graph_exec&&) noexcept;
  ~graph_exec();

  cudaGraphExec_t get() const;
  void upload(cudaStream_t stream);
  void launch(cudaStream_t stream);
  // Re-evaluates every argument with the new parameter values (missing ones keep their current
  // value) and applies the changes by the cheapest path that CUDA accepts.
  update_result update(const args& values);
  // The same for a braced list, `exec.update({{"n", 5}, {"x", d_x}})`, which takes this overload:
  // nothing is allocated for the list.
  update_result update(std::initializer_list<named_arg> values);

  // The fast path for values that change often: a handle per parameter, resolved once.
  //   auto n = exec.parameter<int>("n");
  //   n = 5;                  // staged and checked
  //   exec.apply();           // the cheapest update path, as update() takes
  // T must be of the parameter's kind: an integer type for integers; a floating type, __half
  // or __nv_bfloat16 for f16, bf16, f32 and f64; bool; a pointer; or, for a struct, the kernels'
  // own C++ struct (any trivially copyable class of the struct's size). A wrong name, kind or
  // struct size is a build_error at the parameter.
  template <typename T>
  parameter_handle<T> parameter(std::string_view name) {
    static_assert(detail::is_handle_type<T>, "a parameter is a number, a bool, a pointer, a 2-byte float or a struct");
    return parameter_handle<T>(state_.get(), parameter_target(name, detail::handle_type_of<T>()));
  }
  // Applies the values staged through parameter handles (nothing staged: unchanged). update()
  // applies them too. A failure (a bad value, CUDA) drops every staged value.
  update_result apply();

private:
  explicit graph_exec(std::unique_ptr<detail::exec_state> s);
  // The parameter `name`, checked against the handle's C++ type (a struct's size too).
  detail::handle_target parameter_target(std::string_view name, detail::handle_type type) const;
  std::unique_ptr<detail::exec_state> state_;
  friend class graph;
};

}  // namespace cgraph

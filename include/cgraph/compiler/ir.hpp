#pragma once
// The IR: per graph, typed nodes with dependency edges, nested conditional bodies, and
// argument expressions kept symbolic where they depend on graph parameters. Independent of
// CUDA: `cgraphc` and the code generator use it on machines without a GPU.

#include <cgraph/compiler/value.hpp>
#include <cgraph/dsl/collectives.hpp>
#include <cgraph/dsl/operators.hpp>
#include <cgraph/dsl/source.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cgraph::ir {

inline constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();

// f16 and bf16 are CUDA's 2-byte floats (__half, __nv_bfloat16); they come last so the
// older scalars keep their numbers.
enum class scalar : std::uint8_t { i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, boolean, f16, bf16 };

// `null` has a type of its own (kind::null): it converts to every pointer type, and no
// pointer converts to it. A struct type names its declaration (program::structs) and carries
// its size and alignment, so sizes need no table.
struct type {
  // event: a cudaEvent_t, a graph parameter for `record` and `wait` (LANGUAGE.md §11); comm: an
  // ncclComm_t, a graph parameter for collectives (§15). Handles: their value is a pointer
  // value (the handle's bits).
  // struct_pointer: `P*` of a struct P (its index in `shape`, as a structure's; no size there,
  // since a struct may hold a pointer to itself before its own size is known).
  enum class kind : std::uint8_t { scalar, pointer, void_pointer, cond, null, structure, event, comm, struct_pointer };
  kind k = kind::scalar;
  ir::scalar s = ir::scalar::i64;  // the scalar, or a pointer's element type
  bool is_const = false;           // a pointer to const: `const f32*`, `const void*`
  std::uint8_t align = 0;          // structure: its alignment
  std::uint32_t shape = 0;         // structure: its index in program::structs (12 bits) and size (20)

  // 8 bytes in all: a type sits in every expression and argument, and the IR's size is the
  // front end's speed (a 12-byte type made lowering 40% slower on 10 000 nodes).
  static constexpr std::uint32_t max_structs = 1u << 12;
  static constexpr std::uint32_t max_struct_bytes = (1u << 20) - 1;
  constexpr std::uint32_t id() const { return shape & (max_structs - 1); }
  constexpr std::uint32_t bytes() const { return shape >> 12; }

  static constexpr type of(ir::scalar s) { return {kind::scalar, s}; }
  static constexpr type pointer_to(ir::scalar s, bool to_const = false) { return {kind::pointer, s, to_const}; }
  static constexpr type void_pointer(bool to_const = false) { return {kind::void_pointer, ir::scalar::u8, to_const}; }
  static constexpr type pointer_to_struct(std::uint32_t id, bool to_const = false) {
    return {kind::struct_pointer, ir::scalar::u8, to_const, 0, id};
  }
  // A pointer to an element of type `element`, a scalar or a struct.
  static constexpr type pointer_to(type element, bool to_const = false) {
    return element.k == kind::structure ? pointer_to_struct(element.id(), to_const) : pointer_to(element.s, to_const);
  }
  static constexpr type cond() { return {kind::cond, ir::scalar::u64}; }
  static constexpr type null() { return {kind::null, ir::scalar::u8}; }
  static constexpr type event() { return {kind::event, ir::scalar::u64}; }
  static constexpr type comm() { return {kind::comm, ir::scalar::u64}; }
  // An opaque library handle passed only as a whole graph parameter: an event or a comm.
  bool is_handle() const { return k == kind::event || k == kind::comm; }
  static constexpr type structure(std::uint32_t id, std::uint32_t size, std::uint8_t align) {
    return {kind::structure, ir::scalar::u8, false, align, id | (size << 12)};
  }
  bool is_struct() const { return k == kind::structure; }

  bool is_integer() const { return k == kind::scalar && s <= ir::scalar::u64; }
  bool is_float() const {
    return k == kind::scalar && (s == ir::scalar::f32 || s == ir::scalar::f64 || s == ir::scalar::f16 || s == ir::scalar::bf16);
  }
  bool is_bool() const { return k == kind::scalar && s == ir::scalar::boolean; }
  bool is_pointer() const {
    return k == kind::pointer || k == kind::void_pointer || k == kind::null || k == kind::struct_pointer;
  }
  // A pointer with an element type (`T*`, `P*`): it can be offset, and it converts only to a
  // pointer to the same element type (or to `void*`).
  bool has_element() const { return k == kind::pointer || k == kind::struct_pointer; }
  // Whether two pointers with element types point to the same type (const aside).
  static constexpr bool same_element(type a, type b) { return a.k == b.k && a.s == b.s && a.shape == b.shape; }

  friend bool operator==(type, type) = default;
};

struct structure;

// A struct type reads as its name when `structs` (the program's) is given.
std::string to_string(type t, std::span<const structure> structs = {});
std::string_view to_string(scalar s);
std::optional<scalar> scalar_from_name(std::string_view name);
std::uint32_t size_of(scalar s);
std::uint32_t size_of(type t);   // bytes a kernel parameter of this type occupies
std::uint32_t align_of(type t);  // its alignment (C's: scalars and pointers their size)
// The bytes of the element a pointer with an element type points to (has_element()): what
// `p + 1` adds, what a memset of one element writes.
std::uint32_t element_size(type pointer, std::span<const structure> structs);
// The most bytes of parameters a kernel may take (CUDA 12.1 and later; 4 KiB before), a
// struct parameter's included.
inline constexpr std::uint32_t max_kernel_parameter_bytes = 32764;

// struct NAME { FIELD: T; … }: C's layout (each field at the next multiple of its alignment,
// the size rounded up to the largest alignment), so it matches a C++ struct of those members.
struct field {
  std::string name;
  type t;
  std::uint32_t offset = 0;
  source_range range;
};
struct structure {
  std::string name;
  std::vector<field> fields;
  std::uint32_t size = 0;
  std::uint8_t align = 1;
  source_range range;

  type as_type(std::uint32_t id) const { return type::structure(id, size, align); }
  // The index of field `name`, or none.
  std::uint32_t find(std::string_view name) const;
};

// ---- values and expressions ---------------------------------------------------------------

// A value computed while compiling (constants) or building (everything else). Integer
// arithmetic is 64-bit and checked; float arithmetic is double precision. The public
// cgraph::value, which user code receives.
using value = cgraph::value;

enum class op : std::uint8_t {
  constant,  // `constant`
  param,     // graph parameter `index`; `a` = its default expression or none
  let_ref,   // a non-constant `let`: `index` names it, `a` is its expression
  cond_ref,  // conditional handle `index`
  alloc_ref,  // the address of allocation `index` (graph::allocations), known once its node is added
  to_float,  // integer → floating promotion of `a`
  neg,
  // the binary operators and functions of cgraph/dsl/operators.hpp, in its order
#define CGRAPH_IR_OP(name, spelling, precedence, operands) name,
  CGRAPH_OPERATORS(CGRAPH_IR_OP)
#undef CGRAPH_IR_OP
  ptr_add,   // pointer `a` plus integer `b` elements of `element_size` bytes
  ptr_sub,
  // A struct value: fields graph::struct_fields[a … a + b) in declaration order (each an
  // argument converted to the field's type); `index` is the struct.
  make_struct,
  // Field `index` of struct value `a`, at byte `element_size`. Fields of a make_struct are
  // folded while lowering, so `a` is a parameter or another field of one.
  field,
  logical_not,  // `!a` (a bool or an integer): a bool
  to_int,       // a bool as the integer 0 or 1
  select,       // `a ? b : index` — only the chosen operand's failure is one (short-circuit)
};

inline constexpr auto first_binary_op = static_cast<std::uint8_t>(op::neg) + 1;

// The IR operation of an operator of the table.
constexpr op to_op(dsl::binary_op o) { return static_cast<op>(first_binary_op + static_cast<std::uint8_t>(o)); }

// The operator of the table an IR operation computes or prints as: pointer offsets are
// additions and subtractions.
constexpr std::optional<dsl::binary_op> operator_of(op o) {
  if (o == op::ptr_add) return dsl::binary_op::add;
  if (o == op::ptr_sub) return dsl::binary_op::sub;
  auto i = static_cast<std::uint8_t>(o);
  if (i < first_binary_op || i >= first_binary_op + dsl::operators.size()) return std::nullopt;
  return static_cast<dsl::binary_op>(i - first_binary_op);
}

// One node of a graph's expression pool. Operands always have smaller indices than the node
// that uses them, so one pass in index order evaluates the whole pool.
// 32 bytes, two to a cache line: the operation and the element size share a word, and a
// constant keeps its value in the operand words it never uses (a 32-byte ir::value beside
// them made the expression 64 bytes, the largest part of a large file's memory where its
// expressions do not repeat). An element or a field offset is below a struct's largest size.
struct expr {
  ir::op op : 8 = ir::op::constant;
  std::uint32_t element_size : 24 = 0;
  type result;                 // i64 for integers, f64 for floats, bool, a pointer, or cond
  // An operation's operands. A constant: `a` and `b` the low and high words of its 64 bits,
  // `index` its value's kind (and constant_big_unsigned); read them through constant().
  std::uint32_t a = none;
  std::uint32_t b = none;
  std::uint32_t index = none;  // param, let or cond index; a select's third operand
  source_range range;

  static constexpr std::uint32_t max_element_size = (1u << 24) - 1;
  static_assert(type::max_struct_bytes <= max_element_size, "a field offset or an element size fits element_size");
  // An element size or a field offset, at most a struct's largest size: the mask loses nothing.
  void set_element_size(std::uint32_t bytes) { element_size = bytes & max_element_size; }

  bool is_constant() const { return op == ir::op::constant; }

  // A constant's value: an integer (a u64 above INT64_MAX included), a float, a bool, a
  // pointer or a cond handle. A struct is never a constant of the pool (its fields are a
  // make_struct's), and such a value is refused here rather than losing its size.
  static constexpr std::uint32_t constant_big_unsigned = 0x100;
  void set_constant(const value& v) {
    using kind = value::kind;
    if (v.k == kind::structure || v.k == kind::failed) throw std::logic_error("ir::expr: a struct or a failure is not a pool constant");
    std::uint64_t bits = v.k == kind::integer ? static_cast<std::uint64_t>(v.i)
                         : v.k == kind::floating ? std::bit_cast<std::uint64_t>(v.f)
                                                 : v.bits;
    a = static_cast<std::uint32_t>(bits);
    b = static_cast<std::uint32_t>(bits >> 32);
    index = static_cast<std::uint32_t>(v.k) | (v.big_unsigned() ? constant_big_unsigned : 0u);
  }
  // A constant's 64 bits as set_constant keeps them: an integer's two's complement, a float's
  // IEEE bits, a bool's 0/1, a pointer's address, a cond's handle.
  std::uint64_t constant_bits() const { return a | (static_cast<std::uint64_t>(b) << 32); }
  value constant() const {
    using kind = value::kind;
    if (index == none) return {};  // an expression made without a value: the integer 0
    const std::uint64_t bits = constant_bits();
    auto k = static_cast<kind>(index & 0xff);
    if (k == kind::integer) return {kind::integer, static_cast<std::int64_t>(bits), 0, (index & constant_big_unsigned) ? 1u : 0u};
    if (k == kind::floating) return value::floating(std::bit_cast<double>(bits));
    return {k, 0, 0, bits};
  }
};
static_assert(sizeof(expr) == 32, "an expression is 32 bytes (see above)");

// How a value must be checked when it is converted for its use.
enum class check : std::uint8_t { any, positive };

// An expression converted to the type a parameter or a field needs.
struct argument {
  std::uint32_t expr = none;
  type target;
  ir::check check = check::any;
  std::uint16_t offset = 0;  // a struct field's byte offset (graph::struct_fields); in padding
  source_range range;
};

// How a node's argument converts: the type it takes and its check (a node's arguments have no
// field offset). A graph keeps each distinct one once, in graph::arg_forms: a handful a graph,
// where the type and check in every argument made it 24 bytes, 3.1 of them a node, the largest
// part of a large file's memory (issue 17).
struct argument_form {
  type target;
  ir::check check = check::any;

  friend bool operator==(const argument_form&, const argument_form&) = default;
};

// A node's argument as graph::arg_pool keeps it, 16 bytes: its expression, its form
// (graph::arg_forms) and where it was written. graph::args gives it back whole, as the
// launch configuration's values are (launch_value).
struct pooled_argument {
  std::uint32_t expr = none;
  std::uint32_t form = 0;
  source_range range;
};
static_assert(sizeof(pooled_argument) == 16, "a node's argument is 16 bytes (see above)");

// The arguments of one node, as graph::args gives them: each made whole (an ir::argument, by
// value) as it is read. Like the std::span it replaced: size, indexing, iteration, subspan.
class argument_list {
public:
  class iterator {
  public:
    using value_type = argument;
    using reference = argument;
    using difference_type = std::ptrdiff_t;
    using iterator_category = std::input_iterator_tag;
    using iterator_concept = std::forward_iterator_tag;

    iterator() = default;
    iterator(const pooled_argument* at, const argument_form* forms) : at_(at), forms_(forms) {}
    argument operator*() const { return argument_list::whole(*at_, forms_); }
    iterator& operator++() { ++at_; return *this; }
    iterator operator++(int) { iterator old = *this; ++at_; return old; }
    friend bool operator==(const iterator& a, const iterator& b) { return a.at_ == b.at_; }

  private:
    const pooled_argument* at_ = nullptr;
    const argument_form* forms_ = nullptr;
  };

  argument_list() = default;
  argument_list(const pooled_argument* first, std::size_t count, const argument_form* forms)
      : first_(first), count_(count), forms_(forms) {}

  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  argument operator[](std::size_t i) const { return whole(first_[i], forms_); }
  iterator begin() const { return {first_, forms_}; }
  iterator end() const { return {first_ + count_, forms_}; }
  argument_list subspan(std::size_t offset, std::size_t count) const { return {first_ + offset, count, forms_}; }

  static argument whole(const pooled_argument& a, const argument_form* forms) {
    const argument_form& f = forms[a.form];
    return {a.expr, f.target, f.check, 0, a.range};
  }

private:
  const pooled_argument* first_ = nullptr;
  std::size_t count_ = 0;
  const argument_form* forms_ = nullptr;
};

// Calls f(operand) for each expression e reads: `a` and `b`, or a make_struct's fields.
template <typename Graph, typename F>
void for_each_operand(const Graph& g, const expr& e, F&& f) {
  if (e.op == op::make_struct) {
    for (std::uint32_t i = e.a; i < e.a + e.b; ++i) f(g.struct_fields[i].expr);
    return;
  }
  if (e.op == op::constant || e.op == op::cond_ref || e.op == op::alloc_ref) return;
  if (e.a != none) f(e.a);  // a parameter's default, a let's expression, an operand
  if (e.b != none) f(e.b);
  if (e.op == op::select) f(e.index);
}

// Which `alloc` addresses each expression of g reads, through any operand (an address exists
// only once its node is added, so whatever reads one is evaluated then, never before): bit
// k % 64 for allocation k, by expression, in `reads` (graph::allocation_reads), extended over
// the expressions added since it was last extended, in one pass, since an expression's operands
// come before it. A walk of each expression's operands instead took time exponential in a
// chain of lets that each read the one before twice. Stays empty while g allocates nothing.
// Exact for up to 64 allocations; beyond, a bit may stand for several.
template <typename Graph>
void index_allocation_reads(const Graph& g, std::vector<std::uint64_t>& reads) {
  if (g.allocations.empty()) return;  // most graphs allocate nothing
  // No reserve: the lowering extends it as it goes, and a reserve of the exact size each time
  // moved the whole vector for every expression added (quadratic: fuzzing found it).
  for (std::size_t i = reads.size(); i < g.exprs.size(); ++i) {
    const expr& e = g.exprs[i];
    std::uint64_t r = e.op == op::alloc_ref ? std::uint64_t{1} << (e.index % 64) : 0;
    for_each_operand(g, e, [&](std::uint32_t x) {
      if (x < i) r |= reads[x];
    });
    reads.push_back(r);
  }
}

// ---- nodes ----------------------------------------------------------------------------------

// repeat_init and repeat_counter are the built-in kernels of a lowered `repeat`: the first,
// before the loop, zeroes the iteration count and opens the loop; the second ends each
// iteration and closes the loop after the last.
// event_record and event_wait (`record E;`, `wait E;`) take the event as args[0]; mem_alloc
// (`alloc`) its byte count as args[0] and mem_free (`free`, or the end of the body) none; both
// name their allocation by `callee` (graph::allocations).
// collective (a collective statement, or a `group` of them): calls graph::collectives[callee …
// callee + args.size() / collective_slots), each with collective_slots arguments.
enum class node_kind : std::uint8_t {
  kernel, memcpy, memset, host, child_graph, conditional, repeat_counter, repeat_init, event_record, event_wait,
  mem_alloc, mem_free, collective
};
enum class cond_kind : std::uint8_t { if_then, if_else, while_loop, switch_cases };

std::string_view to_string(node_kind k);
std::string_view to_string(cond_kind k);

// Nodes CUDA allows in no conditional body (LANGUAGE.md §13 rule 9), as bits of graph::root_only.
enum root_only_kinds : std::uint8_t {
  root_only_host = 1, root_only_event = 2, root_only_memory = 4,
  // NCCL's captured work does not instantiate inside a conditional body (NVIDIA/nccl issue 1986).
  root_only_collective = 8
};

struct node;

// One value of a launch configuration: its expression and where it was written. Every such
// value converts to u32, a grid or block dimension checked positive and the dynamic shared
// memory bytes not, so the argument's type, check and offset are not kept: 12 bytes where an
// argument is 24 (issue 17). launch_config::argument_at gives it back as an argument.
struct launch_value {
  std::uint32_t expr = none;
  source_range range;
};

// A kernel node's launch configuration, as graph::launch_of gives it. Held beside the node, not
// in it: inline, it made every node larger, memsets, copies and conditionals included (issue 17).
struct launch_config {
  std::array<launch_value, 3> grid{};
  std::array<launch_value, 3> block{};
  launch_value shared_bytes{};

  // Slot `i`: 0-2 the grid, 3-5 the block, 6 the shared bytes.
  static constexpr std::size_t slots = 7;
  static constexpr type value_type = type::of(scalar::u32);
  static constexpr check dimension_check = check::positive;
  static constexpr check check_of(std::size_t i) { return i < 6 ? dimension_check : check::any; }

  // Value `v`, in slot `i`, as the argument it converts as.
  static argument argument_of(const launch_value& v, std::size_t i) { return {v.expr, value_type, check_of(i), 0, v.range}; }
  // Slot `i` as the argument it converts as.
  argument argument_at(std::size_t i) const { return argument_of(i < 3 ? grid[i] : i < 6 ? block[i - 3] : shared_bytes, i); }
};

// How a graph keeps a kernel node's launch configuration (graph::launches, by node::launch): only
// the values written, graph::launch_values[first …): the grid's `grid` dimensions, then the
// block's `block`, then the shared bytes when `shared`. A dimension not written is 1 and no
// shared bytes 0 (graph::launch_one, launch_zero). 8 bytes and 12 a value written: the whole
// configuration, 84 bytes, held five defaults of seven for `k<<<blocks, 256>>>` (issue 17).
struct launch_record {
  std::uint32_t first = 0;
  std::uint8_t grid = 0;
  std::uint8_t block = 0;
  bool shared = false;
};

// A graph body: the root of a graph, or one body of a conditional node.
struct body {
  std::vector<node> nodes;  // in creation order; CUDA's update rules need the same order each time
};

struct node {
  // What a build reads of every node comes first, in one cache line: a build of a large graph
  // reads each node once, and its kind, statement and callee were two lines apart.
  node_kind kind = node_kind::kernel;
  ir::cond_kind cond_kind = ir::cond_kind::if_then;  // conditional
  bool from_repeat = false;    // a `repeat` lowered to while + counter
  std::uint8_t element_size = 0;  // memset: 1, 2 or 4
  source_range range;          // the statement
  // kernel, host, child_graph: index into program::kernels / hosts / graphs
  std::uint32_t callee = none;
  // conditional (and repeat_counter: the handle it drives): index into graph::conds
  std::uint32_t cond = none;
  std::uint32_t attributes = none;  // `[[…]]`: index into graph::attributes
  std::uint32_t ports = none;       // programmatic edges among deps: index into graph::port_edges
  std::uint32_t launch = none;     // kernel: index into graph::launches (graph::launch_of)
  std::uint32_t label = none;      // the user's label: index into graph::labels (graph::label_of)
  // The nodes of the same body this one waits for: graph::deps(node), deps_count indices from
  // graph::dep_pool[deps_first]. One list for the whole graph, not a vector per node: that was
  // a heap block per node (issue 17).
  std::uint32_t deps_first = 0;
  std::uint32_t deps_count = 0;
  // The node's arguments, graph::args(node): args_count from graph::arg_pool[args_first], in
  // one list for the whole graph as the dependencies are (a heap block a node, issue 17).
  // kernel: in parameter order (its launch configuration is graph::launch_of); host and
  // child_graph: in parameter order; memcpy: dst, src, bytes; memset: dst, value, count;
  // repeat_counter: the count; event nodes: the event; mem_alloc: the byte count; collective:
  // collective_slots a call.
  std::uint32_t args_first = 0;
  std::uint32_t args_count = 0;
  // A conditional's bodies, graph::bodies(node): if: 1, if/else: 2, while: 1, switch: highest
  // case + 1, from graph::body_pool[bodies_first]. In the graph, not a vector here: 24 bytes in
  // every node, a conditional's or not, made the node 80 bytes (issue 17).
  std::uint32_t bodies_first = 0;
  std::uint32_t bodies_count = 0;
};
static_assert(sizeof(node) == 60, "a node is 60 bytes: every node of every body is one");

// `after programmatic(L)` / `after launched(L)` (LANGUAGE.md §11): the dependency on node `dep`
// (also in node::deps) leaves L's programmatic or launch-completion port.
enum class edge_port : std::uint8_t { programmatic = 1, launched = 2 };
struct port_edge {
  std::uint32_t dep = 0;
  edge_port port = edge_port::programmatic;
};

// `[[priority(N)]]`, `[[cluster(X, Y, Z)]]` and `[[enabled(EXPR)]]` of one node (LANGUAGE.md
// §11); an argument whose expr is `none` is absent. Priority and cluster are constants.
// `[[device(N)]]` (or an enclosing `on device(N)`, LANGUAGE.md §15) is the GPU the node runs
// on, any u32 expression; absent, the device current when the graph is built.
struct node_attributes {
  argument priority;
  std::array<argument, 3> cluster;
  argument enabled;
  argument device;
};

// One collective of a collective node (LANGUAGE.md §15). Its arguments, in the node's args, are
// always collective_slots: the send buffer, the receive buffer, the element count, the root or
// peer, and the communicator; a buffer or rank its statement does not take is a constant
// (null, 0).
enum collective_slot : std::uint8_t { slot_send, slot_recv, slot_count, slot_peer, slot_comm, collective_slots };
struct collective_call {
  dsl::collective_op op = dsl::collective_op::all_reduce;
  dsl::reduction reduction = dsl::reduction::sum;
  ir::scalar element = ir::scalar::f32;  // of the buffers
  source_range range;
};

// ---- declarations -----------------------------------------------------------------------------

struct parameter {
  std::string name;
  type t;
  std::uint32_t default_expr = none;  // graph parameters: an expression of the graph's pool
  source_range range;
};

struct let_value {
  std::string name;
  std::uint32_t expr = none;
  source_range range;
};

struct cond_handle {
  std::string name;
  std::uint32_t default_expr = none;  // `cond c = EXPR;` (an expression of u32 range), or none
  bool synthetic = false;             // made for a `repeat`
  source_range range;
};

struct allocation {
  std::string name;
  type element;  // NAME is a pointer to it
  source_range range;
  source_range freed_at;  // an explicit `free NAME;`, or empty (freed at the end of the body)
};

struct graph {
  std::string name;
  source_range range;
  std::vector<parameter> params;
  std::vector<expr> exprs;  // the expression pool
  std::vector<argument> struct_fields;  // the fields of make_struct expressions
  std::vector<let_value> lets;
  std::vector<cond_handle> conds;
  std::vector<allocation> allocations;  // `alloc NAME: T[COUNT];`
  // By expression, the allocations it reads (index_allocation_reads), complete once the graph
  // is lowered; empty unless the graph allocates.
  std::vector<std::uint64_t> allocation_reads;
  std::vector<node_attributes> attributes;  // by node::attributes
  std::vector<std::vector<port_edge>> port_edges;  // by node::ports
  std::vector<collective_call> collectives;        // by collective nodes' callee
  std::vector<std::uint32_t> dep_pool;  // every node's dependencies (node::deps_first)
  std::vector<pooled_argument> arg_pool;  // every node's arguments (node::args_first)
  std::vector<argument_form> arg_forms;   // the forms of arg_pool's arguments (pooled_argument::form)
  std::vector<launch_record> launches;  // by node::launch
  std::vector<launch_value> launch_values;  // the values written of every launch (launch_record)
  std::uint32_t launch_one = none;   // the constant 1 of a dimension not written
  std::uint32_t launch_zero = none;  // the constant 0 of no shared bytes written
  std::vector<std::string> labels;      // by node::label
  std::vector<body> body_pool;          // every conditional's bodies (node::bodies_first)
  body root;
  // The kinds of root_only_kinds this graph holds, directly or through `call`.
  std::uint8_t root_only = 0;
  std::size_t node_count = 0;  // all bodies, child graphs not counted

  // Whether expression e reads an allocation's address, through any operand.
  bool reads_allocation(std::uint32_t e) const { return e < allocation_reads.size() && allocation_reads[e] != 0; }
  // The indices of the nodes (of its own body) that `n`, a node of this graph, waits for.
  std::span<const std::uint32_t> deps(const node& n) const { return {dep_pool.data() + n.deps_first, n.deps_count}; }
  // The arguments of `n`, a node of this graph.
  argument_list args(const node& n) const { return {arg_pool.data() + n.args_first, n.args_count, arg_forms.data()}; }
  // The bodies of `n`, a conditional node of this graph (none for any other node).
  std::span<const body> bodies(const node& n) const { return {body_pool.data() + n.bodies_first, n.bodies_count}; }
  // Slot `i` of the launch configuration of `n`, a kernel node of this graph (0-2 the grid, 3-5
  // the block, 6 the shared bytes), or its default.
  launch_value launch_slot(const node& n, std::size_t i) const {
    const launch_record& r = launches[n.launch];
    if (i < 3) return i < r.grid ? launch_values[r.first + i] : launch_value{launch_one, {}};
    if (i < 6) return i - 3 < r.block ? launch_values[r.first + r.grid + (i - 3)] : launch_value{launch_one, {}};
    return r.shared ? launch_values[r.first + r.grid + r.block] : launch_value{launch_zero, {}};
  }
  // That slot as the argument it converts as (launch_config::argument_at): what a build reads,
  // one slot at a time, without making the whole configuration.
  argument launch_argument(const node& n, std::size_t i) const { return launch_config::argument_of(launch_slot(n, i), i); }
  // Calls f(i) for each slot the launch of `n`, a kernel node of this graph, wrote, in slot
  // order. The others are the constants 1 and 0, which read nothing and always convert: passes
  // that look for what a node reads, and the templates, need not visit them.
  template <typename F>
  void for_each_written_slot(const node& n, F&& f) const {
    const launch_record& r = launches[n.launch];
    for (std::size_t i = 0; i < r.grid; ++i) f(i);
    for (std::size_t i = 0; i < r.block; ++i) f(3 + i);
    if (r.shared) f(std::size_t{6});
  }
  // The launch configuration of `n`, a kernel node of this graph, with its defaults.
  launch_config launch_of(const node& n) const {
    launch_config out;
    for (std::size_t i = 0; i < 3; ++i) out.grid[i] = launch_slot(n, i);
    for (std::size_t i = 0; i < 3; ++i) out.block[i] = launch_slot(n, 3 + i);
    out.shared_bytes = launch_slot(n, 6);
    return out;
  }
  // The label of `n`, a node of this graph, or "" when it has none.
  std::string_view label_of(const node& n) const { return n.label == none ? std::string_view() : labels[n.label]; }
};

// Calls f(node) for every node of `b`, a body of `g`, and of the conditional bodies nested in it,
// depth first.
template <typename F>
void for_each_node(const graph& g, const body& b, F&& f) {
  for (const auto& n : b.nodes) {
    f(n);
    for (const auto& inner : g.bodies(n)) for_each_node(g, inner, f);
  }
}

// Calls f(argument) for every value node `n` of `g` reads: the values a kernel's launch wrote
// (not the defaults 1 and 0 of the others: graph::for_each_written_slot), its arguments and its
// attributes.
template <typename Graph, typename Node, typename F>
void for_each_argument(const Graph& g, const Node& n, F&& f) {
  if (n.kind == node_kind::kernel) g.for_each_written_slot(n, [&](std::size_t i) { f(g.launch_argument(n, i)); });
  for (const auto& a : g.args(n)) f(a);
  if (n.attributes != none) {
    const auto& at = g.attributes[n.attributes];
    for (const argument* a : {&at.priority, &at.cluster[0], &at.cluster[1], &at.cluster[2], &at.enabled, &at.device})
      if (a->expr != none) f(*a);
  }
}

// Whether any value node `n` of `g` reads (for_each_argument) reads an allocation's address,
// which exists only once the alloc node is made: the capture strategy makes such a node during
// the capture, after the alloc, where it makes others before (plan::built_during_capture).
inline bool node_reads_allocation(const graph& g, const node& n) {
  if (g.allocations.empty()) return false;  // most graphs allocate nothing
  bool reads = false;
  for_each_argument(g, n, [&](const argument& a) { reads = reads || g.reads_allocation(a.expr); });
  return reads;
}

struct kernel {
  std::string name;
  std::string symbol;             // `as "…"`, else the name
  std::uint32_t library = none;   // `from LIB`: index into program::libraries
  std::vector<parameter> params;
  source_range range;
};

struct host_callback {
  std::string name;
  std::vector<parameter> params;
  source_range range;
};

struct library {
  enum class kind : std::uint8_t { module, source };
  kind k = kind::module;
  std::string name;
  std::string text;  // module: the path; source: the CUDA C++ code
  source_range range;
  source_range text_range;
};

struct program {
  std::string file;
  std::vector<std::string> includes;
  std::vector<structure> structs;
  std::vector<kernel> kernels;
  std::vector<host_callback> hosts;
  std::vector<library> libraries;
  std::vector<graph> graphs;

  const graph* find_graph(std::string_view name) const;
};

}  // namespace cgraph::ir

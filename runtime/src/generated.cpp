// The run-time half of generated code (cgraph/generated.hpp): errors with .cgraph sites,
// checked arithmetic through the same ir::apply the run-time path uses, the graph state a
// generated build fills, and the add-node helpers of the explicit strategy.

#include "check.hpp"
#include "compat.hpp"
#include "repeat_counter.hpp"

#include <cgraph/eval.hpp>
#include <cgraph/generated.hpp>

#include <cstdio>
#include <exception>

#include <fmt/format.h>

namespace cgraph::detail {

void check(cudaError_t status, std::string_view api, const gen::site& at) {
  if (status != cudaSuccess) gen::cuda_failed(status, std::string(api.substr(0, api.find('('))).c_str(), at);
}

}  // namespace cgraph::detail

namespace cgraph::gen {

std::string site::str() const { return line ? fmt::format("{}:{}:{}", file, line, column) : std::string(); }

void cuda_failed(cudaError_t status, const char* api, const site& at) {
  (void)cudaGetLastError();  // clear a non-sticky error so the next call starts clean
  throw cuda_error(status, api, at.str());
}

void value_failed(const site& at, const std::string& what, const std::string& message) {
  throw build_error(at.str(), what.empty() ? message : what + ": " + message);
}

namespace {

ir::op_result apply(ir::op o, ir::type result, const ir::value& a, const ir::value& b) {
  ir::expr e;
  e.op = o;
  e.result = result;
  return ir::apply(e, a, b);
}

}  // namespace

std::int64_t int_op(ir::op o, std::int64_t a, std::int64_t b, const site& at) {
  auto r = apply(o, ir::type::of(ir::scalar::i64), ir::value::integer(a), ir::value::integer(b));
  if (!r.error.empty()) value_failed(at, "", r.error);
  return r.v.i;
}

double float_op(ir::op o, double a, double b, const site& at) {
  auto r = apply(o, ir::type::of(ir::scalar::f64), ir::value::floating(a), ir::value::floating(b));
  if (!r.error.empty()) value_failed(at, "", r.error);
  return r.v.f;
}

std::uint64_t ptr_offset(std::uint64_t address, std::int64_t elements, std::uint32_t element_size, bool add,
                         const site& at) {
  ir::expr e;
  e.op = add ? ir::op::ptr_add : ir::op::ptr_sub;
  e.element_size = element_size;
  auto r = ir::apply(e, ir::value::pointer(address), ir::value::integer(elements));
  if (!r.error.empty()) value_failed(at, "", r.error);
  return r.v.bits;
}

std::int64_t from_u64(std::uint64_t v, const site& at, const char* name) {
  if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    value_failed(at, fmt::format("parameter '{}'", name), "the value does not fit 64-bit signed arithmetic");
  return static_cast<std::int64_t>(v);
}

void conversion_failed(ir::value v, ir::type target, bool positive, const site& at, const char* what) {
  auto c = ir::convert(v, target, positive ? ir::check::positive : ir::check::any);
  value_failed(at, what, c.error.empty() ? "value does not fit" : c.error);
}

// ---- graph state ----------------------------------------------------------------------------

graph_state::graph_state(std::size_t steps, std::size_t body_count, std::size_t cond_count)
    : nodes(steps, nullptr), sites(steps), bodies(body_count, nullptr), body_steps(body_count, 0),
      conds(cond_count, 0), repeat_counts(cond_count, nullptr), children(steps) {}

graph_state::~graph_state() {
  detail::destroy_owned(graph);
  for (void* p : repeat_counts) detail::free_owned(p);
}

std::string graph_state::site_of(cudaGraphNode_t node) const {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i] == node) return sites[i].str();
    if (children[i])
      if (auto s = children[i]->site_of(node); !s.empty()) return s;
  }
  return {};
}

std::vector<cudaGraph_t> graph_state::conditional_bodies(cudaGraphNode_t node) const {
  std::vector<cudaGraph_t> out;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i] == node)
      for (std::size_t b = 0; b < bodies.size(); ++b)
        if (body_steps[b] == i && bodies[b]) out.push_back(bodies[b]);
  return out;
}

void create_conds(graph_state& g, cudaGraph_t graph, std::initializer_list<cond_init> conds) {
  for (const auto& c : conds)
    check(CGRAPH_CUDA_STATUS(cudaGraphConditionalHandleCreate(&g.conds[c.cond], graph, c.value, c.has_default ? cudaGraphCondAssignDefault : 0)),
          "cudaGraphConditionalHandleCreate", c.at);
}

void* repeat_count(graph_state& g, std::uint32_t cond, const site& at) {
  void*& count = g.repeat_counts[cond];
  if (!count) {
    detail::require_driver("a 'repeat' loop", detail::conditional_nodes_version);
    check(CGRAPH_CUDA_STATUS(cudaMalloc(&count, sizeof(unsigned))), "cudaMalloc", at);
    detail::ledger(detail::owned::device_memory, 1);
  }
  return count;
}

const void* repeat_init_function() { return detail::repeat_init_function(); }
const void* repeat_counter_function() { return detail::repeat_counter_function(); }

cudaGraphNodeParams conditional_params(cudaGraphConditionalHandle handle, ir::cond_kind kind, unsigned body_count) {
  bool needs_12_8 = kind == ir::cond_kind::if_else || kind == ir::cond_kind::switch_cases;
  detail::require_driver(kind == ir::cond_kind::if_else        ? "an 'if' with 'else'"
                         : kind == ir::cond_kind::switch_cases ? "a 'switch'"
                         : kind == ir::cond_kind::while_loop   ? "a 'while' loop"
                                                               : "an 'if'",
                         needs_12_8 ? detail::if_else_switch_version : detail::conditional_nodes_version);
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = handle;
  p.conditional.type = kind == ir::cond_kind::while_loop     ? cudaGraphCondTypeWhile
                       : kind == ir::cond_kind::switch_cases ? cudaGraphCondTypeSwitch
                                                             : cudaGraphCondTypeIf;
  p.conditional.size = body_count;
  return p;
}

void keep_bodies(graph_state& g, std::uint32_t step, std::uint32_t first, const cudaGraphNodeParams& p) {
  for (unsigned k = 0; k < p.conditional.size; ++k) {
    g.bodies[first + k] = p.conditional.phGraph_out[k];
    g.body_steps[first + k] = step;
  }
}

// ---- host callbacks --------------------------------------------------------------------------

namespace {
void CUDART_CB destroy_host_slot(void* slot) { delete static_cast<host_slot_base*>(slot); }
}  // namespace

// Exceptions must not cross into the driver.
void CUDART_CB run_host_slot(void* slot) {
  try {
    static_cast<host_slot_base*>(slot)->run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cgraph: a host callback threw: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "cgraph: a host callback threw an exception\n");
  }
}

cudaHostNodeParams own_host_slot(std::unique_ptr<host_slot_base> slot, cudaGraph_t owner, const site& at) {
  cudaUserObject_t object = nullptr;
  check(CGRAPH_CUDA_STATUS(cudaUserObjectCreate(&object, slot.get(), destroy_host_slot, 1, cudaUserObjectNoDestructorSync)),
        "cudaUserObjectCreate", at);
  host_slot_base* raw = slot.release();  // the user object owns it now
  // The graph takes over our reference: the slot lives while any graph or exec needs it.
  cudaError_t status = CGRAPH_CUDA_STATUS(cudaGraphRetainUserObject(owner, object, 1, cudaGraphUserObjectMove));
  if (status != cudaSuccess) cudaUserObjectRelease(object, 1);
  check(status, "cudaGraphRetainUserObject", at);
  return cudaHostNodeParams{run_host_slot, raw};
}

// ---- the explicit strategy ----------------------------------------------------------------------

void create_graph(graph_state& g, const site& at) {
  g.graph_site = at;
  check(CGRAPH_CUDA_STATUS(cudaGraphCreate(&g.graph, 0)), "cudaGraphCreate", at);
  detail::ledger(detail::owned::graph, 1);
}

void add_repeat(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, repeat_call call, const site& at) {
  mark(g, step, at);
  check(CGRAPH_CUDA_STATUS(cudaGraphAddKernelNode(&g.nodes[step], parent, d.begin(), d.size(), call.params())), "cudaGraphAddKernelNode", at);
}

void add_memcpy(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, memcpy_call call, const site& at) {
  mark(g, step, at);
  check(CGRAPH_CUDA_STATUS(cudaGraphAddMemcpyNode1D(&g.nodes[step], parent, d.begin(), d.size(), call.dst, call.src, call.bytes,
                                 cudaMemcpyDefault)),
        "cudaGraphAddMemcpyNode1D", at);
}

void add_memset(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, const cudaMemsetParams& call,
                const site& at) {
  mark(g, step, at);
  check(CGRAPH_CUDA_STATUS(cudaGraphAddMemsetNode(&g.nodes[step], parent, d.begin(), d.size(), &call)), "cudaGraphAddMemsetNode", at);
}

void add_host(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, const cudaHostNodeParams& call,
              const site& at) {
  mark(g, step, at);
  check(CGRAPH_CUDA_STATUS(cudaGraphAddHostNode(&g.nodes[step], parent, d.begin(), d.size(), &call)), "cudaGraphAddHostNode", at);
}

void add_child(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, state_ptr child, const site& at) {
  mark(g, step, at);
  check(CGRAPH_CUDA_STATUS(cudaGraphAddChildGraphNode(&g.nodes[step], parent, d.begin(), d.size(), child->graph)),
        "cudaGraphAddChildGraphNode", at);
  g.children[step] = std::move(child);  // its counters and host slots must outlive our execs
}

void add_conditional(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_list d, cudaGraphNodeParams p,
                     std::uint32_t first_body, const site& at) {
  mark(g, step, at);
  check(CGRAPH_CUDA_STATUS(cudaGraphAddNode(&g.nodes[step], parent, d.begin(), nullptr, d.size(), &p)), "cudaGraphAddNode", at);
  keep_bodies(g, step, first_body, p);
}

}  // namespace cgraph::gen

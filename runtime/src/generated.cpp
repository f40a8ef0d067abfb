// The run-time half of generated code (cgraph/runtime/generated.hpp) that is not the backend's: errors
// with .cgraph sites, and checked arithmetic through the same ir::apply the run-time path uses.

#include "backend/seam.hpp"

#include <cgraph/compiler/eval.hpp>
#include <cgraph/runtime/generated.hpp>

#include <cstdio>
#include <exception>

#include <fmt/format.h>

namespace cgraph::gen {

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

bool compare_op(ir::op o, const ir::value& a, const ir::value& b) {
  return apply(o, ir::type::of(ir::scalar::boolean), a, b).v.bits != 0;
}

std::uint64_t ptr_offset(std::uint64_t address, std::int64_t elements, std::uint32_t element_size, bool add,
                         const site& at) {
  ir::expr e;
  e.op = add ? ir::op::ptr_add : ir::op::ptr_sub;
  e.set_element_size(element_size);
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

std::uint16_t small_float_bits(double v, ir::scalar s, bool positive, const site& at, const char* what) {
  auto c = ir::convert(ir::value::floating(v), ir::type::of(s), positive ? ir::check::positive : ir::check::any);
  if (!c.error.empty()) value_failed(at, what, c.error);
  return static_cast<std::uint16_t>(c.as_u64());
}

double small_float_value(std::uint16_t bits, ir::scalar s) { return ir::small_float_value(bits, s); }

std::size_t root_node_count(const graph_state& g) {
  std::size_t n = 0;
  CGRAPH_CUDA(cudaGraphGetNodes(g.graph, nullptr, &n), g.graph_site);
  return n;
}

}  // namespace cgraph::gen

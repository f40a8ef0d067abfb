#pragma once
// C++ text for IR values: types, names, expressions and the conversions of arguments, as
// the generated code computes them (cgraph/runtime/generated.hpp's checked helpers).

#include <cgraph/compiler/ir.hpp>
#include <cgraph/dsl/source.hpp>

#include <span>
#include <string>
#include <string_view>

namespace cgraph::emit {

// The C++ type of a .cgraph type as a kernel or callback parameter: float, std::int32_t*,
// cudaGraphConditionalHandle, a struct's name (`structs`: the program's), …
std::string cpp_type(ir::type t, std::span<const ir::structure> structs);

// f16 or bf16: values that generated code handles by their bits.
bool is_small_float(ir::type t);

// An identifier usable in C++: `name`, or `name_` when it is a C++ keyword or one of the names
// generated code declares itself.
std::string cpp_name(std::string_view name);

// A C++ string literal of `text`.
std::string quoted(std::string_view text);

// Prints one graph's expressions. Generated functions see `p` (parameters), `v` (lets) and
// `g` (the graph state, for cond handles).
class value_printer {
public:
  value_printer(const source_file& source, const ir::program& p, const ir::graph& g) : source_(source), p_(p), g_(g) {}

  // `cg::site{file, L, C}` of a source offset.
  std::string site(std::uint32_t offset) const;
  // An expression in the value domain: std::int64_t, double, bool, std::uint64_t addresses.
  std::string expr(std::uint32_t e) const;
  // The value domain's C++ type of expression e.
  std::string domain_type(std::uint32_t e) const;
  // An argument converted to its target type; `what` names it in errors.
  std::string argument(const ir::argument& a, std::string_view what, source_range fallback) const;
  // A parameter's default, as the parameters struct's member initializer: it may read the
  // members before it, as a default may read earlier parameters.
  std::string default_value(const ir::parameter& p);
  // The function that computes let `index` (of graph::lets) when it reads an allocation's
  // address, which `values`, computed before the graph, cannot hold (emit_cpp.cpp, lets).
  static std::string late_let(std::uint32_t index) { return "cg_let_" + std::to_string(index); }

private:
  std::string literal(const ir::value& v, ir::type target) const;
  // The value domain's form of C++ lvalue `member` of declared type t (a parameter or a field).
  std::string domain_of(const std::string& member, ir::type t, source_range at, std::string_view name) const;

  const source_file& source_;
  const ir::program& p_;
  const ir::graph& g_;
  std::string params_ = "p.";  // how parameters are reached: "p." in functions, "" in the struct
};

}  // namespace cgraph::emit

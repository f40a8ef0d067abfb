#include "lowering.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace cgraph::compiler::detail {

std::string_view describe(global_symbol::kind k) {
  switch (k) {
    case global_symbol::kind::kernel: return "a kernel";
    case global_symbol::kind::host: return "a host callback";
    case global_symbol::kind::library: return "a module or source";
    case global_symbol::kind::graph: return "a graph";
    case global_symbol::kind::constant: return "a constant";
    case global_symbol::kind::structure: return "a struct";
  }
  return "a name";
}

std::optional<ir::type> resolve_type(const ast::type_name& t, diagnostics& diags, const global_table& globals,
                                     std::span<const ir::structure> structs) {
  auto const_value = [&] {
    diags.error(range_of(t), fmt::format("'const' applies to pointers only: write 'const {}*', or '{}' for a value "
                                         "(values are passed by copy)", t.base, t.base));
    return std::nullopt;
  };
  if (auto it = globals.find(t.base); it != globals.end() && it->second.k == global_symbol::kind::structure) {
    it->second.used = true;
    // A pointer needs only the struct's index, not its layout: a struct may point to itself.
    if (t.pointer) return ir::type::pointer_to_struct(it->second.index, t.is_const);
    if (t.is_const) return const_value();
    if (it->second.index >= structs.size() || structs[it->second.index].size == 0) return std::nullopt;  // reported
    return structs[it->second.index].as_type(it->second.index);
  }
  if (t.is_const && !t.pointer) return const_value();
  if (t.base == "void") {
    if (t.pointer) return ir::type::void_pointer(t.is_const);
    diags.error(range_of(t), "'void' is only a type as 'void*'");
    return std::nullopt;
  }
  if (t.base == "event" || t.base == "comm") {
    if (!t.pointer && !t.is_const) return t.base == "event" ? ir::type::event() : ir::type::comm();
    diags.error(range_of(t), t.base == "event" ? "'event' is passed by value (a cudaEvent_t): write 'event'"
                                               : "'comm' is passed by value (an ncclComm_t): write 'comm'");
    return std::nullopt;
  }
  if (t.base == "cond") {
    if (t.is_const) {
      diags.error(range_of(t), "'const cond*' is not a type; conds are passed by value");
      return std::nullopt;
    }
    if (!t.pointer) return ir::type::cond();
    diags.error(range_of(t), "'cond*' is not a type; conds are passed by value");
    return std::nullopt;
  }
  auto s = ir::scalar_from_name(t.base);
  if (!s) {  // the parser only accepts known names; kept for safety
    diags.error(range_of(t), fmt::format("unknown type '{}'", t.base));
    return std::nullopt;
  }
  return t.pointer ? ir::type::pointer_to(*s, t.is_const) : ir::type::of(*s);
}

}  // namespace cgraph::compiler::detail

namespace cgraph::compiler::detail {

namespace {

class struct_layout {
public:
  struct_layout(const std::vector<const ast::struct_decl*>& decls, const global_table& globals, ir::program& program,
                diagnostics& diags)
      : decls_(decls), globals_(globals), program_(program), diags_(diags), state_(decls.size(), state::pending) {}

  void run() {
    for (std::uint32_t i = 0; i < decls_.size(); ++i) lay_out(i);
  }

private:
  enum class state : std::uint8_t { pending, visiting, done, failed };

  // Lays out struct i after the structs its fields hold; false when it cannot be.
  bool lay_out(std::uint32_t i) {
    if (state_[i] == state::done) return true;
    if (state_[i] != state::pending) return false;  // failed, or a cycle reported at the field that closes it
    state_[i] = state::visiting;
    const ast::struct_decl& d = *decls_[i];
    ir::structure out;
    out.name = d.name.name;
    out.range = range_of(d);
    bool ok = true;
    if (d.fields.empty()) {
      diags_.error(range_of(d.name), fmt::format("struct '{}' has no fields", d.name.name));
      ok = false;
    }
    std::uint32_t offset = 0;
    for (const auto& f : d.fields) {
      if (auto previous = out.find(f.name.name); previous != ir::none) {
        auto& diag = diags_.error(range_of(f.name), fmt::format("duplicate field '{}'", f.name.name));
        diag.note(out.fields[previous].range, "previous field is here");
        ok = false;
        continue;
      }
      if (auto it = globals_.find(f.type.base); it != globals_.end() && it->second.k == global_symbol::kind::structure &&
                                                !f.type.pointer && !lay_out(it->second.index)) {
        if (state_[it->second.index] == state::visiting)
          diags_.error(range_of(f.type), fmt::format("struct '{}' contains itself through field '{}'", d.name.name,
                                                     f.name.name));
        ok = false;
        continue;
      }
      auto t = resolve_type(f.type, diags_, globals_, program_.structs);
      if (t && (t->k == ir::type::kind::cond)) {
        diags_.error(range_of(f.type), "a struct field cannot be 'cond'; conds are passed as parameters of their own");
        t.reset();
      }
      if (t && t->is_handle()) {
        diags_.error(range_of(f.type), t->k == ir::type::kind::event
                                           ? "a struct field cannot be 'event'; events are graph parameters of their own"
                                           : "a struct field cannot be 'comm'; communicators are graph parameters of their own");
        t.reset();
      }
      if (!t) {
        ok = false;
        continue;
      }
      const std::uint32_t align = ir::align_of(*t);
      offset = (offset + align - 1) / align * align;
      out.fields.push_back({std::string(f.name.name), *t, offset, range_of(f)});
      offset += ir::size_of(*t);
      out.align = static_cast<std::uint8_t>(std::max<std::uint32_t>(out.align, align));
    }
    out.size = (offset + out.align - 1) / out.align * out.align;
    // CUDA's limit on a kernel's parameters; field offsets fit 16 bits.
    if (ok && out.size > ir::max_kernel_parameter_bytes) {
      diags_.error(range_of(d.name), fmt::format("struct '{}' is {} bytes, more than a kernel's parameters may be "
                                                 "({} bytes)", d.name.name, out.size, ir::max_kernel_parameter_bytes));
      ok = false;
    }
    if (ok && i >= ir::type::max_structs) {
      diags_.error(range_of(d.name), fmt::format("more than {} structs in one file", ir::type::max_structs));
      ok = false;
    }
    state_[i] = ok ? state::done : state::failed;
    if (!ok) out.size = 0;  // a type naming it is already reported
    program_.structs[i] = std::move(out);
    return ok;
  }

  const std::vector<const ast::struct_decl*>& decls_;
  const global_table& globals_;
  ir::program& program_;
  diagnostics& diags_;
  std::vector<state> state_;
};

}  // namespace

void lower_structs(const std::vector<const ast::struct_decl*>& decls, const global_table& globals,
                   ir::program& program, diagnostics& diags) {
  struct_layout(decls, globals, program, diags).run();
}

}  // namespace cgraph::compiler::detail

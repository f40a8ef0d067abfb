// compile(): parse, register the top-level names, lower declarations and graphs, then the
// checks that need every graph (call_graph_checks.hpp).

#include "call_graph_checks.hpp"
#include "graph_lowering.hpp"
#include "imports.hpp"
#include "lowering.hpp"

#include <cgraph/dsl/parse.hpp>
#include <cgraph/dsl/source.hpp>
#include <cgraph/dsl/suggest.hpp>

#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>

namespace cgraph {

namespace {

using namespace compiler::detail;

class program_lowering {
public:
  // `bodies`: where the tree's graph bodies were deferred (dsl::graph_bodies::defer), else null.
  program_lowering(const dsl::ast::file& file, ir::program& program, diagnostics& diags, const compile_limits& limits,
                   std::uint32_t first_file_end, const deferred_bodies* bodies)
      : file_(file), program_(program), diags_(diags), limits_(limits), first_file_end_(first_file_end), bodies_(bodies) {}

  // False where a deferred body had a syntax error: the caller then drops what was made.
  bool run() {
    register_names();
    lower_structs(struct_decls_, globals_, program_, diags_);
    constants_.evaluate_all();  // each constant's errors, also of one no graph uses
    for (const auto& d : file_.declarations) boost::apply_visitor([&](const auto& x) { lower(x); }, d);
    program_context ctx{program_, globals_, graph_decls_, diags_, limits_, calls_, constants_, bodies_};
    for (std::uint32_t i = 0; i < graph_decls_.size(); ++i) {
      lower_graph(ctx, i);
      if (bodies_ && bodies_->syntax_errors.has_errors()) return false;
    }
    if (bodies_ && !parse_unlowered_bodies()) return false;
    check_call_graph(program_, calls_, diags_, limits_);
    if (!diags_.has_errors()) {
      // A file that declares no graph is a library, written to be imported and used in part:
      // nothing in it is reported unused.
      bool library = std::none_of(graph_decls_.begin(), graph_decls_.end(),
                                  [&](const dsl::ast::graph_decl* g) { return g->name.begin <= first_file_end_; });
      if (!library) {
        constants_.warn_unused(first_file_end_);
        warn_unused_declarations();
      }
    }
    return true;
  }

  // A graph not lowered (a redefinition) has its deferred body parsed for its syntax alone.
  bool parse_unlowered_bodies() {
    for (const auto& d : file_.declarations)
      if (const auto* g = boost::get<dsl::ast::graph_decl>(&d); g && is_duplicate(g->name))
        if (!dsl::parse_body(bodies_->source, g->body, bodies_->struct_names, bodies_->syntax_errors,
                             [](const dsl::ast::statement&) {}, limits_.max_nesting))
          return false;
    return true;
  }

  // LANGUAGE.md §13 rule 10: a kernel never launched, a host callback never called, a struct
  // never named (in the first file: an imported file is a library, used in part).
  void warn_unused_declarations() {
    auto warn = [&](source_range r, std::string message) {
      if (r.begin <= first_file_end_) diags_.warning(r, std::move(message));
    };
    std::vector<bool> kernels(program_.kernels.size()), hosts(program_.hosts.size());
    for (const auto& g : program_.graphs)
      ir::for_each_node(g, g.root, [&](const ir::node& n) {
        if (n.kind == ir::node_kind::kernel) kernels[n.callee] = true;
        if (n.kind == ir::node_kind::host) hosts[n.callee] = true;
      });
    for (std::size_t k = 0; k < kernels.size(); ++k)
      if (!kernels[k]) warn(program_.kernels[k].range, fmt::format("kernel '{}' is never launched", program_.kernels[k].name));
    for (std::size_t h = 0; h < hosts.size(); ++h)
      if (!hosts[h]) warn(program_.hosts[h].range, fmt::format("host callback '{}' is never called", program_.hosts[h].name));
    for (const auto* d : struct_decls_)
      if (!globals_.at(d->name.name).used) warn(range_of(d->name), fmt::format("struct '{}' is never used", d->name.name));
  }

private:
  // ---- names ---------------------------------------------------------------------------------

  void register_names() {
    for (const auto& d : file_.declarations) {
      boost::apply_visitor(
          [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, dsl::ast::kernel_decl>) add_global(x.name, global_symbol::kind::kernel, program_.kernels);
            else if constexpr (std::is_same_v<T, dsl::ast::host_decl>) add_global(x.name, global_symbol::kind::host, program_.hosts);
            else if constexpr (std::is_same_v<T, dsl::ast::library_decl>) add_global(x.name, global_symbol::kind::library, program_.libraries);
            else if constexpr (std::is_same_v<T, dsl::ast::graph_decl>) {
              if (add_global(x.name, global_symbol::kind::graph, program_.graphs)) graph_decls_.push_back(&x);
            } else if constexpr (std::is_same_v<T, dsl::ast::struct_decl>) {
              if (add_global(x.name, global_symbol::kind::structure, program_.structs)) struct_decls_.push_back(&x);
            } else if constexpr (std::is_same_v<T, dsl::ast::const_decl>) {
              if (add_global(x.name, global_symbol::kind::constant, const_decls_)) {
                const_decls_.back() = &x;
                constants_.add(x);
              }
            }
          },
          d);
    }
  }

  // Registers a name and reserves its slot in `list`; false for a redefinition.
  template <typename List>
  bool add_global(const dsl::ast::identifier& name, global_symbol::kind k, List& list) {
    auto [it, inserted] = globals_.try_emplace(name.name, global_symbol{k, static_cast<std::uint32_t>(list.size()), range_of(name)});
    if (!inserted) {
      auto& d = diags_.error(range_of(name), fmt::format("redefinition of '{}'", name.name));
      d.note(it->second.range, "previous declaration is here");
      duplicates_.insert(&name);
      return false;
    }
    list.emplace_back();
    return true;
  }

  bool is_duplicate(const dsl::ast::identifier& name) const { return duplicates_.count(&name) > 0; }

  // ---- declarations --------------------------------------------------------------------------

  std::vector<ir::parameter> lower_signature(const dsl::ast::list<dsl::ast::parameter>& params, bool host) {
    std::vector<ir::parameter> out;
    std::unordered_map<std::string_view, source_range> seen;
    for (const auto& p : params) {
      auto [it, inserted] = seen.try_emplace(p.name.name, range_of(p.name));
      if (!inserted) {
        auto& d = diags_.error(range_of(p.name), fmt::format("duplicate parameter '{}'", p.name.name));
        d.note(it->second, "previous parameter is here");
      }
      if (p.default_value)
        diags_.error(range_of(*p.default_value), "default values are allowed only for graph parameters");
      auto t = resolve_type(p.type, diags_, globals_, program_.structs);
      if (t && host && t->k == ir::type::kind::cond)
        diags_.error(range_of(p.type), "host callbacks take scalar, pointer or struct parameters, not 'cond'");
      if (t && t->is_handle()) {
        diags_.error(range_of(p.type), fmt::format("{} cannot take {}", host ? "host callbacks" : "kernels",
                                                   t->k == ir::type::kind::event
                                                       ? "an 'event'; events are graph parameters, used by 'record' and 'wait'"
                                                       : "a 'comm'; communicators are graph parameters, used by collectives"));
        t.reset();
      }
      out.push_back({std::string(p.name.name), t.value_or(unresolved_parameter_type), ir::none, range_of(p)});
    }
    return out;
  }

  void lower(const dsl::ast::include_decl& d) {
    const std::string& path = d.path.value;
    if (path.empty()) diags_.error(range_of(d.path), "include path is empty");
    // Generated C++ names the header as written, between quotes, where C++ takes no escapes: a
    // quote or a line break would end the #include early, and a control byte is no file name.
    const auto bad = std::find_if(path.begin(), path.end(),
                                  [](char c) { return c == '"' || is_control_byte(static_cast<unsigned char>(c)); });
    if (bad != path.end())
      diags_.error(range_of(d.path), fmt::format("include path holds {}, which a C++ #include cannot name",
                                                 *bad == '"'    ? std::string("'\"'")
                                                 : *bad == '\n' ? std::string("a line break")
                                                                : fmt::format("the control byte 0x{:02X}", static_cast<unsigned char>(*bad))));
    program_.includes.push_back(path);
  }

  void lower(const dsl::ast::kernel_decl& d) {
    auto params = lower_signature(d.params, false);
    if (is_duplicate(d.name)) return;
    ir::kernel& k = program_.kernels[globals_.at(d.name.name).index];
    k.name = d.name.name;
    k.symbol = d.symbol ? d.symbol->value : d.name.name;
    k.params = std::move(params);
    k.range = range_of(d);
    // Laid out as CUDA lays out a kernel's parameters, each at its alignment: past the limit,
    // nvcc refuses the generated C++ and a launch at run time fails, so say so here.
    std::uint64_t bytes = 0;
    for (const ir::parameter& p : k.params) {
      const std::uint32_t align = std::max<std::uint32_t>(1, ir::align_of(p.t));  // 0 for a struct that failed
      bytes = (bytes + align - 1) / align * align + ir::size_of(p.t);
    }
    if (bytes > ir::max_kernel_parameter_bytes)
      diags_.error(range_of(d.name), fmt::format("kernel '{}' takes {} bytes of parameters, more than CUDA allows a "
                                                 "kernel ({} bytes)", d.name.name, bytes, ir::max_kernel_parameter_bytes));
    if (d.symbol && d.symbol->value.empty()) diags_.error(range_of(*d.symbol), "the 'as' symbol is empty");
    if (d.library) {
      auto it = globals_.find(d.library->name);
      if (it == globals_.end())
        diags_.error(range_of(*d.library), fmt::format("unknown module or source '{}'", d.library->name));
      else if (it->second.k != global_symbol::kind::library) {
        auto& diag = diags_.error(range_of(*d.library), fmt::format("'{}' is {}, not a module or source",
                                                                    d.library->name, describe(it->second.k)));
        diag.note(it->second.range, fmt::format("'{}' is declared here", d.library->name));
      } else {
        k.library = it->second.index;
      }
    }
  }

  void lower(const dsl::ast::host_decl& d) {
    auto params = lower_signature(d.params, true);
    if (is_duplicate(d.name)) return;
    ir::host_callback& h = program_.hosts[globals_.at(d.name.name).index];
    h.name = d.name.name;
    h.params = std::move(params);
    h.range = range_of(d);
  }

  void lower(const dsl::ast::library_decl& d) {
    bool is_module = d.kind == dsl::ast::library_kind::module;
    if (d.text.value.empty())
      diags_.error(range_of(d.text), is_module ? "module path is empty" : "source text is empty");
    if (is_duplicate(d.name)) return;
    ir::library& lib = program_.libraries[globals_.at(d.name.name).index];
    lib.k = is_module ? ir::library::kind::module : ir::library::kind::source;
    lib.name = d.name.name;
    lib.text = d.text.value;
    lib.range = range_of(d);
    lib.text_range = range_of(d.text);
  }

  void lower(const dsl::ast::import_decl&) {}  // read before parsing (imports.cpp)
  void lower(const dsl::ast::graph_decl&) {}  // after all declarations, in lower_graph
  void lower(const dsl::ast::const_decl&) {}  // on first use, through constants_
  void lower(const dsl::ast::struct_decl&) {}  // before everything else, in lower_structs

  const dsl::ast::file& file_;
  ir::program& program_;
  diagnostics& diags_;
  const compile_limits& limits_;
  std::uint32_t first_file_end_;  // imported files follow (source_file segments)
  global_table globals_;
  constant_table constants_{globals_, program_.structs, diags_, limits_};
  std::vector<const dsl::ast::struct_decl*> struct_decls_;  // by struct index
  std::vector<const dsl::ast::const_decl*> const_decls_;  // by constant index
  std::vector<const dsl::ast::graph_decl*> graph_decls_;
  std::vector<call_site> calls_;
  std::unordered_set<const dsl::ast::identifier*> duplicates_;
  const deferred_bodies* bodies_;
};

}  // namespace

namespace {

compile_result compile_files(const source_file& source, source_file* growable, const compile_limits& limits,
                             const import_options* imports) {
  compile_result result;
  const dsl::suggestion_budget suggestions(limits.max_suggestion_cells);
  // The syntax tree's lists come from this arena while the tree lives (dsl/ast_arena.hpp), and
  // go back to the heap with it; `parsed`, made after it, is destroyed before it.
  dsl::ast::arena tree_memory;
  const dsl::ast::arena::use tree_lists(tree_memory);
  ir::program program;
  program.file = source.name();
  // Unused declarations of imported files are not warned about: a library of kernels is used
  // in part.
  const auto first_file_end = source.segment_range(0).end;
  // Lowering as the graph bodies are parsed (docs/architecture.md, "Lowering as the body is
  // parsed"): into a program and diagnostics of its own, kept only where no body had a syntax
  // error. Semantic checks on a tree with syntax errors would mostly report their echoes.
  const auto lower_deferred = [&](const parsed_files& files) {
    diagnostics lowering, syntax_errors;
    ir::program streamed;
    streamed.file = program.file;
    const deferred_bodies bodies{source, files.struct_names, syntax_errors};
    if (!program_lowering(files.file, streamed, lowering, limits, first_file_end, &bodies).run()) return false;
    result.diags.append(lowering);
    program = std::move(streamed);
    return true;
  };
  auto parsed = read_and_parse(source, growable, limits, imports, result.diags, lower_deferred);
  if (parsed && parsed->ok)
    program_lowering(parsed->file, program, result.diags, limits, first_file_end, nullptr).run();
  result.diags.sort_by_position();
  result.diags.limit_errors(limits.max_errors);
  if (!result.diags.has_errors()) result.program = std::move(program);
  return result;
}

ir::program or_throw(compile_result result, const source_file& source) {
  if (!result.program) throw compile_error(format_diagnostics(source, result.diags), result.diags.all());
  return std::move(*result.program);
}

}  // namespace

compile_result compile(const source_file& source, const compile_limits& limits) {
  return compile_files(source, nullptr, limits, nullptr);
}

compile_result compile(source_file& source, const compile_limits& limits, const import_options& imports) {
  return compile_files(source, &source, limits, &imports);
}

std::vector<std::string> imported_struct_names(const source_file& source, const import_options& imports) {
  source_file copy = source;  // the segments read are dropped with it
  diagnostics ignored;
  return read_imported_structs(copy, copy, imports, ignored);
}

ir::program compile_or_throw(const source_file& source, const compile_limits& limits) {
  return or_throw(compile(source, limits), source);
}

ir::program compile_or_throw(source_file& source, const compile_limits& limits, const import_options& imports) {
  return or_throw(compile(source, limits, imports), source);
}

}  // namespace cgraph

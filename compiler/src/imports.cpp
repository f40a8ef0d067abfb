// Import resolution: paths relative to the importing file, optionally confined to one
// directory (the same guard as `module` paths), each file read once.

#include "imports.hpp"

#include <cgraph/dsl/parse.hpp>

#include <filesystem>
#include <unordered_set>

#include <fmt/format.h>

namespace cgraph::compiler::detail {

namespace fs = std::filesystem;

namespace {

// The path a string token names: "…" with \" \\ \n \t escapes, or """…""" taken as written.
std::string string_value(std::string_view token) {
  if (token.starts_with("\"\"\"")) return std::string(token.substr(3, token.size() - 6));
  std::string out;
  for (std::size_t i = 1; i + 1 < token.size(); ++i) {
    char c = token[i];
    if (c == '\\' && i + 2 < token.size()) {
      c = token[++i];
      c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
    }
    out += c;
  }
  return out;
}

// Whether `path` lies inside `root` (both absolute, symbolic links resolved).
bool inside(const fs::path& root, const fs::path& path) {
  auto rel = path.lexically_relative(root);
  return !rel.empty() && *rel.begin() != "..";
}

class loader {
public:
  loader(const source_file& source, source_file* growable, const compile_limits& limits, const import_options* options,
         diagnostics& diags)
      : source_(source), growable_(growable), limits_(limits), options_(options), diags_(diags) {
    if (options_) {
      std::error_code ec;
      root_ = fs::weakly_canonical(fs::absolute(options_->directory.empty() ? "." : options_->directory), ec);
      directories_.push_back(options_->directory.empty() ? fs::path(".") : fs::path(options_->directory));
      // The first file itself, when it is one, so importing it again reads nothing.
      if (fs::is_regular_file(source.name(), ec)) seen_.insert(fs::weakly_canonical(source.name(), ec).string());
    } else {
      directories_.emplace_back();
    }
  }

  // Scans every file, reading imports as they are found (segments grow meanwhile).
  void read_all() {
    for (std::uint32_t k = 0; k < source_.segment_count(); ++k) {
      scans_.push_back(dsl::scan(source_, k, diags_, {limits_.max_file_bytes, limits_.max_nesting}));
      struct_names_.insert(struct_names_.end(), scans_.back().struct_names.begin(), scans_.back().struct_names.end());
      for (source_range token : scans_.back().imports) read(k, token);
    }
  }

  // The struct names of segments 1… (the imported files).
  std::vector<std::string> imported_structs() {
    read_all();
    std::vector<std::string> out;
    for (std::size_t k = 1; k < scans_.size(); ++k)
      out.insert(out.end(), scans_[k].struct_names.begin(), scans_[k].struct_names.end());
    return out;
  }

  std::optional<parsed_files> run(const deferred_lowering& lower) {
    std::size_t errors_before = diags_.error_count();
    read_all();
    // The deferred parse reports into a sink of its own: its errors are reported again, the
    // same, by the full parse that follows them.
    if (lower && !diags_.has_errors()) {
      diagnostics deferred_errors;
      parsed_files deferred = parse(dsl::graph_bodies::defer, deferred_errors, true);
      if (!deferred_errors.has_errors() && lower(deferred)) return std::nullopt;
    }
    parsed_files out = parse(dsl::graph_bodies::parse, diags_, false);
    out.ok = diags_.error_count() == errors_before;
    return out;
  }

private:
  // Every file read, parsed with the struct names of all; `keep_scans` for a parse that may be
  // followed by another (the scans' comments are moved into the result otherwise).
  parsed_files parse(dsl::graph_bodies bodies, diagnostics& sink, bool keep_scans) {
    parsed_files out;
    for (std::uint32_t k = 0; k < source_.segment_count(); ++k) {
      dsl::scan_result scanned;
      if (keep_scans) {
        scanned.fatal = scans_[k].fatal;
        scanned.top_braces = scans_[k].top_braces;
      } else {
        scanned = std::move(scans_[k]);
      }
      auto parsed = dsl::parse(source_, k, std::move(scanned), struct_names_, sink, bodies);
      for (auto& d : parsed.file.declarations) out.file.declarations.push_back(std::move(d));
      if (k == 0) out.file.begin = parsed.file.begin, out.file.end = parsed.file.end;
    }
    out.struct_names = struct_names_;
    return out;
  }

  // The file an import names, appended as a segment unless it was read already.
  void read(std::uint32_t importer, source_range token) {
    std::string path = string_value(source_.text().substr(token.begin, token.end - token.begin));
    if (!options_ || !growable_) {
      diags_.error(token, "'import' needs a directory to find files in: this text was compiled without one (use "
                          "program::load, or give program::compile an import directory)");
      return;
    }
    if (path.empty()) {
      diags_.error(token, "import path is empty");
      return;
    }
    fs::path file = (directories_[importer] / path).lexically_normal();
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(fs::absolute(file), ec);
    if (options_->confine && (ec || !inside(root_, canonical))) {
      diags_.error(token, fmt::format("import '{}' leaves the directory '{}', where imports are confined (see "
                                      "build_options::allow_module_paths_outside_directory)",
                                      path, root_.string()));
      return;
    }
    if (!seen_.insert(canonical.string()).second) return;  // a file is read once
    std::optional<std::string> text = read_file(file.string());
    if (!text) {
      diags_.error(token, cannot_read(file.string()));
      return;
    }
    std::string bytes = std::move(*text);
    if (source_.text().size() + bytes.size() >= max_total_bytes) {
      diags_.error(token, fmt::format("the imported files exceed {} bytes in all", max_total_bytes));
      return;
    }
    growable_->add_segment(file.string(), std::move(bytes));
    directories_.push_back(file.parent_path());
  }

  // Source offsets are 32 bits.
  static constexpr std::size_t max_total_bytes = std::size_t{1} << 31;

  const source_file& source_;
  source_file* growable_;  // source_, where imports may be appended
  const compile_limits& limits_;
  const import_options* options_;
  diagnostics& diags_;
  fs::path root_;
  std::vector<fs::path> directories_;  // by segment: where its relative imports start
  std::unordered_set<std::string> seen_;
  std::vector<dsl::scan_result> scans_;  // by segment
  std::vector<std::string> struct_names_;
};

}  // namespace

std::optional<parsed_files> read_and_parse(const source_file& source, source_file* growable, const compile_limits& limits,
                                           const import_options* imports, diagnostics& diags,
                                           const deferred_lowering& lower) {
  return loader(source, growable, limits, imports, diags).run(lower);
}

std::vector<std::string> read_imported_structs(const source_file& source, source_file& growable,
                                               const import_options& imports, diagnostics& diags) {
  return loader(source, &growable, {}, &imports, diags).imported_structs();
}

}  // namespace cgraph::compiler::detail

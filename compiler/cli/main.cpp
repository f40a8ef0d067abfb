// cgraphc: the command line of LANGUAGE.md §8 and §14.
// Exit status: 0 success, 1 the input has errors, 2 usage error or unreadable file.

#include <cgraph/compiler/compile.hpp>
#include <cgraph/dsl/format.hpp>
#include <cgraph/compiler/emit_cpp.hpp>
#include <cgraph/compiler/printers.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string_view>

namespace {

constexpr int exit_ok = 0;
constexpr int exit_input_errors = 1;
constexpr int exit_usage = 2;

struct usage_error {
  std::string message;
};

// A named file that cannot be read or written: exit 2, but `check` and `fmt` report it and go on
// with their other files (as gofmt does), so `fmt --check` in CI still lists every file.
struct file_error : usage_error {
  explicit file_error(std::string text) : usage_error{std::move(text)} {}
};

// A message may name a file, and a file's name may hold an escape byte: printed as <XX>.
void report(const usage_error& e) { std::cerr << "cgraphc: error: " << cgraph::printable(e.message) << '\n'; }

// Where diagnostics go: as text to stderr as each file is done, or with
// --diagnostics-format=json as one JSON array on stderr when cgraphc ends (LANGUAGE.md §14).
// -w hides warnings; -Werror makes a file with warnings fail as one with errors does.
class reporter {
public:
  bool json = false;
  bool hide_warnings = false;
  bool warnings_are_errors = false;
  std::size_t max_errors = 0;  // --max-errors: a file's errors shown; 0, every one (LANGUAGE.md)

  // Reports a file's diagnostics; false when they fail it (an error, or a warning under -Werror).
  bool report(const cgraph::source_file& src, const cgraph::diagnostics& list) {
    bool failed = false;
    for (const auto& d : list.all()) {
      if (d.level == cgraph::severity::warning) {
        if (hide_warnings) continue;
        failed = failed || warnings_are_errors;
      } else if (d.level == cgraph::severity::error) {
        failed = true;
      }
      if (json) objects_.push_back(cgraph::format_diagnostic_json(src, d));
      else std::cerr << cgraph::format_diagnostic(src, d);
    }
    return !failed;
  }

  void finish() const {
    if (!json) return;
    std::cerr << '[';
    for (std::size_t i = 0; i < objects_.size(); ++i) std::cerr << (i ? ",\n " : "") << objects_[i];
    std::cerr << "]\n";
  }

private:
  std::vector<std::string> objects_;
};

reporter diagnostics_out;

// A file's text; `-` is standard input, named <stdin> in diagnostics.
cgraph::source_file read_source(const std::string& path) {
  if (path == "-") {
    std::ostringstream text;
    text << std::cin.rdbuf();
    return cgraph::source_file("<stdin>", std::move(text).str());
  }
  std::optional<std::string> text = cgraph::read_file(path);
  if (!text) throw file_error{cgraph::cannot_read(path)};
  return cgraph::source_file(path, std::move(*text));
}

// Prints to standard output. A write that fails (a full disk, `> /dev/full`) is exit 2 with the
// reason, never a success with nothing written; flushing at once keeps errno the write's own.
void print(std::string_view text) {
  std::cout.write(text.data(), static_cast<std::streamsize>(text.size()));
  std::cout.flush();
  if (!std::cout) throw usage_error{std::string("cannot write standard output: ") + std::strerror(errno)};
}

enum class written { whole, not_opened, partly };

// Writes `text` over the file at `path`; on failure errno says why.
written write_text(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out.is_open()) return written::not_opened;
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  return out ? written::whole : written::partly;
}

std::string cannot_write(const std::string& path, int error) {
  return "cannot write '" + path + "': " + std::strerror(error);
}

// emit-cpp's -o and --depfile. A write that fails part-way removes the regular file it left, so
// a build system never takes a truncated file for a finished one (a device such as /dev/full is
// left alone).
void write_output(const std::string& path, std::string_view text) {
  written result = write_text(path, text);
  if (result == written::whole) return;
  int error = errno;
  std::error_code ignored;
  if (result == written::partly && std::filesystem::is_regular_file(path, ignored)) std::filesystem::remove(path, ignored);
  throw file_error{cannot_write(path, error)};
}

// fmt -i keeps a file's text until the new text is whole (as gofmt -w does): a copy goes beside
// the file first, with its permissions; if writing the file fails (a full disk), the copy is
// renamed back over it, so a source file is never left truncated. The copy is made at the
// symbolic link's target, so that renaming it back keeps the link.
void rewrite_in_place(const std::string& file, std::string_view original, std::string_view formatted) {
  namespace fs = std::filesystem;
  auto write_without_copy = [&] {
    if (write_text(file, formatted) != written::whole) throw file_error{cannot_write(file, errno)};
  };
  std::error_code ec;
  fs::path target = fs::canonical(file, ec);
  fs::file_status status = ec ? fs::file_status{} : fs::status(target, ec);
  if (ec || !fs::is_regular_file(status)) return write_without_copy();  // a device or a pipe
  std::string backup;
  std::FILE* copy = nullptr;
  for (int k = 0; !copy && k < 100; ++k) {  // "x": never over a file that is already there
    backup = target.string() + ".cgraphc-fmt-" + std::to_string(k);
    copy = std::fopen(backup.c_str(), "wbx");
    if (!copy && errno != EEXIST) break;
  }
  // A folder that takes no new file (its permissions) still lets the file be written, as before.
  if (!copy && (errno == EACCES || errno == EPERM)) return write_without_copy();
  if (!copy) throw file_error{cannot_write(backup, errno) + "; '" + file + "' is unchanged"};
  bool copied = std::fwrite(original.data(), 1, original.size(), copy) == original.size();
  copied = std::fclose(copy) == 0 && copied;
  if (!copied) {
    int error = errno;
    fs::remove(backup, ec);
    throw file_error{cannot_write(backup, error) + "; '" + file + "' is unchanged"};
  }
  fs::permissions(backup, status.permissions(), ec);
  written result = write_text(target.string(), formatted);
  if (result == written::whole) {
    fs::remove(backup, ec);
    return;
  }
  int error = errno;
  std::error_code restored;
  fs::rename(backup, target, restored);
  throw file_error{cannot_write(file, error) +
                    (restored ? "; its original text is in '" + backup + "'" : std::string("; it is unchanged"))};
}

// Imports start in the file's folder (the current one for standard input). cgraphc compiles
// files its user names, so they may import from anywhere, as a C++ compiler's includes may.
cgraph::import_options imports_of(const cgraph::source_file& src) {
  std::string folder = src.name() == "<stdin>" ? "." : std::filesystem::path(src.name()).parent_path().string();
  return {folder.empty() ? "." : folder, false};
}

// Compiles one file and what it imports (appended to `src`); prints the diagnostics to stderr.
std::optional<cgraph::ir::program> compile_file(cgraph::source_file& src) {
  cgraph::compile_limits limits;
  limits.max_errors = diagnostics_out.max_errors;
  auto result = cgraph::compile(src, limits, imports_of(src));
  if (!diagnostics_out.report(src, result.diags)) return std::nullopt;
  return std::move(result.program);
}

// What `check` compiled, kept until the process ends: the system takes the memory back at once,
// where destroying a large program's graphs one vector at a time took 5% of the run (200 000
// nodes). Held by a pointer that stays reachable, so leak checkers see no leak.
void keep_until_exit(cgraph::ir::program&& program) {
  static auto* kept = new std::vector<cgraph::ir::program>;
  kept->push_back(std::move(program));
}

// Runs `one` on each file and returns the worst exit status. A file that cannot be read or
// written is reported and the others are still done.
template <class Each>
int for_each_file(const std::vector<std::string>& files, Each one) {
  int status = exit_ok;
  for (const auto& file : files) {
    try {
      status = std::max(status, one(file));
    } catch (const file_error& e) {
      report(e);
      status = exit_usage;
    }
  }
  return status;
}

int run_check(const std::vector<std::string>& files) {
  return for_each_file(files, [](const std::string& file) {
    auto src = read_source(file);
    auto program = compile_file(src);
    if (!program) return exit_input_errors;
    keep_until_exit(std::move(*program));
    return exit_ok;
  });
}

int run_ir(const std::string& file, bool locations) {
  auto src = read_source(file);
  auto program = compile_file(src);
  if (!program) return exit_input_errors;
  print(cgraph::print_ir(*program, src, {locations}));
  return exit_ok;
}

int run_dot(const std::string& file, const std::string& graph) {
  auto src = read_source(file);
  auto program = compile_file(src);
  if (!program) return exit_input_errors;
  if (!graph.empty() && !program->find_graph(graph)) {
    std::string names;
    for (const auto& g : program->graphs) names += (names.empty() ? "" : ", ") + g.name;
    throw usage_error{"no graph named '" + graph + "' in " + file +
                      (names.empty() ? std::string("; it declares no graph") : "; its graphs are " + names)};
  }
  print(cgraph::print_dot(*program, src, graph));
  return exit_ok;
}

enum class fmt_action { print, check, in_place };

// fmt: prints each file in canonical form, or (--check) lists those that are not and exits 1,
// or (-i) rewrites those that are not.
int run_fmt(const std::vector<std::string>& files, fmt_action action) {
  return for_each_file(files, [action](const std::string& file) {
    auto src = read_source(file);
    cgraph::diagnostics diags;
    auto formatted = cgraph::dsl::format_source(src, diags, cgraph::imported_struct_names(src, imports_of(src)));
    diags.limit_errors(diagnostics_out.max_errors);
    diagnostics_out.report(src, diags);
    if (!formatted) return exit_input_errors;
    if (action == fmt_action::print) {
      print(*formatted);
      return exit_ok;
    }
    if (*formatted == src.text()) return exit_ok;
    if (action == fmt_action::check) {
      print(file + '\n');
      return exit_input_errors;
    }
    if (file == "-") throw usage_error{"fmt -i cannot rewrite standard input"};
    rewrite_in_place(file, src.text(), *formatted);
    return exit_ok;
  });
}

// A Make-syntax dependency file: `output` depends on every file read (the imported ones too),
// so a build system regenerates when any of them changes.
void write_depfile(const std::string& depfile, const std::string& output, const cgraph::source_file& src) {
  auto escaped = [](std::string path) {
    std::string out;
    for (char c : path) {
      if (c == ' ' || c == '#') out += '\\';
      if (c == '$') out += '$';
      out += c;
    }
    return out;
  };
  std::string text = escaped(output) + ":";
  for (std::uint32_t k = 0; k < src.segment_count(); ++k)
    text += " \\\n  " + escaped(std::filesystem::absolute(src.segment_name(k)).lexically_normal().string());
  write_output(depfile, text + '\n');
}

int run_emit(const std::string& file, const std::string& mode, const std::string& output, const std::string& depfile,
             std::size_t table_threshold) {
  auto src = read_source(file);
  auto program = compile_file(src);
  if (!program) return exit_input_errors;
  if (!depfile.empty()) {
    if (output.empty()) throw usage_error{"--depfile needs -o (the file it lists dependencies of)"};
    write_depfile(depfile, output, src);
  }
  auto result = cgraph::emit_cpp(*program, src, mode == "capture" ? cgraph::emit_mode::stream_capture : cgraph::emit_mode::explicit_nodes,
                                 table_threshold);
  diagnostics_out.report(src, result.diags);
  if (!result.code) return exit_input_errors;
  if (output.empty()) print(*result.code);
  else write_output(output, *result.code);
  return exit_ok;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cgraphc: checks .cgraph files and prints their IR, DOT and canonical form", "cgraphc"};
  app.set_version_flag("--version", "cgraphc " CGRAPH_VERSION);  // the project version, from CMake
  app.require_subcommand(1);
  app.fallthrough();  // the options below may also follow the subcommand
  std::string diagnostics_format = "text";
  app.add_option("--diagnostics-format", diagnostics_format, "text (compiler style) or json (one array on stderr)")
      ->check(CLI::IsMember({"text", "json"}));
  // CLI11 takes no long name after one dash: -Werror, as compilers spell it, becomes --Werror.
  static char werror_long[] = "--Werror";
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "-Werror") argv[i] = werror_long;
  auto* werror = app.add_flag("--Werror", diagnostics_out.warnings_are_errors, "treat warnings as errors (exit 1)");
  app.add_flag("-w", diagnostics_out.hide_warnings, "do not print warnings")->excludes(werror);
  app.add_option("--max-errors", diagnostics_out.max_errors,
                 "report a file's first N errors, then one that counts the rest (default 0: every error)");

  std::vector<std::string> check_files;
  auto* check = app.add_subcommand("check", "parse and check; prints nothing on success");
  check->add_option("FILE", check_files, ".cgraph files")->required();

  std::string file, graph, mode, output, depfile;
  auto* ir = app.add_subcommand("ir", "print the lowered IR as text");
  ir->add_option("FILE", file, ".cgraph file")->required();
  bool no_locations = false;
  ir->add_flag("--no-locations", no_locations, "omit @line:col (to compare the IR of two layouts)");

  auto* dot = app.add_subcommand("dot", "print the IR as Graphviz DOT (no GPU needed)");
  dot->add_option("FILE", file, ".cgraph file")->required();
  dot->add_option("--graph", graph, "only this graph");

  auto* emit = app.add_subcommand("emit-cpp", "generate C++ that builds the graphs");
  emit->add_option("FILE", file, ".cgraph file")->required();
  emit->add_option("--mode", mode, "construction strategy")->required()->check(CLI::IsMember({"explicit", "capture"}));
  emit->add_option("-o", output, "output file");
  emit->add_option("--depfile", depfile, "write the files read (imports too) as a Make rule for -o");
  std::size_t table_threshold = cgraph::default_table_threshold;
  emit->add_option("--table-threshold", table_threshold,
                   "write graphs of at least this many nodes as tables (kernel, memcpy and memset nodes, and "
                   "conditionals at the root; 0: never)");

  std::vector<std::string> fmt_files;
  bool fmt_check = false, fmt_in_place = false;
  auto* fmt = app.add_subcommand("fmt", "print the files in canonical layout");
  fmt->add_option("FILE", fmt_files, ".cgraph files")->required();
  auto* fmt_check_flag = fmt->add_flag("--check", fmt_check, "list the files not in canonical layout; exit 1 if any");
  fmt->add_flag("-i", fmt_in_place, "rewrite the files in place")->excludes(fmt_check_flag);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A misspelt command is left over as an extra argument, and CLI11 only says that a
    // subcommand is required: name the word it did not know, and the commands it knows.
    if (app.get_subcommands().empty() && !app.remaining().empty()) {
      std::cerr << "cgraphc: error: unknown command '" << cgraph::printable(app.remaining().front())
                << "' (commands: check, ir, dot, emit-cpp, fmt)\nRun with --help for more information.\n";
      return exit_usage;
    }
    app.exit(e);
    return exit_usage;
  }

  diagnostics_out.json = diagnostics_format == "json";
  int status = exit_usage;
  try {
    if (*check) status = run_check(check_files);
    else if (*ir) status = run_ir(file, !no_locations);
    else if (*dot) status = run_dot(file, graph);
    else if (*fmt)
      status = run_fmt(fmt_files, fmt_check ? fmt_action::check : fmt_in_place ? fmt_action::in_place : fmt_action::print);
    else if (*emit) status = run_emit(file, mode, output, depfile, table_threshold);
  } catch (const usage_error& e) {
    report(e);
    status = exit_usage;
  }
  diagnostics_out.finish();
  return status;
}

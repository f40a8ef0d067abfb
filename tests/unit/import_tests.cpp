// `import` (LANGUAGE.md §10): segments of one source_file, paths relative to the importing file,
// each file read once, the directory guard, and text compiled with no directory.

#include "support.hpp"

#include <cgraph/dsl/format.hpp>

#include <doctest/doctest.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using namespace cgraph;

namespace {

// A fresh folder of files for one test case.
struct folder {
  fs::path root;
  explicit folder(const std::string& name) : root(fs::temp_directory_path() / ("cgraph_import_" + name)) {
    fs::remove_all(root);
    fs::create_directories(root);
  }
  ~folder() { fs::remove_all(root); }
  void write(const std::string& path, const std::string& text) const {
    fs::create_directories((root / path).parent_path());
    std::ofstream(root / path, std::ios::binary) << text;
  }
};

compile_result compile_in(source_file& src, const folder& f, bool confine = true) {
  return compile(src, {}, import_options{f.root.string(), confine});
}

}  // namespace

TEST_CASE("source_file segments: offsets name a file, its lines and columns") {
  source_file f("a.cgraph", "line one\nline two");
  auto b = f.add_segment("b.cgraph", "\xEF\xBB\xBF" "first\nsecond");
  CHECK(b == 1);
  CHECK(f.segment_count() == 2);
  auto second = static_cast<std::uint32_t>(f.text().find("second"));
  CHECK(f.position(second) == "b.cgraph:2:1");
  CHECK(f.position(5) == "a.cgraph:1:6");
  CHECK(f.line_text(second) == "second");
  CHECK(f.segment_range(0).end == 17);  // the line break before segment 1 is no one's
  CHECK(f.text().substr(f.segment_range(1).begin, 5) == "first");  // the byte-order mark is dropped
}

TEST_CASE("imports: declarations of every file, each read once; errors name their file") {
  folder f("basic");
  f.write("lib/a.cgraph", "import \"b.cgraph\";\nstruct P { x: u32; }\nkernel k(p: P);\n");
  f.write("lib/b.cgraph", "import \"a.cgraph\";  // a cycle reads nothing twice\nconst N = 4;\n");
  source_file src("main.cgraph",
                  "import \"lib/a.cgraph\";\nimport \"lib/b.cgraph\";\ngraph g() { k<<<1, N>>>(P { x: N }); }\n");
  auto r = compile_in(src, f);
  REQUIRE_MESSAGE(r.program, format_diagnostics(src, r.diags));
  CHECK(src.segment_count() == 3);
  CHECK(r.program->kernels.size() == 1);

  source_file bad("main.cgraph", "import \"lib/c.cgraph\";\ngraph g() {}\n");
  f.write("lib/c.cgraph", "kernel k(n: u32);\ngraph h() { k<<<1, 1>>>(nope); }\n");
  auto e = compile_in(bad, f);
  REQUIRE(e.diags.all().size() == 1);
  CHECK(bad.position(e.diags.all()[0].range.begin).ends_with("lib/c.cgraph:2:25"));
  CHECK(format_diagnostic_json(bad, e.diags.all()[0]).find("lib/c.cgraph\", \"line\": 2") != std::string::npos);
}

TEST_CASE("imports: unused declarations are warned about in the first file only") {
  folder f("unused");
  f.write("lib.cgraph", "kernel unused_there(n: u32);\nconst C = 1;\n");
  source_file src("main.cgraph", "import \"lib.cgraph\";\nkernel unused_here(n: u32);\ngraph g() {}\n");
  auto r = compile_in(src, f);
  REQUIRE(r.program);
  REQUIRE(r.diags.all().size() == 1);
  CHECK(r.diags.all()[0].message == "kernel 'unused_here' is never launched");
}

TEST_CASE("imports: refused with no directory, confined to it, unreadable files") {
  CHECK(test::compile_text("import \"x.cgraph\";\ngraph g() {}\n")
            .first_error()
            .starts_with("'import' needs a directory to find files in"));

  folder f("guard");
  f.write("inside/main.cgraph", "");
  f.write("outside.cgraph", "const C = 1;\n");
  folder inner("guard_inner");
  source_file src("main.cgraph", "import \"../cgraph_import_guard/outside.cgraph\";\ngraph g() {}\n");
  auto confined = compile_in(src, inner);
  REQUIRE(confined.diags.has_errors());
  CHECK(confined.diags.all()[0].message.find("leaves the directory") != std::string::npos);
  source_file again("main.cgraph", "import \"../cgraph_import_guard/outside.cgraph\";\ngraph g() {}\n");
  CHECK(compile_in(again, inner, false).program.has_value());  // unconfined, as cgraphc compiles

  source_file missing("main.cgraph", "import \"nope.cgraph\";\nimport \"inside\";\n");
  auto m = compile_in(missing, f);
  REQUIRE(m.diags.error_count() == 2);
  CHECK(m.diags.all()[0].message.starts_with("cannot read"));
  CHECK(m.diags.all()[0].message.ends_with("nope.cgraph': No such file or directory"));  // and why
  CHECK(m.diags.all()[1].message.ends_with("inside': it is a directory"));
}

TEST_CASE("fmt: a literal of an imported struct parses when the import's struct names are given") {
  source_file src("main.cgraph", "graph g() { k<<<1,1>>>(P{x: 1}); }\n");
  diagnostics sink;
  CHECK_FALSE(dsl::format_source(src, sink).has_value());
  diagnostics ok;
  auto out = dsl::format_source(src, ok, {"P"});
  REQUIRE(out);
  CHECK(out->find("P { x: 1 }") != std::string::npos);
}

TEST_CASE("read_file: a file's bytes at its size, a pipe's in full, nothing for a missing file or a folder, and why") {
  folder f("read_file");
  // Bytes a text-mode read or a string stream could alter or stop at: NUL, CR LF, a BOM, 0xFF.
  std::string bytes("\xEF\xBB\xBF" "kernel k();\r\n\0\xFF", 18);
  for (int i = 0; i < 20000; ++i) bytes += "  k<<<1, 1>>>();\n";  // larger than one read chunk
  f.write("a.cgraph", bytes);
  auto read = read_file((f.root / "a.cgraph").string());
  REQUIRE(read);
  CHECK(*read == bytes);
  CHECK(read->capacity() < bytes.size() + bytes.size() / 2);  // one allocation of the file's size, not a doubled buffer

  f.write("empty.cgraph", "");
  auto empty = read_file((f.root / "empty.cgraph").string());
  REQUIRE(empty);
  CHECK(empty->empty());

  errno = 0;
  const std::string missing = (f.root / "missing.cgraph").string();
  CHECK_FALSE(read_file(missing));
  CHECK(errno == ENOENT);
  CHECK(cannot_read(missing) == "cannot read '" + missing + "': No such file or directory");
  // A folder opens, and reading it fails: one wording for it wherever a file is read.
  const std::string folder_path = f.root.string();
  CHECK_FALSE(read_file(folder_path));
  CHECK(cannot_read(folder_path) == "cannot read '" + folder_path + "': it is a directory");
  // A name may hold an escape byte: the message prints it as <XX>, never raw.
  const std::string odd = (f.root / "a\x1B[2Jb").string();
  CHECK_FALSE(read_file(odd));
  CHECK(cannot_read(odd) == "cannot read '" + f.root.string() + "/a<1B>[2Jb': No such file or directory");

  // A file with no size of its own: read to its end.
  std::FILE* pipe = ::popen("printf 'graph g() {}'", "r");
  REQUIRE(pipe);
  auto piped = read_file("/dev/fd/" + std::to_string(::fileno(pipe)));
  ::pclose(pipe);
  REQUIRE(piped);
  CHECK(*piped == "graph g() {}");
}

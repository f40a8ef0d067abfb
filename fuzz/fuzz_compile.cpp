#include "fuzz_compile.hpp"

#include <cgraph/compiler/compile.hpp>
#include <cgraph/dsl/format.hpp>
#include <cgraph/compiler/emit_cpp.hpp>
#include <cgraph/compiler/plan.hpp>
#include <cgraph/compiler/printers.hpp>
#include <cgraph/dsl/parse.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace cgraph::fuzz {
namespace {

[[noreturn]] void violated(const char* property, const std::string& detail) {
  std::fprintf(stderr, "fuzz property violated: %s\n%s\n", property, detail.c_str());
  std::abort();
}

// Whether `text` is well-formed UTF-8 with no control byte but those allowed (RFC 3629's
// table of byte ranges, written apart from the compiler's own decoder so that it checks it).
bool printable_utf8(std::string_view text, std::string_view allowed_controls) {
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      if ((b < 0x20 || b == 0x7F) && allowed_controls.find(static_cast<char>(b)) == std::string_view::npos) return false;
      ++i;
      continue;
    }
    std::size_t n = 0;
    unsigned char low = 0x80, high = 0xBF;  // the second byte's range
    if (b >= 0xC2 && b <= 0xDF) n = 2;
    else if (b == 0xE0) n = 3, low = 0xA0;
    else if (b == 0xED) n = 3, high = 0x9F;
    else if (b >= 0xE1 && b <= 0xEF) n = 3;
    else if (b == 0xF0) n = 4, low = 0x90;
    else if (b == 0xF4) n = 4, high = 0x8F;
    else if (b >= 0xF1 && b <= 0xF3) n = 4;
    else return false;
    if (text.size() - i < n) return false;
    const auto second = static_cast<unsigned char>(text[i + 1]);
    if (second < low || second > high) return false;
    for (std::size_t k = 2; k < n; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

// Diagnostics reach a terminal or a JSON reader: whatever the input's bytes, the text form is
// UTF-8 with no control byte but line breaks and tabs, and each JSON object is UTF-8 with none.
void format_checked(const source_file& source, const diagnostics& diags) {
  const std::string text = format_diagnostics(source, diags);
  if (!printable_utf8(text, "\n\t")) violated("diagnostics print as UTF-8 without control bytes", text);
  for (const auto& d : diags.all()) {
    const std::string json = format_diagnostic_json(source, d);
    if (!printable_utf8(json, "")) violated("JSON diagnostics are UTF-8 without control bytes", json);
  }
}

// What a compile says, in a form two compiles can be compared by: the IR without source
// positions when it compiled, otherwise only "it did not".
std::string outcome(const source_file& source) {
  auto result = compile(source);
  (void)format_diagnostics(source, result.diags);
  if (!result.program) return "<errors>";
  return print_ir(*result.program, source, {.locations = false});
}

// The backends are fuzzed on programs of at most this many nodes in all. A `for` of 65 536
// iterations is a few bytes that make as many nodes per statement; its backends' work is the
// same per-node code as a small program's, written 100 000 times, and it took 27-45 s of the
// instrumented binary (run 235: a `for` of 43 075 iterations holding an `alloc`, 130 000
// nodes, whose readable C++ is 61 MB a mode), past libFuzzer's timeout. cgraphc itself emits
// it in about 1 s a mode. Such inputs are still compiled, checked and formatted above.
constexpr std::size_t max_backend_nodes = 20'000;

void exercise_backends(const ir::program& program, const source_file& source) {
  std::size_t nodes = 0;
  for (const auto& g : program.graphs) nodes += g.node_count;
  if (nodes > max_backend_nodes) return;
  for (const auto& g : program.graphs) {
    auto steps = plan::lower_explicit(g);
    (void)plan::lower_capture(steps);
  }
  (void)print_dot(program, source);
  // Each mode in its readable form and in the table form (threshold 1: fuzz inputs are far
  // below the default 1 000 nodes, so the table's writer would otherwise never run).
  for (auto mode : {emit_mode::explicit_nodes, emit_mode::stream_capture})
    for (std::size_t threshold : {std::size_t{0}, std::size_t{1}}) {
      auto emitted = emit_cpp(program, source, mode, threshold);
      format_checked(source, emitted.diags);
    }
}

// The text of every comment of `source`, in order, without trailing blanks and with "\r\n" as
// "\n" (a line comment's trailing spaces and '\r', and a block comment's line ends, are layout,
// which fmt writes its own way).
std::vector<std::string> comments_of(const source_file& source) {
  diagnostics ignored;
  std::vector<std::string> out;
  for (const source_range& c : dsl::scan(source, 0, ignored).comments) {
    std::string text(source.text().substr(c.begin, c.end - c.begin));
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.pop_back();
    for (std::size_t k; (k = text.find("\r\n")) != std::string::npos;) text.erase(k, 1);
    out.push_back(std::move(text));
  }
  return out;
}

std::string joined(const std::vector<std::string>& texts) {
  std::string out;
  for (const auto& t : texts) out += t + "\n";
  return out;
}

// The input as a file named by its first line (at most 64 bytes, none after a NUL): positions
// print the file's name (format_position) and generated C++ writes it into comments and
// literals, and a name may hold any byte but NUL, so the properties above must hold for every
// name as for every text. The text is the whole input, the first line included.
source_file source_of(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  const std::size_t name_end = std::min({text.find('\n'), text.find('\0'), std::size_t{64}, text.size()});
  return source_file(text.substr(0, name_end), std::move(text));
}

}  // namespace

void compile_one(const std::uint8_t* data, std::size_t size) {
  const source_file source = source_of(data, size);
  auto result = compile(source);
  format_checked(source, result.diags);
  if (result.program) exercise_backends(*result.program, source);

  // `cgraphc fmt` must be idempotent, must not change what the file means, and must keep every
  // comment, in order (LANGUAGE.md §14).
  diagnostics format_diags;
  auto formatted = dsl::format_source(source, format_diags);
  if (!formatted) return;
  source_file once("fuzz.cgraph", *formatted);
  diagnostics again_diags;
  auto twice = dsl::format_source(once, again_diags);
  if (!twice) violated("formatted text parses", *formatted);
  if (comments_of(source) != comments_of(once))
    violated("fmt keeps every comment", joined(comments_of(source)) + "----- after fmt -----\n" + joined(comments_of(once)));
  if (*twice != *formatted) violated("fmt is idempotent", *formatted + "\n----- formatted again -----\n" + *twice);
  std::string before = result.program ? print_ir(*result.program, source, {.locations = false}) : "<errors>";
  std::string after = outcome(once);
  if (before != after) violated("fmt keeps the meaning", before + "\n----- after fmt -----\n" + after);
}

void check_one(const std::uint8_t* data, std::size_t size) {
  const source_file source = source_of(data, size);
  auto result = compile(source);
  format_checked(source, result.diags);
}

}  // namespace cgraph::fuzz

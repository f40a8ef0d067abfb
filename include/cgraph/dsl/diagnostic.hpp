#pragma once
// Diagnostics are values: the front end and the checker collect them and never throw.

#include <cgraph/dsl/source.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace cgraph {

enum class severity { error, warning, note };

struct diagnostic_note {
  source_range range;
  std::string message;
};

struct diagnostic {
  severity level = severity::error;
  source_range range;
  std::string message;
  std::vector<diagnostic_note> notes;

  // Adds a note, its message bounded as diagnostics::error bounds an error's.
  diagnostic& note(source_range at, std::string text);
};

// Collects diagnostics in the order they are found. A message longer than 512 bytes keeps its
// first 320 and last 160 and says how many bytes it leaves out. Messages quote the names a file
// declares: a 10 000-byte parameter name in 2 000 wrong arguments printed 20 MB from 52 KB.
class diagnostics {
public:
  diagnostic& error(source_range range, std::string message);
  diagnostic& warning(source_range range, std::string message);

  bool has_errors() const noexcept { return errors_ > 0; }
  std::size_t error_count() const noexcept { return errors_; }
  const std::vector<diagnostic>& all() const noexcept { return list_; }
  // Orders by position (stable), so output follows the file whatever pass found the problem.
  void sort_by_position();
  void append(const diagnostics& other);
  // Keeps the list up to its max_errors-th error and ends it with one more error, at the first
  // one left out, that says how many were; error_count() then counts the list. 0: no limit.
  void limit_errors(std::size_t max_errors);

private:
  std::vector<diagnostic> list_;
  std::size_t errors_ = 0;
};

// "file:line:col: error: message", the source line, and ^~~~ under the range, then each note.
std::string format_diagnostic(const source_file& file, const diagnostic& d);
std::string format_diagnostics(const source_file& file, const diagnostics& list);

// One diagnostic as a JSON object (`cgraphc --diagnostics-format=json`): file, line, column,
// end_line, end_column (1-based; the end is just past the range), severity, message, and
// notes, each of the same shape without notes.
std::string format_diagnostic_json(const source_file& file, const diagnostic& d);

// Thrown by APIs that compile text: holds every diagnostic, already formatted in what().
class compile_error : public std::runtime_error {
public:
  compile_error(std::string formatted, std::vector<diagnostic> list)
      : std::runtime_error(std::move(formatted)), list_(std::move(list)) {}
  const std::vector<diagnostic>& diagnostics() const noexcept { return list_; }

private:
  std::vector<diagnostic> list_;
};

}  // namespace cgraph

#include <cgraph/dsl/diagnostic.hpp>
#include <cgraph/dsl/suggest.hpp>

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <range/v3/view/transform.hpp>

using namespace cgraph;

TEST_CASE("diagnostics.location_is_one_based_line_and_byte_column") {
  source_file f("a.cgraph", "ab\ncd\n\nef");
  CHECK(f.location(0).line == 1);
  CHECK(f.location(0).column == 1);
  CHECK(f.location(4).line == 2);
  CHECK(f.location(4).column == 2);
  CHECK(f.location(7).line == 4);
  CHECK(f.position(8) == "a.cgraph:4:2");
}

TEST_CASE("diagnostics.caret_underlines_the_range") {
  source_file f("a.cgraph", "let x = foo;\n");
  diagnostic d{severity::error, {8, 11}, "use of undeclared name 'foo'", {}};
  CHECK(format_diagnostic(f, d) ==
        "a.cgraph:1:9: error: use of undeclared name 'foo'\n"
        "let x = foo;\n"
        "        ^~~\n");
}

TEST_CASE("diagnostics.caret_keeps_tabs_and_skips_utf8_continuation_bytes") {
  // "\t// é\n  x" — the caret line copies the tab; 'é' (2 bytes) takes one column.
  source_file f("a.cgraph", "\t\"\xC3\xA9\" x;\n");
  diagnostic d{severity::error, {6, 7}, "m", {}};
  CHECK(format_diagnostic(f, d) ==
        "a.cgraph:1:7: error: m\n"
        "\t\"\xC3\xA9\" x;\n"
        "\t    ^\n");
}

TEST_CASE("diagnostics.excerpts_print_invalid_utf8_as_hex_in_four_columns") {
  // Bytes that are not UTF-8 print as <XX> (as clang prints them), never raw, and take the
  // four columns they print in: the caret after them stays under its character. A valid 'é'
  // (2 bytes) takes one column; a stray continuation byte (0x80) is invalid on its own.
  source_file f("a.cgraph", "a\xE1 \xC3\xA9 \x80z;\n");
  CHECK(format_diagnostic(f, {severity::error, {7, 8}, "m", {}}) ==
        "a.cgraph:1:8: error: m\n"
        "a<E1> \xC3\xA9 <80>z;\n"
        "            ^\n");
  // A range that starts at such a byte underlines all four of its columns, then the rest.
  CHECK(format_diagnostic(f, {severity::error, {1, 3}, "m", {}}) ==
        "a.cgraph:1:2: error: m\n"
        "a<E1> \xC3\xA9 <80>z;\n"
        " ^~~~~\n");
  // A sequence cut short by the line's end, and an overlong one, are invalid byte by byte.
  source_file g("g.cgraph", "\xC0\xAF \xE2\x82");
  CHECK(format_diagnostic(g, {severity::error, {3, 4}, "m", {}}) ==
        "g.cgraph:1:4: error: m\n"
        "<C0><AF> <E2><82>\n"
        "         ^~~~\n");
}

TEST_CASE("diagnostics.notes_follow_their_error") {
  source_file f("a.cgraph", "a\nb\n");
  diagnostic d{severity::error, {2, 3}, "second", {{{0, 1}, "first is here"}}};
  CHECK(format_diagnostic(f, d) ==
        "a.cgraph:2:1: error: second\nb\n^\n"
        "a.cgraph:1:1: note: first is here\na\n^\n");
}

TEST_CASE("diagnostics.range_spanning_lines_underlines_the_first_line_only") {
  source_file f("a.cgraph", "abc\ndef\n");
  diagnostic d{severity::error, {1, 6}, "m", {}};
  CHECK(format_diagnostic(f, d) == "a.cgraph:1:2: error: m\nabc\n ^~\n");
}

TEST_CASE("diagnostics.a_long_line_is_shown_around_the_column") {
  // Generated text may hold a whole program on one line: each diagnostic printed it all (20 000
  // of them on a 400 KB line, 8 GB). Past 1 024 bytes a line shows 256 each side, cut with "...".
  const std::string before(3000, 'a'), after(3000, 'b');
  source_file f("a.cgraph", before + "foo" + after + "\n");
  diagnostic d{severity::error, {3000, 3003}, "use of undeclared name 'foo'", {}};
  CHECK(format_diagnostic(f, d) == "a.cgraph:1:3001: error: use of undeclared name 'foo'\n..." +
                                       std::string(256, 'a') + "foo" + std::string(253, 'b') + "...\n" +
                                       std::string(3 + 256, ' ') + "^~~\n");
  // At the start of the line nothing is cut before it.
  diagnostic first{severity::error, {0, 1}, "x", {}};
  CHECK(format_diagnostic(f, first) == "a.cgraph:1:1: error: x\n" + std::string(256, 'a') + "...\n^\n");
  // A line of 1 024 bytes is shown whole.
  source_file g("b.cgraph", std::string(1021, 'c') + "foo\n");
  diagnostic whole{severity::error, {1021, 1024}, "y", {}};
  CHECK(format_diagnostic(g, whole) == "b.cgraph:1:1022: error: y\n" + std::string(1021, 'c') + "foo\n" +
                                           std::string(1021, ' ') + "^~~\n");
}

TEST_CASE("diagnostics.excerpts_print_control_bytes_as_hex_but_keep_tabs") {
  // A carriage return inside a line, an escape or a NUL (a binary file given by mistake)
  // would move or rewrite what a terminal shows; each prints as <XX>, four columns. A tab is
  // copied (the caret line copies it too), and a line's ending CR is not part of it.
  source_file f("a.cgraph", std::string("a\rb\x1B[2J\tc\0d\x7F;\r\n", 14));
  CHECK(format_diagnostic(f, {severity::error, {11, 12}, "m", {}}) ==
        "a.cgraph:1:12: error: m\n"
        "a<0D>b<1B>[2J\tc<00>d<7F>;\n"
        "             \t      ^~~~\n");
}

TEST_CASE("diagnostics.a_long_run_of_stray_bytes_is_cut_like_any_line") {
  // A cut steps over at most a character's 3 continuation bytes: over a line of 3 000 stray
  // 0x80 bytes it moved to both ends, and each of the line's 3 000 errors printed all of it.
  // Now it shows 256 bytes each side, and the 3 a cut steps over (as <80>, four columns each).
  source_file f("a.cgraph", std::string(3000, '\x80') + "\n");
  const std::string shown = format_diagnostic(f, {severity::error, {1500, 1501}, "invalid UTF-8 byte 0x80", {}});
  std::string row;
  for (int i = 0; i < 3 + 256 + 256 + 3; ++i) row += "<80>";
  CHECK(shown == "a.cgraph:1:1501: error: invalid UTF-8 byte 0x80\n..." + row + "...\n" + std::string(3 + (3 + 256) * 4, ' ') +
                     "^~~~\n");
  // A message of stray bytes keeps its start and end too.
  diagnostics list;
  CHECK(list.error({0, 1}, std::string(10000, '\x80')).message.size() < 512);
}

TEST_CASE("diagnostics.a_long_message_keeps_its_start_and_end") {
  // Messages quote names, and a name may be any length: a 10 000-byte parameter name in 2 000
  // wrong arguments printed 20 MB. Past 512 bytes a message keeps its first 320 and last 160.
  diagnostics list;
  const std::string name(10000, 'p');
  auto& d = list.error({0, 1}, "argument 1 ('" + name + "') of kernel 'k'");
  CHECK(d.message == "argument 1 ('" + std::string(307, 'p') + "…(9549 bytes left out)…" + std::string(144, 'p') +
                         "') of kernel 'k'");
  d.note({0, 1}, "'" + name + "' is declared here");
  CHECK(d.notes.at(0).message.size() < 512);
  CHECK(d.notes.at(0).message.ends_with("' is declared here"));
  CHECK(list.warning({0, 1}, name).message.size() < 512);
  // 512 bytes are kept whole; a cut never splits a UTF-8 character ("é" is 2 bytes).
  CHECK(list.error({0, 1}, std::string(512, 'x')).message == std::string(512, 'x'));
  const std::string accents = "x" + [] { std::string s; for (int i = 0; i < 300; ++i) s += "\xC3\xA9"; return s; }();
  const std::string cut = list.error({0, 1}, accents).message;
  CHECK(cut.starts_with("x" + accents.substr(1, 318) + "…("));  // 320 would split a character
  CHECK(cut.ends_with(")…" + accents.substr(accents.size() - 160)));
}

TEST_CASE("suggest.edit_distance_counts_a_swap_as_one_edit") {
  using cgraph::dsl::edit_distance;
  CHECK(edit_distance("saxpy", "saxpy") == 0);
  CHECK(edit_distance("saxyp", "saxpy") == 1);  // neighbours swapped
  CHECK(edit_distance("saxpi", "saxpy") == 1);
  CHECK(edit_distance("lod", "load") == 1);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("suggest.closest_is_near_enough_and_independent_of_order") {
  using cgraph::dsl::closest;
  std::vector<std::string_view> names{"count", "more", "load"};
  CHECK(closest("cout", names) == std::optional<std::string_view>("count"));
  CHECK(!closest("far_away", names));        // too far from every name
  CHECK(!closest("count", names));           // the name itself is no suggestion
  CHECK(!closest("ab", std::vector<std::string_view>{"xy"}));  // short names allow one edit only
  // A tie goes to the name that sorts first, whatever the order of the candidates.
  CHECK(closest("bat", std::vector<std::string_view>{"cat", "bar"}) == std::optional<std::string_view>("bar"));
  CHECK(closest("bat", std::vector<std::string_view>{"bar", "cat"}) == std::optional<std::string_view>("bar"));
}

TEST_CASE("suggest.closest_walks_several_sources_and_nothing_once_the_budget_is_spent") {
  using cgraph::dsl::closest;
  std::vector<std::string_view> letters{"alpha", "beta"}, counts{"count"};
  CHECK(closest("cout", letters, counts) == std::optional<std::string_view>("count"));
  CHECK(closest("alpah", letters, counts) == std::optional<std::string_view>("alpha"));
  // A source is walked lazily: with no budget left, not one of its names is produced.
  int walked = 0;
  auto counting = counts | ranges::views::transform([&](std::string_view n) { return ++walked, n; });
  {
    cgraph::dsl::suggestion_budget spent(0);
    CHECK(!closest("cout", letters, counting));
    CHECK(walked == 0);
  }
  CHECK(closest("cout", letters, counting) == std::optional<std::string_view>("count"));
  CHECK(walked == 1);
  // A budget that runs out partway suggests nothing, even where an earlier name was close.
  {
    cgraph::dsl::suggestion_budget small(6 * 6);  // "alpah" against "alpha": 36 cells
    CHECK(!closest("alpah", letters, counts));
  }
}

TEST_CASE("diagnostics.a_byte_order_mark_is_not_part_of_the_text") {
  source_file f("bom.cgraph", "\xEF\xBB\xBFkernel k();\n");
  CHECK(f.text() == "kernel k();\n");
  CHECK(f.location(0).column == 1);
}

TEST_CASE("diagnostics.json_strings_are_valid_utf8_whatever_the_bytes") {
  // A file name may hold bytes that are not UTF-8; each becomes U+FFFD, and valid characters
  // stay as they are, so the array is valid JSON for any input. A message is made printable
  // when it is made (<XX>, as the text form prints it), so both forms say the same.
  source_file f("b\xE9.cgraph", "kernel k();\n");
  diagnostics list;
  list.error({7, 8}, "name 'x\xFF' beside \xC3\xA9 and \xE2\x82");
  CHECK(format_diagnostic_json(f, list.all()[0]) ==
        R"({"file": "b\ufffd.cgraph", "line": 1, "column": 8, "end_line": 1, "end_column": 9, "severity": "error", )"
        "\"message\": \"name 'x<FF>' beside \xC3\xA9 and <E2><82>\", \"notes\": []}");
}

TEST_CASE("diagnostics.messages_print_control_and_invalid_bytes_as_hex") {
  // A message may quote a string's bytes (an import path): an escape, a line break or a byte
  // that is not UTF-8 would reach the terminal raw. A tab stays.
  diagnostics list;
  CHECK(list.error({0, 1}, "cannot read 'a\x1B[2Jb\n\xFF\tc'").message == "cannot read 'a<1B>[2Jb<0A><FF>\tc'");
  CHECK(list.warning({0, 1}, "w\r").message == "w<0D>");
  CHECK(list.error({0, 1}, "e").note({0, 1}, "n\x7F").notes.at(0).message == "n<7F>");
  const std::string plain = "nothing to escape in 'caf\xC3\xA9'";
  CHECK(list.error({0, 1}, plain).message == plain);
}

TEST_CASE("diagnostics.json_escapes_every_control_byte_of_a_file_name") {
  // The text form prints each as <XX> (is_control_byte); JSON writes \u00XX, DEL included,
  // which JSON would allow raw (found by fuzzing with file names of any bytes).
  source_file f("a\x7F\x1B\x01.cgraph", "kernel k();\n");
  diagnostics list;
  list.error({7, 8}, "m");
  CHECK(format_diagnostic_json(f, list.all()[0]).starts_with(R"({"file": "a\u007f\u001b\u0001.cgraph", )"));
}

TEST_CASE("diagnostics.json_objects_escape_their_strings") {
  source_file f("a \"b\"\n.cgraph", "kernel k();\n");
  diagnostics list;
  auto& d = list.error({7, 8}, "bad \"name\" and a tab\t");
  d.notes.push_back({{0, 6}, "declared here"});
  std::string json = format_diagnostic_json(f, list.all()[0]);
  CHECK(json ==
        R"({"file": "a \"b\"\n.cgraph", "line": 1, "column": 8, "end_line": 1, "end_column": 9, "severity": "error", )"
        R"("message": "bad \"name\" and a tab\t", "notes": [{"file": "a \"b\"\n.cgraph", "line": 1, "column": 1, )"
        R"("end_line": 1, "end_column": 7, "severity": "note", "message": "declared here"}]})");
}

TEST_CASE("diagnostics.past_the_error_limit_one_error_counts_the_rest") {
  diagnostics list;
  for (std::uint32_t i = 0; i < 6; ++i) {
    list.error({i * 2, i * 2 + 1}, fmt::format("e{}", i));
    if (i == 1) list.warning({3, 4}, "w");
  }
  list.limit_errors(3);
  const auto& all = list.all();
  REQUIRE(all.size() == 5);
  CHECK(all[2].message == "w");  // a warning before the cut stays
  CHECK(all[3].message == "e2");
  CHECK(all[4].message == "too many errors: 3 more are not shown (at most 3 are)");
  CHECK(all[4].range.begin == 6);  // where the first error left out was
  CHECK(list.error_count() == 4);
  diagnostics few;
  few.error({0, 1}, "only");
  few.error({1, 2}, "second");
  few.limit_errors(2);
  few.limit_errors(0);  // no limit
  CHECK(few.all().size() == 2);
}

TEST_CASE("diagnostics.positions_print_a_file_name_of_any_bytes") {
  // A file's name may hold an escape byte: raw, it would rewrite the terminal before the message.
  source_file f("a\x1B[2J\xFF.cgraph", "kernel k();\n");
  CHECK(f.position(7) == "a<1B>[2J<FF>.cgraph:1:8");
  diagnostic d{severity::error, {7, 8}, "m", {}};
  CHECK(format_diagnostic(f, d).starts_with("a<1B>[2J<FF>.cgraph:1:8: error: m\n"));
  CHECK(format_position("x\ty\r", 3, 4) == "x\ty<0D>:3:4");
  CHECK(printable("caf\xC3\xA9\x07") == "caf\xC3\xA9<07>");
}

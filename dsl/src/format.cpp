#include "lexical.hpp"

#include <cgraph/dsl/format.hpp>
#include <cgraph/dsl/parse.hpp>

#include <algorithm>
#include <type_traits>
#include <utility>

namespace cgraph::dsl {

namespace {

// Joins literals, strings and names (views into the source) into one string.
template <typename... Piece>
std::string cat(const Piece&... pieces) {
  std::string out;
  ((out += pieces), ...);
  return out;
}

class formatter {
public:
  formatter(const source_file& src, const std::vector<source_range>& comments) : src_(src), comments_(comments) {}

  std::string run(const ast::file& file) {
    std::string_view previous_kind;
    for (const auto& d : file.declarations) {
      std::string_view kind = boost::apply_visitor([](const auto& x) { return kind_of(x); }, d);
      const auto& tagged = boost::apply_visitor([](const auto& x) -> const ast::tagged& { return x; }, d);
      // A blank line between groups of declarations and around every graph and struct.
      bool separate = !previous_kind.empty() && (kind != previous_kind || kind == "graph" || kind == "struct");
      leading(tagged.begin, separate);
      boost::apply_visitor([&](const auto& x) { declaration(x); }, d);
      trailing(last_token_end(tagged));
      previous_kind = kind;
    }
    leading(static_cast<std::uint32_t>(src_.text().size()), false);
    return std::move(out_);
  }

private:
  // ---- layout helpers ------------------------------------------------------------------------

  std::string_view text(const ast::tagged& t) const { return src_.text().substr(t.begin, t.end - t.begin); }
  void indent() { out_.append(static_cast<std::size_t>(depth_) * 2, ' '); }

  bool blank_line_between(std::uint32_t from, std::uint32_t to) const {
    std::string_view gap = src_.text().substr(from, to > from ? to - from : 0);
    int newlines = 0;
    for (char c : gap) {
      if (c == '\n' && ++newlines == 2) return true;
      if (c != '\n' && c != ' ' && c != '\t' && c != '\r') newlines = 0;
    }
    return false;
  }

  // Comments before `offset` go on their own lines; a blank line in the source before the
  // next item (or `force_blank`) is kept as one blank line. Never a second one: the comments
  // of an `after` list that moves to the end come here after the statement's own blank line,
  // and a blank line in the source before that statement wrote two, which formatting again
  // made one (not idempotent: found by fuzzing, run 190).
  void leading(std::uint32_t offset, bool force_blank) {
    bool blank_done = false;
    auto blank = [&](std::uint32_t upto) {
      if (blank_done || out_.empty()) return;
      if (out_.ends_with("\n\n")) {  // the statement's, written before this list's comments
        blank_done = true;
        return;
      }
      if (force_blank || blank_line_between(last_end_, upto)) {
        out_ += '\n';
        blank_done = true;
      }
    };
    while (next_ < comments_.size() && comments_[next_].begin < offset) {
      blank(comments_[next_].begin);
      force_blank = false;
      indent();
      write_comment(next_);
      out_ += '\n';
      last_end_ = comments_[next_].end;
      ++next_;
    }
    blank(offset);
  }

  // A comment that starts on the line where the item ending at `end` ends stays on that line;
  // not one from `limit` on, which stands inside what follows on that line (a first statement
  // or `case` written on the same line as its '{').
  void trailing(std::uint32_t end, std::uint32_t limit = ~0u) {
    if (end > 0 && next_ < comments_.size() && comments_[next_].begin < limit &&
        src_.location(comments_[next_].begin).line == src_.location(end - 1).line) {
      comment_at_line_end();
    } else {
      last_end_ = std::max(last_end_, end);
    }
    out_ += '\n';
  }
  // The next comment, at the end of the line written so far.
  void comment_at_line_end() {
    out_ += "  ";
    write_comment(next_);
    last_end_ = comments_[next_].end;
    ++next_;
  }

  // ---- comments inside a line ---------------------------------------------------------------

  // A line comment without the blanks that end its line: a CRLF file's '\r' (which made the
  // formatted text's lines end in "\r\n" where a comment stood, and "\n" elsewhere) and trailing
  // spaces are layout.
  std::string_view comment_text(std::size_t i) const {
    std::string_view c = src_.text().substr(comments_[i].begin, comments_[i].end - comments_[i].begin);
    if (c.substr(0, 2) == "//")
      while (!c.empty() && (c.back() == ' ' || c.back() == '\t' || c.back() == '\r')) c.remove_suffix(1);
    return c;
  }
  bool is_line_comment(std::size_t i) const { return comment_text(i).substr(0, 2) == "//"; }
  // Comment i as it is written: a block comment's lines end in '\n', as every other line does.
  // Every '\r' of a run that ends a line goes: dropping one of "\r\r\n" left "\r\n", which the
  // next format dropped (not idempotent: found by fuzzing, run 140).
  void write_comment(std::size_t i) {
    const std::string_view c = comment_text(i);
    for (std::size_t k = 0; k < c.size(); ++k) {
      if (c[k] == '\r') {
        const std::size_t run_end = std::min(c.find_first_not_of('\r', k), c.size());
        if (run_end == c.size() || c[run_end] != '\n') out_.append(c.substr(k, run_end - k));  // not a line end: kept
        k = run_end - 1;  // what follows the run comes next
        continue;
      }
      out_ += c[k];
    }
  }
  std::size_t column() const {
    auto nl = out_.rfind('\n');
    return nl == std::string::npos ? out_.size() : out_.size() - nl - 1;
  }
  void trim_spaces() {
    while (!out_.empty() && out_.back() == ' ') out_.pop_back();
  }
  void break_line() {
    trim_spaces();
    out_ += '\n';
    out_.append(continuation_, ' ');
  }
  // Whether the current line holds nothing but indentation.
  bool at_fresh_line() const {
    auto nl = out_.rfind('\n');
    return nl != std::string::npos && out_.find_first_not_of(' ', nl + 1) == std::string::npos;
  }

  static constexpr std::size_t max_width = 100;

  // What a layout attempt changes, so that it can be undone and another tried.
  struct snapshot {
    std::size_t size, next, continuation;
    std::uint32_t last_end;
  };
  snapshot save() const { return {out_.size(), next_, continuation_, last_end_}; }
  void restore(const snapshot& s) {
    out_.resize(s.size);
    next_ = s.next;
    continuation_ = s.continuation;
    last_end_ = s.last_end;
  }
  // Whether what was written since `from` stands on one line that, with `reserve` more columns
  // after it, stays within the limit.
  bool fits_since(std::size_t from, std::size_t reserve) const {
    return out_.find('\n', from) == std::string::npos && column() + reserve <= max_width;
  }

  // Comments before `offset` that sit inside a declaration or statement stay where they are,
  // between the same tokens: a block comment inline, a line comment at the end of its line
  // (the text goes on below, at the continuation column).
  void inline_comments(std::uint32_t offset) {
    while (next_ < comments_.size() && comments_[next_].begin < offset) {
      bool line_comment = is_line_comment(next_);
      const char before = out_.empty() ? ' ' : out_.back();
      if (before != ' ' && before != '(' && before != '[' && before != '<' && before != '\n') out_ += line_comment ? "  " : " ";
      write_comment(next_);
      last_end_ = comments_[next_].end;
      ++next_;
      if (line_comment) break_line();
      else out_ += ' ';
    }
  }
  bool comment_before(std::uint32_t offset) const { return next_ < comments_.size() && comments_[next_].begin < offset; }

  // A name, with the comments that stood before it written before it.
  void name(const ast::identifier& id) {
    inline_comments(id.begin);
    out_ += id.name;
  }
  // `text`, a token the syntax tree keeps no place of: the first `first` after `from` in the
  // source (comments skipped) is where it stood (token_at).
  void token(std::uint32_t from, char first, std::string_view text) { token_at(closing_paren(from, first), text); }
  // `text`, a token that stood at `at` in the source, after the comments before it, a space
  // between (none before a ',', ';', ']' or ')', and `text`'s own leading space not doubled).
  void token_at(std::uint32_t at, std::string_view text) {
    const std::size_t size = out_.size();
    inline_comments(at);
    if (out_.size() != size && out_.back() == ' ' && !text.empty() && std::string_view(" ,;])").find(text.front()) != std::string_view::npos)
      out_.pop_back();
    out_ += text;
  }
  // The ';' that ends `t` (a statement's or declaration's range ends with it), after the
  // comments before it.
  void semicolon(const ast::tagged& t) { token_at(t.end - 1, ";"); }
  // The block comments before `at`, where the canonical layout keeps a token on the line
  // before (`} else`, `) {`): a line comment there is left to what follows.
  void block_comments_before(std::uint32_t at) {
    while (comment_before(at) && !is_line_comment(next_)) inline_comments(comments_[next_].end);
  }
  // Where the next token after `offset` starts (spaces and comments skipped).
  std::uint32_t next_token(std::uint32_t offset) const {
    std::string_view t = src_.text();
    return static_cast<std::uint32_t>(lexical::skip_trivia(t.data() + offset, t.data() + t.size()) - t.data());
  }
  // Just past the last token before `offset` (spaces and comments skipped): where a keyword
  // the syntax tree keeps no place of ends, found from what follows it.
  std::uint32_t end_of_token_before(std::uint32_t offset) const {
    std::string_view t = src_.text();
    for (;;) {
      while (offset > 0 && (t[offset - 1] == ' ' || t[offset - 1] == '\t' || t[offset - 1] == '\r' || t[offset - 1] == '\n'))
        --offset;
      if (offset == 0) return 0;
      // The comment holding the byte before, if any (comments are sorted and do not overlap).
      auto c = std::upper_bound(comments_.begin(), comments_.end(), offset - 1,
                                [](std::uint32_t o, const source_range& r) { return o < r.begin; });
      if (c == comments_.begin() || std::prev(c)->end < offset) return offset;
      offset = std::prev(c)->begin;
    }
  }
  // Where `keyword`, the last token before `offset`, starts.
  std::uint32_t keyword_before(std::uint32_t offset, std::string_view keyword) const {
    return end_of_token_before(offset) - static_cast<std::uint32_t>(keyword.size());
  }

  // Where the ')' (or `closer`) closing a list whose last item ends at `from` stands (comments
  // and a trailing ',' skipped).
  std::uint32_t closing_paren(std::uint32_t from, char closer = ')') const {
    std::string_view t = src_.text();
    std::uint32_t p = next_token(from);
    if (p < t.size() && t[p] == ',' && closer == '}') p = next_token(p + 1);
    return p < t.size() && t[p] == closer ? p : from;
  }

  // Whether the comments before `close` are all block comments, and they, the list's first item
  // (which starts at `first`) and `close` stand on one source line: such a list stays on one
  // line when it fits (`k(x, /* n */ 4)`), as it was written.
  bool block_comments_on_one_line(std::uint32_t first, std::uint32_t close) const {
    const std::uint32_t line = src_.location(close).line;
    if (src_.location(first).line != line) return false;
    for (std::size_t i = next_; i < comments_.size() && comments_[i].begin < close; ++i)
      if (is_line_comment(i) || src_.location(comments_[i].begin).line != line) return false;
    return true;
  }

  // "(a, b, c)" on one line; when the line would pass 100 columns, as many items per line as
  // fit, aligned after the '('; when a comment sits inside the list, one item per line, unless
  // the list and its comments were written on one line and are all block comments.
  // `item(i)` writes item i; `bounds(i)` gives its source range.
  template <typename Item, typename Bounds>
  void comma_list(std::size_t count, Item item, Bounds bounds, std::size_t reserve_after = 1,
                  std::string_view opener = "(", std::string_view closer = ")") {
    if (count == 0) {
      out_ += opener.front();
      out_ += closer.back();
      return;
    }
    out_ += opener;
    const std::uint32_t close = closing_paren(bounds(count - 1).second, closer.back());
    const snapshot start = save();
    if (flat_ || !comment_before(close) || block_comments_on_one_line(bounds(0).first, close)) {
      {
        const flat_scope flat(*this);
        for (std::size_t i = 0; i < count; ++i) {
          if (i) {
            token(bounds(i - 1).second, ',', ",");  // a comment before the ',' stays before it
            out_ += ' ';
          }
          inline_comments(bounds(i).first);
          item(i);
        }
        token_at(close, closer);
      }
      if (flat_ || fits_since(start.size, reserve_after)) return;
      restore(start);
    }
    const std::size_t saved_continuation = continuation_;
    const std::size_t opening_indent = line_indent();
    if (!comment_before(close)) {
      // Too long only: as many items a line as fit, aligned after the opener. Where the opener
      // stands past the middle of the line (a label and a long launch head before it) and an
      // item does not fit after it on one line, the items start on the next line instead, where
      // the statement or the enclosing list goes on (4 further in when the opening line
      // already starts there: a list inside a list broken so); nearer the left, an item too
      // long wraps inside, aligned, as before. The choice is made from the items' one-line
      // widths, so that no item is laid out twice at every level of nesting (which took time
      // exponential in the depth).
      const std::size_t aligned = column();
      std::size_t widest = 0;
      for (std::size_t i = 0; i < count; ++i)
        widest = std::max(widest, flat_width(item, i) + (i + 1 == count ? reserve_after + closer.size() : 1));
      const std::size_t broken = opening_indent == saved_continuation ? saved_continuation + 4 : saved_continuation;
      continuation_ = aligned;
      if (aligned + widest > max_width && aligned > max_width / 2 && broken < aligned) {
        continuation_ = broken;
        break_line();
      }
      fill_items(count, item, reserve_after);
      out_ += closer;
      continuation_ = saved_continuation;
      return;
    }
    continuation_ = column();
    for (std::size_t i = 0; i < count; ++i) {
      inline_comments(bounds(i).first);
      item(i);
      if (i + 1 == count) break;
      token(bounds(i).second, ',', ",");  // a comment before the ',' stays before it
      // Comments after the item (on its line or below) come before the next item's line.
      inline_comments(bounds(i + 1).first);
      if (!at_fresh_line()) break_line();
    }
    inline_comments(close);
    trim_spaces();
    if (out_.back() == '\n') out_.append(opening_indent, ' ');  // after a line comment: ')' at the opening line's indentation
    out_ += at_fresh_line() ? closer.substr(closer.size() - 1) : closer;
    continuation_ = saved_continuation;
  }
  // A list without comments, its items filling each line up to the limit and going on at the
  // continuation column. An item goes on the current line when it fits there on one line
  // (measured so, once); otherwise it is laid out on the next (nested lists align there).
  template <typename Item>
  void fill_items(std::size_t count, Item item, std::size_t reserve_after) {
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t reserve = i + 1 == count ? reserve_after + 1 : 1;  // ')' and what follows, or ','
      if (i == 0) {
        item(i);
      } else {
        out_ += ' ';
        const snapshot before = save();
        {
          const flat_scope flat(*this);
          item(i);
        }
        if (!fits_since(before.size, reserve)) {
          restore(before);
          break_line();
          item(i);
        }
      }
      if (i + 1 < count) out_ += ',';
    }
  }
  // How wide item i is on one line (a line comment inside it: wider than any line).
  template <typename Item>
  std::size_t flat_width(Item& item, std::size_t i) {
    const snapshot before = save();
    {
      const flat_scope flat(*this);
      item(i);
    }
    const std::size_t width = out_.find('\n', before.size) == std::string::npos ? out_.size() - before.size : max_width + 1;
    restore(before);
    return width;
  }
  // While one lives, lists and expressions are laid out on one line, whatever their length:
  // how a layout attempt measures what it would write.
  struct flat_scope {
    formatter& owner;
    bool was;
    explicit flat_scope(formatter& f) : owner(f), was(f.flat_) { f.flat_ = true; }
    ~flat_scope() { owner.flat_ = was; }
  };

  // ---- expressions ---------------------------------------------------------------------------

  // Comments before an expression stay before it, wherever it stands.
  void expression(const ast::expression& e) {
    inline_comments(e.begin);
    unary(e.first);
    const auto& rest = e.rest();
    for (std::size_t i = 0; i < rest.size(); ++i) {
      const ast::operation& o = rest[i];
      if (flat_) {
        binary_operation(o, false);
        continue;
      }
      // Past the limit (and no comment inside), the line breaks after the operator, as
      // clang-format breaks C++, and the operand goes on at the continuation column. The next
      // operator, which would end this line, counts (or 1 column for what follows). Measured on
      // one line first, so that an operand is laid out once more at most, not once more at every
      // level of parentheses.
      const snapshot before = save();
      const std::size_t operator_column = column();
      {
        const flat_scope flat(*this);
        binary_operation(o, false);
      }
      const std::size_t reserve = i + 1 < rest.size() ? dsl::info(rest[i + 1].op).spelling.size() + 1 : 1;
      const bool commented = next_ != before.next;
      if (!commented && fits_since(before.size, reserve))
        continue;  // fits: the one-line layout is the layout
      restore(before);
      binary_operation(o, !commented && operator_column > continuation_);
    }
    if (const ast::choice* ternary = e.ternary()) {
      const ast::choice& c = *ternary;
      token_at(c.begin, " ? ");
      expression(c.then);
      token_at(end_of_token_before(c.otherwise.begin) - 1, " : ");
      expression(c.otherwise);
    }
  }

  void binary_operation(const ast::operation& o, bool break_after_operator) {
    inline_comments(o.begin);
    if (out_.back() != ' ') out_ += ' ';
    out_ += dsl::info(o.op).spelling;
    if (break_after_operator) break_line();
    else out_ += ' ';
    inline_comments(o.rhs.begin);
    unary(o.rhs);
  }

  void unary(const ast::unary& u) {
    if (u.prefix) {
      std::uint32_t at = u.begin;  // the first sign
      for (char sign : *u.prefix) {
        inline_comments(at);
        out_ += sign;
        at = next_token(at + 1);
      }
      inline_comments(at);  // between the last sign and the operand
    }
    boost::apply_visitor([&](const auto& x) { operand(ast::unwrap(x)); }, u.value);
  }
  void operand(const ast::field_access& x) {
    boost::apply_visitor([&](const auto& y) { operand(ast::unwrap(y)); }, x.base.get());
    for (const auto& f : x.fields) {
      inline_comments(f.begin);
      out_ += cat('.', f.name);
    }
  }

  void operand(const ast::int_literal& x) { out_ += text(x); }
  void operand(const ast::float_literal& x) { out_ += text(x); }
  void operand(const ast::bool_literal& x) { out_ += x.value ? "true" : "false"; }
  void operand(const ast::null_literal&) { out_ += "null"; }
  void operand(const ast::identifier& x) { out_ += x.name; }
  void operand(const ast::sizeof_expr& x) { out_ += "sizeof(" + type(x.type) + ")"; }
  void operand(const ast::parenthesized& x) {
    out_ += '(';
    expression(x.inner.get());
    out_ += ')';
  }
  void operand(const ast::function_call& x) {
    out_ += x.function.name;
    list(x.args);
  }
  // `P { x: 1, y: 2 }`: the fields as a list (wrapped and commented like arguments), in braces.
  void operand(const ast::struct_literal& x) {
    out_ += x.name.name;
    token(x.name.end, '{', " ");  // the comments before the '{'; comma_list writes it
    comma_list(
        x.fields.size(),
        [&](std::size_t i) {
          out_ += cat(x.fields[i].name.name, ": ");
          expression(x.fields[i].value);
        },
        [&](std::size_t i) { return std::pair{x.fields[i].begin, x.fields[i].end}; }, 1, "{ ", " }");
  }

  void list(const ast::list<ast::expression>& xs, std::size_t reserve_after = 1) {
    comma_list(
        xs.size(), [&](std::size_t i) { expression(xs[i]); },
        [&](std::size_t i) { return std::pair{xs[i].begin, xs[i].end}; }, reserve_after);
  }

  void dims(const ast::list<ast::expression>& d) {
    if (d.size() == 1) {
      expression(d[0]);
    } else {
      inline_comments(end_of_token_before(d[0].begin) - 1);  // before the '('
      list(d);
    }
  }
  // Where launch dimensions end in the source: after the ')' of a parenthesized list.
  std::uint32_t dims_end(const ast::list<ast::expression>& d) const {
    const std::uint32_t end = d.back().end;
    return d.size() == 1 ? end : closing_paren(end) + 1;
  }

  static std::string type(const ast::type_name& t) {
    return cat(t.is_const ? "const " : "", t.base, t.pointer ? "*" : "");
  }
  // A type as written, with the comments between its words (`const /*c*/ f32 /*d*/ *`).
  void type_at(const ast::type_name& t) {
    std::uint32_t at = next_token(t.begin);
    if (t.is_const) {
      inline_comments(at);
      out_ += "const ";
      at = next_token(at + 5);
    }
    inline_comments(at);
    out_ += t.base;
    if (t.pointer) token(at + static_cast<std::uint32_t>(t.base.size()), '*', "*");
  }
  // `NAME: TYPE`, with the comments between them.
  void typed(const ast::identifier& n, const ast::type_name& t) {
    name(n);
    token(n.end, ':', ": ");
    type_at(t);
  }

  // ---- statements ----------------------------------------------------------------------------

  void prefix(const ast::node_prefix& p) {
    const auto& attributes = p.attributes();
    std::size_t attributes_end = 0;  // where the ' ' after `]]` stands in out_
    if (!attributes.empty()) {
      out_ += "[[";
      for (std::size_t i = 0; i < attributes.size(); ++i) {
        if (i) token(attributes[i - 1].end, ',', ", ");
        name(attributes[i].name);
        const auto& args = attributes[i].args;
        if (!args.empty()) {
          token(attributes[i].name.end, '(', "(");
          for (std::size_t k = 0; k < args.size(); ++k) {
            if (k) token(args[k - 1].end, ',', ", ");
            expression(args[k]);
          }
          token(args.back().end, ')', ")");
        }
      }
      token(attributes.back().end, ']', "]] ");
      attributes_end = out_.size() - 1;
    }
    // This statement's, not a nested one's.
    const bool label_alone = std::exchange(label_alone_, false);
    if (std::exchange(attributes_alone_, false) && !attributes.empty()) {
      out_[attributes_end] = '\n';  // what follows `]]` below it, at the statement's indentation
      indent();
    }
    const std::uint32_t head = p.parts ? next_token(p.end) : 0;
    if (const ast::identifier* label = p.label()) {
      name(*label);
      token(label->end, ':', ": ");
      if (label_alone) {  // the comments after the ':' stay on the label's line
        const std::size_t label_end = out_.size();
        inline_comments(head);
        if (!attributes.empty()) break_after_attributes(attributes_end, label_end);
        if (!at_fresh_line()) break_line();
      }
    }
    if (!p.parts) return;
    // The comments before what follows the prefix stay before it.
    if (at_fresh_line() && comment_before(head)) {
      // Only an `after` list stood before the head, and it moves to the end: the comments go
      // on lines of their own before the statement, where formatting again leaves them.
      out_.resize(out_.rfind('\n') + 1);
      leading(head, false);
      indent();
    } else {
      inline_comments(head);
    }
  }
  // A label laid out alone (label_alone_) whose line, the attributes before it included, still
  // passes the limit: the label and what follows it on that line (its comments) go on a line of
  // their own at the statement's indentation, below the attributes. Not where a line comment
  // stood between `]]` and the label: the label is on a line of its own after it already.
  void break_after_attributes(std::size_t space, std::size_t label_end) {
    std::size_t end = std::min(out_.find('\n', space), out_.size());
    if (end < label_end) return;
    const std::size_t line = out_.rfind('\n', space) + 1;  // npos + 1 is 0: the first line
    while (end > space && out_[end - 1] == ' ') --end;
    if (end - line <= max_width) return;
    out_.replace(space, 1, 1, '\n');
    out_.insert(space + 1, static_cast<std::size_t>(depth_) * 2, ' ');
  }
  // The canonical place of `after` is at the end: "k<<<…>>>(…) after a, b;". A clause without
  // comments that would take the line past the limit (`reserve`: what follows it, ";" or " {")
  // goes on a line of its own, 4 columns in, its names filling lines aligned after `after`.
  void after(const ast::node_prefix& p, const ast::after_list& suffix, std::size_t reserve = 1) {
    if (p.after().empty() && suffix.empty()) return;
    const snapshot start = save();
    after_in_place(p, suffix);
    if (next_ != start.next || fits_since(start.size, reserve)) return;
    restore(start);
    continuation_ = static_cast<std::size_t>(depth_) * 2 + 4;  // the statement's indentation + 4
    break_line();
    out_ += "after ";
    continuation_ = column();
    bool first = true;
    for (const auto* l : {&p.after(), &suffix})
      for (const auto& name : *l) {
        const std::string edge = name.port == ast::edge_port::full ? std::string(name.name)
                                                                    : cat(port_name(name.port), '(', name.name, ')');
        const bool last = &name == &l->back() && (l == &suffix || suffix.empty());
        if (!first) {
          out_ += ',';
          if (column() + 1 + edge.size() + (last ? reserve : 1) > max_width) break_line();
          else out_ += ' ';
        }
        out_ += edge;
        first = false;
      }
    continuation_ = start.continuation;
  }
  static std::string_view port_name(ast::edge_port port) {
    return port == ast::edge_port::programmatic ? "programmatic" : "launched";
  }
  // The indentation of the line being written.
  std::size_t line_indent() const {
    const std::size_t line = out_.rfind('\n') + 1;  // npos + 1 is 0: the first line
    return std::min(out_.find_first_not_of(' ', line), out_.size()) - line;
  }
  void after_in_place(const ast::node_prefix& p, const ast::after_list& suffix) {
    bool first = true;
    for (const auto* l : {&p.after(), &suffix})
      for (const auto& name : *l) {
        // In the clause at the end, comments before `after` and each ',' stay before them; the
        // one before the statement moves to the end, and its comments stay where they were.
        if (l != &suffix) out_ += first ? " after " : ", ";
        else if (first) token_at(keyword_before(name.begin, "after"), " after ");
        else token_at(keyword_before(name.begin, ","), ", ");
        inline_comments(name.begin);
        if (name.port == ast::edge_port::full) {
          out_ += name.name;
        } else {  // `programmatic(L)`, `launched(L)`: the range is the whole port, and L is found in it
          const std::string_view port = port_name(name.port);
          out_ += port;
          const std::uint32_t open = next_token(name.begin + static_cast<std::uint32_t>(port.size()));
          token_at(open, "(");
          const std::uint32_t label = next_token(open + 1);
          inline_comments(label);
          out_ += name.name;
          token(label + static_cast<std::uint32_t>(name.name.size()), ')', ")");
        }
        first = false;
      }
  }

  // Comments before the '{': a block comment stays before it; a line comment ends the '{' line
  // (the canonical layout keeps `) {` and `} else {` on one line).
  void block(const ast::block& b) {
    block_comments_before(b.begin);
    bool has_comments = next_ < comments_.size() && comments_[next_].begin < b.end;
    if (b.statements.empty() && !has_comments) {
      out_ += "{}";
      return;
    }
    out_ += "{";
    if (comment_before(b.begin)) {
      comment_at_line_end();
      out_ += '\n';
    } else {
      trailing(b.begin + 1, b.statements.empty() ? ~0u : first_begin(b.statements.front()));
    }
    ++depth_;
    for (const auto& s : b.statements) statement(s, b.end - 1);
    leading(b.end - 1, false);
    --depth_;
    indent();
    out_ += "}";
  }

  static const ast::tagged& tag_of(const ast::statement& s) {
    return boost::apply_visitor([](const auto& x) -> const ast::tagged& { return ast::unwrap(x); }, s);
  }
  static std::uint32_t first_begin(const ast::statement& s) { return tag_of(s).begin; }

  // `closing`: where the enclosing block's '}' stands; a comment after it is not this statement's.
  void statement(const ast::statement& s, std::uint32_t closing) {
    const auto& t = tag_of(s);
    leading(t.begin, false);
    indent();
    continuation_ = static_cast<std::size_t>(depth_) * 2 + 4;
    const snapshot start = save();
    const ast::node_prefix* movable = movable_prefix(s);
    // Not when a comment stands after the part that moves (the attributes, or the label): where
    // one goes in a list depends on the lines it stood between, so the layouts' widths, and the
    // choice, could differ when the output is formatted again (fmt must be idempotent). The
    // prefix's own comments are written inline either way.
    const bool may_move_label =
        movable && movable->label() && !comment_within(next_token(movable->end), t.end);
    const bool may_move_attributes = movable && !movable->label() &&
                                     !comment_within(movable->attributes().back().end, t.end);
    boost::apply_visitor([&](const auto& x) { stmt(ast::unwrap(x)); }, s);
    // A statement with a label that passes the limit is laid out again with the label on a line
    // of its own and the statement 4 columns in below it (`NAME:` then a newline is the same
    // syntax), and keeps that layout when fewer columns pass the limit: a long label before a
    // long launch head no longer pushes it past 100 (its attributes: break_after_attributes).
    if (may_move_label && overflow_since(start.size) > 0) lay_out_again(s, start, &label_alone_, false);
    // A statement with attributes and no label that does not fit on one line is laid out again
    // with its attributes on a line of their own and the statement below them at its
    // indentation, as C++ writes `[[nodiscard]]` above a declaration that does not fit: it then
    // breaks where it would without attributes, not inside them or after `<<<`. It keeps that
    // layout unless more columns pass the limit. (With a label, the statement below the label
    // reads better, so labelled statements keep the rule above.)
    if (may_move_attributes && !fits_since(start.size, 0)) lay_out_again(s, start, &attributes_alone_, true);
    // Rare, and statements without a body, so laying out twice costs little.
    trailing(t.end, closing);
  }
  // Lays `s` out again from `start` with `alone` set (label_alone_ or attributes_alone_, which
  // the statement's prefix() reads and clears), and keeps the new layout when fewer columns pass
  // the limit than in the one written since `start` (or as few, with `ties`); otherwise puts
  // that one back.
  void lay_out_again(const ast::statement& s, const snapshot& start, bool* alone, bool ties) {
    const std::size_t overflow = overflow_since(start.size);
    const std::string first = out_.substr(start.size);
    const snapshot end = save();
    restore(start);
    *alone = true;
    boost::apply_visitor([&](const auto& x) { stmt(ast::unwrap(x)); }, s);
    const std::size_t again = overflow_since(start.size);
    if (again < overflow || (ties && again == overflow)) return;
    out_.resize(start.size);
    out_ += first;
    restore(end);
  }
  // How many columns the lines of `out_` from the line holding `from` on pass the limit, summed.
  std::size_t overflow_since(std::size_t from) const {
    std::size_t total = 0;
    std::size_t begin = from == 0 ? 0 : out_.rfind('\n', from - 1) + 1;  // npos + 1 is 0
    while (begin < out_.size()) {
      const std::size_t end = std::min(out_.find('\n', begin), out_.size());
      if (end - begin > max_width) total += end - begin - max_width;
      begin = end + 1;
    }
    return total;
  }
  // Whether a comment not yet written starts in [from, to).
  bool comment_within(std::uint32_t from, std::uint32_t to) const {
    for (std::size_t i = next_; i < comments_.size() && comments_[i].begin < to; ++i)
      if (comments_[i].begin >= from) return true;
    return false;
  }
  // A statement that holds statements: a body (`while`, `repeat`, a group), an `if`'s bodies
  // or a `switch`'s cases. Derived from the members, so a new kind of statement is sorted by
  // what it holds, not by a list that it could be left out of.
  template <typename T>
  static constexpr bool holds_statements = requires(const T& x) { x.body; } ||
                                           requires(const T& x) { x.then_body; } ||
                                           requires(const T& x) { x.cases; };
  static_assert(holds_statements<ast::if_stmt> && holds_statements<ast::switch_stmt> &&
                holds_statements<ast::group_stmt> && !holds_statements<ast::launch_stmt>);
  // The prefix of a statement without a body (a launch, memcpy, memset, host, call, event,
  // alloc, free or collective) with a label or attributes, which statement() may lay out again
  // with either on a line of its own; else null. Not a conditional's or a group's: laying one
  // out twice lays its body out twice, and each labelled one nested in it twice again, so 30
  // nested `L: while c { … }` around a line too long to break would take 2^30 layouts. A body's
  // lines do not depend on where its label stands anyway.
  static const ast::node_prefix* movable_prefix(const ast::statement& s) {
    return boost::apply_visitor(
        [](const auto& x) -> const ast::node_prefix* {
          const auto& statement = ast::unwrap(x);
          using T = std::decay_t<decltype(statement)>;
          if constexpr (requires { statement.prefix; } && !holds_statements<T>)
            return statement.prefix.label() || !statement.prefix.attributes().empty() ? &statement.prefix
                                                                                      : nullptr;
          else return nullptr;
        },
        s);
  }

  void stmt(const ast::launch_stmt& s) {
    prefix(s.prefix);
    name(s.kernel);
    std::uint32_t last = s.shared_bytes ? s.shared_bytes->get().end : dims_end(s.block);
    const std::uint32_t open = closing_paren(closing_paren(last, '>') + 3, '(');
    if (!comment_before(open)) {
      // A head without comments wraps as a list does (`<<<` its opener), so that a long one
      // breaks there rather than run past the limit.
      const ast::list<ast::expression>* dimensions[] = {&s.grid, &s.block};
      comma_list(
          s.shared_bytes ? 3 : 2,
          [&](std::size_t i) { i < 2 ? dims(*dimensions[i]) : expression(s.shared_bytes->get()); },
          [&](std::size_t) { return std::pair{last, last}; }, 1, "<<<", ">>>");
    } else {
      token(s.kernel.end, '<', "<<<");
      dims(s.grid);
      token(dims_end(s.grid), ',', ", ");
      dims(s.block);
      if (s.shared_bytes) {
        token(dims_end(s.block), ',', ", ");
        expression(s.shared_bytes->get());
      }
      token(last, '>', ">>>");
      inline_comments(open);  // between ">>>" and '('
    }
    list(s.args);
    after(s.prefix, s.after);
    semicolon(s);
  }
  // memcpy, memset, a collective, host and call: "[label: ]HEAD(ARGS)[ after …];"
  // `word`: what stands before the '(' (the keyword, or the name after `host` or `call`, which
  // is `callee` too, written with the comments before it).
  template <typename Statement>
  void call_like(const Statement& s, std::string_view head, const ast::tagged& word,
                 const ast::identifier* callee = nullptr) {
    prefix(s.prefix);
    out_ += head;
    if (callee) name(*callee);
    inline_comments(closing_paren(word.end, '('));
    list(s.args);
    after(s.prefix, s.after);
    semicolon(s);
  }
  void stmt(const ast::builtin_stmt& s) {
    call_like(s, s.keyword.op == ast::builtin_op::memcpy_op ? "memcpy" : "memset", s.keyword);
  }
  // `KEYWORD NAME [after …];`
  template <typename Statement>
  void keyword_stmt(const Statement& s, std::string_view keyword, const ast::identifier& name) {
    prefix(s.prefix);
    out_ += keyword;
    out_ += ' ';
    this->name(name);
    after(s.prefix, s.after);
    semicolon(s);
  }
  void stmt(const ast::event_stmt& s) { keyword_stmt(s, s.wait ? "wait" : "record", s.event); }
  void stmt(const ast::alloc_stmt& s) {
    prefix(s.prefix);
    out_ += "alloc ";
    typed(s.name, s.element);
    token(s.element.end, '[', "[");
    expression(s.count);
    token(s.count.end, ']', "]");
    after(s.prefix, s.after);
    semicolon(s);
  }
  void stmt(const ast::free_stmt& s) { keyword_stmt(s, "free", s.name); }
  void stmt(const ast::host_stmt& s) { call_like(s, "host ", s.callback, &s.callback); }
  void stmt(const ast::call_stmt& s) { call_like(s, "call ", s.graph, &s.graph); }
  // `let NAME = VALUE;`, `cond NAME [= VALUE];`, `const NAME = VALUE;`.
  void binding(const ast::tagged& t, std::string_view keyword, const ast::identifier& id,
               const ast::expression* value) {
    out_ += keyword;
    name(id);
    if (value) {
      token(id.end, '=', " = ");
      expression(*value);
    }
    semicolon(t);
  }
  void stmt(const ast::let_stmt& s) { binding(s, "let ", s.name, &s.value); }
  void stmt(const ast::cond_stmt& s) { binding(s, "cond ", s.name, s.init ? &*s.init : nullptr); }
  void stmt(const ast::if_stmt& s) {
    prefix(s.prefix);
    out_ += "if ";
    name(s.condition);
    after(s.prefix, s.after, 2);
    out_ += ' ';
    block(s.then_body);
    if (s.else_body) {
      block_comments_before(keyword_before(s.else_body->begin, "else"));  // `} /*c*/ else`
      out_ += out_.back() == ' ' ? "else " : " else ";
      if (s.else_body->else_if) {
        const ast::if_stmt& inner = boost::get<ast::x3::forward_ast<ast::if_stmt>>(s.else_body->statements[0].var).get();
        inline_comments(inner.begin);  // `else /*c*/ if`
        stmt(inner);
      } else {
        block(*s.else_body);
      }
    }
  }
  void stmt(const ast::while_stmt& s) {
    prefix(s.prefix);
    out_ += "while ";
    name(s.condition);
    after(s.prefix, s.after, 2);
    out_ += ' ';
    block(s.body);
  }
  void stmt(const ast::switch_stmt& s) {
    prefix(s.prefix);
    out_ += "switch ";
    name(s.condition);
    after(s.prefix, s.after, 2);
    block_comments_before(end_of_token_before(s.cases.empty() ? s.end - 1 : s.cases.front().begin) - 1);
    out_ += out_.back() == ' ' ? "{" : " {";
    trailing(s.condition.end, s.cases.empty() ? ~0u : s.cases.front().begin);
    ++depth_;
    for (const auto& c : s.cases) {
      leading(c.begin, false);
      indent();
      out_ += "case ";
      expression(c.value);
      out_ += ' ';
      block(c.body);
      trailing(c.end);
    }
    leading(s.end - 1, false);
    --depth_;
    indent();
    out_ += '}';
  }
  void stmt(const ast::repeat_stmt& s) {
    prefix(s.prefix);
    out_ += "repeat ";
    expression(s.count);
    after(s.prefix, s.after, 2);
    out_ += ' ';
    block(s.body);
  }
  void stmt(const ast::for_stmt& s) {
    if (s.parallel) {
      out_ += "parallel ";
      inline_comments(next_token(s.begin + 8));  // `parallel /*c*/ for`
    }
    out_ += "for ";
    name(s.variable);
    token(s.variable.end, 'i', " in ");
    expression(s.from);
    token(s.from.end, '.', "..");
    expression(s.to);
    out_ += ' ';
    block(s.body);
  }
  void stmt(const ast::parallel_stmt& s) {
    out_ += "parallel ";
    block(s.branches);
  }
  void stmt(const ast::block& s) { block(s); }
  void stmt(const ast::collective_stmt& s) { call_like(s, dsl::info(s.keyword.op).name, s.keyword); }
  void stmt(const ast::group_stmt& s) {
    prefix(s.prefix);
    out_ += "group";
    after(s.prefix, s.after, 2);
    out_ += ' ';
    block(s.body);
  }
  void stmt(const ast::device_stmt& s) {
    out_ += "on";
    const std::uint32_t device = next_token(s.begin + 2);
    token_at(device, " device");
    token(device + 6, '(', "(");
    expression(s.device);
    token(s.device.end, ')', ") ");
    block(s.body);
  }

  // ---- declarations --------------------------------------------------------------------------

  static std::string_view kind_of(const ast::include_decl&) { return "include"; }
  static std::string_view kind_of(const ast::import_decl&) { return "import"; }
  static std::string_view kind_of(const ast::kernel_decl&) { return "kernel"; }
  static std::string_view kind_of(const ast::host_decl&) { return "host"; }
  static std::string_view kind_of(const ast::library_decl&) { return "library"; }
  static std::string_view kind_of(const ast::graph_decl&) { return "graph"; }
  static std::string_view kind_of(const ast::const_decl&) { return "const"; }
  static std::string_view kind_of(const ast::struct_decl&) { return "struct"; }

  void params(const ast::list<ast::parameter>& ps, std::size_t reserve_after) {
    comma_list(
        ps.size(),
        [&](std::size_t i) {
          typed(ps[i].name, ps[i].type);
          if (ps[i].default_value) {
            token(ps[i].type.end, '=', " = ");
            expression(*ps[i].default_value);
          }
        },
        [&](std::size_t i) { return std::pair{ps[i].begin, ps[i].end}; }, reserve_after);
  }

  void declaration(const ast::include_decl& d) { path_declaration("include ", d.path); }
  void declaration(const ast::import_decl& d) { path_declaration("import ", d.path); }
  void path_declaration(std::string_view keyword, const ast::string_literal& path) {
    out_ += keyword;
    inline_comments(path.begin);
    out_ += text(path);
    token(path.end, ';', ";");
  }
  void declaration(const ast::kernel_decl& d) {
    out_ += "kernel ";
    name(d.name);
    params(d.params, 1);
    if (d.symbol) {
      token_at(keyword_before(d.symbol->begin, "as"), " as ");
      inline_comments(d.symbol->begin);
      out_ += text(*d.symbol);
    }
    if (d.library) {
      token_at(keyword_before(d.library->begin, "from"), " from ");
      name(*d.library);
    }
    semicolon(d);
  }
  void declaration(const ast::host_decl& d) {
    out_ += "host ";
    name(d.name);
    params(d.params, 1);
    semicolon(d);
  }
  void declaration(const ast::library_decl& d) {
    out_ += d.kind == ast::library_kind::module ? "module " : "source ";
    name(d.name);
    token(d.name.end, '=', " = ");
    inline_comments(d.text.begin);
    out_ += text(d.text);
    semicolon(d);
  }
  void declaration(const ast::const_decl& d) {
    continuation_ = 4;
    binding(d, "const ", d.name, &d.value);
  }
  // One field per line, like a block's statements, with the comments between them.
  void declaration(const ast::struct_decl& d) {
    out_ += "struct ";
    name(d.name);
    token(d.name.end, '{', " {");
    // A comment on the '{' line stays there unless it follows the first field.
    if (d.fields.empty() || comment_before(d.fields[0].begin)) {
      trailing(d.name.end);
    } else {
      out_ += '\n';
      // A blank line before the struct is not one before its first field (formatting twice
      // would add it).
      last_end_ = std::max(last_end_, d.name.end);
    }
    ++depth_;
    for (const auto& f : d.fields) {
      leading(f.begin, false);
      indent();
      continuation_ = static_cast<std::size_t>(depth_) * 2 + 4;
      typed(f.name, f.type);
      token(f.type.end, ';', ";");
      trailing(f.end);
    }
    leading(closing_brace(d), false);
    --depth_;
    out_ += '}';
  }
  // Just past a declaration's last token. A struct's tree ends past the spaces and comments
  // after its '}' where no ';' follows: the parser skipped them looking for the optional ';'.
  // Ending it there moved a comment after the '}' into the struct (found by fuzzing, run 138).
  std::uint32_t last_token_end(const ast::tagged& t) const { return end_of_token_before(t.end); }
  // Where a struct's '}' stands, before its optional ';'.
  std::uint32_t closing_brace(const ast::struct_decl& d) const {
    std::uint32_t last = last_token_end(d) - 1;
    return src_.text()[last] == ';' ? end_of_token_before(last) - 1 : last;
  }
  void declaration(const ast::graph_decl& d) {
    out_ += "graph ";
    name(d.name);
    params(d.params, 2);
    out_ += ' ';
    block(d.body);
  }

  const source_file& src_;
  const std::vector<source_range>& comments_;
  std::size_t next_ = 0;
  std::uint32_t last_end_ = 0;
  int depth_ = 0;
  std::size_t continuation_ = 4;  // where a line broken by a comment goes on
  bool flat_ = false;             // inside a flat_scope
  bool label_alone_ = false;      // the next prefix puts its label on a line of its own
  bool attributes_alone_ = false; // the next prefix ends its line after `]]`
  std::string out_;
};

}  // namespace

std::optional<std::string> format_source(const source_file& source, diagnostics& sink,
                                         const std::vector<std::string>& imported_structs) {
  std::size_t errors_before = sink.error_count();
  scan_result scanned = scan(source, 0, sink);
  std::vector<std::string> names = imported_structs;
  names.insert(names.end(), scanned.struct_names.begin(), scanned.struct_names.end());
  auto parsed = parse(source, 0, std::move(scanned), names, sink);
  parsed.ok = sink.error_count() == errors_before;
  if (!parsed.ok) return std::nullopt;
  return formatter(source, parsed.comments).run(parsed.file);
}

}  // namespace cgraph::dsl

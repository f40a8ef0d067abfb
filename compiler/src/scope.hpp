#pragma once
// Names visible while lowering one graph. A name may be declared once: redeclaring a visible
// name is an error, so each name maps to at most one symbol and lookup is one hash probe.

#include "ranges.hpp"

#include <cgraph/dsl/source.hpp>

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cgraph::compiler::detail {

struct symbol {
  enum class kind : std::uint8_t { param, let, cond, alloc };
  kind k = kind::let;
  std::uint32_t expr = 0;   // param: its param node; let: its expression
  std::uint32_t index = 0;  // param, let, cond or allocation index
  source_range declared_at;
  mutable bool used = false;  // looked up since it was declared (for the unused warnings)
};

class scope_stack {
public:
  // Looks a name up; a name found counts as used.
  const symbol* find(std::string_view name) const {
    auto it = visible_.find(name);
    if (it == visible_.end()) return nullptr;
    it->second.used = true;
    return &it->second;
  }
  // Returns the symbol already visible under that name, or nullptr after declaring it.
  const symbol* declare(std::string_view name, const symbol& s) {
    auto [it, inserted] = visible_.try_emplace(name, s);
    if (!inserted) return &it->second;
    declared_.push_back(name);
    return nullptr;
  }
  // The visible names whose symbol satisfies `keep`, as a lazy view for dsl::closest: nothing
  // is gathered, so an error past the suggestion budget costs no walk of the scope.
  template <typename Keep>
  auto names(Keep keep) const {
    return visible_ | cgraph::detail::views::filter([keep](const auto& entry) { return keep(entry.second); }) |
           cgraph::detail::views::keys;
  }
  void push() { marks_.push_back(declared_.size()); }
  // Leaves the innermost scope; `unused(name, symbol)` is called for each of its names that was
  // never looked up, in declaration order.
  template <typename Unused>
  void pop(Unused unused) {
    for (std::size_t i = marks_.back(); i < declared_.size(); ++i) {
      auto it = visible_.find(declared_[i]);
      if (!it->second.used) unused(declared_[i], it->second);
      visible_.erase(it);
    }
    declared_.resize(marks_.back());
    marks_.pop_back();
  }

private:
  std::unordered_map<std::string_view, symbol> visible_;
  std::vector<std::string_view> declared_;
  std::vector<std::size_t> marks_;
};

}  // namespace cgraph::compiler::detail

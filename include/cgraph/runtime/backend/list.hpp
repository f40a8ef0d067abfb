#pragma once
// A read-only view of a few values, from a braced list (generated code) or a vector (the
// run-time path): std::span takes no initializer_list before C++26.

#include <cstddef>
#include <initializer_list>
#include <vector>

namespace cgraph::backend {

template <typename T>
class list {
public:
  list() = default;
  list(std::initializer_list<T> l) : data_(l.begin()), size_(l.size()) {}  // NOLINT: implicit by design
  list(const std::vector<T>& v) : data_(v.data()), size_(v.size()) {}      // NOLINT
  list(const T* data, std::size_t size) : data_(data), size_(size) {}

  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

private:
  const T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace cgraph::backend

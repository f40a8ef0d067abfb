#pragma once
// A read-only view of a few values: a vector (the run-time path) or the array of a braced list
// (generated code, through cgraph/runtime/generated.hpp; a constructor from std::initializer_list would
// draw GCC's -Winit-list-lifetime in users' builds, although the list outlives every call).

#include <cstddef>
#include <vector>

namespace cgraph::backend {

template <typename T>
class list {
public:
  list() = default;
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

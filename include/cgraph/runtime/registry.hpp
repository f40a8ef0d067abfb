#pragma once
// Where the run-time path finds the kernels and host callbacks a .cgraph file declares:
// `__global__` function pointers and any C++ callable, registered under their .cgraph names.

#include <cgraph/compiler/value.hpp>

#include <cuda_runtime_api.h>

#include <atomic>
#include <concepts>
#include <cstdint>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace cgraph {

// A host callback as cgraph calls it: the evaluated arguments, already converted to the
// declared parameter types. Callbacks run on a driver thread and must not call CUDA.
using host_function = std::function<void(std::span<const value>)>;

// A captured routine: work issued on a stream (a library call such as cuBLAS) that a .cgraph
// file launches like a kernel. It receives the stream, the arguments converted to the
// declared parameter types, and the launch dimensions of the statement.
using captured_routine = std::function<void(cudaStream_t, std::span<const value>, dim3 grid, dim3 block)>;

namespace detail {

template <typename T>
struct callable_args : callable_args<decltype(&std::decay_t<T>::operator())> {};
template <typename R, typename... A>
struct callable_args<R (*)(A...)> { using type = std::tuple<A...>; };
template <typename R, typename... A>
struct callable_args<R(A...)> { using type = std::tuple<A...>; };
template <typename C, typename R, typename... A>
struct callable_args<R (C::*)(A...) const> { using type = std::tuple<A...>; };
template <typename C, typename R, typename... A>
struct callable_args<R (C::*)(A...)> { using type = std::tuple<A...>; };

// The kind a C++ parameter type accepts: 'i' integer, 'f' float, 'b' bool, 'p' pointer,
// 's' struct (a trivially copyable class of the struct's size).
template <typename T>
constexpr char kind_of() {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<U, bool>) return 'b';
  else if constexpr (std::is_integral_v<U>) return 'i';
  else if constexpr (std::is_floating_point_v<U>) return 'f';
  else if constexpr (std::is_pointer_v<U>) return 'p';
  else if constexpr (std::is_class_v<U> && std::is_trivially_copyable_v<U>) return 's';
  else static_assert(std::is_pointer_v<U>, "host callback parameters must be scalars, pointers or trivially copyable structs");
}

}  // namespace detail

class registry {
public:
  registry() = default;
  // A copy is another registry: it gets a version of its own (current_version).
  registry(const registry& other) : kernels_(other.kernels_), hosts_(other.hosts_), routines_(other.routines_) {}
  registry(registry&& other) noexcept
      : kernels_(std::move(other.kernels_)), hosts_(std::move(other.hosts_)), routines_(std::move(other.routines_)) {
    ++other.changes_;  // emptied: no longer the registry a program resolved against
  }
  registry& operator=(const registry& other) {
    if (this != &other) *this = registry(other);
    return *this;
  }
  registry& operator=(registry&& other) noexcept {
    kernels_ = std::move(other.kernels_);
    hosts_ = std::move(other.hosts_);
    routines_ = std::move(other.routines_);
    id_ = fresh_id();
    changes_ = 0;
    ++other.changes_;
    return *this;
  }

  // This registry as it is now: a number no other registry object has had, and how many
  // changes it has taken. A program resolves its kernels and callbacks again only when this,
  // or the build options, differ from its last build's.
  struct version {
    std::uint64_t id = 0;
    std::uint64_t changes = 0;
    friend bool operator==(const version&, const version&) = default;
  };
  version current_version() const { return {id_, changes_}; }

  struct kernel_entry {
    const void* function = nullptr;
    std::vector<std::size_t> param_sizes;  // sizeof each C++ parameter
  };
  struct host_entry {
    std::shared_ptr<const host_function> function;
    std::string param_kinds;  // one of i f b p s per parameter
  };

  // A `__global__` function: registry.kernel("saxpy", saxpy).
  template <typename... Args>
  registry& kernel(std::string name, void (*function)(Args...)) {
    kernels_[std::move(name)] = kernel_entry{reinterpret_cast<const void*>(function), {sizeof(Args)...}};
    ++changes_;
    return *this;
  }

  // Any callable taking scalars or pointers: registry.host("report", [&](int step) { … }).
  // Its state is kept alive (by the graphs that use it) after the registry is gone.
  template <typename F>
  registry& host(std::string name, F callable) {
    using params = typename detail::callable_args<F>::type;
    return host_impl(std::move(name), std::move(callable), static_cast<params*>(nullptr));
  }

  // A captured routine under a kernel name. Both strategies capture its work into a child
  // graph node (in the explicit one on a side stream), so both build the same graph.
  registry& routine(std::string name, captured_routine r) {
    routines_[std::move(name)] = std::make_shared<const captured_routine>(std::move(r));
    ++changes_;
    return *this;
  }

  const kernel_entry* find_kernel(std::string_view name) const;
  std::shared_ptr<const captured_routine> find_routine(std::string_view name) const;
  const host_entry* find_host(std::string_view name) const;

private:
  template <typename F, typename... A>
  registry& host_impl(std::string name, F callable, std::tuple<A...>*) {
    auto fn = std::make_shared<const host_function>([f = std::move(callable)](std::span<const value> v) {
      call(f, v, std::index_sequence_for<A...>{}, static_cast<std::tuple<A...>*>(nullptr));
    });
    hosts_[std::move(name)] = host_entry{std::move(fn), std::string{detail::kind_of<A>()...}};
    ++changes_;
    return *this;
  }
  template <typename F, std::size_t... I, typename... A>
  static void call(const F& f, std::span<const value> v, std::index_sequence<I...>, std::tuple<A...>*) {
    f(v[I].template as<A>()...);
  }

  std::map<std::string, kernel_entry, std::less<>> kernels_;
  std::map<std::string, host_entry, std::less<>> hosts_;
  std::map<std::string, std::shared_ptr<const captured_routine>, std::less<>> routines_;

  static std::uint64_t fresh_id() {
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
  }
  std::uint64_t id_ = fresh_id();
  std::uint64_t changes_ = 0;
};

}  // namespace cgraph

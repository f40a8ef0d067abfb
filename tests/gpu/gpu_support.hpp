#pragma once
// Helpers for GPU tests: checked CUDA calls, device buffers, the common .cgraph declarations.

#include "strategies.hpp"

#include <cgraph/runtime.hpp>

#include <cuda_runtime_api.h>

#include <doctest/doctest.h>

#include <string>
#include <vector>

#define GPU_CHECK(call)                                                                  \
  do {                                                                                   \
    cudaError_t gpu_check_status = (call);                                               \
    REQUIRE_MESSAGE(gpu_check_status == cudaSuccess, #call, ": ", cudaGetErrorString(gpu_check_status)); \
  } while (0)

namespace cgraph {
// For code that may not use doctest assertions (other threads): throws cuda_error.
inline void detail_check_for_tests(cudaError_t status, const char* api) {
  if (status != cudaSuccess) throw cuda_error(status, api, "");
}
}  // namespace cgraph

namespace gpu_test {

// Device memory of n elements, poisoned (0xFF bytes) so unwritten elements show.
template <typename T>
class buffer {
public:
  explicit buffer(std::size_t n) : n_(n) {
    GPU_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)));
    GPU_CHECK(cudaMemset(p_, 0xFF, n * sizeof(T)));
  }
  ~buffer() { cudaFree(p_); }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;

  T* get() const { return p_; }
  operator T*() const { return p_; }  // NOLINT: pass straight into cgraph::args
  std::vector<T> read() const {
    std::vector<T> out(n_);
    GPU_CHECK(cudaMemcpy(out.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return out;
  }
  void write(const std::vector<T>& v) { GPU_CHECK(cudaMemcpy(p_, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice)); }

private:
  T* p_ = nullptr;
  std::size_t n_;
};

// The kernels of kernels.cu and a host callback, as .cgraph declarations.
inline const std::string declarations = R"(
kernel fill(p: f32*, v: f32, n: i32);
kernel saxpy(a: f32, x: f32*, y: f32*, n: i32);
kernel scale(p: f32*, s: f32, n: i32);
kernel index_3d(out: i32*, nx: i32, ny: i32, nz: i32);
kernel block_sum(in: f32*, out: f32*, n: i32);
kernel count_step(counter: u32*, limit: u32, more: cond);
kernel set_cond(c: cond, value: u32);
kernel increment(p: u32*, by: u32);
kernel copy_scaled(in: f32*, out: f32*, s: f32, n: i32);
)";

// Launches and waits.
void run(cgraph::graph_exec& exec);

using cgraph_tests::both;
using cgraph_tests::name_of;
using cgraph_tests::with;

// Compiles `declarations` followed by `body`, named test.cgraph (line 12 is body's first line
// when body starts with a line break).
inline cgraph::program compile(const std::string& body) {
  return cgraph::program::compile(declarations + body, "test.cgraph");
}

}  // namespace gpu_test

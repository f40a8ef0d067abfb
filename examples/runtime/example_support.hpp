#pragma once
// Shared by the example programs: checked CUDA calls and a device buffer.

#include <cgraph/runtime.hpp>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define EXAMPLE_CHECK(call)                                                                      \
  do {                                                                                           \
    cudaError_t example_status = (call);                                                         \
    if (example_status != cudaSuccess) {                                                         \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                  \
                   cudaGetErrorString(example_status));                                          \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

namespace example {

template <typename T>
struct device_vector {
  T* data = nullptr;
  std::size_t size = 0;

  explicit device_vector(std::size_t n) : size(n) { EXAMPLE_CHECK(cudaMalloc(reinterpret_cast<void**>(&data), n * sizeof(T))); }
  explicit device_vector(const std::vector<T>& v) : device_vector(v.size()) { upload(v); }
  ~device_vector() { cudaFree(data); }
  device_vector(const device_vector&) = delete;
  device_vector& operator=(const device_vector&) = delete;

  void upload(const std::vector<T>& v) { EXAMPLE_CHECK(cudaMemcpy(data, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice)); }
  std::vector<T> download() const {
    std::vector<T> v(size);
    EXAMPLE_CHECK(cudaMemcpy(v.data(), data, size * sizeof(T), cudaMemcpyDeviceToHost));
    return v;
  }
};

// Exits 0 with a message when there is no GPU, so the examples can run anywhere.
inline void require_gpu(const char* name) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::printf("%s: no CUDA device, nothing to run\n", name);
    std::exit(0);
  }
}

// Prints the verdict and returns the process status.
// The same program is built twice: graphs built from the embedded text at run time, and from
// C++ generated at build time (CGRAPH_BUILD_TIME, examples/build_time).
#ifdef CGRAPH_BUILD_TIME
inline constexpr const char* form = "built from generated C++";
#else
inline constexpr const char* form = "built from text at run time";
#endif

inline int verdict(const char* name, bool ok, const char* what) {
  std::printf("%s (%s): %s (%s)\n", name, form, ok ? "verified against the CPU reference" : "MISMATCH with the CPU reference", what);
  return ok ? 0 : 1;
}

}  // namespace example

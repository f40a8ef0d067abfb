// Runs the generated graph and checks it against the CPU; without a GPU, says so and passes
// (building it was the test).
#include "scale.cgraph.hpp"

#include <cstdio>
#include <vector>

__global__ void scale(float* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("consumer: built against cgraph; no GPU here, so the graph did not run");
    return 0;
  }
  const int n = 1000;
  std::vector<float> host(n, 1.5f);
  float* x = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  cudaMemcpy(x, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  namespace twice = cgraph_generated::scale::twice;
  auto exec = twice::build({.x = x, .s = 3.0f, .n = n}).instantiate();
  exec.launch(nullptr);
  cudaMemcpy(host.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(x);
  for (float v : host)
    if (v != 1.5f * 9.0f) {
      std::printf("consumer: MISMATCH: %f, expected %f\n", v, 1.5f * 9.0f);
      return 1;
    }
  std::puts("consumer: the generated graph ran and matched the CPU");
  return 0;
}

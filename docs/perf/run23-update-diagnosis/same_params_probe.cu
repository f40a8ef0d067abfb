// Probe (not landed): does cudaGraphExecKernelNodeSetParams cost less when the values equal the node's current ones?
#include <cstdio>
#include <chrono>
#include <vector>
#include <algorithm>
__global__ void tiny(float* p, int i) { if (threadIdx.x == 0) p[i & 255] += 1.0f; }
#define CK(x) do { cudaError_t err_ = (x); if (err_) { printf("%s: %s\n", #x, cudaGetErrorString(err_)); return 1; } } while (0)
int main() {
  float *a, *b; CK(cudaMalloc(&a, 4096)); CK(cudaMalloc(&b, 4096));
  for (int shape = 0; shape < 2; ++shape) {
    const int n = 1000;
    cudaGraph_t g; CK(cudaGraphCreate(&g, 0));
    std::vector<cudaGraphNode_t> k;
    int i = 0; void* args[] = {&a, &i};
    cudaKernelNodeParams p{}; p.func = (void*)tiny; p.gridDim = dim3(1); p.blockDim = dim3(32); p.kernelParams = args;
    cudaGraphNode_t last = nullptr;
    for (int j = 0; j < n; ++j) {
      cudaGraph_t target = g;
      if (shape == 1) {
        cudaGraphConditionalHandle h; CK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
        cudaGraphNodeParams c{}; c.type = cudaGraphNodeTypeConditional; c.conditional.handle = h; c.conditional.type = cudaGraphCondTypeIf; c.conditional.size = 1;
        cudaGraphNode_t cn; CK(cudaGraphAddNode(&cn, g, last ? &last : nullptr, nullptr, last ? 1 : 0, &c));
        last = cn; target = c.conditional.phGraph_out[0];
        cudaGraphNode_t kn; CK(cudaGraphAddKernelNode(&kn, target, nullptr, 0, &p)); k.push_back(kn);
      } else {
        cudaGraphNode_t kn; CK(cudaGraphAddKernelNode(&kn, g, last ? &last : nullptr, last ? 1 : 0, &p)); k.push_back(kn); last = kn;
      }
    }
    cudaGraphExec_t e; CK(cudaGraphInstantiateWithFlags(&e, g, 0));
    auto run = [&](int mode, int rounds) {
      std::vector<double> t;
      float* ptr[2] = {a, b};
      for (int r = 0; r < rounds; ++r) {
        void* args2[] = {mode == 0 ? &ptr[0] : &ptr[r & 1], &i};
        cudaKernelNodeParams q = p; q.kernelParams = args2;
        auto s = std::chrono::steady_clock::now();
        for (auto node : k) cudaGraphExecKernelNodeSetParams(e, node, &q);
        t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s).count() / n);
      }
      std::sort(t.begin(), t.end()); return t[t.size() / 2];
    };
    // Each node's arguments in memory of its own (as cgraph passes them), or one array for all.
    std::vector<void*> ptrs(2 * n);
    std::vector<unsigned long long> words(2 * n);
    auto run_own = [&](int rounds) {
      std::vector<double> t;
      float* ptr[2] = {a, b};
      for (int r = 0; r < rounds; ++r) {
        for (int j = 0; j < n; ++j) {
          words[2 * j] = (unsigned long long)ptr[r & 1]; words[2 * j + 1] = 0;
          ptrs[2 * j] = &words[2 * j]; ptrs[2 * j + 1] = &words[2 * j + 1];
        }
        auto s = std::chrono::steady_clock::now();
        for (int j = 0; j < n; ++j) {
          cudaKernelNodeParams q = p; q.kernelParams = &ptrs[2 * j];
          cudaGraphExecKernelNodeSetParams(e, k[j], &q);
        }
        t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s).count() / n);
      }
      std::sort(t.begin(), t.end()); return t[t.size() / 2];
    };
    for (int rep = 0; rep < 3; ++rep)
      printf("%s: one array, changed every round %.4f us/node; an array per node %.4f us/node\n", shape ? "conditionals" : "chain", run(1, 41), run_own(41));
  }
  return 0;
}

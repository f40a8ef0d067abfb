// Probe (not landed): does work between two cudaGraphExecKernelNodeSetParams calls slow the calls?
// Per round, interleaved: a bare loop over the nodes; the same with ~200 instructions of
// register arithmetic between calls; with 6 cache lines of a 4 MiB buffer read and written
// between calls (cgraph's direct update touches about that many). Time of the setters only is
// not separable, so each variant's own work is timed alone too and subtracted.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <vector>
__global__ void tiny(float* p, int i) { if (threadIdx.x == 0) p[i & 255] += 1.0f; }
#define CK(x) do { cudaError_t err_ = (x); if (err_) { printf("%s: %s\n", #x, cudaGetErrorString(err_)); return 1; } } while (0)
static std::vector<std::uint64_t> big(1 << 19);  // 4 MiB
static volatile std::uint64_t sink;
__attribute__((noinline)) std::uint64_t arith(std::uint64_t x) { for (int k = 0; k < 50; ++k) x = x * 6364136223846793005ull + 1442695040888963407ull; return x; }
__attribute__((noinline)) void touch(std::size_t j) {  // 6 lines, scattered
  for (int l = 0; l < 6; ++l) { std::size_t at = ((j * 6 + l) * 8191 * 8) % big.size(); big[at] += 1; }
}
__attribute__((noinline)) void touch_seq(std::size_t j) {  // 6 lines, the next ones in order
  for (int l = 0; l < 6; ++l) { std::size_t at = ((j * 6 + l) * 8) % big.size(); big[at] += 1; }
}
__attribute__((noinline)) void touch_one(std::size_t j) {  // 1 line, scattered
  std::size_t at = (j * 8191 * 8) % big.size(); big[at] += 1;
}
// What cgraph's gathered update does per call, one step at a time (for the next session):
// a setter behind a function that is not inlined, as backend::kernel_node::set_arguments is.
__attribute__((noinline)) bool set_through(cudaGraphExec_t e, cudaGraphNode_t n, const cudaKernelNodeParams& q) {
  return cudaGraphExecKernelNodeSetParams(e, n, &q) == cudaSuccess;
}
struct call_record { cudaGraphNode_t node; unsigned first; dim3 grid, block; };
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
      if (shape == 1) {
        cudaGraphConditionalHandle h; CK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
        cudaGraphNodeParams c{}; c.type = cudaGraphNodeTypeConditional; c.conditional.handle = h; c.conditional.type = cudaGraphCondTypeIf; c.conditional.size = 1;
        cudaGraphNode_t cn; CK(cudaGraphAddNode(&cn, g, last ? &last : nullptr, nullptr, last ? 1 : 0, &c));
        last = cn;
        cudaGraphNode_t kn; CK(cudaGraphAddKernelNode(&kn, c.conditional.phGraph_out[0], nullptr, 0, &p)); k.push_back(kn);
      } else {
        cudaGraphNode_t kn; CK(cudaGraphAddKernelNode(&kn, g, last ? &last : nullptr, last ? 1 : 0, &p)); k.push_back(kn); last = kn;
      }
    }
    cudaGraphExec_t e; CK(cudaGraphInstantiateWithFlags(&e, g, 0));
    float* ptr[2] = {a, b};
    std::vector<double> t[12];
    std::vector<std::uint64_t> words(2 * n);
    std::vector<void*> pointers(2 * n);
    std::vector<call_record> calls(n);
    using clk = std::chrono::steady_clock;
    auto us = [&](clk::time_point s) { return std::chrono::duration<double, std::micro>(clk::now() - s).count() / n; };
    for (int r = 0; r < 61; ++r) {
      void* args2[] = {&ptr[r & 1], &i};
      cudaKernelNodeParams q = p; q.kernelParams = args2;
      std::uint64_t x = r;
      auto s = clk::now(); for (int j = 0; j < n; ++j) cudaGraphExecKernelNodeSetParams(e, k[j], &q); t[0].push_back(us(s));
      s = clk::now(); for (int j = 0; j < n; ++j) { cudaGraphExecKernelNodeSetParams(e, k[j], &q); x = arith(x); } t[1].push_back(us(s));
      s = clk::now(); for (int j = 0; j < n; ++j) x = arith(x); t[2].push_back(us(s));
      s = clk::now(); for (int j = 0; j < n; ++j) { cudaGraphExecKernelNodeSetParams(e, k[j], &q); touch(j + r * n); } t[3].push_back(us(s));
      s = clk::now(); for (int j = 0; j < n; ++j) touch(j + r * n); t[4].push_back(us(s));
      s = clk::now(); for (int j = 0; j < n; ++j) { cudaGraphExecKernelNodeSetParams(e, k[j], &q); touch_seq(j + r * n); } t[5].push_back(us(s));
      s = clk::now(); for (int j = 0; j < n; ++j) touch_seq(j + r * n); t[6].push_back(us(s));
      s = clk::now(); for (int j = 0; j < n; ++j) { cudaGraphExecKernelNodeSetParams(e, k[j], &q); touch_one(j + r * n); } t[7].push_back(us(s));
      s = clk::now(); for (int j = 0; j < n; ++j) touch_one(j + r * n); t[8].push_back(us(s));
      // cgraph-like: each call's own argument array, in order (`words`, `pointers`)
      for (int j = 0; j < n; ++j) {
        words[2 * j] = reinterpret_cast<std::uint64_t>(ptr[r & 1]); words[2 * j + 1] = 0;
        pointers[2 * j] = &words[2 * j]; pointers[2 * j + 1] = &words[2 * j + 1];
        calls[j] = {k[j], static_cast<unsigned>(2 * j), dim3(1), dim3(32)};
      }
      s = clk::now(); for (int j = 0; j < n; ++j) { cudaKernelNodeParams q2 = p; q2.kernelParams = &pointers[2 * j]; cudaGraphExecKernelNodeSetParams(e, k[j], &q2); } t[9].push_back(us(s));
      // the same through a function that is not inlined
      s = clk::now(); for (int j = 0; j < n; ++j) { cudaKernelNodeParams q2 = p; q2.kernelParams = &pointers[2 * j]; set_through(e, k[j], q2); } t[10].push_back(us(s));
      // the gathered update's loop: a record per call, its own arguments, the wrapper
      s = clk::now();
      for (const call_record& c : calls) {
        cudaKernelNodeParams q2{}; q2.func = p.func; q2.gridDim = c.grid; q2.blockDim = c.block; q2.kernelParams = &pointers[c.first];
        set_through(e, c.node, q2);
      }
      t[11].push_back(us(s));
      sink = x;
    }
    double m[12];
    for (int v = 0; v < 12; ++v) { std::sort(t[v].begin(), t[v].end()); m[v] = t[v][t[v].size() / 2]; }
    printf("%s: bare %.4f | with arithmetic %.4f (arithmetic alone %.4f: setters %.4f, %.2fx) | with 6 lines touched %.4f (alone %.4f: setters %.4f, %.2fx) us/node\n",
           shape ? "conditionals" : "chain", m[0], m[1], m[2], m[1] - m[2], (m[1] - m[2]) / m[0], m[3], m[4], m[3] - m[4], (m[3] - m[4]) / m[0]);
    printf("    6 lines in order: setters %.2fx; 1 line scattered: setters %.2fx\n", (m[5] - m[6]) / m[0], (m[7] - m[8]) / m[0]);
    printf("    an argument array per call %.2fx; and through a wrapper %.2fx; the gathered loop %.2fx\n", m[9] / m[0], m[10] / m[0], m[11] / m[0]);
  }
  return 0;
}

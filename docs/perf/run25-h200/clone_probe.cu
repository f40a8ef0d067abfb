// Probe: is cudaGraphClone (+ reading the clone's node handles) cheaper than building a graph
// node by node? Does a graph with conditional nodes clone?
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t ck_ = (x); if (ck_ != cudaSuccess) { std::printf("%s:%d %s -> %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(ck_)); std::exit(1);} } while (0)
__global__ void tiny(float* p, int i) { if (threadIdx.x == 0 && blockIdx.x == 0) p[i % 4] += 1.0f; }
__global__ void set_cond(cudaGraphConditionalHandle h, int v) { cudaGraphSetConditional(h, v); }
using clk = std::chrono::steady_clock;
double us(clk::time_point a, clk::time_point b) { return std::chrono::duration<double, std::micro>(b - a).count(); }
cudaGraph_t build(int n, float* p, std::vector<cudaGraphNode_t>* nodes = nullptr) {
  cudaGraph_t g; CK(cudaGraphCreate(&g, 0));
  cudaGraphNode_t prev = nullptr;
  for (int i = 0; i < n; ++i) {
    void* args[] = {&p, &i};
    cudaKernelNodeParams k{}; k.func = (void*)tiny; k.gridDim = dim3(1); k.blockDim = dim3(32); k.kernelParams = args;
    cudaGraphNode_t node; CK(cudaGraphAddKernelNode(&node, g, prev ? &prev : nullptr, prev ? 1 : 0, &k));
    prev = node; if (nodes) nodes->push_back(node);
  }
  return g;
}
double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
int main() {
  float* p; CK(cudaMalloc(&p, 16)); CK(cudaMemset(p, 0, 16));
  for (int n : {100, 1000, 10000}) {
    std::vector<cudaGraphNode_t> pn; cudaGraph_t proto = build(n, p, &pn);
    std::vector<double> tb, tc, tg, tf, ts;
    for (int r = 0; r < 11; ++r) {
      auto a = clk::now(); cudaGraph_t g = build(n, p); auto b = clk::now(); tb.push_back(us(a, b) / n); CK(cudaGraphDestroy(g));
      a = clk::now(); cudaGraph_t c; CK(cudaGraphClone(&c, proto)); b = clk::now(); tc.push_back(us(a, b) / n); CK(cudaGraphDestroy(c));
      a = clk::now(); CK(cudaGraphClone(&c, proto)); size_t m = n; std::vector<cudaGraphNode_t> cn(n); CK(cudaGraphGetNodes(c, cn.data(), &m)); b = clk::now(); tg.push_back(us(a, b) / n);
      if (r == 0) { int bad = 0; for (int i = 0; i < n; ++i) { cudaGraphNode_t f; CK(cudaGraphNodeFindInClone(&f, pn[i], c)); bad += f != cn[i]; } std::printf("n=%d GetNodes order mismatches vs FindInClone: %d\n", n, bad); }
      CK(cudaGraphDestroy(c));
      a = clk::now(); CK(cudaGraphClone(&c, proto)); for (int i = 0; i < n; ++i) { cudaGraphNode_t f; CK(cudaGraphNodeFindInClone(&f, pn[i], c)); } b = clk::now(); tf.push_back(us(a, b) / n); CK(cudaGraphDestroy(c));
      a = clk::now(); CK(cudaGraphClone(&c, proto)); m = n; CK(cudaGraphGetNodes(c, cn.data(), &m));
      for (int i = 0; i < n; ++i) { int j = i + 1; void* args[] = {&p, &j}; cudaKernelNodeParams k{}; k.func = (void*)tiny; k.gridDim = dim3(1); k.blockDim = dim3(32); k.kernelParams = args; CK(cudaGraphKernelNodeSetParams(cn[i], &k)); }
      b = clk::now(); ts.push_back(us(a, b) / n);
      if (r == 0) { cudaGraphExec_t e; CK(cudaGraphInstantiate(&e, c, 0)); CK(cudaGraphLaunch(e, 0)); CK(cudaStreamSynchronize(0)); CK(cudaGraphExecDestroy(e)); }
      CK(cudaGraphDestroy(c));
    }
    std::printf("n=%5d us/node: build %.3f | clone %.3f (%.2fx) | clone+GetNodes %.3f (%.2fx) | clone+FindInClone each %.3f (%.2fx) | clone+GetNodes+SetParams each %.3f (%.2fx)\n", n,
      med(tb), med(tc), med(tc) / med(tb), med(tg), med(tg) / med(tb), med(tf), med(tf) / med(tb), med(ts), med(ts) / med(tb));
    CK(cudaGraphDestroy(proto));
  }
  // A graph with an if node: does it clone, instantiate and run?
  cudaGraph_t g; CK(cudaGraphCreate(&g, 0));
  cudaGraphConditionalHandle h; CK(cudaGraphConditionalHandleCreate(&h, g, 0, cudaGraphCondAssignDefault));
  void* sargs[] = {&h, nullptr}; int one = 1; sargs[1] = &one;
  cudaKernelNodeParams k{}; k.func = (void*)set_cond; k.gridDim = dim3(1); k.blockDim = dim3(1); k.kernelParams = sargs;
  cudaGraphNode_t setter; CK(cudaGraphAddKernelNode(&setter, g, nullptr, 0, &k));
  cudaGraphNodeParams cp{}; cp.type = cudaGraphNodeTypeConditional; cp.conditional.handle = h; cp.conditional.type = cudaGraphCondTypeIf; cp.conditional.size = 1;
  cudaGraphNode_t cn; CK(cudaGraphAddNode(&cn, g, &setter, nullptr, 1, &cp));
  cudaGraph_t body = cp.conditional.phGraph_out[0];
  int i7 = 7; void* args[] = {&p, &i7}; cudaKernelNodeParams kb{}; kb.func = (void*)tiny; kb.gridDim = dim3(1); kb.blockDim = dim3(32); kb.kernelParams = args;
  cudaGraphNode_t bn; CK(cudaGraphAddKernelNode(&bn, body, nullptr, 0, &kb));
  cudaGraph_t c; cudaError_t e = cudaGraphClone(&c, g);
  std::printf("clone of a graph with an if node: %s\n", cudaGetErrorString(e));
  if (e == cudaSuccess) {
    float before[4], after[4]; CK(cudaMemcpy(before, p, 16, cudaMemcpyDeviceToHost));
    cudaGraphExec_t x; cudaError_t ie = cudaGraphInstantiate(&x, c, 0); std::printf("instantiate clone: %s\n", cudaGetErrorString(ie));
    if (ie == cudaSuccess) { CK(cudaGraphLaunch(x, 0)); CK(cudaStreamSynchronize(0)); CK(cudaMemcpy(after, p, 16, cudaMemcpyDeviceToHost)); std::printf("body ran in clone: %s\n", after[3] == before[3] + 1 ? "yes" : "no"); }
    cudaGraphExec_t x2; ie = cudaGraphInstantiate(&x2, g, 0); std::printf("instantiate original while clone's exec lives: %s\n", cudaGetErrorString(ie));
  }
  return 0;
}

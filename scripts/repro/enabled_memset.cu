// A CUDA behaviour found through cgraph's flaky v2.attributes tests, reproduced with CUDA calls
// alone (no cgraph): a graph put -> bump -> memset(out[0] = 0); bump and the memset node are
// turned on and off with cudaGraphNodeSetEnabled between two launches of one exec. When the
// memset node is turned on while the first launch is still running, the second launch
// sometimes leaves it off (out[0] stays 1). Waiting for the first launch, or a kernel or memcpy
// node in the memset's place, is right in every try. cgraph waits (exec_core::set_enabled).
//
//   nvcc -O2 -arch=sm_90 -o enabled_memset scripts/repro/enabled_memset.cu && ./enabled_memset 3000
//
// Seen on an H100, CUDA 13.0, driver 580 (docs/reliability.md): 1 to 13% of tries wrong, and
// once an "unspecified launch failure" when the memset's parameters were set again as well.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#define CK(x) do { cudaError_t ck_status = (x); if (ck_status != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(ck_status)); exit(1); } } while (0)
__global__ void put(int* out, int value, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = value; }
__global__ void bump(int* out, int value, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] += value; }

// memset_kind: 1 memset node, 0 kernel, 2 memcpy node (copies a zero from `zero_src`).
// reset: after enabling, set the memset's parameters again (cudaGraphExecMemsetNodeSetParams).
int run(bool cluster, bool priority, bool sync_between, int memset_kind, int iters, bool reset = false, bool params_only = false) {
  int n = 256, wrong_runs = 0;
  int* out; CK(cudaMalloc(&out, n * sizeof(int)));
  int* zero_src; CK(cudaMalloc(&zero_src, sizeof(int))); CK(cudaMemset(zero_src, 0, sizeof(int)));
  cudaMemsetParams ms{}; ms.dst = out; ms.value = 0; ms.elementSize = 4; ms.width = 1; ms.height = 1; ms.pitch = 0;
  for (int it = 0; it < iters; ++it) {
    bool first = it % 2 == 0;  // as the test: start with on=first, then !first
    CK(cudaMemset(out, 0xFF, n * sizeof(int)));
    cudaGraph_t g; CK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t k0, k1, m;
    int one = 1, ten = 10;
    void* a0[] = {&out, &one, &n}; void* a1[] = {&out, &ten, &n};
    cudaKernelNodeParams p{}; p.gridDim = dim3(2); p.blockDim = dim3(128);
    p.func = (void*)put; p.kernelParams = a0; CK(cudaGraphAddKernelNode(&k0, g, nullptr, 0, &p));
    p.func = (void*)bump; p.kernelParams = a1; CK(cudaGraphAddKernelNode(&k1, g, &k0, 1, &p));
    if (memset_kind == 1) {
      CK(cudaGraphAddMemsetNode(&m, g, &k1, 1, &ms));
    } else if (memset_kind == 2) {
      CK(cudaGraphAddMemcpyNode1D(&m, g, &k1, 1, out, zero_src, sizeof(int), cudaMemcpyDeviceToDevice));
    } else {
      int zero = 0; int cnt = 1; void* a2[] = {&out, &zero, &cnt};
      p.func = (void*)put; p.kernelParams = a2; p.gridDim = dim3(1); p.blockDim = dim3(32);
      CK(cudaGraphAddKernelNode(&m, g, &k1, 1, &p));
    }
    if (priority) { cudaLaunchAttributeValue v{}; v.priority = 1; CK(cudaGraphKernelNodeSetAttribute(k0, cudaLaunchAttributePriority, &v)); }
    if (cluster) { cudaLaunchAttributeValue v{}; v.clusterDim.x = 2; v.clusterDim.y = 1; v.clusterDim.z = 1; CK(cudaGraphKernelNodeSetAttribute(k0, cudaLaunchAttributeClusterDimension, &v)); }
    cudaGraphExec_t e;
    cudaGraphInstantiateParams ip{}; ip.flags = priority ? cudaGraphInstantiateFlagUseNodePriority : 0;
    CK(cudaGraphInstantiateWithParams(&e, g, &ip));
    bool on = first;
    if (params_only) {  // memset always on, bump off; the second launch's memset writes 0 where the first wrote 7
      on = false;
      CK(cudaGraphNodeSetEnabled(e, k1, 0));
      cudaMemsetParams seven = ms; seven.value = 7;
      CK(cudaGraphExecMemsetNodeSetParams(e, m, &seven));
      CK(cudaGraphLaunch(e, nullptr));
      CK(cudaGraphExecMemsetNodeSetParams(e, m, &ms));
      CK(cudaGraphLaunch(e, nullptr));
      CK(cudaStreamSynchronize(nullptr));
      std::vector<int> h(n); CK(cudaMemcpy(h.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
      if (h[0] != 0 || h[1] != 1) { ++wrong_runs; if (wrong_runs <= 3) printf("  iter %d: out[0]=%d out[1]=%d\n", it, h[0], h[1]); }
      CK(cudaGraphExecDestroy(e)); CK(cudaGraphDestroy(g));
      continue;
    }
    CK(cudaGraphNodeSetEnabled(e, k1, on)); CK(cudaGraphNodeSetEnabled(e, m, !on));
    CK(cudaGraphLaunch(e, nullptr));
    if (sync_between) CK(cudaStreamSynchronize(nullptr));
    on = !first;
    CK(cudaGraphNodeSetEnabled(e, k1, on)); CK(cudaGraphNodeSetEnabled(e, m, !on));
    if (reset && memset_kind == 1) CK(cudaGraphExecMemsetNodeSetParams(e, m, &ms));
    CK(cudaGraphLaunch(e, nullptr));
    CK(cudaStreamSynchronize(nullptr));
    std::vector<int> h(n); CK(cudaMemcpy(h.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
    int wrong = 0, w0 = -1;
    for (int i = 0; i < n; ++i) { int want = on ? 11 : (i == 0 ? 0 : 1); if (h[i] != want) { if (!wrong) w0 = i; ++wrong; } }
    if (wrong) { ++wrong_runs; if (wrong_runs <= 3) printf("  iter %d (end on=%d): %d wrong, first %d=%d\n", it, on, wrong, w0, h[w0]); }
    CK(cudaGraphExecDestroy(e)); CK(cudaGraphDestroy(g));
  }
  CK(cudaFree(out)); CK(cudaFree(zero_src));
  return wrong_runs;
}

int main(int argc, char** argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 2000;
  struct { const char* name; bool cluster, priority, sync; int memset_kind; bool reset; bool params_only; } cases[] = {
      {"cluster+priority, memset node, no sync between launches", true, true, false, true},
      {"no attributes, memset node, no sync", false, false, false, true},
      {"cluster only, memset node, no sync", true, false, false, true},
      {"priority only, memset node, no sync", false, true, false, true},
      {"cluster+priority, memset node, sync between launches", true, true, true, true},
      {"cluster+priority, kernel instead of memset, no sync", true, true, false, 0},
      {"no attributes, memcpy node instead of memset, no sync", false, false, false, 2},
      {"no attributes, memset always on, only its value set between launches", false, false, false, 1, false, true},
      {"no attributes, memset node, params set again after enabling", false, false, false, 1, true},
  };
  for (auto& c : cases)
    printf("%-62s wrong in %d of %d\n", c.name, run(c.cluster, c.priority, c.sync, c.memset_kind, iters, c.reset, c.params_only), iters);
}

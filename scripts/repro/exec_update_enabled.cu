// Does cudaGraphExecUpdate keep the nodes an exec had turned off (cudaGraphNodeSetEnabled)?
// CUDA's documentation of the update does not say. cgraph's exec_core::replace turns every
// `[[enabled]]` node on or off again after a whole-graph update, which is right either way; this
// says whether that is needed, or only the nodes whose value changed. CUDA calls alone.
//
// An exec of put(out, 1) -> bump(out, 10) -> memset(out + 1, 7): bump and the memset node are
// turned off, the exec launched (out[0] 1, out[1] untouched), then updated from a graph of the
// same shape with put(out, 2), bump(out, 20), memset(out + 1, 9) and launched again. Printed:
// what cudaGraphNodeGetEnabled says after the update and what the second launch wrote (out[0]
// 2 and out[1] untouched if the nodes stayed off; 22 and 9 if the update turned them on).
//
//   nvcc -O2 -arch=sm_90 -o exec_update_enabled scripts/repro/exec_update_enabled.cu && ./exec_update_enabled
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                     \
  do {                                                                            \
    cudaError_t ck_status = (x);                                                  \
    if (ck_status != cudaSuccess) {                                               \
      std::printf("%s: %s\n", #x, cudaGetErrorString(ck_status));                 \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

__global__ void put(int* out, int value) { out[0] = value; }
__global__ void bump(int* out, int value) { out[0] += value; }

struct shape {
  cudaGraph_t graph = nullptr;
  cudaGraphNode_t put = nullptr, bump = nullptr, memset = nullptr;
};

// put(out, a) -> bump(out, b) -> memset(out + 1, v): the same topology for any values.
shape make(int* out, int a, int b, unsigned v) {
  shape s;
  CK(cudaGraphCreate(&s.graph, 0));
  auto kernel = [&](void* f, int* p, int* value, cudaGraphNode_t* dep) {
    void* args[] = {&p, value};
    cudaKernelNodeParams k{};
    k.func = f;
    k.gridDim = dim3(1);
    k.blockDim = dim3(1);
    k.kernelParams = args;
    cudaGraphNode_t node = nullptr;
    CK(cudaGraphAddKernelNode(&node, s.graph, dep, dep ? 1 : 0, &k));
    return node;
  };
  s.put = kernel(reinterpret_cast<void*>(put), out, &a, nullptr);
  s.bump = kernel(reinterpret_cast<void*>(bump), out, &b, &s.put);
  cudaMemsetParams m{};
  m.dst = out + 1;
  m.value = v;
  m.elementSize = 4;
  m.width = 1;
  m.height = 1;
  CK(cudaGraphAddMemsetNode(&s.memset, s.graph, &s.bump, 1, &m));
  return s;
}

int main() {
  int* out = nullptr;
  CK(cudaMalloc(&out, 2 * sizeof(int)));
  cudaStream_t stream;
  CK(cudaStreamCreate(&stream));
  int host[2];

  shape first = make(out, 1, 10, 7);
  cudaGraphExec_t exec = nullptr;
  CK(cudaGraphInstantiate(&exec, first.graph, 0));
  CK(cudaGraphNodeSetEnabled(exec, first.bump, 0));
  CK(cudaGraphNodeSetEnabled(exec, first.memset, 0));
  CK(cudaMemsetAsync(out, 0xFF, 2 * sizeof(int), stream));
  CK(cudaGraphLaunch(exec, stream));
  CK(cudaMemcpyAsync(host, out, sizeof host, cudaMemcpyDeviceToHost, stream));
  CK(cudaStreamSynchronize(stream));
  std::printf("before the update: out = {%d, %d} (expected {1, -1}: bump and memset off)\n", host[0], host[1]);

  shape second = make(out, 2, 20, 9);
  cudaGraphExecUpdateResultInfo info{};
  CK(cudaGraphExecUpdate(exec, second.graph, &info));
  unsigned bump_on = 2, memset_on = 2;
  CK(cudaGraphNodeGetEnabled(exec, first.bump, &bump_on));
  CK(cudaGraphNodeGetEnabled(exec, first.memset, &memset_on));
  CK(cudaMemsetAsync(out, 0xFF, 2 * sizeof(int), stream));
  CK(cudaGraphLaunch(exec, stream));
  CK(cudaMemcpyAsync(host, out, sizeof host, cudaMemcpyDeviceToHost, stream));
  CK(cudaStreamSynchronize(stream));
  std::printf("after cudaGraphExecUpdate: cudaGraphNodeGetEnabled says bump %u, memset %u\n", bump_on, memset_on);
  std::printf("after cudaGraphExecUpdate: out = {%d, %d}: %s\n", host[0], host[1],
              host[0] == 2 && host[1] == -1    ? "the update KEPT both nodes off"
              : host[0] == 22 && host[1] == 9  ? "the update turned both nodes ON again"
                                               : "mixed (see the values)");
  int driver = 0, runtime = 0;
  CK(cudaDriverGetVersion(&driver));
  CK(cudaRuntimeGetVersion(&runtime));
  std::printf("driver %d, runtime %d\n", driver, runtime);
  return 0;
}

// Does NCCL work run inside a conditional node's body? (issue 16; NVIDIA/nccl issue 1986 says
// collectives there fail to instantiate.) CUDA and NCCL calls alone, no cgraph. One process
// drives every GPU (up to 2), one rank each; every rank's x starts at rank + 1 and is
// all-reduced (sum) in place inside an `if` node's body, in one graph per device (a conditional
// node and its body live on one device). Two ways into the body:
//   direct  the body is captured into (cudaStreamBeginCaptureToGraph), every rank's call in one
//           NCCL group;
//   child   each rank's call is captured into a graph of its own (one capture per stream, the
//           ranks grouped), added to the body as a child graph node (what cgraph's strategies
//           would do);
//   control the direct way with a memset of x to 0 in place of NCCL: shows the probe's
//           conditional nodes instantiate when the body holds no NCCL work;
// each with the condition 1 and 0 (the handle's default value). Printed: what instantiate and
// launch said, and whether x is right (the sum where the body ran, unchanged where not).
//
//   nvcc -O2 -arch=sm_90 -o nccl_conditional scripts/repro/nccl_conditional.cu -lnccl && ./nccl_conditional
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                               \
  do {                                                                                      \
    cudaError_t ck_status = (x);                                                            \
    if (ck_status != cudaSuccess) {                                                         \
      std::printf("%s: %s\n", #x, cudaGetErrorString(ck_status));                           \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)
#define NK(x)                                                                               \
  do {                                                                                      \
    ncclResult_t nk_status = (x);                                                           \
    if (nk_status != ncclSuccess) {                                                         \
      std::printf("%s: %s\n", #x, ncclGetErrorString(nk_status));                           \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

namespace {

constexpr int n = 1 << 16;

struct rank {
  float* x = nullptr;
  cudaStream_t s = nullptr;
  ncclComm_t comm = nullptr;
  cudaGraph_t graph = nullptr, body = nullptr;
  cudaGraphExec_t exec = nullptr;
};

void all_reduce_grouped(std::vector<rank>& ranks) {
  NK(ncclGroupStart());
  for (auto& r : ranks) NK(ncclAllReduce(r.x, r.x, n, ncclFloat32, ncclSum, r.comm, r.s));
  NK(ncclGroupEnd());
}

void reset(std::vector<rank>& ranks) {
  for (std::size_t d = 0; d < ranks.size(); ++d) {
    CK(cudaSetDevice(static_cast<int>(d)));
    std::vector<float> v(n, static_cast<float>(d + 1));
    CK(cudaMemcpy(ranks[d].x, v.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  }
}

// One try: builds each rank's graph (an `if` node with default `condition`), fills its body,
// instantiates, launches, checks, and prints one line.
enum class way { direct, child, control };

void one_try(std::vector<rank>& ranks, way w, unsigned condition) {
  const bool direct = w != way::child;
  const char* how = w == way::direct ? "direct " : w == way::child ? "child  " : "control";
  reset(ranks);
  for (std::size_t d = 0; d < ranks.size(); ++d) {
    rank& r = ranks[d];
    CK(cudaSetDevice(static_cast<int>(d)));
    CK(cudaGraphCreate(&r.graph, 0));
    cudaGraphConditionalHandle h{};
    CK(cudaGraphConditionalHandleCreate(&h, r.graph, condition, cudaGraphCondAssignDefault));
    cudaGraphNodeParams p{};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = h;
    p.conditional.type = cudaGraphCondTypeIf;
    p.conditional.size = 1;
    cudaGraphNode_t node = nullptr;
    CK(cudaGraphAddNode(&node, r.graph, nullptr, nullptr, 0, &p));
    r.body = p.conditional.phGraph_out[0];
  }
  cudaError_t capture = cudaSuccess;
  std::vector<cudaGraph_t> captured(ranks.size(), nullptr);
  for (std::size_t d = 0; d < ranks.size(); ++d) {
    CK(cudaSetDevice(static_cast<int>(d)));
    cudaError_t e = direct ? cudaStreamBeginCaptureToGraph(ranks[d].s, ranks[d].body, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal)
                           : cudaStreamBeginCapture(ranks[d].s, cudaStreamCaptureModeThreadLocal);
    if (e != cudaSuccess) capture = e;
  }
  ncclResult_t nccl = ncclSuccess;
  if (capture == cudaSuccess && w == way::control) {
    for (std::size_t d = 0; d < ranks.size(); ++d) {
      CK(cudaSetDevice(static_cast<int>(d)));
      cudaError_t e = cudaMemsetAsync(ranks[d].x, 0, n * sizeof(float), ranks[d].s);
      if (e != cudaSuccess) capture = e;
    }
  } else if (capture == cudaSuccess) {
    nccl = ncclGroupStart();
    for (auto& r : ranks) {
      ncclResult_t e = ncclAllReduce(r.x, r.x, n, ncclFloat32, ncclSum, r.comm, r.s);
      if (e != ncclSuccess) nccl = e;
    }
    ncclResult_t e = ncclGroupEnd();
    if (e != ncclSuccess) nccl = e;
  }
  for (std::size_t d = 0; d < ranks.size(); ++d) {
    CK(cudaSetDevice(static_cast<int>(d)));
    cudaError_t e = cudaStreamEndCapture(ranks[d].s, &captured[d]);
    if (e != cudaSuccess && capture == cudaSuccess) capture = e;
  }
  if (capture != cudaSuccess || nccl != ncclSuccess) {
    std::printf("%s, condition %u: capture: %s, NCCL: %s\n", how, condition, cudaGetErrorString(capture), ncclGetErrorString(nccl));
    (void)cudaGetLastError();
    return;
  }
  cudaError_t instantiate = cudaSuccess, launch = cudaSuccess;
  for (std::size_t d = 0; d < ranks.size(); ++d) {
    rank& r = ranks[d];
    CK(cudaSetDevice(static_cast<int>(d)));
    if (!direct) {
      cudaGraphNode_t child = nullptr;
      CK(cudaGraphAddChildGraphNode(&child, r.body, nullptr, 0, captured[d]));
      CK(cudaGraphDestroy(captured[d]));
    }
    cudaError_t e = cudaGraphInstantiate(&r.exec, r.graph, 0);
    if (e != cudaSuccess) instantiate = e, r.exec = nullptr;
  }
  int wrong = -1;
  if (instantiate == cudaSuccess) {
    for (std::size_t d = 0; d < ranks.size(); ++d) {
      CK(cudaSetDevice(static_cast<int>(d)));
      cudaError_t e = cudaGraphLaunch(ranks[d].exec, ranks[d].s);
      if (e != cudaSuccess) launch = e;
    }
    for (std::size_t d = 0; d < ranks.size(); ++d) {
      CK(cudaSetDevice(static_cast<int>(d)));
      cudaError_t e = cudaStreamSynchronize(ranks[d].s);
      if (e != cudaSuccess) launch = e;
    }
    if (launch == cudaSuccess) {
      wrong = 0;
      const float sum = static_cast<float>(ranks.size() * (ranks.size() + 1) / 2);
      for (std::size_t d = 0; d < ranks.size(); ++d) {
        CK(cudaSetDevice(static_cast<int>(d)));
        std::vector<float> v(n);
        CK(cudaMemcpy(v.data(), ranks[d].x, n * sizeof(float), cudaMemcpyDeviceToHost));
        const float expected = !condition ? static_cast<float>(d + 1) : w == way::control ? 0.0f : sum;
        for (float f : v) wrong += f != expected;
      }
    }
  }
  (void)cudaGetLastError();
  std::printf("%s, condition %u: instantiate: %s; launch: %s; %s\n", how, condition, cudaGetErrorString(instantiate),
              instantiate == cudaSuccess ? cudaGetErrorString(launch) : "-",
              wrong < 0 ? "not run" : wrong == 0 ? "right on every rank" : "WRONG");
  for (std::size_t d = 0; d < ranks.size(); ++d) {
    CK(cudaSetDevice(static_cast<int>(d)));
    if (ranks[d].exec) CK(cudaGraphExecDestroy(ranks[d].exec));
    CK(cudaGraphDestroy(ranks[d].graph));
    ranks[d].exec = nullptr;
  }
}

}  // namespace

int main() {
  int devices = 0;
  CK(cudaGetDeviceCount(&devices));
  if (devices > 2) devices = 2;
  int version = 0;
  NK(ncclGetVersion(&version));
  int driver = 0, runtime = 0;
  CK(cudaDriverGetVersion(&driver));
  CK(cudaRuntimeGetVersion(&runtime));
  std::printf("nccl_conditional: %d rank(s), one GPU each, one process; NCCL %d, driver %d, runtime %d\n", devices, version, driver,
              runtime);
  std::vector<rank> ranks(static_cast<std::size_t>(devices));
  std::vector<ncclComm_t> comms(ranks.size());
  std::vector<int> ids(ranks.size());
  for (int d = 0; d < devices; ++d) ids[static_cast<std::size_t>(d)] = d;
  NK(ncclCommInitAll(comms.data(), devices, ids.data()));
  for (int d = 0; d < devices; ++d) {
    rank& r = ranks[static_cast<std::size_t>(d)];
    r.comm = comms[static_cast<std::size_t>(d)];
    CK(cudaSetDevice(d));
    CK(cudaMalloc(&r.x, n * sizeof(float)));
    CK(cudaStreamCreateWithFlags(&r.s, cudaStreamNonBlocking));
  }
  all_reduce_grouped(ranks);  // NCCL connects its peers now: it cannot while a stream captures
  for (int d = 0; d < devices; ++d) {
    CK(cudaSetDevice(d));
    CK(cudaStreamSynchronize(ranks[static_cast<std::size_t>(d)].s));
  }
  for (way w : {way::control, way::direct, way::child})
    for (unsigned condition : {1u, 0u}) one_try(ranks, w, condition);
  for (int d = 0; d < devices; ++d) {
    CK(cudaSetDevice(d));
    CK(cudaFree(ranks[static_cast<std::size_t>(d)].x));
    CK(cudaStreamDestroy(ranks[static_cast<std::size_t>(d)].s));
    NK(ncclCommDestroy(ranks[static_cast<std::size_t>(d)].comm));
  }
  return 0;
}

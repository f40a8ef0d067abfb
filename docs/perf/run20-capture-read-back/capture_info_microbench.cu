// Micro-benchmark: cost of reading each captured node back (cudaStreamGetCaptureInfo per node)
// against reading them all once after the capture (cudaGraphGetNodes + cudaGraphGetEdges).
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
__global__ void tiny(float* p, int i) { if (p) p[threadIdx.x] += i; }
static double now() { return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main() {
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  float* p; cudaMalloc(&p, 1024);
  for (int n : {100, 1000, 10000}) {
    std::vector<cudaGraphNode_t> nodes(n), all(n);
    for (int round = 0; round < 3; ++round) {
      double t[4] = {};
      for (int mode = 0; mode < 4; ++mode) {
        int reps = 20;
        std::vector<double> ts;
        for (int r = 0; r < reps; ++r) {
          double t0 = now();
          cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
          for (int i = 0; i < n; ++i) {
            void* args[] = {&p, &i};
            cudaLaunchKernel((const void*)tiny, dim3(1), dim3(32), args, 0, s);
            if (mode == 1) {
              cudaStreamCaptureStatus st; const cudaGraphNode_t* d = nullptr; size_t c = 0;
              cudaStreamGetCaptureInfo(s, &st, nullptr, nullptr, &d, nullptr, &c);
              nodes[i] = c == 1 ? d[0] : nullptr;
            }
          }
          cudaGraph_t g; cudaStreamEndCapture(s, &g);
          if (mode >= 2) {
            size_t c = n; cudaGraphGetNodes(g, all.data(), &c);
            if (mode == 3) {
              size_t e = 0; cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &e);
              std::vector<cudaGraphNode_t> from(e), to(e); cudaGraphGetEdges(g, from.data(), to.data(), nullptr, &e);
              for (int i = 0; i < n; ++i) { cudaGraphNodeType ty; cudaGraphNodeGetType(all[i], &ty); }
            }
          }
          double t1 = now();
          if (mode == 1 && r == 0) {
            size_t c = n; cudaGraphGetNodes(g, all.data(), &c);
            int same = 0; for (int i = 0; i < n; ++i) same += all[i] == nodes[i];
            printf("n=%d order check: %d of %d in creation order\n", n, same, n);
          }
          cudaGraphDestroy(g);
          ts.push_back((t1 - t0) / n);
        }
        std::sort(ts.begin(), ts.end());
        t[mode] = ts[reps / 2];
      }
      printf("n=%5d round %d us/node: capture %.3f  +GetCaptureInfo each %.3f (%.2fx)  +GetNodes once %.3f (%.2fx)  +GetNodes+GetEdges+GetType each %.3f (%.2fx)\n",
             n, round, t[0], t[1], t[1] / t[0], t[2], t[2] / t[0], t[3], t[3] / t[0]);
    }
  }
  // Fork-join: does GetNodes keep creation order across streams?
  {
    int n = 1000; cudaStream_t ss[8]; for (auto& x : ss) cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking);
    cudaEvent_t fork; cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
    std::vector<cudaGraphNode_t> nodes(n), all(n);
    cudaStreamBeginCapture(ss[0], cudaStreamCaptureModeThreadLocal);
    cudaEventRecord(fork, ss[0]);
    for (int k = 1; k < 8; ++k) cudaStreamWaitEvent(ss[k], fork, 0);
    for (int i = 0; i < n; ++i) {
      cudaStream_t st = ss[i % 8]; void* args[] = {&p, &i};
      cudaLaunchKernel((const void*)tiny, dim3(1), dim3(32), args, 0, st);
      cudaStreamCaptureStatus status; const cudaGraphNode_t* d = nullptr; size_t c = 0;
      cudaStreamGetCaptureInfo(st, &status, nullptr, nullptr, &d, nullptr, &c); nodes[i] = c == 1 ? d[0] : nullptr;
    }
    cudaEvent_t j[8]; for (int k = 1; k < 8; ++k) { cudaEventCreateWithFlags(&j[k], cudaEventDisableTiming); cudaEventRecord(j[k], ss[k]); cudaStreamWaitEvent(ss[0], j[k], 0); }
    cudaGraph_t g; cudaStreamEndCapture(ss[0], &g);
    size_t c = n; cudaGraphGetNodes(g, all.data(), &c);
    int same = 0; for (int i = 0; i < n; ++i) same += all[i] == nodes[i];
    printf("fork-join 8 streams: %zu nodes, %d of %d in creation order\n", c, same, n);
  }
  printf("done: %s\n", cudaGetErrorString(cudaGetLastError()));
}

// Does compute-sanitizer's racecheck lose track of kernel launches in a captured graph with
// nested conditional nodes? (docs/reliability.md, Sanitizers: racecheck counted its own
// "Internal Sanitizer Error: Detected a failure to track a kernel launch" as an error after the
// nested case of capture.isomorphic_to_explicit_with_the_same_results.) CUDA calls alone, no
// cgraph: the graph of that case, built by stream capture the way cgraph's capture strategy
// builds it (a conditional node added to the capturing graph, its bodies captured with
// cudaStreamBeginCaptureToGraph on a stream of their own, each handle made in the graph that
// declares it, `repeat N` as a counter kernel before a `while` and one at the end of its body):
//
//   fill a; if c1 {fill b 1} else {fill b 2}; switch s {case 0: scale a 10, case 2: scale a 100}
//   memset counter; while more { if take { repeat 3 { scale b 2 } }; count_step }
//   repeat limit { saxpy c += a }
//
// Each try builds, instantiates and launches the graph afresh and checks a, b and c against
// what a CPU works out.
//
//   nvcc -O2 -arch=sm_90 -o racecheck_nested scripts/repro/racecheck_nested.cu && ./racecheck_nested 20
//   compute-sanitizer --tool racecheck ./racecheck_nested 20
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                               \
  do {                                                                                      \
    cudaError_t ck_status = (x);                                                            \
    if (ck_status != cudaSuccess) {                                                         \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(ck_status)); \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

constexpr int n = 32;

__global__ void fill(float* p, float v, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) p[i] = v;
}
__global__ void scale(float* p, float s, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) p[i] *= s;
}
__global__ void saxpy(float a, const float* x, float* y, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) y[i] += a * x[i];
}
__global__ void set_cond(cudaGraphConditionalHandle h, unsigned value) { cudaGraphSetConditional(h, value); }
__global__ void count_step(unsigned* counter, unsigned limit, cudaGraphConditionalHandle more) {
  unsigned c = ++*counter;
  cudaGraphSetConditional(more, c < limit ? 1u : 0u);
}
__global__ void repeat_init(unsigned* done, cudaGraphConditionalHandle h) {
  *done = 0;
  cudaGraphSetConditional(h, 1u);
}
__global__ void repeat_counter(unsigned* done, unsigned count, cudaGraphConditionalHandle h) {
  unsigned d = *done + 1;
  *done = d;
  cudaGraphSetConditional(h, d < count ? 1u : 0u);
}

namespace {

const cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;

cudaGraph_t capturing_graph(cudaStream_t s) {
  cudaStreamCaptureStatus status{};
  cudaGraph_t graph = nullptr;
  CK(cudaStreamGetCaptureInfo(s, &status, nullptr, &graph, nullptr, nullptr, nullptr));
  return graph;
}

cudaGraphConditionalHandle make_handle(cudaStream_t s, unsigned value, bool has_default) {
  cudaGraphConditionalHandle h{};
  CK(cudaGraphConditionalHandleCreate(&h, capturing_graph(s), value, has_default ? cudaGraphCondAssignDefault : 0));
  return h;
}

// Adds a conditional node after what `s` has captured so far; returns its body graphs.
cudaGraph_t* add_conditional(cudaStream_t s, cudaGraphConditionalHandle h, cudaGraphConditionalNodeType type,
                             unsigned size) {
  cudaStreamCaptureStatus status{};
  cudaGraph_t graph = nullptr;
  const cudaGraphNode_t* deps = nullptr;
  std::size_t count = 0;
  CK(cudaStreamGetCaptureInfo(s, &status, nullptr, &graph, &deps, nullptr, &count));
  std::vector<cudaGraphNode_t> d(deps, deps + count);
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = h;
  p.conditional.type = type;
  p.conditional.size = size;
  cudaGraphNode_t node = nullptr;
  CK(cudaGraphAddNode(&node, graph, d.data(), nullptr, d.size(), &p));
  CK(cudaStreamUpdateCaptureDependencies(s, &node, nullptr, 1, cudaStreamSetCaptureDependencies));
  return p.conditional.phGraph_out;
}

// Captures `issue(stream)` into `body` on a stream of its own.
template <typename Issue>
void into(cudaGraph_t body, Issue issue) {
  cudaStream_t s = nullptr;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaStreamBeginCaptureToGraph(s, body, nullptr, nullptr, 0, mode));
  issue(s);
  cudaGraph_t out = nullptr;
  CK(cudaStreamEndCapture(s, &out));
  CK(cudaStreamDestroy(s));
}

// `repeat count { issue }`: the counter lives in `done`.
template <typename Issue>
void repeat(cudaStream_t s, unsigned* done, unsigned count, Issue issue) {
  cudaGraphConditionalHandle h = make_handle(s, 0, false);
  repeat_init<<<1, 1, 0, s>>>(done, h);
  cudaGraph_t* body = add_conditional(s, h, cudaGraphCondTypeWhile, 1);
  into(body[0], [&](cudaStream_t b) {
    issue(b);
    repeat_counter<<<1, 1, 0, b>>>(done, count, h);
  });
}

struct buffers {
  float *a, *b, *c;
  unsigned *counter, *inner_done, *outer_done;
};

cudaGraph_t capture(const buffers& m, unsigned limit) {
  cudaStream_t s = nullptr;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaStreamBeginCapture(s, mode));
  fill<<<1, n, 0, s>>>(m.a, 1.0f, n);
  cudaGraphConditionalHandle c1 = make_handle(s, 0, false);
  set_cond<<<1, 1, 0, s>>>(c1, 0);
  cudaGraph_t* if_else = add_conditional(s, c1, cudaGraphCondTypeIf, 2);
  into(if_else[0], [&](cudaStream_t b) { fill<<<1, n, 0, b>>>(m.b, 1.0f, n); });
  into(if_else[1], [&](cudaStream_t b) { fill<<<1, n, 0, b>>>(m.b, 2.0f, n); });
  cudaGraphConditionalHandle sw = make_handle(s, 0, false);
  set_cond<<<1, 1, 0, s>>>(sw, 2);
  cudaGraph_t* cases = add_conditional(s, sw, cudaGraphCondTypeSwitch, 3);
  into(cases[0], [&](cudaStream_t b) { scale<<<1, n, 0, b>>>(m.a, 10.0f, n); });
  into(cases[2], [&](cudaStream_t b) { scale<<<1, n, 0, b>>>(m.a, 100.0f, n); });
  CK(cudaMemsetAsync(m.counter, 0, sizeof(unsigned), s));
  cudaGraphConditionalHandle more = make_handle(s, 1, true);
  cudaGraph_t* loop = add_conditional(s, more, cudaGraphCondTypeWhile, 1);
  into(loop[0], [&](cudaStream_t w) {
    cudaGraphConditionalHandle take = make_handle(w, 0, false);
    set_cond<<<1, 1, 0, w>>>(take, 1);
    cudaGraph_t* then = add_conditional(w, take, cudaGraphCondTypeIf, 1);
    into(then[0], [&](cudaStream_t t) {
      repeat(t, m.inner_done, 3, [&](cudaStream_t r) { scale<<<1, n, 0, r>>>(m.b, 2.0f, n); });
    });
    count_step<<<1, 1, 0, w>>>(m.counter, limit, more);
  });
  repeat(s, m.outer_done, limit, [&](cudaStream_t r) { saxpy<<<1, n, 0, r>>>(1.0f, m.a, m.c, n); });
  CK(cudaGetLastError());
  cudaGraph_t graph = nullptr;
  CK(cudaStreamEndCapture(s, &graph));
  CK(cudaStreamDestroy(s));
  return graph;
}

}  // namespace

int main(int argc, char** argv) {
  const int tries = argc > 1 ? std::atoi(argv[1]) : 10;
  const unsigned limit = 4;
  buffers m{};
  CK(cudaMalloc(&m.a, n * sizeof(float)));
  CK(cudaMalloc(&m.b, n * sizeof(float)));
  CK(cudaMalloc(&m.c, n * sizeof(float)));
  CK(cudaMalloc(&m.counter, sizeof(unsigned)));
  CK(cudaMalloc(&m.inner_done, sizeof(unsigned)));
  CK(cudaMalloc(&m.outer_done, sizeof(unsigned)));
  cudaStream_t s = nullptr;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  // CPU reference: a = 1 * 100; b = 2, times 2^3 in each of `limit` rounds; c = limit * a.
  float want_b = 2.0f;
  for (unsigned r = 0; r < limit; ++r) want_b *= 8.0f;
  const float want_a = 100.0f, want_c = static_cast<float>(limit) * want_a;
  int wrong = 0;
  for (int t = 0; t < tries; ++t) {
    CK(cudaMemset(m.c, 0, n * sizeof(float)));
    cudaGraph_t graph = capture(m, limit);
    cudaGraphExec_t exec = nullptr;
    CK(cudaGraphInstantiate(&exec, graph, 0));
    CK(cudaGraphLaunch(exec, s));
    CK(cudaStreamSynchronize(s));
    std::vector<float> a(n), b(n), c(n);
    CK(cudaMemcpy(a.data(), m.a, n * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), m.b, n * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(c.data(), m.c, n * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int i = 0; i < n; ++i) ok = ok && a[i] == want_a && b[i] == want_b && c[i] == want_c;
    if (!ok) {
      ++wrong;
      std::printf("try %d wrong: a[0] %g (want %g), b[0] %g (want %g), c[0] %g (want %g)\n", t, a[0], want_a, b[0],
                  want_b, c[0], want_c);
    }
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));
  }
  std::printf("%d of %d tries right\n", tries - wrong, tries);
  return wrong == 0 ? 0 : 1;
}

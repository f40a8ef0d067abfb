// Graph features against hand-written CUDA, side by side in one run (issue 15):
//
// 1. Programmatic dependent launch: a chain of short dependent kernels, launched end to end,
//    built by hand with plain edges, by hand with programmatic edges (cudaGraphAddNode with
//    cudaGraphEdgeData), and by cgraph from text with and without `after programmatic(L)`.
// 2. Graph memory: a temporary allocated, filled, read and freed per launch, by cgraph's
//    `alloc`, by hand with memory nodes, with cudaMallocAsync/cudaFreeAsync on a stream, and
//    into a buffer allocated once (what the temporary costs).
//
//   features_bench [--repeats N] [--csv FILE] [--kernels N] [--work N]
//
// --work is the length of each kernel's prologue loop (the part before
// cudaGridDependencySynchronize); without it the chain runs with 0 and with 400.
//
// Every figure is the median over N repeats of the mean time of one launch in a run of
// back-to-back launches (wall clock to a synchronize), after a warm-up; the variants of one
// comparison take turns within each repeat, so drifts of clock and temperature fall on all.
// A program, not a test.

#include <cgraph/runtime.hpp>

#include "bench_support.hpp"
#include "features_kernels.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>


namespace {

using clock_type = std::chrono::steady_clock;
int repeats = 15;
constexpr int launches = 50;  // per timed run

using bench::median;

struct variant {
  std::string name;
  std::function<void(cudaStream_t)> launch;  // one launch, asynchronous
  std::vector<double> us;                    // per launch, one figure per repeat
};

// Runs the variants in turn, `repeats` times (plus a warm-up), each `launches` launches back
// to back; returns the median microseconds per launch of each.
void measure(std::vector<variant>& vs, cudaStream_t stream) {
  for (int r = 0; r <= repeats; ++r)
    for (auto& v : vs) {
      CHECK_CUDA(cudaStreamSynchronize(stream));
      auto start = clock_type::now();
      for (int k = 0; k < launches; ++k) v.launch(stream);
      CHECK_CUDA(cudaStreamSynchronize(stream));
      auto stop = clock_type::now();
      if (r > 0) v.us.push_back(std::chrono::duration<double, std::micro>(stop - start).count() / launches);
    }
}

cudaGraphExec_t instantiate(cudaGraph_t g) {
  cudaGraphExec_t e;
  CHECK_CUDA(cudaGraphInstantiate(&e, g, 0));
  return e;
}

struct row {
  std::string measure, path;
  double us, ratio;
  std::string reference;
};
std::vector<row> rows;

// ---- 1. programmatic dependent launch ------------------------------------------------------------

constexpr int pdl_blocks = 66, pdl_threads = 256;  // half an H100: two kernels fit side by side

// The chain by hand: kernel i reads what kernel i-1 wrote (ping-pong between a and b).
cudaGraph_t hand_chain(int kernels, float* a, float* b, int n, int work, bool programmatic) {
  cudaGraph_t g;
  CHECK_CUDA(cudaGraphCreate(&g, 0));
  cudaGraphNode_t last = nullptr;
  cudaGraphEdgeData edge{};
  edge.type = cudaGraphDependencyTypeProgrammatic;
  edge.from_port = cudaGraphKernelNodePortProgrammatic;
  for (int i = 0; i < kernels; ++i) {
    float* dst = i % 2 ? a : b;
    const float* src = i % 2 ? b : a;
    void* args[] = {&dst, &src, &n, &work};
    cudaGraphNodeParams p{};
    p.type = cudaGraphNodeTypeKernel;
    p.kernel.func = reinterpret_cast<void*>(bench::pdl_step_function());
    p.kernel.gridDim = dim3(pdl_blocks);
    p.kernel.blockDim = dim3(pdl_threads);
    p.kernel.kernelParams = args;
    cudaGraphNode_t node;
    CHECK_CUDA(cudaGraphAddNode(&node, g, last ? &last : nullptr, last && programmatic ? &edge : nullptr, last ? 1 : 0, &p));
    last = node;
  }
  return g;
}

// The same chain as .cgraph text: one labelled statement per kernel.
std::string chain_text(int kernels, bool programmatic) {
  std::string text = "kernel pdl_step(dst: f32*, src: const f32*, n: i32, work: i32);\n"
                     "graph chain(a: f32*, b: f32*, n: i32, work: i32) {\n";
  for (int i = 0; i < kernels; ++i) {
    text += fmt::format("  k{}: pdl_step<<<{}, {}>>>({}, n, work)", i, pdl_blocks, pdl_threads, i % 2 ? "a, b" : "b, a");
    if (i > 0 && programmatic) text += fmt::format(" after programmatic(k{})", i - 1);
    text += ";\n";
  }
  return text + "}\n";
}

void bench_pdl(int kernels, int work, cudaStream_t stream) {
  const int n = pdl_blocks * pdl_threads;
  float *a, *b;
  CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&a), n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&b), n * sizeof(float)));
  cgraph::registry reg;
  reg.kernel("pdl_step", bench::pdl_step_function());
  cgraph::args values{{"a", a}, {"b", b}, {"n", n}, {"work", work}};
  auto plain_exec = instantiate(hand_chain(kernels, a, b, n, work, false));
  auto pdl_exec = instantiate(hand_chain(kernels, a, b, n, work, true));
  auto pdl_program = cgraph::program::compile(chain_text(kernels, true), "chain.cgraph");
  auto cg_plain = cgraph::graph::build(cgraph::program::compile(chain_text(kernels, false), "chain.cgraph"), "chain",
                                       values, reg).instantiate();
  auto cg_pdl = cgraph::graph::build(pdl_program, "chain", values, reg).instantiate();
  cgraph::build_options capture;
  capture.strategy = cgraph::strategy::stream_capture;
  auto cg_pdl_capture = cgraph::graph::build(pdl_program, "chain", values, reg, capture).instantiate();
  std::vector<variant> vs{
      {"hand-written graph, plain edges", [&](cudaStream_t s) { CHECK_CUDA(cudaGraphLaunch(plain_exec, s)); }, {}},
      {"hand-written graph, programmatic edges", [&](cudaStream_t s) { CHECK_CUDA(cudaGraphLaunch(pdl_exec, s)); }, {}},
      {"cgraph, plain edges", [&](cudaStream_t s) { cg_plain.launch(s); }, {}},
      {"cgraph, after programmatic(L), explicit", [&](cudaStream_t s) { cg_pdl.launch(s); }, {}},
      {"cgraph, after programmatic(L), capture", [&](cudaStream_t s) { cg_pdl_capture.launch(s); }, {}},
  };
  measure(vs, stream);
  const double plain = median(vs[0].us), pdl = median(vs[1].us);
  std::string what = fmt::format("PDL chain, {} kernels, work {} (per launch)", kernels, work);
  rows.push_back({what, vs[0].name, plain, 1.0, "itself"});
  rows.push_back({what, vs[1].name, pdl, pdl / plain, "hand-written plain"});
  rows.push_back({what, vs[2].name, median(vs[2].us), median(vs[2].us) / plain, "hand-written plain"});
  for (int k : {3, 4}) {
    rows.push_back({what, vs[k].name, median(vs[k].us), median(vs[k].us) / plain, "hand-written plain"});
    rows.push_back({what, vs[k].name, median(vs[k].us), median(vs[k].us) / pdl, "hand-written programmatic"});
  }
  // Each kernel adds 1, so `runs` launches leave kernels * runs in the last kernel's output
  // unless a kernel read before its producer wrote (a broken programmatic edge).
  auto count_after = [&](const std::function<void(cudaStream_t)>& launch, int runs) {
    CHECK_CUDA(cudaMemset(a, 0, n * sizeof(float)));
    CHECK_CUDA(cudaMemset(b, 0, n * sizeof(float)));
    CHECK_CUDA(cudaDeviceSynchronize());  // the stream does not wait for the legacy stream
    for (int r = 0; r < runs; ++r) launch(stream);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    std::vector<float> out(n);
    CHECK_CUDA(cudaMemcpy(out.data(), kernels % 2 ? b : a, n * sizeof(float), cudaMemcpyDeviceToHost));
    long wrong = 0;
    for (float x : out) wrong += x != static_cast<float>(kernels * runs);
    return wrong;
  };
  for (int k = 1; k <= 4; ++k)
    std::printf("%s, work %d: %ld of %d elements not %d after %d launches\n", vs[k].name.c_str(), work,
                count_after(vs[k].launch, launches), n, kernels * launches, launches);
  cudaGraphExecDestroy(plain_exec);
  cudaGraphExecDestroy(pdl_exec);
  cudaFree(a);
  cudaFree(b);
}

// ---- 2. graph memory -----------------------------------------------------------------------------

cudaGraphNode_t add_kernel(cudaGraph_t g, cudaGraphNode_t dep, void* func, int n, void** args) {
  cudaKernelNodeParams p{};
  p.func = func;
  p.gridDim = dim3((n + 255) / 256);
  p.blockDim = dim3(256);
  p.kernelParams = args;
  cudaGraphNode_t node;
  CHECK_CUDA(cudaGraphAddKernelNode(&node, g, dep ? &dep : nullptr, dep ? 1 : 0, &p));
  return node;
}

// alloc (or a fixed buffer), fill, accumulate, free: what `scratch` below says.
cudaGraph_t hand_scratch(float* out, int n, float* fixed) {
  cudaGraph_t g;
  CHECK_CUDA(cudaGraphCreate(&g, 0));
  int device = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  cudaGraphNode_t alloc = nullptr;
  float* tmp = fixed;
  if (!fixed) {
    cudaMemAllocNodeParams p{};
    p.poolProps.allocType = cudaMemAllocationTypePinned;
    p.poolProps.location.type = cudaMemLocationTypeDevice;
    p.poolProps.location.id = device;
    p.bytesize = n * sizeof(float);
    CHECK_CUDA(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &p));
    tmp = static_cast<float*>(p.dptr);
  }
  float one = 1.0f;
  void* fill_args[] = {&tmp, &n, &one};
  void* acc_args[] = {&out, &tmp, &n};
  auto filled = add_kernel(g, alloc, reinterpret_cast<void*>(bench::fill_function()), n, fill_args);
  auto done = add_kernel(g, filled, reinterpret_cast<void*>(bench::accumulate_function()), n, acc_args);
  if (!fixed) {
    cudaGraphNode_t freed;
    CHECK_CUDA(cudaGraphAddMemFreeNode(&freed, g, &done, 1, tmp));
  }
  return g;
}

void bench_memory(int n, cudaStream_t stream) {
  float *out, *fixed;
  CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&out), n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&fixed), n * sizeof(float)));
  CHECK_CUDA(cudaMemset(out, 0, n * sizeof(float)));
  cgraph::registry reg;
  reg.kernel("fill", bench::fill_function()).kernel("accumulate", bench::accumulate_function());
  auto prog = cgraph::program::compile(R"(
kernel fill(p: f32*, n: i32, v: f32);
kernel accumulate(out: f32*, src: const f32*, n: i32);
graph scratch(out: f32*, n: i32) {
  alloc tmp: f32[n];
  fill<<<(n + 255) / 256, 256>>>(tmp, n, 1.0);
  accumulate<<<(n + 255) / 256, 256>>>(out, tmp, n);
}
)", "scratch.cgraph");
  auto cg = cgraph::graph::build(prog, "scratch", {{"out", out}, {"n", n}}, reg).instantiate();
  auto hand = instantiate(hand_scratch(out, n, nullptr));
  auto fixed_exec = instantiate(hand_scratch(out, n, fixed));
  std::vector<variant> vs{
      {"hand-written graph, memory nodes", [&](cudaStream_t s) { CHECK_CUDA(cudaGraphLaunch(hand, s)); }, {}},
      {"cgraph alloc", [&](cudaStream_t s) { cg.launch(s); }, {}},
      {"stream: cudaMallocAsync, kernels, cudaFreeAsync",
       [&](cudaStream_t s) {
         float* tmp;
         CHECK_CUDA(cudaMallocAsync(reinterpret_cast<void**>(&tmp), n * sizeof(float), s));
         bench::launch_fill(s, tmp, n, 1.0f);
         bench::launch_accumulate(s, out, tmp, n);
         CHECK_CUDA(cudaFreeAsync(tmp, s));
       },
       {}},
      {"hand-written graph, buffer allocated once", [&](cudaStream_t s) { CHECK_CUDA(cudaGraphLaunch(fixed_exec, s)); }, {}},
  };
  measure(vs, stream);
  std::string what = fmt::format("alloc + 2 kernels + free, {} MiB (per launch)", n * sizeof(float) >> 20);
  const double reference = median(vs[0].us), stream_ordered = median(vs[2].us);
  rows.push_back({what, vs[0].name, reference, 1.0, "itself"});
  rows.push_back({what, vs[1].name, median(vs[1].us), median(vs[1].us) / reference, "hand-written memory nodes"});
  rows.push_back({what, vs[1].name, median(vs[1].us), median(vs[1].us) / stream_ordered, "cudaMallocAsync stream"});
  rows.push_back({what, vs[2].name, stream_ordered, stream_ordered / reference, "hand-written memory nodes"});
  rows.push_back({what, vs[3].name, median(vs[3].us), median(vs[3].us) / reference, "hand-written memory nodes"});
  cudaGraphExecDestroy(hand);
  cudaGraphExecDestroy(fixed_exec);
  cudaFree(out);
  cudaFree(fixed);
}

}  // namespace

int main(int argc, char** argv) {
  std::string csv = "features_bench.csv";
  int kernels = 64;
  std::vector<int> works{0, 400};  // no prologue (launch latency only), and a prologue to overlap
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeats")) repeats = std::max(1, std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--csv")) csv = argv[i + 1];
    if (!std::strcmp(argv[i], "--kernels")) kernels = std::max(2, std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--work")) works = {std::max(0, std::atoi(argv[i + 1]))};
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("features_bench: no CUDA device, nothing to measure\n");
    return 0;
  }
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s; %s; %d repeats of %d launches per figure (median)\n", prop.name,
              cgraph::to_string(cgraph::versions()).c_str(), repeats, launches);
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int work : works) bench_pdl(kernels, work, stream);
  for (int n : {1 << 18, 1 << 22}) bench_memory(n, stream);

  std::ofstream out(csv);
  out << "measure,path,us_per_launch,ratio,reference\n";
  for (const auto& r : rows) out << fmt::format("\"{}\",\"{}\",{:.3f},{:.3f},\"{}\"\n", r.measure, r.path, r.us, r.ratio, r.reference);
  std::printf("\n%-48s %-50s %10s %7s  %s\n", "measure", "path", "us/launch", "ratio", "to");
  for (const auto& r : rows)
    std::printf("%-48s %-50s %10.2f %7.3f  %s\n", r.measure.c_str(), r.path.c_str(), r.us, r.ratio, r.reference.c_str());
  std::printf("\nwrote %s\n", csv.c_str());
}

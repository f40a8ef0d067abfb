// pipeline.cgraph: a producer graph and a consumer graph on two streams, synchronised only by
// the events their `record` and `wait` nodes name; checked against a CPU reference. Each step
// updates the producer's `step` (a kernel argument: the node's own setter, no rebuild).
#include "example_support.hpp"
#include "pipeline_kernels.cuh"  // the kernels examples/pipeline.cgraph declares
#ifdef CGRAPH_BUILD_TIME
#include "pipeline.cgraph.hpp"  // generated at build time by cgraph_add_graphs
#else
#include "pipeline_cgraph.hpp"  // the text of examples/pipeline.cgraph, built at run time
#endif

#include <string>
#include <vector>

// Slow on purpose (a busy loop per element), so a consumer that did not wait would read a
// buffer the producer has not finished.
__global__ void produce(float* buf, int n, int step) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long start = clock64();
  while (clock64() - start < 20000) {
  }
  buf[i] = static_cast<float>(step * (i % 7 + 1));
}

__global__ void consume(float* sum, const float* buf, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) sum[i] += buf[i];
}

int main() {
  example::require_gpu("pipeline");
  const int n = 1 << 16, steps = 10;
  example::device_vector<float> buf(n), sum(n);
  EXAMPLE_CHECK(cudaMemset(buf.data, 0, n * sizeof(float)));
  EXAMPLE_CHECK(cudaMemset(sum.data, 0, n * sizeof(float)));
  cudaStream_t a, b;
  cudaEvent_t ready, done;
  EXAMPLE_CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  EXAMPLE_CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  EXAMPLE_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
  EXAMPLE_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));

#ifdef CGRAPH_BUILD_TIME
  namespace pipeline = cgraph_generated::pipeline;
  auto producer = pipeline::producer::build({.buf = buf.data, .n = n, .step = 1, .ready = ready, .done = done}).instantiate();
  auto consumer = pipeline::consumer::build({.sum = sum.data, .buf = buf.data, .n = n, .ready = ready, .done = done}).instantiate();
  auto set_step = [&](int step) { producer.update({.buf = buf.data, .n = n, .step = step, .ready = ready, .done = done}); };
#else
  auto prog = cgraph::program::compile(example::pipeline_cgraph, "pipeline.cgraph");
  cgraph::registry reg;
  reg.kernel("produce", produce).kernel("consume", consume);
  auto producer = cgraph::graph::build(prog, "producer",
                                       {{"buf", buf.data}, {"n", n}, {"step", 1}, {"ready", ready}, {"done", done}}, reg)
                      .instantiate();
  auto consumer = cgraph::graph::build(prog, "consumer",
                                       {{"sum", sum.data}, {"buf", buf.data}, {"n", n}, {"ready", ready}, {"done", done}}, reg)
                      .instantiate();
  auto set_step = [&](int step) { producer.update({{"step", step}}); };
#endif
  for (int step = 1; step <= steps; ++step) {
    EXAMPLE_CHECK(cudaStreamSynchronize(a));  // the producer's exec is not running while it is updated
    set_step(step);
    producer.launch(a);
    consumer.launch(b);
  }
  EXAMPLE_CHECK(cudaStreamSynchronize(b));
  EXAMPLE_CHECK(cudaStreamSynchronize(a));

  // CPU reference: sum[i] = (1 + 2 + … + steps) * (i % 7 + 1).
  auto got = sum.download();
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += got[i] != static_cast<float>(steps * (steps + 1) / 2 * (i % 7 + 1));
  std::string what = std::to_string(steps) + " steps on two streams, " + std::to_string(wrong) + " of " +
                     std::to_string(n) + " elements wrong";
  cudaEventDestroy(ready);
  cudaEventDestroy(done);
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
  return example::verdict("pipeline", wrong == 0, what.c_str());
}

#pragma once
// Every example graph built by generated C++ (both modes), for comparison with the run-time
// path: built from tests/gpu/generated_examples.inc, compiled once per mode.

#include <cgraph/runtime/generated.hpp>
#include <cgraph/runtime.hpp>

#include <functional>
#include <string>
#include <vector>

struct Particle;  // tests/gpu/structs_kernels.cuh

namespace gpu_test {

struct generated_example {
  std::string file;   // examples/<file>
  std::string graph;
  // Builds the graph: every pointer parameter points at `memory`, parameters without a default
  // are 1, the others keep their defaults (as the run-time comparison binds them).
  std::function<cgraph::gen::state_ptr(void* memory)> build;
};

std::vector<generated_example> generated_examples_explicit();
std::vector<generated_example> generated_examples_capture();

// tests/gpu/stress.cgraph's graph as generated C++ in one mode, built and instantiated on
// (a, b, s, n); it updates `s` and launches.
struct generated_stress {
  std::function<void(float s)> update;
  std::function<void(cudaStream_t)> launch;
};
generated_stress make_stress_explicit(float* a, float* b, float s, int n);
generated_stress make_stress_capture(float* a, float* b, float s, int n);
// The same for tests/gpu/long_chain.cgraph, whose generated build and update come in parts.
generated_stress make_long_chain_explicit(float* a, float* b, float s, int n);
generated_stress make_long_chain_capture(float* a, float* b, float s, int n);

// tests/gpu/types.cgraph's graph `mixed` as generated C++ in one mode, built, instantiated and
// launched on `stream` with a and s at their defaults (the pointers are __half, __nv_bfloat16
// and so on; void here so C++ sources need no CUDA headers).
struct mixed_types_inputs {
  const void* x;
  void* y;
  void* b;
  float* xf;
  double* out;
  unsigned long long* tag;
  int n;
};
void run_mixed_types_explicit(const mixed_types_inputs& in, cudaStream_t stream);
void run_mixed_types_capture(const mixed_types_inputs& in, cudaStream_t stream);
// The same for `big_shared` (100 KiB of dynamic shared memory).
void run_big_shared_explicit(const float* in, float* out, int n, cudaStream_t stream);
void run_big_shared_capture(const float* in, float* out, int n, cudaStream_t stream);

// tests/gpu/structs.cgraph's graph `sim` as generated C++ in one mode, built, instantiated and
// launched on `stream` with p = {dt, 0.5, [0, split), bias, 2, false}; `seen` receives what the
// host callback `record` was given.
struct structs_inputs {
  float* pos;
  float* vel;
  int* marks;
  const float* bias;
  int n;
  int split;
  float dt;
};
struct structs_seen {
  int calls = 0;
  float dt = 0;
  long long lo = 0;
  int width = 0;
};
void run_structs_explicit(const structs_inputs& in, structs_seen& seen, cudaStream_t stream);
void run_structs_capture(const structs_inputs& in, structs_seen& seen, cudaStream_t stream);
// Its graph `particles` likewise on (ps, n, dt, out): launched once, synchronised.
void run_particles_explicit(Particle* ps, int n, float dt, float* out, cudaStream_t stream);
void run_particles_capture(Particle* ps, int n, float dt, float* out, cudaStream_t stream);
// Its graph `spans` likewise on (out, n, base): launched once, synchronised.
void run_spans_explicit(int* out, int n, int base, cudaStream_t stream);
void run_spans_capture(int* out, int n, int base, cudaStream_t stream);
// tests/gpu/table_structs.cgraph's `table_particles` in the table form, launched once and
// synchronised; true when the table form built it.
bool run_table_particles_explicit(Particle* ps, int n, float dt, float* out, cudaStream_t stream);
bool run_table_particles_capture(Particle* ps, int n, float dt, float* out, cudaStream_t stream);

// The kernels every example declares, under their names, and stub host callbacks.
void register_example_kernels(cgraph::registry& r);

// tests/gpu/v2.cgraph's graph `chain` as generated C++ in one mode, built on (out, which),
// instantiated, launched on `stream` and synchronised.
void run_v2_chain_explicit(int* out, unsigned which, cudaStream_t stream);
void run_v2_chain_capture(int* out, unsigned which, cudaStream_t stream);
// Its graph `cond_default` (a cond's value computed from `start`) likewise, built on (out,
// start), then updated to `then` (a whole-graph update: the value is fixed with the handle) and
// launched again; returns synchronised, with what the first launch left in out[0].
int run_v2_cond_default_explicit(int* out, unsigned start, unsigned then, cudaStream_t stream);
int run_v2_cond_default_capture(int* out, unsigned start, unsigned then, cudaStream_t stream);
// Its graphs `produce` (on stream a) and `consume` (on stream b) synchronised by event `e`:
// buf = value slowly, then dst = 2 * buf; returns once b is done.
void run_v2_events_explicit(int* buf, int* dst, int value, cudaEvent_t e, cudaStream_t a, cudaStream_t b);
void run_v2_events_capture(int* buf, int* dst, int value, cudaEvent_t e, cudaStream_t a, cudaStream_t b);
// Its graph `scratch` (out = 4 * value through graph allocations), launched twice with an
// update of value in between; returns synchronised.
void run_v2_scratch_explicit(int* out, int value, int then, cudaStream_t stream);
void run_v2_scratch_capture(int* out, int value, int then, cudaStream_t stream);
// Its graph `attributes` built with on = `first`, launched, updated to on = !first, launched.
void run_v2_attributes_explicit(int* out, bool first, cudaStream_t stream);
void run_v2_attributes_capture(int* out, bool first, cudaStream_t stream);
// Its graph `pdl` on (a, b, value), launched once, synchronised.
void run_v2_pdl_explicit(int* a, int* b, int value, cudaStream_t stream);
void run_v2_pdl_capture(int* a, int* b, int value, cudaStream_t stream);
// tests/gpu/table_v2.cgraph, in the table form: `table_attributes` as run_v2_attributes runs
// it, true when the table form built it and the update took the per-node path;
// `table_pdl` as run_v2_pdl runs it, returning its programmatic edges (-1: not the table form).
bool run_table_attributes_explicit(int* out, bool first, cudaStream_t stream);
bool run_table_attributes_capture(int* out, bool first, cudaStream_t stream);
int run_table_pdl_explicit(int* a, int* b, int value, cudaStream_t stream);
int run_table_pdl_capture(int* a, int* b, int value, cudaStream_t stream);
// `table_scratch` (graph memory) in the table form, built on (out, value), launched; updated to
// `then` (a kernel argument: the per-node path), launched; updated to `then` on `n_then`
// elements (a new size: a new exec), launched; synchronised. build_table_scratch_MODE: the
// built state alone, for comparison with the run-time path's graph.
struct table_scratch_run {
  bool table = false;   // the table form built it
  int first = 0;        // out[0] after the first launch
  cgraph::update_path value_update{}, size_update{};
};
table_scratch_run run_table_scratch_explicit(int* out, int value, int then, int n_then, cudaStream_t stream);
table_scratch_run run_table_scratch_capture(int* out, int value, int then, int n_then, cudaStream_t stream);
cgraph::gen::state_ptr build_table_scratch_explicit(int* out, int value);
cgraph::gen::state_ptr build_table_scratch_capture(int* out, int value);
// `caller_loop` built with limit `first`, launched, updated to `then` and launched again.
void run_v2_caller_loop_explicit(int* out, int* counter, int first, int then, cudaStream_t stream);
void run_v2_caller_loop_capture(int* out, int* counter, int first, int then, cudaStream_t stream);

// tests/gpu/table_chain.cgraph (2 103 nodes) as generated C++ in either mode's table form:
// updating s as make_stress does, and the built state alone.
generated_stress make_table_chain_explicit(float* a, float* b, float s, int n);
cgraph::gen::state_ptr build_table_chain_explicit(float* a, float* b, float s, int n);
generated_stress make_table_chain_capture(float* a, float* b, float s, int n);
cgraph::gen::state_ptr build_table_chain_capture(float* a, float* b, float s, int n);
// tests/gpu/table_conditionals.cgraph (1 054 nodes: conditionals and a repeat at the root), the same way.
generated_stress make_table_conditionals_explicit(float* a, float* b, float s, int n);
cgraph::gen::state_ptr build_table_conditionals_explicit(float* a, float* b, float s, int n);
generated_stress make_table_conditionals_capture(float* a, float* b, float s, int n);
cgraph::gen::state_ptr build_table_conditionals_capture(float* a, float* b, float s, int n);

// Those graphs, each in one mode: all take (a, b, s, n), fill a with 1, and leave b at
// `per_s` * s and a[0] at b[0].
struct table_graph {
  const char* file;  // in tests/gpu, its graph of the same stem
  const char* graph;
  const char* mode;
  cgraph::gen::state_ptr (*build)(float* a, float* b, float s, int n);
  generated_stress (*make)(float* a, float* b, float s, int n);
  float per_s;
};
inline std::vector<table_graph> table_graphs() {
  return {{"table_chain.cgraph", "table_chain", "explicit", build_table_chain_explicit, make_table_chain_explicit, 2100},
          {"table_chain.cgraph", "table_chain", "capture", build_table_chain_capture, make_table_chain_capture, 2100},
          {"table_conditionals.cgraph", "table_conditionals", "explicit", build_table_conditionals_explicit,
           make_table_conditionals_explicit, 395},
          {"table_conditionals.cgraph", "table_conditionals", "capture", build_table_conditionals_capture,
           make_table_conditionals_capture, 395}};
}

// tests/gpu/multi_gpu.cgraph's graph `dp_rank` as generated C++ in one mode: built on (g, w,
// value, lr, n, comm, device), launched `steps` times on `stream`, updated to n / 2 elements and
// launched `steps` times more, synchronised. The comm is an
// ncclComm_t (void here so C++ sources need no NCCL header).
void run_dp_rank_explicit(float* g, float* w, float value, float lr, int n, void* comm, unsigned device, int steps,
                          cudaStream_t stream);
void run_dp_rank_capture(float* g, float* w, float value, float lr, int n, void* comm, unsigned device, int steps,
                         cudaStream_t stream);
// Its graph `dp_two` on two GPUs and their comms, launched `steps` times on `stream` (device 0).
void run_dp_two_explicit(float* g0, float* g1, float* w0, float* w1, float lr, int n, void* c0, void* c1, int steps,
                         cudaStream_t stream);
void run_dp_two_capture(float* g0, float* g1, float* w0, float* w1, float lr, int n, void* c0, void* c1, int steps,
                        cudaStream_t stream);

}  // namespace gpu_test

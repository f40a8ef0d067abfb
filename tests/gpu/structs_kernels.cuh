#pragma once
// The kernels of tests/gpu/structs.cgraph (defined in structs_kernels.cu). Range and SimParams
// are the C++ twins of the .cgraph structs of those names, so generated C++ uses them; no C++
// struct is named Window, so generated C++ makes a layout-equivalent one, which fill_window
// takes as its own WindowC (matched by size and alignment).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

struct Range {
  int begin;
  int end;
};

struct SimParams {
  float dt;
  double damping;
  Range range;
  const float* bias;
  __half gain;
  bool move;
};

struct WindowC {
  long long lo;
  short width;
};

// The C++ twin of the .cgraph struct Particle: `next` points into the same array.
struct Particle {
  float pos;
  float vel;
  Particle* next;
  const Range* home;
};

// For i in p.range: vel[i] = vel[i]·damping + dt·bias[i]·gain, then pos[i] += dt·vel[i] if move.
__global__ void advance(SimParams p, float* pos, float* vel);
// out[w.lo + t] = value for t < w.width (any block size).
__global__ void fill_window(WindowC w, int* out, int value);
// ps[i].pos += dt · ps[i].vel for i < n.
__global__ void drift(Particle* ps, int n, float dt);
// out[i] = ps[i].pos + ps[i].next->pos (or - 1 where next is null) for i < n.
__global__ void gather_next(const Particle* ps, int n, float* out);

// The C++ twin of the .cgraph struct Span (graph `spans`).
struct Span {
  int* data;
  int n;
};
// s.data[i] = value + i for i < s.n.
__global__ void span_fill(Span s, int value);
// s.data[i] += from[i] for i < s.n.
__global__ void span_add(Span s, const int* from);

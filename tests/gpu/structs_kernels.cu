#include "structs_kernels.cuh"

__global__ void advance(SimParams p, float* pos, float* vel) {
  int i = p.range.begin + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= p.range.end) return;
  float v = static_cast<float>(static_cast<double>(vel[i]) * p.damping) + p.dt * (p.bias[i] * __half2float(p.gain));
  vel[i] = v;
  if (p.move) pos[i] += p.dt * v;
}

__global__ void fill_window(WindowC w, int* out, int value) {
  for (int t = static_cast<int>(threadIdx.x); t < w.width; t += static_cast<int>(blockDim.x)) out[w.lo + t] = value;
}

__global__ void drift(Particle* ps, int n, float dt) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) ps[i].pos += dt * ps[i].vel;
}

__global__ void gather_next(const Particle* ps, int n, float* out) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = ps[i].pos + (ps[i].next ? ps[i].next->pos : -1.0f);
}

__global__ void span_fill(Span s, int value) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < s.n) s.data[i] = value + i;
}

__global__ void span_add(Span s, const int* from) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < s.n) s.data[i] += from[i];
}

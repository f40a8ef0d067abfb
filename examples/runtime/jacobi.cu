// jacobi.cgraph: a device-side `while` that stops on a convergence flag the GPU computes.
#include "example_support.hpp"
#include "jacobi_kernels.cuh"  // the kernels examples/jacobi.cgraph declares
#ifdef CGRAPH_BUILD_TIME
#include "jacobi.cgraph.hpp"  // generated at build time by cgraph_add_graphs
#else
#include "jacobi_cgraph.hpp"  // the text of examples/jacobi.cgraph, built at run time
#endif

#include <algorithm>
#include <cmath>
#include <string>

__global__ void jacobi_sweep(float* u, float* u_new, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  int i = y * nx + x;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) u_new[i] = u[i];
  else u_new[i] = 0.25f * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx]);
}

// Non-negative floats order like their bit patterns, so an integer atomicMax finds the largest.
__global__ void max_delta(float* u, float* u_new, float* delta, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMax(reinterpret_cast<int*>(delta), __float_as_int(fabsf(u_new[i] - u[i])));
}

__global__ void check_convergence(float* delta, float tol, unsigned* iterations, unsigned max_iterations,
                                  cudaGraphConditionalHandle more) {
  unsigned done = ++*iterations;
  cudaGraphSetConditional(more, (*delta > tol && done < max_iterations) ? 1u : 0u);
}

int main() {
  example::require_gpu("jacobi");
  const int nx = 64, ny = 64, n = nx * ny;
  const float tol = 1e-4f;
  const unsigned max_iterations = 20000;
  std::vector<float> initial(n, 0.0f);
  for (int x = 0; x < nx; ++x) initial[x] = 1.0f;  // a hot top edge
  example::device_vector<float> u(initial), u_new(initial), delta(1);
  example::device_vector<unsigned> iterations(1);

#ifdef CGRAPH_BUILD_TIME
  auto graph = cgraph_generated::jacobi::jacobi::build({.u = u.data, .u_new = u_new.data, .delta = delta.data,
                                                        .iterations = iterations.data, .nx = nx, .ny = ny, .tol = tol,
                                                        .max_iterations = max_iterations});
#else
  auto prog = cgraph::program::compile(example::jacobi_cgraph, "jacobi.cgraph");
  cgraph::registry reg;
  reg.kernel("jacobi_sweep", jacobi_sweep).kernel("max_delta", max_delta).kernel("check_convergence", check_convergence);
  auto graph = cgraph::graph::build(prog, "jacobi",
                                    {{"u", u.data}, {"u_new", u_new.data}, {"delta", delta.data},
                                     {"iterations", iterations.data}, {"nx", nx}, {"ny", ny}, {"tol", tol},
                                     {"max_iterations", max_iterations}},
                                    reg);
#endif
  auto exec = graph.instantiate();
  exec.launch(nullptr);
  EXAMPLE_CHECK(cudaStreamSynchronize(nullptr));

  // CPU reference: the same sweeps in the same float arithmetic until the same test holds.
  std::vector<float> ref = initial, next = initial;
  unsigned ref_iterations = 0;
  for (;;) {
    float d = 0;
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        int i = y * nx + x;
        next[i] = (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
                      ? ref[i]
                      : 0.25f * (ref[i - 1] + ref[i + 1] + ref[i - nx] + ref[i + nx]);
        d = std::max(d, std::fabs(next[i] - ref[i]));
      }
    ref = next;
    ++ref_iterations;
    if (!(d > tol && ref_iterations < max_iterations)) break;
  }
  auto got = u.download();
  unsigned got_iterations = iterations.download()[0];
  float worst = 0;
  for (int i = 0; i < n; ++i) worst = std::max(worst, std::fabs(got[i] - ref[i]));
  bool ok = got_iterations == ref_iterations && worst <= 1e-5f;
  std::string what = std::to_string(got_iterations) + " iterations on the device (CPU: " +
                     std::to_string(ref_iterations) + "), largest difference " + std::to_string(worst);
  return example::verdict("jacobi", ok, what.c_str());
}

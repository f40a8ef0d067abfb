// progress.cgraph: host callbacks report progress between the phases of a simulation step.
#include "example_support.hpp"
#include "sim_kernels.cuh"  // the kernels examples/progress.cgraph declares
#ifdef CGRAPH_BUILD_TIME
#include "progress.cgraph.hpp"  // generated at build time by cgraph_add_graphs
#else
#include "progress_cgraph.hpp"  // the text of examples/progress.cgraph, built at run time
#endif

#include <algorithm>
#include <cmath>
#include <mutex>
#include <string>
#include <utility>

__global__ void integrate(float* pos, float* vel, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) pos[i] += vel[i] * dt;
}

__global__ void collide(float* pos, float* vel, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && pos[i] < 0.0f) {
    pos[i] = -pos[i];
    vel[i] = -vel[i];
  }
}

int main() {
  example::require_gpu("progress");
  const int n = 100000, steps = 20;
  const float dt = 0.01f;
  std::vector<float> pos(n), vel(n);
  for (int i = 0; i < n; ++i) {
    pos[i] = 0.001f * (i % 100);
    vel[i] = -1.0f + 0.00002f * i;
  }
  example::device_vector<float> d_pos(pos), d_vel(vel);

  std::mutex lock;
  std::vector<std::pair<int, int>> reports;  // (step, phase) in the order the callbacks ran
  auto report = [&](int step, int phase) {
    std::lock_guard<std::mutex> guard(lock);
    reports.emplace_back(step, phase);
  };
#ifdef CGRAPH_BUILD_TIME
  namespace generated = cgraph_generated::progress::sim_step;
  generated::parameters params{.pos = d_pos.data, .vel = d_vel.data, .step = 0, .n = n, .dt = dt};
  auto graph = generated::build(params, {.report = report});
  auto exec = graph.instantiate();
  for (int step = 0; step < steps; ++step) {
    params.step = step;  // only the host callbacks' argument changes
    exec.update(params);
    exec.launch(nullptr);
  }
#else
  cgraph::registry reg;
  reg.kernel("integrate", integrate).kernel("collide", collide);
  reg.host("report", report);
  auto prog = cgraph::program::compile(example::progress_cgraph, "progress.cgraph");
  auto graph = cgraph::graph::build(prog, "sim_step", {{"pos", d_pos.data}, {"vel", d_vel.data}, {"step", 0}, {"n", n}, {"dt", dt}}, reg);
  auto exec = graph.instantiate();
  for (int step = 0; step < steps; ++step) {
    exec.update({{"step", step}});  // only the host callbacks' argument changes
    exec.launch(nullptr);
  }
#endif
  EXAMPLE_CHECK(cudaStreamSynchronize(nullptr));

  for (int step = 0; step < steps; ++step)
    for (int i = 0; i < n; ++i) {
      pos[i] += vel[i] * dt;
      if (pos[i] < 0.0f) {
        pos[i] = -pos[i];
        vel[i] = -vel[i];
      }
    }
  auto got = d_pos.download();
  float worst = 0;
  for (int i = 0; i < n; ++i) worst = std::max(worst, std::fabs(got[i] - pos[i]));
  bool order_ok = reports.size() == 2u * steps;
  for (std::size_t k = 0; order_ok && k < reports.size(); ++k)
    order_ok = reports[k] == std::make_pair(static_cast<int>(k / 2), static_cast<int>(k % 2) + 1);
  std::string what = std::to_string(reports.size()) + " progress reports in order, largest position difference " +
                     std::to_string(worst);
  return example::verdict("progress", order_ok && worst <= 1e-5f, what.c_str());
}

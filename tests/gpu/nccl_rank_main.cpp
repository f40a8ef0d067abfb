// One rank of the two-process test (multi_gpu_tests.cpp, "two_processes_of_one_rank_each"):
//   cgraph_nccl_rank RANK ID_FILE explicit|capture
// Rank r uses GPU r. Rank 0 makes the NCCL unique id and writes it to ID_FILE; rank 1 waits
// for the file. Each builds tests/gpu/multi_gpu.cgraph's `dp_rank` (gradient r + 1, all-reduce
// over both ranks, w += lr * g) on the run-time path, launches it three times and checks w
// against the CPU: exit 0 when right, 1 when wrong, 2 on any error.

#include "multi_gpu_kernels.cuh"

#include <cgraph/runtime.hpp>

#include <nccl.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

ncclUniqueId exchange_id(int rank, const std::string& file) {
  ncclUniqueId id{};
  if (rank == 0) {
    if (ncclGetUniqueId(&id) != ncclSuccess) throw std::runtime_error("ncclGetUniqueId failed");
    const std::string partial = file + ".part";
    {
      std::ofstream out(partial, std::ios::binary);
      out.write(id.internal, sizeof id.internal);
    }
    std::filesystem::rename(partial, file);  // appears whole
    return id;
  }
  for (int tries = 0; tries < 3000 && !std::filesystem::exists(file); ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::ifstream in(file, std::ios::binary);
  if (!in.read(id.internal, sizeof id.internal)) throw std::runtime_error("no NCCL id in " + file);
  return id;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: cgraph_nccl_rank RANK ID_FILE explicit|capture\n");
    return 2;
  }
  try {
    const int rank = std::stoi(argv[1]);
    const std::string strategy = argv[3];
    if (cudaSetDevice(rank) != cudaSuccess) throw std::runtime_error("no GPU " + std::to_string(rank));
    ncclUniqueId id = exchange_id(rank, argv[2]);
    ncclComm_t comm = nullptr;
    if (ncclCommInitRank(&comm, 2, id, rank) != ncclSuccess) throw std::runtime_error("ncclCommInitRank failed");

    const int n = 1 << 18, steps = 3;
    const float lr = 0.5f, expected = steps * lr * 3.0f;  // gradients 1 and 2: the sum is 3
    float* g = nullptr;
    float* w = nullptr;
    cudaMalloc(&g, n * sizeof(float));
    cudaMalloc(&w, n * sizeof(float));
    cudaMemset(w, 0, n * sizeof(float));

    cgraph::registry reg;
    reg.kernel("mg_fill", mg_fill).kernel("mg_axpy", mg_axpy).kernel("mg_scale", mg_scale);
    cgraph::build_options options;
    options.strategy = strategy == "capture" ? cgraph::strategy::stream_capture : cgraph::strategy::explicit_nodes;
    auto prog = cgraph::program::load((std::filesystem::path(CGRAPH_GPU_TESTS_DIR) / "multi_gpu.cgraph").string());
    {
      auto exec = cgraph::graph::build(prog, "dp_rank",
                                       {{"g", g}, {"w", w}, {"value", static_cast<float>(rank + 1)}, {"lr", lr}, {"n", n},
                                        {"c", comm}, {"d", static_cast<unsigned>(rank)}},
                                       reg, options)
                      .instantiate();
      for (int i = 0; i < steps; ++i) exec.launch(nullptr);
      if (cudaDeviceSynchronize() != cudaSuccess) throw std::runtime_error("the launches failed");
    }
    std::vector<float> out(n);
    cudaMemcpy(out.data(), w, n * sizeof(float), cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (float v : out) wrong += v != expected;
    std::printf("rank %d (%s): %d of %d elements wrong\n", rank, strategy.c_str(), wrong, n);
    cudaFree(g);
    cudaFree(w);
    ncclCommDestroy(comm);
    return wrong == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cgraph_nccl_rank: %s\n", e.what());
    return 2;
  }
}

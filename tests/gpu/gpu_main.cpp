// GPU tests: exits with CTest's skip code (77) and says why when there is no CUDA device.

#define DOCTEST_CONFIG_IMPLEMENT
// A crash prints a backtrace (below) instead of doctest's one-line report.
#define DOCTEST_CONFIG_NO_POSIX_SIGNALS
#include "gpu_support.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include <execinfo.h>
#include <unistd.h>

namespace {
void print_backtrace(int signal) {
  void* frames[64];
  int n = backtrace(frames, 64);
  std::fprintf(stderr, "signal %d; backtrace:\n", signal);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  std::_Exit(128 + signal);
}
}  // namespace

void gpu_test::run(cgraph::graph_exec& exec) {
  exec.launch(nullptr);
  GPU_CHECK(cudaStreamSynchronize(nullptr));
}

int main(int argc, char** argv) {
  int devices = 0;
  cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    std::printf("skipped: no CUDA device (%s)\n", status != cudaSuccess ? cudaGetErrorString(status) : "none found");
    return 77;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  std::printf("device: %s (sm_%d%d), driver %d, runtime %d\n", prop.name, prop.major, prop.minor, driver, runtime);
  std::printf("cgraph::versions(): %s\n", cgraph::to_string(cgraph::versions()).c_str());
  std::signal(SIGSEGV, print_backtrace);
  std::signal(SIGABRT, print_backtrace);
  doctest::Context context(argc, argv);
  return context.run();
}

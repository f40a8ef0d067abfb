// Replays fuzz inputs through the same target without libFuzzer, so the minimised regression
// corpus runs as an ordinary test with any compiler (and under ASan/UBSan in CI's second build).
// Usage: cgraph_fuzz_replay FILE_OR_DIR...

#include "fuzz_compile.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    fs::path p(argv[i]);
    if (fs::is_directory(p)) {
      for (const auto& entry : fs::recursive_directory_iterator(p))
        if (entry.is_regular_file()) inputs.push_back(entry.path());
    } else if (fs::is_regular_file(p)) {
      inputs.push_back(p);
    } else {
      std::fprintf(stderr, "cgraph_fuzz_replay: no such file or folder: %s\n", argv[i]);
      return 2;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "cgraph_fuzz_replay: no inputs (a corpus that vanished would pass silently)\n");
    return 2;
  }
  std::sort(inputs.begin(), inputs.end());
  for (const auto& p : inputs) {
    std::ifstream in(p, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    cgraph::fuzz::compile_one(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("cgraph_fuzz_replay: %zu inputs replayed, no property violated\n", inputs.size());
  return 0;
}

// An `alloc`'s address reaches every node that reads it, however the program reads it: passed as
// it is, in a struct field, chosen by `? :`, through a `let`, passed to a child graph, offset. The
// address exists only once the alloc node is added, after the run-time path has evaluated the
// graph's expressions; before this test, the offset was refused and every other form but the
// first was given address 0 by the run-time path (the child graph in the capture strategy
// only), though generated C++, which evaluates each node's values when it makes the node, gave
// the address (but to a capture's child graph). Against the CUDA
// runtime that does nothing (bench/host_work/fake_cuda.cpp), which hands each allocation a fresh
// address and records each kernel's first 8 bytes; tests/gpu proves the same program's results.

#include "fake_cuda.hpp"
#include "strategies.hpp"

#include <cgraph/runtime.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

struct box {
  int* data;
};
void put(int*, int) {}  // host stand-ins: the fake runtime launches nothing
void put_box(box, int) {}

int out_buffer[16];

const std::string program_text = R"(struct box { data: i32*; }
kernel put(out: i32*, value: i32);
kernel put_box(b: box, value: i32);
graph child(p: i32*, value: i32) { put<<<1, 1>>>(p, value); }
graph scratch(out: i32*, flag: bool = true, n: i32 = 16) {
  alloc tmp: i32[n];
  let chosen = flag ? tmp : out;
  put<<<1, 1>>>(tmp, 1);
  put_box<<<1, 1>>>(box { data: tmp }, 2);
  put<<<1, 1>>>(flag ? tmp : out, 3);
  put<<<1, 1>>>(chosen, 4);
  call child(tmp, 5);
  put_box<<<1, 1>>>(box { data: flag ? out : tmp }, 6);
  put<<<1, 1>>>(tmp + 2, 7);
}
)";

// Each kernel node made or set while `run` runs: its second argument (the statement's number)
// and its first 8 bytes (a pointer, or a box's pointer), in order.
template <typename F>
std::vector<std::pair<unsigned long long, unsigned long long>> pointers_of(F&& run) {
  fake_cuda::record_kernels(true);
  run();
  std::vector<std::pair<unsigned long long, unsigned long long>> out;
  for (const auto& k : fake_cuda::kernels_recorded()) out.emplace_back(k.arg1, k.arg0);
  fake_cuda::record_kernels(false);
  return out;
}

}  // namespace

TEST_CASE("fake_runtime.every_reader_of_an_allocation_gets_its_address_in_both_strategies") {
  const auto prog = cgraph::program::compile(program_text, "alloc_values.cgraph");
  cgraph::registry reg;
  reg.kernel("put", &put).kernel("put_box", &put_box);
  const auto out = reinterpret_cast<unsigned long long>(&out_buffer[0]);
  for (auto how : cgraph_tests::both) {
    const std::string strategy = cgraph_tests::name_of(how);  // CAPTURE shows a string, not a pointer
    CAPTURE(strategy);
    std::optional<cgraph::graph_exec> exec;
    const auto built = pointers_of([&] {
      exec = cgraph::graph::build(prog, "scratch", {{"out", out_buffer}}, reg, cgraph_tests::with(how)).instantiate();
    });
    REQUIRE(built.size() == 7);
    std::vector<unsigned long long> statements;
    for (const auto& [statement, pointer] : built) statements.push_back(statement);
    std::sort(statements.begin(), statements.end());  // the child's node is made with its graph
    CHECK(statements == std::vector<unsigned long long>{1, 2, 3, 4, 5, 6, 7});
    unsigned long long tmp = 0;
    for (const auto& [statement, pointer] : built)
      if (statement == 1) tmp = pointer;
    REQUIRE(tmp != 0);
    CHECK(tmp != out);
    for (const auto& [statement, pointer] : built) {
      CAPTURE(statement);
      CHECK(pointer == (statement == 6 ? out : statement == 7 ? tmp + 2 * sizeof(int) : tmp));
    }

    // An update of `flag` sets the nodes that choose by it, each given what it now chooses: the
    // allocation keeps its address in the exec.
    cgraph::update_result r;
    const auto updated = pointers_of([&] { r = exec->update({{"flag", false}}); });
    CHECK(r.path == cgraph::update_path::node_params);
    REQUIRE(updated.size() == 3);
    for (const auto& [statement, pointer] : updated) {
      CAPTURE(statement);
      CHECK((statement == 3 || statement == 4 || statement == 6));
      CHECK(pointer == (statement == 6 ? tmp : out));
    }
  }
}

// The run-time path's build logic against a CUDA runtime that does nothing
// (bench/host_work/fake_cuda.cpp), so CI, which has no GPU, runs it: what a build reports and
// which paths it takes, in both strategies. Nothing runs on a device here, so nothing here
// checks a result; the GPU tests (tests/gpu) do, with the same cases where they matter.

#include <cgraph/runtime.hpp>

#include <doctest/doctest.h>

#include <string>

namespace {

void add(float*, int) {}    // host stand-ins for kernels: the fake runtime launches nothing
void clear(float*, int) {}

cgraph::registry kernels() {
  cgraph::registry reg;
  reg.kernel("add", &add).kernel("clear", &clear);
  return reg;
}

cgraph::build_options with(cgraph::strategy s) {
  cgraph::build_options o;
  o.strategy = s;
  return o;
}

constexpr cgraph::strategy both[] = {cgraph::strategy::explicit_nodes, cgraph::strategy::stream_capture};

const char* name_of(cgraph::strategy s) { return s == cgraph::strategy::explicit_nodes ? "explicit" : "capture"; }

float buffer[64];

}  // namespace

TEST_CASE("fake_runtime.a_missing_kernel_is_named_at_its_first_node") {
  // A capture resolves each kernel once, at its first node, before the capture begins
  // (graph_templates::prepared_steps); the explicit strategy resolves it where it adds the
  // node. Both name the kernel's first node, and a build of another graph of the program
  // then runs through.
  auto prog = cgraph::program::compile(R"(kernel add(p: f32*, i: i32);
kernel missing(p: f32*);
graph g(p: f32*) {
  add<<<1, 32>>>(p, 1);
  missing<<<1, 32>>>(p);
  add<<<1, 32>>>(p, 2);
  missing<<<1, 32>>>(p);
}
graph h(p: f32*) {
  add<<<1, 32>>>(p, 1);
  add<<<1, 32>>>(p, 2);
}
)",
                                       "test.cgraph");
  for (auto how : both) {
    CAPTURE(name_of(how));
    CHECK_THROWS_WITH_AS(cgraph::graph::build(prog, "g", {{"p", buffer}}, kernels(), with(how)),
                         "test.cgraph:5:3: kernel 'missing' is not in the registry (register it with "
                         "registry.kernel(\"missing\", missing))",
                         cgraph::build_error);
    CHECK_NOTHROW((void)cgraph::graph::build(prog, "h", {{"p", buffer}}, kernels(), with(how)).instantiate());
  }
}

TEST_CASE("fake_runtime.nodes_without_a_stream_call_inside_captured_bodies") {
  // In a capture, a conditional and a memset are added to the capturing graph after the
  // stream's dependencies, read in CUDA's own array (capture_session::dependencies), and a
  // kernel of constant arguments hands CUDA its template's argument list as it is
  // (graph_templates::argument_pointers). A `repeat` counter's memory is allocated before the
  // capture begins (prepared_steps), which the fake runtime checks as CUDA does: cudaMalloc
  // fails while a capture is open. Every body's nodes are then read when the exec is made, and
  // an update by name of a parameter that one kernel takes whole is a per-node one.
  auto prog = cgraph::program::compile(R"(kernel add(p: f32*, i: i32);
kernel clear(p: f32*, i: i32);
graph g(p: f32*, first: i32, go: u32 = 1) {
  cond c = go;
  cond again = 0;
  add<<<1, 32>>>(p, first);
  if c {
    memset(p, 0, 4);
    clear<<<1, 32>>>(p, 7);
    add<<<1, 32>>>(p, 8);
  } else {
    add<<<1, 32>>>(p, 9);
  }
  while again {
    clear<<<1, 32>>>(p, 10);
  }
  repeat 3 {
    add<<<1, 32>>>(p, 11);
  }
  memset(p, 0, 4);
}
)",
                                       "test.cgraph");
  for (auto how : both) {
    CAPTURE(name_of(how));
    auto g = cgraph::graph::build(prog, "g", {{"p", buffer}, {"first", 1}}, kernels(), with(how));
    auto exec = g.instantiate();
    const auto result = exec.update({{"first", 2}});
    CHECK(result.path == cgraph::update_path::node_params);
    CHECK(result.nodes_changed == 1);
  }
}

// Structs (LANGUAGE.md §9): the layout is C's, so it matches a C++ struct of the same members;
// field reads and struct bytes evaluate as the GPU reads them.

#include "support.hpp"

#include <doctest/doctest.h>

#include <cstddef>
#include <cstring>
#include <optional>
#include <vector>

using namespace cgraph;
using namespace cgraph::test;

namespace {

// The C++ twins of the .cgraph structs below.
struct inner {
  std::int8_t tag;
  double value;
};
struct outer {
  std::uint16_t a;
  inner in;
  float* ptr;
  bool flag;
  std::int32_t b;
};

constexpr const char* declarations = R"(
struct Inner { tag: i8; value: f64; }
struct Outer { a: u16; in: Inner; ptr: f32*; flag: bool; b: i32; }
kernel k(o: Outer);
)";

const ir::structure& find(const ir::program& p, std::string_view name) {
  for (const auto& s : p.structs)
    if (s.name == name) return s;
  FAIL("no struct " << name);
  return p.structs.front();
}

}  // namespace

TEST_CASE("struct.layout_is_c_layout") {
  auto c = compile_text(std::string(declarations) + "graph g(o: Outer) { k<<<1, 1>>>(o); }");
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const auto& in = find(c.program(), "Inner");
  const auto& out = find(c.program(), "Outer");
  CHECK(in.size == sizeof(inner));
  CHECK(in.align == alignof(inner));
  CHECK(in.fields[1].offset == offsetof(inner, value));
  CHECK(out.size == sizeof(outer));
  CHECK(out.align == alignof(outer));
  const std::size_t offsets[] = {offsetof(outer, a), offsetof(outer, in), offsetof(outer, ptr), offsetof(outer, flag),
                                 offsetof(outer, b)};
  for (std::size_t i = 0; i < out.fields.size(); ++i) CHECK(out.fields[i].offset == offsets[i]);
}

TEST_CASE("struct.fields_of_a_parameter_and_bytes_of_a_literal_evaluate_as_the_gpu_reads_them") {
  auto c = compile_text(std::string(declarations) + R"(
graph g(o: Outer, f: f32*) {
  k<<<o.in.tag, 1>>>(Outer { a: o.b, in: Inner { tag: 3, value: o.in.value * 2 }, ptr: f + 1, flag: true, b: -o.a });
}
)");
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const ir::graph& g = c.graph();
  float storage[4] = {};
  outer given{};
  given.a = 65535;
  given.in = {7, 1.25};
  given.b = 42;
  std::vector<std::optional<ir::value>> params{ir::value::structure(&given, sizeof given), ir::value::pointer(reinterpret_cast<std::uint64_t>(storage))};
  auto r = ir::evaluate(g, params);
  REQUIRE_FALSE(r.error);
  const ir::node& n = g.root.nodes[0];
  CHECK(r.values[g.launch_of(n).grid[0].expr].i == 7);  // o.in.tag, read from the parameter's bytes

  std::vector<std::byte> bytes(sizeof(outer));
  auto error = ir::store_struct(g, r.values, r.values[g.args(n)[0].expr], g.args(n)[0].target, bytes.data());
  REQUIRE_FALSE(error);
  outer made;
  std::memcpy(&made, bytes.data(), sizeof made);
  CHECK(made.a == 42);
  CHECK(made.in.tag == 3);
  CHECK(made.in.value == 2.5);
  CHECK(made.ptr == storage + 1);
  CHECK(made.flag);
  CHECK(made.b == -65535);
  CHECK(ir::value::structure(bytes.data(), sizeof(outer)).as<outer>().b == -65535);
  CHECK_THROWS_AS(ir::value::structure(bytes.data(), 4).as<outer>(), std::invalid_argument);
}

TEST_CASE("struct.a_field_that_does_not_fit_is_an_error_at_the_field") {
  auto c = compile_text(std::string(declarations) + R"(
graph g(o: Outer, big: i64) {
  k<<<1, 1>>>(Outer { a: big, in: o.in, ptr: o.ptr, flag: o.flag, b: 0 });
}
)");
  REQUIRE_MESSAGE(c.ok(), c.errors());
  outer given{};
  std::vector<std::optional<ir::value>> params{ir::value::structure(&given, sizeof given), ir::value::integer(70000)};
  auto r = ir::evaluate(c.graph(), params);
  REQUIRE_FALSE(r.error);
  const ir::value& literal = r.values[c.graph().args(c.graph().root.nodes[0])[0].expr];
  REQUIRE(ir::is_failure(literal));
  auto error = ir::failure_of(c.graph(), r.values, literal);
  CHECK(error.message == "value 70000 does not fit u16");
  CHECK(c.source.location(error.range.begin).line == 7);  // the field's value
}

TEST_CASE("struct.literals_of_constants_fold_and_struct_constants_work_everywhere") {
  auto c = compile_text(std::string(declarations) + R"(
const I = Inner { tag: 5, value: 0.5 };
const T = I.tag * 2;
graph g(o: Outer = Outer { a: T, in: I, ptr: null, flag: false, b: 1 }) {
  repeat I.tag { k<<<Inner { tag: 2, value: 0 }.tag, T>>>(o); }
}
)");
  REQUIRE_MESSAGE(c.ok(), c.errors());
  const ir::graph& g = c.graph();
  // repeat count and block size folded to constants
  bool found = false;
  ir::for_each_node(g, g.root, [&](const ir::node& n) {
    if (n.kind != ir::node_kind::kernel) return;
    found = true;
    CHECK(g.exprs[g.launch_of(n).grid[0].expr].is_constant());
    CHECK(g.exprs[g.launch_of(n).block[0].expr].constant().i == 10);
  });
  CHECK(found);
}

TEST_CASE("struct.kernel_parameters_stay_within_cuda_s_limit") {
  // 32 764 bytes since CUDA 12.1, laid out each at its alignment: a struct past it is an error
  // at the struct, a kernel whose parameters together pass it at the kernel.
  auto fields = [](int count) {
    std::string out;
    for (int i = 0; i < count; ++i) out += "f" + std::to_string(i) + ": f64; ";
    return out;
  };
  // 2 047 fields of 8 bytes and a u8 before them: 1 byte, 7 of padding, 16 376 bytes.
  const std::string half = "struct half { " + fields(2047) + "}\n";
  CHECK(compile_text(half + "kernel k(c: u8, a: half, b: half);\ngraph g() { }\n").ok());  // 32 760
  CHECK(compile_text(half + "kernel k(c: u8, a: half, b: half, d: f32);\ngraph g() { }\n").ok());  // 32 764, the limit
  CHECK(compile_text(half + "kernel k(c: u8, a: half, b: half, d: f64);\ngraph g() { }\n").first_error() ==
        "kernel 'k' takes 32768 bytes of parameters, more than CUDA allows a kernel (32764 bytes)");
  CHECK(compile_text("struct big { " + fields(4096) + "}\ngraph g() { }\n").first_error() ==
        "struct 'big' is 32768 bytes, more than a kernel's parameters may be (32764 bytes)");
}

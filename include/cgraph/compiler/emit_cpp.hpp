#pragma once
// `cgraphc emit-cpp`: C++ that builds a program's graphs with plain CUDA calls, printed from
// the same construction plans the runtime executes (cgraph/compiler/plan.hpp). The output is a header:
// include it from a .cu file (it declares, per graph, a namespace with parameters, callbacks,
// build and update; see cgraph/runtime/generated.hpp) and link cgraph::cgraph.

#include <cgraph/dsl/diagnostic.hpp>
#include <cgraph/compiler/ir.hpp>
#include <cgraph/dsl/source.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace cgraph {

enum class emit_mode { explicit_nodes, stream_capture };

struct emit_result {
  std::optional<std::string> code;  // set when there are no errors
  diagnostics diags;                // what generated C++ cannot express
};

// A graph of at least this many nodes is written in the table form (cgraph/runtime/generated.hpp):
// its node records as constant arrays walked by one loop, tens of bytes of C++ per node instead
// of hundreds, when every node is a kernel, memcpy or memset node (attributes and programmatic
// edges included, a device placement not) at the root or in a body of a conditional at the
// root (docs/build_time.md). Others keep the readable form, a function per node.
// 1 000: there the table form builds faster than the readable form, whose code per node no
// longer stays in the instruction cache (1.02-1.09 against 1.08-1.18 times a hand-written
// build on an H200); at 100 nodes the two tie, and at 10 the readable form is faster
// (docs/performance.md, run 26).
inline constexpr std::size_t default_table_threshold = 1000;

// The entries of the table form's lists (node_table::slot_lists in cgraph/runtime/generated.hpp),
// shared by cgraphc, which writes them, and the loop that reads them. An odd entry names a
// constant that cgraphc converted to its argument's type, node_table::converted[entry >> 1]
// (its bytes little-endian); an even one names slot entry >> 1, converted when the node is
// built. (A flag in the low bit keeps the numbers, and so the C++, short.)
constexpr std::uint32_t table_converted_entry(std::uint32_t index) { return index << 1 | 1u; }
constexpr std::uint32_t table_slot_entry(std::uint32_t slot) { return slot << 1; }
constexpr bool table_entry_is_converted(std::uint32_t entry) { return (entry & 1u) != 0; }
constexpr std::uint32_t table_entry_index(std::uint32_t entry) { return entry >> 1; }
// A kernel's launch list holds seven entries (grid x, y, z, block x, y, z, dynamic shared
// memory bytes), each converted to a u32; the six dimensions must be positive.
inline constexpr ir::type table_launch_type = ir::launch_config::value_type;
inline constexpr ir::check table_launch_check(std::size_t k) { return ir::launch_config::check_of(k); }

// Deterministic: the same program and mode always give the same text. `table_threshold` 0:
// never the table form.
emit_result emit_cpp(const ir::program& program, const source_file& source, emit_mode mode,
                     std::size_t table_threshold = default_table_threshold);

}  // namespace cgraph

#pragma once
// The one table of NCCL collective statements (LANGUAGE.md §15): what each is called, which
// arguments it takes in which order (NCCL's own, less the data type and the stream), and the
// reductions. The parser, `fmt`, lowering, the IR printer, DOT, generated C++ and the backend
// read it, so a collective is added here once.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace cgraph::dsl {

enum class collective_op : std::uint8_t { all_reduce, all_gather, reduce_scatter, broadcast, reduce, send, recv };

// The roles of a statement's arguments, in the order they are written:
//   s  the send buffer (a pointer)      r  the receive buffer (a pointer)
//   n  the element count (u64)          o  the reduction: sum, prod, max, min or avg
//   p  the root rank or the peer (i32)  c  the communicator (a `comm` parameter)
struct collective_info {
  collective_op op;
  std::string_view name;
  std::string_view roles;
  std::string_view nccl;  // the NCCL function, for messages and generated C++
};

inline constexpr std::array<collective_info, 7> collectives = {{
    {collective_op::all_reduce, "all_reduce", "srnoc", "ncclAllReduce"},
    {collective_op::all_gather, "all_gather", "srnc", "ncclAllGather"},
    {collective_op::reduce_scatter, "reduce_scatter", "srnoc", "ncclReduceScatter"},
    {collective_op::broadcast, "broadcast", "srnpc", "ncclBroadcast"},
    {collective_op::reduce, "reduce", "srnopc", "ncclReduce"},
    {collective_op::send, "send", "snpc", "ncclSend"},
    {collective_op::recv, "recv", "rnpc", "ncclRecv"},
}};

constexpr const collective_info& info(collective_op op) { return collectives[static_cast<std::size_t>(op)]; }

// In NCCL's order (ncclRedOp_t: ncclSum = 0, ncclProd, ncclMax, ncclMin, ncclAvg), so a
// reduction converts to NCCL's by value.
enum class reduction : std::uint8_t { sum, prod, max, min, avg };
inline constexpr std::array<std::string_view, 5> reductions = {"sum", "prod", "max", "min", "avg"};

constexpr std::optional<reduction> reduction_from_name(std::string_view name) {
  for (std::size_t i = 0; i < reductions.size(); ++i)
    if (reductions[i] == name) return static_cast<reduction>(i);
  return std::nullopt;
}

constexpr bool rows_in_enum_order() {
  for (std::size_t i = 0; i < collectives.size(); ++i)
    if (static_cast<std::size_t>(collectives[i].op) != i) return false;
  return true;
}
static_assert(rows_in_enum_order(), "collectives rows must follow collective_op's order");

}  // namespace cgraph::dsl

#pragma once
// The benchmark's graphs as .cgraph text: a chain, a wide fork/join, and a chain of
// conditionals, of a given number of nodes. Shared by runtime_bench (the run-time path) and
// write_bench_graphs (the files the generated-C++ column is compiled from).

#include <optional>
#include <string>
#include <string_view>

namespace bench {

enum class shape { chain, wide, conditional };
inline constexpr shape shapes[] = {shape::chain, shape::wide, shape::conditional};
const char* name(shape s);        // "chain", "fork-join", "conditionals"
const char* file_name(shape s);   // "chain", "fork_join", "conditionals"
// The shape whose name() is `n` (a command line's --shape), or none.
std::optional<shape> shape_named(std::string_view n);

// `for_generated`: with the include line and symbol generated C++ needs.
std::string text_of(shape s, int nodes, bool for_generated = false);

inline constexpr int sizes[] = {10, 100, 1000, 10000};

}  // namespace bench

// cgraph against hand-written CUDA, side by side in one run: build, instantiate, update and
// launch for a chain, a wide fork/join and a chain of conditionals, at 10 … 10 000 nodes, and
// the per-iteration cost of device-side loops. A program, not a test.
//
//   runtime_bench [--repeats N] [--csv FILE] [--max-nodes N] [--only MEASURE,MEASURE…]
//                 [--shapes SHAPE,SHAPE…] [--counters FILE] [--cpu N] [--cell-seconds S] [--min-rounds N]
//                 [--repeats-of MEASURE=N,…] [--min-rounds-of MEASURE=N,…]
//
// Every figure is the median of N repeats after a warm-up, in microseconds per node (per
// launch for launches, per iteration for loops). The paths compared with each other run
// interleaved, one repeat of each per round (race()), and every cgraph figure is also given as
// the median, over the rounds, of its ratio to the hand-written figure of the same round.
// Text -> graph builds race apart from the other builds, beside the hand-written references
// timed again: their teardown (a whole compiled program) slowed whichever path ran next
// (docs/performance.md, run 57). Launches and device loops run on two execs a path, made in
// balanced order and used in turn: where an exec lands in memory moved them by 2-3% (run 62).
// `--only` runs the named measures alone (build, instantiate, first instantiate, update all,
// update one, update one warm, first update, launch, device loop): an A/B of one path in a few
// seconds, where a whole run takes minutes (text -> graph builds of 10 000 nodes, and the
// driver's instantiations of a 10 000-node fork-join, seconds each). `--shapes` runs the named
// shapes alone (chain, fork-join, conditionals).
// `--counters FILE` also counts each timed body's instructions, cycles, page faults, context
// switches and time on a CPU (hw_counters.hpp) and writes their medians per unit to FILE:
// whether a slower path runs more instructions or the same ones more slowly, in user space or
// in the kernel, or waits. The counters' own calls fall inside the time on a CPU, not inside
// the wall clock: compare that column between paths, not with the wall clock.
// `--cpu N` runs the timed thread on CPU N alone (Linux), pinned once CUDA has made its own
// threads, which keep the CPUs they had: whether a run's cells move less between runs when the
// thread does not migrate (run 50 saw one cell of unchanged code move 4.5% between runs; pinned
// runs spread about a quarter less, docs/performance.md, run 52).
// `--cell-seconds S` stops a race (one measure of one cell) once it has run S seconds and has
// at least --min-rounds timed rounds: the 10 000-node fork-join's instantiating measures take seconds a
// round, and a whole run at 21 rounds did not end within 400 s (run 52). Such a figure is the
// median of fewer rounds; the CSV's `rounds` column and the table say how many. 0 (the
// default): every race runs all its rounds. `--min-rounds N` (3 unless given) is the fewest
// timed rounds such a race keeps: the 10 000-node instantiations got 3, and a ratio over 3
// rounds moved by more than the 2% its target leaves (docs/performance.md, runs 63-66).
// `--repeats-of` and `--min-rounds-of` set those two counts for the named measures alone (for
// example `--repeats-of instantiate=241,launch=241 --min-rounds-of instantiate=15`): a target
// of 1.02 on a cell's median needs more rounds than one of 1.10 (run 70).

#include <cgraph/runtime.hpp>

#include "bench_support.hpp"
#include "bench_kernels.hpp"
#include "bench_shapes.hpp"
#include "hand_graphs.hpp"
#include "hw_counters.hpp"
#include "round_order.hpp"
#ifdef CGRAPH_BENCH_GENERATED
#include "bench_generated.hpp"
#endif

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>


namespace {

using bench::shape;
using bench::text_of;
using bench::name;
using clock_type = std::chrono::steady_clock;
int repeats = 9;
double cell_seconds = 0;  // --cell-seconds: a race's time after which it may stop early; 0: never
int min_rounds = 3;  // --min-rounds: the fewest timed rounds a race stopped early keeps
// --repeats-of / --min-rounds-of MEASURE=N,…: the two above for one measure's races. The
// targets of 1.02 on instantiate and launch sit inside a cell's round-to-round spread (±3–10%):
// their median needs more rounds than a build's, and those races are cheap but at 10 000 nodes.
std::map<std::string, int, std::less<>> repeats_of, min_rounds_of;

int repeats_for(std::string_view measure) {
  auto it = repeats_of.find(measure);
  return it != repeats_of.end() ? it->second : repeats;
}
int min_rounds_for(std::string_view measure) {
  auto it = min_rounds_of.find(measure);
  return it != min_rounds_of.end() ? it->second : min_rounds;
}
std::set<std::string, std::less<>> only;  // --only: the measures to run; empty: all
std::optional<bench::hw_counters> counters;  // --counters: opened once, on the thread that runs every body

bool wanted(std::string_view measure) { return only.empty() || only.count(measure) != 0; }

using bench::median;

// ---- the same graphs by hand: bench/hand_graphs.hpp --------------------------------------------

using bench::hand_graph;
using bench::hand_explicit;
using bench::hand_capture;
using bench::tiny_params;

std::vector<cudaGraphNode_t> nodes_of(cudaGraph_t g) {
  std::size_t n = 0;
  CHECK_CUDA(cudaGraphGetNodes(g, nullptr, &n));
  std::vector<cudaGraphNode_t> v(n);
  CHECK_CUDA(cudaGraphGetNodes(g, v.data(), &n));
  return v;
}

// The kernel node that the first of a shape's graphs holds first: the root's first node, or the
// first kernel of its first conditional body (the node that `first` reaches).
cudaGraphNode_t first_kernel_of(const cgraph::graph& g) {
  const cudaGraphNode_t root = nodes_of(g.get()).at(0);
  cudaGraphNodeType t;
  CHECK_CUDA(cudaGraphNodeGetType(root, &t));
  if (t == cudaGraphNodeTypeKernel) return root;
  return nodes_of(g.conditional_bodies(root).at(0)).at(0);
}

cudaGraphExec_t instantiate(cudaGraph_t g) {
  cudaGraphInstantiateParams p{};
  cudaGraphExec_t e;
  CHECK_CUDA(cudaGraphInstantiateWithParams(&e, g, &p));
  if (p.result_out != cudaGraphInstantiateSuccess) std::exit(1);
  return e;
}

// ---- results ----------------------------------------------------------------------------------

struct row {
  std::string shape, what, path;
  int nodes;
  double us;       // per node (per launch / per iteration where said)
  double ratio;    // median over the rounds of the ratio to the hand-written figure of the same round
  double ratio_q1, ratio_q3;  // its quartiles over the rounds: how far a cell's rounds spread
  bench::hw_counters::readings counted;  // --counters: each counter's median per unit (negative: absent)
  int rounds;  // timed rounds behind the figures: repeats_for(what), or fewer (--cell-seconds)
};
std::vector<row> rows;

// One path in a race: its body is timed, its setup and teardown run untimed around it.
struct entrant {
  std::string what, path;
  double per;  // units the time is divided by: nodes, launches or 1
  std::function<void()> body, setup = [] {}, teardown = [] {};
  std::vector<std::size_t> against = {};  // the hand-written entrants its ratio is to (the cheapest of
                                          // them, round by round); none: it is a reference itself
  bool reported = true;  // false: a reference timed again in a second race, whose row the first gave
};

// Where a race's graphs or execs lie in memory moves its figures for the whole race (2-5%,
// runs 61, 70 and 71), so a race whose objects are cheap to make (under 0.2 s for both paths')
// makes them again every 30 rounds, the path made first taking turns: a median then spans
// several placements, not one. `make(hand_first)` drops what it made before and makes it again.
class placement_turns {
public:
  template <typename Make>
  void start(Make&& make) {
    const auto begin = clock_type::now();
    make(true);
    on_ = std::chrono::duration<double>(clock_type::now() - begin).count() < 0.2;
  }
  // For race's `between`.
  template <typename Make>
  void between(int round, Make&& make) {
    if (on_ && round % 30 == 0) make(++turns_ % 2 == 0);
  }

private:
  bool on_ = false;
  int turns_ = 0;
};

// Runs every entrant once per round, one warm-up round and then `repeats` timed rounds, in a
// new order each round (round_order.hpp: a rotation kept each entrant's predecessor, and a heavy
// one slowed the same path in every round). Records each entrant's median time and its median
// ratio, round by round, to its reference. Timing one path's repeats and then the next path's
// let whatever drifts between them (clocks, the driver's pools, the machine's other work) into
// the ratio: single figures moved by ±0.3 between runs (docs/performance.md, run 8). Within a
// round the paths see the same conditions.
// Returns whether it ran (`--only` may leave it out), so that its rows are labelled only then.
// `between`, where given, runs untimed before each timed round but the first (given the round's
// number), for work that must not fall inside any one entrant's setup (placement_turns).
bool race(shape s, int nodes, std::vector<entrant> entrants, const std::function<void(int)>& between = {}) {
  static bench::round_order orders;  // one sequence over the whole run
  if (entrants.empty() || !wanted(entrants.front().what)) return false;
  const std::size_t n = entrants.size();
  std::vector<std::vector<double>> times(n);
  std::vector<std::vector<bench::hw_counters::readings>> counted(n);
  const auto race_start = clock_type::now();
  const int rounds = repeats_for(entrants.front().what), fewest = min_rounds_for(entrants.front().what);
  for (int r = 0; r <= rounds; ++r) {
    if (between && r > 1) between(r);
    const std::vector<std::size_t>& order = orders.next(n);
    for (std::size_t k = 0; k < n; ++k) {
      entrant& e = entrants[order[k]];
      e.setup();
      if (counters) counters->start();  // outside the clock: the counters' own calls are not timed
      auto start = clock_type::now();
      e.body();
      auto stop = clock_type::now();
      const auto readings = counters ? counters->stop() : bench::hw_counters::readings{};
      e.teardown();
      if (r > 0) {
        times[&e - entrants.data()].push_back(std::chrono::duration<double>(stop - start).count());
        counted[&e - entrants.data()].push_back(readings);
      }
    }
    if (cell_seconds > 0 && r >= fewest &&
        std::chrono::duration<double>(clock_type::now() - race_start).count() > cell_seconds)
      break;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const entrant& e = entrants[i];
    if (!e.reported) continue;
    std::vector<double> ratios;
    for (std::size_t r = 0; r < times[i].size(); ++r) {
      double reference = times[i][r];
      if (!e.against.empty()) {
        reference = times[e.against[0]][r];
        for (std::size_t a : e.against) reference = std::min(reference, times[a][r]);
      }
      ratios.push_back(times[i][r] / reference);
    }
    bench::hw_counters::readings per_unit;
    for (std::size_t c = 0; c < per_unit.size(); ++c) {
      std::vector<double> v;
      for (const auto& readings : counted[i]) v.push_back(readings[c]);
      per_unit[c] = !counters || !counters->available(static_cast<bench::hw_counters::which>(c)) ? -1 : median(v) / e.per;
    }
    rows.push_back({name(s), e.what, e.path, nodes, median(times[i]) * 1e6 / e.per, median(ratios),
                    bench::quantile(ratios, 0.25), bench::quantile(ratios, 0.75), per_unit,
                    static_cast<int>(times[i].size())});
  }
  return true;
}

void bench_shape(shape s, int nodes, float* buffer, float* other, cudaStream_t stream, cudaStream_t side) {
  std::string text = text_of(s, nodes);
  cgraph::registry reg;
  reg.kernel("tiny", bench::tiny_function());
  cgraph::args values{{"p", buffer}, {"first", 0}};
  cgraph::build_options explicit_options, capture_options;
  capture_options.strategy = cgraph::strategy::stream_capture;
  auto prog = cgraph::program::compile(text, "bench.cgraph");
  const double per = nodes;

  // Build. Entrants 0 and 1 are the hand-written references.
  hand_graph h;
  auto drop = [&] { cudaGraphDestroy(h.graph); h = {}; };
  std::optional<cgraph::graph> g;
  auto reset = [&] { g.reset(); };
  const entrant hand_explicit_build{"build", "hand-written explicit", per, [&] { h = hand_explicit(s, nodes, buffer); },
                                    [] {}, drop};
  const entrant hand_capture_build{"build", "hand-written capture", per,
                                   [&] { h = hand_capture(s, nodes, buffer, stream, side); }, [] {}, drop};
  std::vector<entrant> build = {
      hand_explicit_build,
      hand_capture_build,
      {"build", "cgraph compiled program, explicit", per,
       [&] { g.emplace(cgraph::graph::build(prog, "g", values, reg, explicit_options)); }, [] {}, reset, {0}},
      {"build", "cgraph compiled program, capture", per,
       [&] { g.emplace(cgraph::graph::build(prog, "g", values, reg, capture_options)); }, [] {}, reset, {1}},
  };
  if (s == shape::conditional) {
    // A diagnostic (run 45): the hand-written builds with every conditional handle made before
    // the first node, the order in which cgraph makes a graph's conds.
    build.push_back({"build", "hand-written explicit, every handle first", per,
                     [&] { h = hand_explicit(s, nodes, buffer, true); }, [] {}, drop, {0}});
    build.push_back({"build", "hand-written capture, every handle first", per,
                     [&] { h = hand_capture(s, nodes, buffer, stream, side, true); }, [] {}, drop, {1}});
  }
#ifdef CGRAPH_BENCH_GENERATED
  // The same graph from C++ that cgraphc emit-cpp generated at build time (bench_generated.hpp).
  // The table form at every size is a column of its own (below cgraphc's threshold the explicit
  // column is the readable form).
  cgraph::gen::state_ptr built;
  using form = bench::generated_form;
  for (auto [f, path] : {std::pair{form::explicit_mode, "cgraph generated C++, explicit"},
                         std::pair{form::capture_mode, "cgraph generated C++, capture"},
                         std::pair{form::table_form, "cgraph generated C++, table form"}})
    if (auto make = bench::generated_builder(name(s), nodes, f))
      build.push_back({"build", path, per, [&built, make, buffer] { built = make(buffer, 0); }, [] {},
                       [&built] { built.reset(); }, {f == form::capture_mode ? 1u : 0u}});
#endif
  race(s, nodes, std::move(build));
  // Text -> graph in a race of its own, beside the hand-written references again (their rows
  // come from the race above). A text build ends by freeing a whole compiled program: in one
  // race with the others it left the caches and the allocator cold for whichever path ran next
  // in its round, and with round_order's fixed seed the same cells paid for it run after run
  // (two columns of the same generated code read 1.10 and 1.02 in runs 56 and 57 alike).
  entrant hand_explicit_again = hand_explicit_build, hand_capture_again = hand_capture_build;
  hand_explicit_again.reported = hand_capture_again.reported = false;
  race(s, nodes,
       {hand_explicit_again, hand_capture_again,
        {"build", "cgraph text -> graph, explicit", per,
         [&] { g.emplace(cgraph::graph::build(cgraph::program::compile(text, "bench.cgraph"), "g", values, reg)); }, [] {},
         reset, {0}},
        {"build", "cgraph text -> graph, capture", per,
         [&] {
           g.emplace(cgraph::graph::build(cgraph::program::compile(text, "bench.cgraph"), "g", values, reg, capture_options));
         },
         [] {}, reset, {1}}});

  // Instantiate, the graphs made again now and then (placement_turns): with one pair of graphs,
  // a chain of 10 000 read 0.990, 0.989 and 1.052 in three runs of the same code (run 71).
  auto make_instantiated = [&](bool hand_first) {
    if (h.graph) cudaGraphDestroy(h.graph);
    h = {};
    g.reset();
    if (hand_first) h = hand_explicit(s, nodes, buffer);
    g.emplace(cgraph::graph::build(prog, "g", values, reg));
    if (!hand_first) h = hand_explicit(s, nodes, buffer);
  };
  placement_turns instantiated;
  instantiated.start(make_instantiated);
  cudaGraphExec_t hand_exec = nullptr;
  std::optional<cgraph::graph_exec> exec;
  race(s, nodes,
       {{"instantiate", "hand-written", per, [&] { hand_exec = instantiate(h.graph); }, [] {},
         [&] { cudaGraphExecDestroy(hand_exec); }},
        {"instantiate", "cgraph", per, [&] { exec.emplace(g->instantiate()); }, [] {}, [&] { exec.reset(); }, {0}}},
       [&](int round) { instantiated.between(round, make_instantiated); });

  // The first instantiation of a graph just captured. A capture build reads its kernels' node
  // handles back there, once per graph (root and each body), not while it captures
  // (docs/performance.md, run 21): the row above instantiates one explicit build again and
  // again, which has nothing to read. Each round captures afresh, untimed.
  {
    hand_graph captured;
    std::optional<cgraph::graph> fresh;
    cudaGraphExec_t first_exec = nullptr;
    race(s, nodes,
         {{"first instantiate", "hand-written capture", per, [&] { first_exec = instantiate(captured.graph); },
           [&] { captured = hand_capture(s, nodes, buffer, stream, side); },
           [&] {
             cudaGraphExecDestroy(first_exec);
             cudaGraphDestroy(captured.graph);
             captured = {};
           }},
          {"first instantiate", "cgraph compiled program, capture", per, [&] { exec.emplace(fresh->instantiate()); },
           [&] { fresh.emplace(cgraph::graph::build(prog, "g", values, reg, capture_options)); },
           [&] {
             exec.reset();
             fresh.reset();
           },
           {0}}});
  }

  // Update: every node's pointer changes, then only the first node's index. Each path flips its
  // own pointer, so that each of its updates changes every node.
  hand_exec = instantiate(h.graph);
  exec.emplace(g->instantiate());
  // The re-instantiate row replaces an exec of its own graph (CUDA lets a graph with
  // conditional nodes have one exec at a time). Until run 49 it replaced hand_exec, so the
  // per-node row set nodes on an exec made moments before, its driver state still in the
  // caches, where cgraph's exec and the diagnostic row's were made once: conditionals of 1 000
  // nodes read 1.47 (run 45) and 1.37 (run 49) with the diagnostic row at 1.45 and 1.14, a
  // driver cost on an older exec, not cgraph's.
  hand_graph replaced;
  cudaGraphExec_t replaced_exec = nullptr;
  if (wanted("update all")) {  // a 10 000-node fork-join takes seconds to instantiate
    replaced = hand_explicit(s, nodes, buffer);
    replaced_exec = instantiate(replaced.graph);
  }
  float* pointers[2] = {buffer, other};
  int hand_flip = 0, cgraph_flip = 0, exec_flip = 0;
  // cgraph's kernel nodes, root and bodies, for the hand-written setters on cgraph's exec: a
  // diagnostic row that parts the driver's cost on cgraph's graph from cgraph's own (run 23).
  std::vector<cudaGraphNode_t> cg_kernels;
  {
    for (auto r : nodes_of(g->get())) {
      cudaGraphNodeType t;
      CHECK_CUDA(cudaGraphNodeGetType(r, &t));
      if (t == cudaGraphNodeTypeKernel) cg_kernels.push_back(r);
      else if (t == cudaGraphNodeTypeConditional)
        for (auto b : g->conditional_bodies(r))
          for (auto x : nodes_of(b)) cg_kernels.push_back(x);
    }
  }
  cgraph::update_result last_all{}, last_one{}, last_handle{};
  if (race(s, nodes, {
      {"update all", "hand-written per-node", per, [&] {
         int i = 0;
         void* args[] = {&pointers[hand_flip], &i};
         auto p = tiny_params(args);
         for (auto node : h.kernels) CHECK_CUDA(cudaGraphExecKernelNodeSetParams(hand_exec, node, &p));
       }, [&] { hand_flip ^= 1; }},
      // A user who updates through cudaGraphExecUpdate must first build the graph it applies:
      // timing the update call alone (0.04 µs/node) measured a path nobody can take.
      {"update all", "hand-written rebuild + cudaGraphExecUpdate", per, [&] {
         hand_graph fresh = hand_explicit(s, nodes, other);
         cudaGraphExecUpdateResultInfo info;
         CHECK_CUDA(cudaGraphExecUpdate(hand_exec, fresh.graph, &info));
         CHECK_CUDA(cudaGraphDestroy(fresh.graph));
       }},
      {"update all", "cgraph update", per, [&] { last_all = exec->update({{"p", pointers[cgraph_flip]}}); },
       [&] { cgraph_flip ^= 1; }, [] {}, {0, 1}},  // against the cheapest complete hand path
      {"update all", "hand-written per-node, on cgraph's exec", per, [&] {
         int i = 0;
         void* args[] = {&pointers[exec_flip], &i};
         auto p = tiny_params(args);
         for (auto node : cg_kernels) CHECK_CUDA(cudaGraphExecKernelNodeSetParams(exec->get(), node, &p));
       }, [&] { exec_flip ^= 1; }, [] {}, {0}},
  })) {
    rows[rows.size() - 2].path += fmt::format(" ({})", cgraph::to_string(last_all.path));
    // The third complete hand path, re-instantiating, races apart: it costs 2-200 times the
    // other two (0.3-270 µs a node, run 69), so it never was the cheapest, and at 10 000
    // fork-join nodes its 2.7 s a round held the race above to 3 rounds (run 69's 1.206 over 3,
    // 1.05 over 9). Said here should it ever be the cheapest, since the ratio above leaves it out.
    const double cheapest = std::min(rows[rows.size() - 4].us, rows[rows.size() - 3].us);
    race(s, nodes, {{"update all", "hand-written re-instantiate", per, [&] {
                       cudaGraphExecDestroy(replaced_exec);
                       replaced_exec = instantiate(replaced.graph);
                     }}});
    if (rows.back().us < cheapest)
      std::printf("runtime_bench: %s %d: re-instantiating (%.3f us a node) was cheaper than the update-all row's "
                  "references (%.3f): its ratio is not to the cheapest complete hand path\n",
                  name(s), nodes, rows.back().us, cheapest);
  }
  if (replaced_exec) cudaGraphExecDestroy(replaced_exec);
  if (replaced.graph) cudaGraphDestroy(replaced.graph);
  // The diagnostic row set the exec's nodes behind cgraph's back: a fresh exec (of the graph
  // built with `buffer`) has the values cgraph knows of.
  exec.reset();  // first: CUDA lets a graph with conditional nodes have one exec at a time
  exec.emplace(g->instantiate());
  // The hand-written exec made afresh beside it, so that the one-node rows below compare execs
  // of one age (until run 49 the re-instantiate row above had just remade hand_exec).
  cudaGraphExecDestroy(hand_exec);
  hand_exec = instantiate(h.graph);
  int first = 0;
  auto first_handle = exec->parameter<int>("first");  // resolved once, as the hand code keeps its node
  // A one-node update with `value` as the first node's index: by hand (its setter) and through
  // cgraph's handle. The races below time them.
  auto hand_set_first_of = [&](cudaGraphExec_t on, const hand_graph& of, int value) {
    void* args[] = {&buffer, &value};
    auto p = tiny_params(args);
    CHECK_CUDA(cudaGraphExecKernelNodeSetParams(on, of.kernels[0], &p));
  };
  auto hand_set_first = [&](int value) { hand_set_first_of(hand_exec, h, value); };
  // The same setter on cgraph's exec, on its node that reads `first` (the first kernel node of
  // cg_kernels in every shape: the graph's first statement, or the first `if`'s body): a
  // diagnostic row that parts the driver's cost on cgraph's exec from cgraph's own, as the
  // update-all one does. It sets what cgraph's next update sets again, so the rows stay in step.
  auto hand_set_first_on_cgraph = [&](int value) {
    void* args[] = {&buffer, &value};
    auto p = tiny_params(args);
    CHECK_CUDA(cudaGraphExecKernelNodeSetParams(exec->get(), cg_kernels.at(0), &p));
  };
  auto handle_set_first = [&](int value) {
    first_handle = value;
    return exec->apply();
  };
  auto how = [](const cgraph::update_result& r) {
    return fmt::format(" ({}, {} node changed)", cgraph::to_string(r.path), r.nodes_changed);
  };
  if (race(s, nodes, {
      {"update one", "hand-written per-node", 1, [&] { hand_set_first(first); }, [&] { ++first; }},
      {"update one", "cgraph update", 1, [&] { last_one = exec->update({{"first", first}}); }, [&] { ++first; }, [] {}, {0}},
      {"update one", "cgraph parameter handle", 1, [&] { last_handle = handle_set_first(first); }, [&] { ++first; }, [] {},
       {0}},
      {"update one", "hand-written per-node, on cgraph's exec", 1, [&] { hand_set_first_on_cgraph(first); },
       [&] { ++first; }, [] {}, {0}},
  })) {
    rows[rows.size() - 3].path += how(last_one);
    rows[rows.size() - 2].path += how(last_handle);
  }
  // A diagnostic: the same one-node updates, each timed right after an untimed one of the same
  // path (another value), so that its code and data are in the caches. Against the row above
  // it parts what a cold cache costs each path from what its work costs when warm (run 25).
  if (race(s, nodes, {
      {"update one warm", "hand-written per-node", 1, [&] { hand_set_first(first); }, [&] {
         hand_set_first(first + 1);
         first += 2;
       }},
      {"update one warm", "cgraph parameter handle", 1, [&] { last_handle = handle_set_first(first); }, [&] {
         (void)handle_set_first(first + 1);
         first += 2;
       }, [] {}, {0}},
  }))
    rows.back().path += how(last_handle);

  // The first one-node update of an exec instantiated from a graph just built (both untimed,
  // afresh each round): a steady update compares with the values the exec keeps, the first works
  // out the values the node was built with (exec_state::built_values, docs/performance.md, run
  // 27). The hand-written reference sets the node on its own fresh exec (a graph with
  // conditional nodes may have one exec at a time, so its graph is built afresh too).
  {
    hand_graph fresh_hand;
    cudaGraphExec_t fresh_hand_exec = nullptr;
    std::optional<cgraph::graph> fresh;
    std::optional<cgraph::graph_exec> fresh_exec;
    cgraph::update_result last_first{};
    // The diagnostic path's exec: cgraph's build and instantiation, its first node set by hand.
    std::optional<cgraph::graph> probe;
    std::optional<cgraph::graph_exec> probe_exec;
    cudaGraphNode_t probe_node = nullptr;
    if (race(s, nodes, {
        {"first update", "hand-written per-node", 1, [&] { hand_set_first_of(fresh_hand_exec, fresh_hand, first); }, [&] {
           ++first;
           fresh_hand = hand_explicit(s, nodes, buffer);
           fresh_hand_exec = instantiate(fresh_hand.graph);
         }, [&] {
           cudaGraphExecDestroy(fresh_hand_exec);
           cudaGraphDestroy(fresh_hand.graph);
           fresh_hand = {};
         }},
        {"first update", "cgraph update", 1, [&] { last_first = fresh_exec->update({{"first", first}}); }, [&] {
           ++first;
           fresh.emplace(cgraph::graph::build(prog, "g", values, reg));
           fresh_exec.emplace(fresh->instantiate());
         }, [&] {
           fresh_exec.reset();
           fresh.reset();
         }, {0}},
        // Whether the excess of cgraph's first update over the hand-written one is cgraph's own
        // work or the driver's first setter on cgraph's exec (run 30): the hand-written setter,
        // timed alone, on an exec that cgraph built and instantiated.
        {"first update", "hand-written per-node, on cgraph's fresh exec", 1, [&] {
           void* args[] = {&buffer, &first};
           auto p = tiny_params(args);
           CHECK_CUDA(cudaGraphExecKernelNodeSetParams(probe_exec->get(), probe_node, &p));
         }, [&] {
           ++first;
           probe.emplace(cgraph::graph::build(prog, "g", values, reg));
           probe_exec.emplace(probe->instantiate());
           probe_node = first_kernel_of(*probe);
         }, [&] {
           probe_exec.reset();
           probe.reset();
         }, {0}},
    }))
      rows[rows.size() - 2].path += how(last_first);
  }

  // Launch overhead: host time of 20 launches (the GPU runs them after; the wait is untimed).
  // Each path launches execs of its own, two of them, made in the order hand-written, cgraph,
  // cgraph, hand-written, one pair a round in turn (pair 0: the hand-written exec made first;
  // pair 1: cgraph's). Where an exec lands in memory moves its launches by 2-3%: in run 61 a
  // second hand-written exec of the same graph, made after cgraph's, launched at 1.02 of the
  // first at fork-join 10 000, where cgraph's read 1.03, and the path whose exec was always made
  // second paid for that in every round. Each exec is a graph's own, since a graph with
  // conditional nodes may have one exec at a time.
  //
  // The execs are made again now and then (placement_turns): with one set of execs a cell read
  // 1.038 over 241 rounds with its lower quartile at 0.999 (fork-join 1 000, run 70), where run
  // 69 had read 0.992; a launch runs the same CUDA call on isomorphic execs in both paths.
  const int launches = 20;
  auto wait = [&] { CHECK_CUDA(cudaStreamSynchronize(stream)); };
  hand_graph launch_hand[2];
  cudaGraphExec_t launch_hand_exec[2] = {};
  std::optional<cgraph::graph> launch_graph[2];
  std::optional<cgraph::graph_exec> launch_exec[2];
  auto drop_launch_execs = [&] {
    for (int k = 0; k < 2; ++k) {
      if (launch_hand_exec[k]) cudaGraphExecDestroy(launch_hand_exec[k]);
      if (launch_hand[k].graph) cudaGraphDestroy(launch_hand[k].graph);
      launch_hand_exec[k] = nullptr;
      launch_hand[k] = {};
      launch_exec[k].reset();  // first: a graph with conditional nodes has one exec at a time
      launch_graph[k].reset();
    }
  };
  auto make_hand = [&](int k) {
    launch_hand[k] = hand_explicit(s, nodes, buffer);
    launch_hand_exec[k] = instantiate(launch_hand[k].graph);
    CHECK_CUDA(cudaGraphLaunch(launch_hand_exec[k], stream));  // its first launch uploads it: not timed
  };
  auto make_cgraph = [&](int k) {
    launch_graph[k].emplace(cgraph::graph::build(prog, "g", values, reg));
    launch_exec[k].emplace(launch_graph[k]->instantiate());
    launch_exec[k]->launch(stream);
  };
  // Made again, in the order hand-written, cgraph, cgraph, hand-written, or the other way round.
  auto make_launch_execs = [&](bool hand_first) {
    wait();
    drop_launch_execs();
    if (hand_first) {
      make_hand(0);
      make_cgraph(0);
      make_cgraph(1);
      make_hand(1);
    } else {
      make_cgraph(0);
      make_hand(0);
      make_hand(1);
      make_cgraph(1);
    }
    wait();
  };
  placement_turns launched;
  if (wanted("launch")) launched.start(make_launch_execs);  // a 10 000-node fork-join takes seconds to instantiate
  int hand_pair = 0, cgraph_pair = 0;  // each entrant's round, counted in its setup (one a round)
  race(s, nodes, {
      {"launch", "hand-written (per launch)", launches, [&] {
         for (int k = 0; k < launches; ++k) CHECK_CUDA(cudaGraphLaunch(launch_hand_exec[hand_pair % 2], stream));
       }, [&] { wait(); ++hand_pair; }, wait},
      {"launch", "cgraph (per launch)", launches, [&] {
         for (int k = 0; k < launches; ++k) launch_exec[cgraph_pair % 2]->launch(stream);
       }, [&] { wait(); ++cgraph_pair; }, wait, {0}},
  }, [&](int round) { launched.between(round, make_launch_execs); });
  drop_launch_execs();

  cudaGraphExecDestroy(hand_exec);
  cudaGraphDestroy(h.graph);
}

// Device loops: per-iteration cost of `repeat`, a `while` on a device flag, a hand-built
// conditional loop, and a host loop that reads the flag back each iteration.
void bench_loops(float* buffer, cudaStream_t stream) {
  const unsigned iterations = 2000;
  unsigned* counter;
  unsigned* flag;
  CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&counter), sizeof(unsigned)));
  CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&flag), sizeof(unsigned)));
  cgraph::registry reg;
  reg.kernel("tiny", bench::tiny_function()).kernel("count_step", bench::count_step_function());
  auto prog = cgraph::program::compile(fmt::format(R"(
kernel tiny(p: f32*, i: i32);
kernel count_step(counter: u32*, limit: u32, more: cond);
graph rep(p: f32*) {{ repeat {0} {{ tiny<<<1, 32>>>(p, 0); }} }}
graph flagged(p: f32*, counter: u32*) {{
  memset(counter, 0, 1);
  cond more = 1;
  while more {{ tiny<<<1, 32>>>(p, 0); count_step<<<1, 1>>>(counter, {0}, more); }}
}}
)", iterations), "loops.cgraph");
  // Hand-built: init kernel, then while { tiny; counter } — what `repeat` lowers to. Its
  // kernel parameters are copied into the nodes as they are added.
  auto hand_loop = [&](unsigned* count) {
    cudaGraph_t hg;
    CHECK_CUDA(cudaGraphCreate(&hg, 0));
    cudaGraphConditionalHandle handle;
    CHECK_CUDA(cudaGraphConditionalHandleCreate(&handle, hg, 0, 0));
    void* init_args[] = {&count, &handle};
    cudaKernelNodeParams ip{};
    ip.func = reinterpret_cast<void*>(bench::loop_init_function());
    ip.gridDim = dim3(1);
    ip.blockDim = dim3(1);
    ip.kernelParams = init_args;
    cudaGraphNode_t init, loop;
    CHECK_CUDA(cudaGraphAddKernelNode(&init, hg, nullptr, 0, &ip));
    cudaGraphNodeParams c{};
    c.type = cudaGraphNodeTypeConditional;
    c.conditional.handle = handle;
    c.conditional.type = cudaGraphCondTypeWhile;
    c.conditional.size = 1;
    CHECK_CUDA(cudaGraphAddNode(&loop, hg, &init, nullptr, 1, &c));
    int zero = 0;
    void* tiny_args[] = {&buffer, &zero};
    cudaKernelNodeParams tp = tiny_params(tiny_args);
    cudaGraphNode_t body_tiny, body_count;
    CHECK_CUDA(cudaGraphAddKernelNode(&body_tiny, c.conditional.phGraph_out[0], nullptr, 0, &tp));
    unsigned limit = iterations;
    void* count_args[] = {&count, &limit, &handle};
    cudaKernelNodeParams cp{};
    cp.func = reinterpret_cast<void*>(bench::count_step_function());
    cp.gridDim = dim3(1);
    cp.blockDim = dim3(1);
    cp.kernelParams = count_args;
    CHECK_CUDA(cudaGraphAddKernelNode(&body_count, c.conditional.phGraph_out[0], &body_tiny, 1, &cp));
    return hg;
  };
  // Two loops a path, made in the order hand-built, repeat, while, while, repeat, hand-built
  // (each hand-built loop and `while` with a counter of its own, allocated as it is made), one
  // of each a round in turn: as with launches, where a loop's exec and counter land moved it by
  // 2% (run 61: in three processes a second hand-built loop, made after cgraph's, and cgraph's
  // `repeat` and `while` all read 0.98 of the first hand-built one; `repeat` read 0.98-1.04 run
  // after run, each run's rounds within 0.001 of each other).
  struct loop {
    unsigned* counter = nullptr;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    std::optional<cgraph::graph_exec> made;  // cgraph's
    cudaGraphExec_t get() const { return made ? made->get() : exec; }
  };
  loop hand[2], rep[2], flagged[2];
  auto make_hand = [&](loop& l) {
    CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&l.counter), sizeof(unsigned)));
    l.graph = hand_loop(l.counter);
    l.exec = instantiate(l.graph);
  };
  auto make_rep = [&](loop& l) { l.made.emplace(cgraph::graph::build(prog, "rep", {{"p", buffer}}, reg).instantiate()); };
  auto make_flagged = [&](loop& l) {
    CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&l.counter), sizeof(unsigned)));
    l.made.emplace(cgraph::graph::build(prog, "flagged", {{"p", buffer}, {"counter", l.counter}}, reg).instantiate());
  };
  make_hand(hand[0]);
  make_rep(rep[0]);
  make_flagged(flagged[0]);
  make_flagged(flagged[1]);
  make_rep(rep[1]);
  make_hand(hand[1]);
  for (const loop* l : {&hand[0], &hand[1], &rep[0], &rep[1], &flagged[0], &flagged[1]})
    CHECK_CUDA(cudaGraphLaunch(l->get(), stream));  // each exec's first launch uploads it: not timed
  CHECK_CUDA(cudaStreamSynchronize(stream));
  // Each entrant's round, counted in its setup (one a round): its loop of the round.
  int rounds[3] = {};
  auto in_turn = [&](loop (&pair)[2], int& round) {
    return std::pair{[&pair, &round, stream] {
                       CHECK_CUDA(cudaGraphLaunch(pair[round % 2].get(), stream));
                       CHECK_CUDA(cudaStreamSynchronize(stream));
                     },
                     [&round] { ++round; }};
  };
  auto [hand_body, hand_setup] = in_turn(hand, rounds[0]);
  auto [rep_body, rep_setup] = in_turn(rep, rounds[1]);
  auto [flagged_body, flagged_setup] = in_turn(flagged, rounds[2]);
  // Host loop: one graph launch per iteration, the flag copied back and tested each time.
  cudaGraph_t step_graph;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  bench::launch_tiny(stream, buffer, 0);
  bench::launch_count_flag(stream, counter, iterations, flag);
  CHECK_CUDA(cudaStreamEndCapture(stream, &step_graph));
  cudaGraphExec_t step = instantiate(step_graph);
  unsigned* host_flag;
  CHECK_CUDA(cudaMallocHost(reinterpret_cast<void**>(&host_flag), sizeof(unsigned)));
  race(shape::conditional, iterations, {
      {"device loop", "hand-built conditional node (per iteration)", iterations, hand_body, hand_setup},
      {"device loop", "cgraph repeat (per iteration)", iterations, rep_body, rep_setup, [] {}, {0}},
      {"device loop", "cgraph while on a device flag (per iteration)", iterations, flagged_body, flagged_setup, [] {}, {0}},
      {"device loop", "host loop reading the flag (per iteration)", iterations, [&] {
         do {
           CHECK_CUDA(cudaGraphLaunch(step, stream));
           CHECK_CUDA(cudaMemcpyAsync(host_flag, flag, sizeof(unsigned), cudaMemcpyDeviceToHost, stream));
           CHECK_CUDA(cudaStreamSynchronize(stream));
         } while (*host_flag);
       }, [&] { CHECK_CUDA(cudaMemset(counter, 0, sizeof(unsigned))); }, [] {}, {0}},
  });
  for (loop* l : {&hand[0], &hand[1], &rep[0], &rep[1], &flagged[0], &flagged[1]}) {
    if (l->exec) cudaGraphExecDestroy(l->exec);
    if (l->graph) cudaGraphDestroy(l->graph);
    l->made.reset();
    if (l->counter) cudaFree(l->counter);
  }
  cudaGraphExecDestroy(step);
  cudaGraphDestroy(step_graph);
  cudaFreeHost(host_flag);
  cudaFree(counter);
  cudaFree(flag);
}

// Every row so far, as CSV, to `path` (replacing what was there).
void write_csv(const std::string& path) {
  std::ofstream out(path);
  out << "shape,nodes,measure,path,us_per_unit,ratio_to_hand,ratio_q1,ratio_q3,rounds\n";
  for (const auto& r : rows)
    out << fmt::format("{},{},{},\"{}\",{:.4f},{:.3f},{:.3f},{:.3f},{}\n", r.shape, r.nodes, r.what, r.path, r.us, r.ratio,
                       r.ratio_q1, r.ratio_q3, r.rounds);
}

// The comma-separated names in `list`.
std::set<std::string, std::less<>> names_in(std::string_view list) {
  std::set<std::string, std::less<>> names;
  while (!list.empty()) {
    auto comma = std::min(list.find(','), list.size());
    names.emplace(list.substr(0, comma));
    list.remove_prefix(std::min(comma + 1, list.size()));
  }
  return names;
}

bool known_measure(std::string_view m) {
  for (std::string_view k : {"build", "instantiate", "first instantiate", "update all", "update one", "update one warm",
                             "first update", "launch", "device loop"})
    if (m == k) return true;
  return false;
}

// `--repeats-of` / `--min-rounds-of`: MEASURE=N pairs, comma-separated, into `into`. False
// (and said) for a pair without a known measure or a count of at least 1.
bool counts_in(const char* option, std::string_view list, std::map<std::string, int, std::less<>>& into) {
  for (const auto& pair : names_in(list)) {
    const auto eq = pair.rfind('=');
    const int n = eq == std::string::npos ? 0 : std::atoi(pair.c_str() + eq + 1);
    if (eq == std::string::npos || !known_measure(pair.substr(0, eq)) || n < 1) {
      std::fprintf(stderr, "runtime_bench: %s: '%s' is not MEASURE=N with a known measure and N >= 1\n", option,
                   pair.c_str());
      return false;
    }
    into[pair.substr(0, eq)] = n;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string csv = "runtime_bench.csv", counters_csv;
  int max_nodes = 10000;
  int cpu = -1;  // --cpu: the CPU the timed thread runs on; -1: any
  std::set<std::string, std::less<>> shapes;  // --shapes: the shapes to run; empty: all
  // Every option takes a value: one that is not known, or lacks its value, stops the run
  // (a misspelt option, ignored, once left a whole device run without the rounds it asked for).
  static constexpr const char* options[] = {"--repeats", "--csv", "--max-nodes", "--counters", "--only", "--shapes",
                                            "--cpu", "--cell-seconds", "--min-rounds", "--repeats-of", "--min-rounds-of"};
  for (int i = 1; i < argc; i += 2)
    if (std::none_of(std::begin(options), std::end(options), [&](const char* o) { return !std::strcmp(argv[i], o); }) ||
        i + 1 == argc) {
      std::fprintf(stderr, "runtime_bench: '%s' is not an option with a value; options: see the top of runtime_bench.cpp\n",
                   argv[i]);
      return 2;
    }
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--repeats")) repeats = std::max(1, std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--csv")) csv = argv[i + 1];
    if (!std::strcmp(argv[i], "--max-nodes")) max_nodes = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--counters")) counters_csv = argv[i + 1];
    if (!std::strcmp(argv[i], "--only")) only = names_in(argv[i + 1]);
    if (!std::strcmp(argv[i], "--shapes")) shapes = names_in(argv[i + 1]);
    if (!std::strcmp(argv[i], "--cpu")) cpu = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--cell-seconds")) cell_seconds = std::max(0.0, std::atof(argv[i + 1]));
    if (!std::strcmp(argv[i], "--min-rounds")) min_rounds = std::max(1, std::atoi(argv[i + 1]));
    if ((!std::strcmp(argv[i], "--repeats-of") && !counts_in(argv[i], argv[i + 1], repeats_of)) ||
        (!std::strcmp(argv[i], "--min-rounds-of") && !counts_in(argv[i], argv[i + 1], min_rounds_of)))
      return 2;
  }
  for (const auto& n : shapes)
    if (!bench::shape_named(n)) {
      std::fprintf(stderr, "runtime_bench: --shapes: no shape '%s' (chain, fork-join, conditionals)\n", n.c_str());
      return 2;
    }
  for (const auto& m : only)
    if (!known_measure(m)) {
      std::fprintf(stderr, "runtime_bench: --only: no measure '%s'\n", m.c_str());
      return 2;
    }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("runtime_bench: no CUDA device, nothing to measure\n");
    return 0;
  }
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s; %s; %d repeats per figure (median)%s\n", prop.name,
              cgraph::to_string(cgraph::versions()).c_str(), repeats,
              cell_seconds > 0 ? fmt::format(", at least {} in a race stopped after {} s", min_rounds, cell_seconds).c_str()
                               : "");
  for (const auto* counts : {&repeats_of, &min_rounds_of})
    for (const auto& [measure, n] : *counts)
      std::printf("%s: %s %d\n", measure.c_str(), counts == &repeats_of ? "repeats" : "at least", n);
  if (!counters_csv.empty()) {
    counters.emplace();
    std::printf("counters:");
    for (std::size_t c = 0; c < bench::hw_counters::count; ++c)
      std::printf(" %s%s", bench::hw_counters::names[c],
                  counters->available(static_cast<bench::hw_counters::which>(c)) ? "" : " (absent)");
    std::printf("%s%s\n", counters->any() ? "" : "; ", counters->why_not().c_str());
  }
  float *buffer, *other;
  CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&buffer), 256 * sizeof(float)));
  CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&other), 256 * sizeof(float)));
  cudaStream_t stream, side;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  if (cpu >= 0) {  // after the streams: CUDA's context, and its threads, exist by now
    if (!bench::pin_this_thread(cpu)) {
      std::fprintf(stderr, "runtime_bench: --cpu %d: cannot run this thread on that CPU alone\n", cpu);
      return 2;
    }
    std::printf("timed thread pinned to CPU %d\n", cpu);
  }
  // The CSV is written again after every cell, and each cell's end is told on stderr: a run
  // stopped at a device call's time limit keeps what it measured (run 49 lost a whole run's
  // figures, written only at the end, to a 300 s limit).
  const auto started = std::chrono::steady_clock::now();
  auto cell_done = [&](const char* what, int nodes) {
    write_csv(csv);
    std::fprintf(stderr, "runtime_bench: %s %d done at %.0f s\n", what, nodes,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  };
  for (shape s : bench::shapes)
    for (int nodes : {10, 100, 1000, 10000})
      if (nodes <= max_nodes && (shapes.empty() || shapes.count(name(s)))) {
        bench_shape(s, nodes, buffer, other, stream, side);
        cell_done(name(s), nodes);
      }
  if (wanted("device loop")) {
    bench_loops(buffer, stream);
    cell_done("device loops", 0);
  }
  write_csv(csv);
  // The quartiles of a cell's ratios, round by round, beside its median: a cell whose median
  // misses a target by less than its spread could read the other side of it in the next run.
  std::printf("\n%-13s %6s  %-17s %-53s %10s %7s  %s\n", "shape", "nodes", "measure", "path", "us/unit", "ratio",
              "quartiles");
  for (const auto& r : rows) {
    const bool reference = r.ratio_q1 == 1.0 && r.ratio_q3 == 1.0;  // a hand-written path against itself
    std::printf("%-13s %6d  %-17s %-53s %10.3f %7s  %s%s\n", r.shape.c_str(), r.nodes, r.what.c_str(), r.path.c_str(), r.us,
                r.ratio > 0 ? fmt::format("{:.2f}", r.ratio).c_str() : "",
                reference ? "" : fmt::format("{:.2f}-{:.2f}", r.ratio_q1, r.ratio_q3).c_str(),
                r.rounds < repeats_for(r.what) ? fmt::format("  ({} rounds)", r.rounds).c_str() : "");
  }
  std::printf("\nwrote %s\n", csv.c_str());
  if (!counters_csv.empty()) {
    std::ofstream c(counters_csv);
    c << "shape,nodes,measure,path";
    for (const char* n : bench::hw_counters::names) c << ",\"" << n << " per unit\"";
    c << "\n";
    for (const auto& r : rows) {
      c << fmt::format("{},{},{},\"{}\"", r.shape, r.nodes, r.what, r.path);
      for (double v : r.counted) c << fmt::format(",{:.2f}", v);
      c << "\n";
    }
    std::printf("wrote %s\n", counters_csv.c_str());
  }
}

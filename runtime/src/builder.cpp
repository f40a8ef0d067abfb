// The explicit strategy on the run-time path: walks an explicit plan in order and makes each
// step's node in its graph (step_builder::make_node, the capture walk's dispatch too).

#include "build_steps.hpp"
#include "node_params.hpp"

namespace cgraph::detail {

namespace {

class builder : step_builder {
public:
  explicit builder(built_graph& out) : step_builder(out) {}

  void run() {
    prepare();
    backend::create_graph(g_, g_.graph_site);
    create_conds(0, g_.graph);
    for (std::uint32_t i = 0; i < plan_.steps.size(); ++i) add(i);
    refresh_late_readers();
    apply_attributes();
  }

private:
  // Step i, added to its graph after its dependencies; a conditional's bodies then get their
  // conds, before any node goes into them.
  void add(std::uint32_t i) {
    const step_row& s = g_.templates->rows[i];
    const backend::add_to_graph place{g_, g_.graph_numbered(s.graph),
                                      g_.step_nodes(plan_.dep_steps.data() + s.deps, s.dep_count, deps_)};
    make_node(
        i, s, place,
        [this](std::uint32_t, const ir::node& n, node_values& v, const captured_routine* routine, const where& at) {
          // The node holds a clone: the graph made here lives until the next one.
          made_ = routine ? capture_routine(*routine, v, g_.symbols->capture_mode, at) : capture_collectives(g_, n, v, at);
          return made_.get();
        },
        [&] {
          for (std::uint32_t k = 0; k < s.bodies; ++k) create_conds(s.body + k + 1, g_.bodies[s.body + k]);
        });
  }

  backend::graph_handle made_;  // the last captured routine's or collective's graph
};

}  // namespace

std::shared_ptr<built_graph> build_graph(std::shared_ptr<const program_state> p,
                                         std::shared_ptr<const resolved_symbols> symbols, std::uint32_t index,
                                         param_values params) {
  auto g = std::make_shared<built_graph>(std::move(p), std::move(symbols), index, std::move(params));
  // On a throw, the graph state destroys whatever was made.
  if (g->symbols->how == strategy::stream_capture) capture_graph(*g);
  else builder(*g).run();
  return g;
}

}  // namespace cgraph::detail

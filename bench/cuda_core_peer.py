"""The seeds' peer: chain graphs built with NVIDIA's cuda.core GraphBuilder (stream capture
from Python), timed like runtime_bench times cgraph, written as rows of the same CSV shape.

    python3 bench/cuda_core_peer.py [--repeats N] [--csv FILE]
"""
import argparse
import statistics
import sys
import time

import numpy as np

try:  # cuda.core 1.x exports at the top level; 0.x under .experimental
    from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
except ImportError:
    from cuda.core.experimental import Device, LaunchConfig, Program, ProgramOptions, launch

CODE = 'extern "C" __global__ void tiny(float* p, int i) { if (threadIdx.x == 0) p[i & 255] += 1.0f; }'


def median_of(repeats, setup, body, teardown=lambda state: None):
    times = []
    for r in range(repeats + 1):  # the first run is a warm-up
        state = setup()
        start = time.perf_counter()
        result = body(state)
        stop = time.perf_counter()
        teardown(result)
        if r:
            times.append(stop - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--csv", default="cuda_core_peer.csv")
    parser.add_argument("--max-nodes", type=int, default=10000)
    # scripts/device_bench.sh gives this script runtime_bench's arguments (CGRAPH_BENCH_ARGS).
    # runtime_bench's --min-rounds is the fewest rounds a race stopped by --cell-seconds keeps;
    # this script has no such stop and runs every round, so it takes the option and needs
    # nothing from it (run 67 lost the peer's figures to an "unrecognized arguments" error).
    parser.add_argument("--min-rounds", type=int, default=None, help="accepted for runtime_bench's argument list; unused")
    args = parser.parse_args()

    import cuda.core
    dev = Device()
    dev.set_current()
    stream = dev.create_stream()
    arch = "".join(str(x) for x in dev.compute_capability)
    kernel = Program(CODE, code_type="c++", options=ProgramOptions(arch=f"sm_{arch}")).compile("cubin").get_kernel("tiny")
    buffer = dev.allocate(256 * 4, stream=stream)
    config = LaunchConfig(grid=1, block=32)
    version = getattr(cuda.core, "__version__", "?")
    print(f"cuda.core {version}, {dev.name}")

    rows = []
    for nodes in (10, 100, 1000, 10000):
        if nodes > args.max_nodes:
            continue

        def build(_):
            gb = stream.create_graph_builder().begin_building("thread_local")
            for i in range(nodes):
                launch(gb, config, kernel, buffer, np.int32(i))
            return gb.end_building()

        t_build = median_of(args.repeats, lambda: None, build, lambda gb: gb.close())
        gb = build(None)
        t_complete = median_of(args.repeats, lambda: None, lambda _: gb.complete(), lambda g: g.close())
        graph = gb.complete()
        launches = 20

        def run(_):  # host time of the launches; the GPU's work is waited for untimed
            for _ in range(launches):
                graph.launch(stream)

        t_launch = median_of(args.repeats, stream.sync, run, lambda _: stream.sync())
        rows.append(("chain", nodes, "build", "cuda.core GraphBuilder capture", t_build * 1e6 / nodes))
        rows.append(("chain", nodes, "instantiate", "cuda.core complete()", t_complete * 1e6 / nodes))
        rows.append(("chain", nodes, "launch", "cuda.core (per launch)", t_launch * 1e6 / launches))
        print(f"chain {nodes:6d}: build {t_build * 1e6 / nodes:.3f} us/node, complete {t_complete * 1e6 / nodes:.3f} "
              f"us/node, launch {t_launch * 1e6 / launches:.3f} us", flush=True)

    with open(args.csv, "w") as out:
        out.write("shape,nodes,measure,path,us_per_unit,ratio_to_hand\n")
        for shape, nodes, measure, path, us in rows:
            out.write(f'{shape},{nodes},{measure},"{path}",{us:.4f},0\n')
    print(f"wrote {args.csv}")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# Run 27's A/Bs of the compiled program's build (old-tree: the code before, the tree: the new
# code), without the generated-C++ columns: build-RUN-old|new.csv.
exec bash scripts/ab_runtime_bench.sh build

#!/usr/bin/env bash
# Run 26's A/B of the capture session's frames (old-tree: the code before, the tree: the new
# code), with the generated-C++ columns: capture-RUN-old|new.csv.
exec bash scripts/ab_runtime_bench.sh capture generated

#!/usr/bin/env bash
# The main job's pass over examples/ (scripts/main.sh): every example is checked, lowered to IR
# and drawn as DOT (rendered to SVG with Graphviz), each reported with its node count.
#   check_examples.sh CGRAPHC OUTDIR
# CTest runs it too (main_job.examples), so a change that breaks the main job fails CI.
set -euo pipefail
cd "$(dirname "$0")/.."
cgraphc=$1
out=$2
mkdir -p "$out"
for f in examples/*.cgraph; do
  name=$(basename "$f" .cgraph)
  "$cgraphc" check "$f"
  "$cgraphc" ir "$f" > "$out/$name.ir"
  "$cgraphc" dot "$f" > "$out/$name.dot"
  dot -Tsvg "$out/$name.dot" -o "$out/$name.svg"
  # A library file (no graph, only declarations for `import`) has no node: grep -c prints 0
  # and exits 1, which must not end the job.
  nodes=$(grep -cE '^ +[0-9]+( \[[^]]+\])?: ' "$out/$name.ir" || true)
  echo "example $name: checked, $nodes nodes, drawn to $out/$name.svg"
done
echo "main job: all examples passed check, ir and dot"

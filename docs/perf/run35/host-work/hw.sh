#!/bin/bash
# per-node instructions of 40 builds: host_work_bench (compiled) and host_work_generated
B=${B:-/work/main/build/test/bench}
cnt() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 | awk '/refs/{gsub(",","",$4); print $4}'; }
for shape in chain fork-join conditionals; do
  for cap in "" --capture; do
    a=$(cnt $B/host_work_bench --what build --shape $shape $cap --nodes 1000 --repeats 1)
    b=$(cnt $B/host_work_bench --what build --shape $shape $cap --nodes 1000 --repeats 41)
    echo "compiled $shape ${cap:-explicit}: $(( (b-a)/40000 ))"
  done
  for form in explicit capture table hand-explicit hand-capture; do
    a=$(cnt $B/host_work_generated --form $form --shape $shape --repeats 1)
    b=$(cnt $B/host_work_generated --form $form --shape $shape --repeats 41)
    echo "generated $shape $form: $(( (b-a)/40000 ))"
  done
done

#!/bin/bash
# instructions a node of one text -> graph build (compile + build, fake CUDA), old and new binaries
cnt() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 | awk '/refs/{gsub(",","",$4); print $4}'; }
for n in 1000 10000; do
for shape in chain fork-join conditionals; do
  for cap in "" --capture; do
    line="$shape ${cap:-explicit} $n:"
    for b in /tmp/base-build/bench/host_work_bench /work/main/build/test/bench/host_work_bench; do
      a=$(cnt $b --what text --shape $shape $cap --nodes $n --repeats 1)
      c=$(cnt $b --what text --shape $shape $cap --nodes $n --repeats 3)
      line="$line $(( (c-a)/(2*n) ))"
    done
    echo "$line"
  done
done
done

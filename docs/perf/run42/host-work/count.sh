#!/usr/bin/env bash
# Instructions (callgrind, fake CUDA) of the front end and of text -> graph a node, and of a
# build from a compiled program a node: the difference between 3 and 1 repeats (10 000 nodes,
# text) or 41 and 1 (1 000 nodes, build), so start-up is taken off. B: the folder holding
# frontend_bench and host_work_bench.
B=${1:-build/test/bench}
cnt(){ valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 | awk '/refs/{gsub(",","",$4); print $4}'; }
echo "frontend_bench --nodes 10000 --repeats 1: $(cnt $B/frontend_bench --nodes 10000 --repeats 1)"
echo "frontend_bench --nodes 10000 --repeats 1 --unique: $(cnt $B/frontend_bench --nodes 10000 --repeats 1 --unique)"
for cap in "" "--capture"; do for sh in chain fork-join conditionals; do
  a=$(cnt $B/host_work_bench --what text --shape $sh $cap --nodes 10000 --repeats 1)
  b=$(cnt $B/host_work_bench --what text --shape $sh $cap --nodes 10000 --repeats 3)
  echo "text $sh ${cap:-explicit} $(( (b-a)/20000 ))"
done; done
for cap in "" "--capture"; do for sh in chain fork-join conditionals; do
  a=$(cnt $B/host_work_bench --what build --shape $sh $cap --nodes 1000 --repeats 1)
  b=$(cnt $B/host_work_bench --what build --shape $sh $cap --nodes 1000 --repeats 41)
  echo "build $sh ${cap:-explicit} $(( (b-a)/40000 ))"
done; done

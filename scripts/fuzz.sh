#!/usr/bin/env bash
# Fuzzes the compiler (parse, check, lower, print, emit, fmt) with libFuzzer under ASan and
# UBSan, then minimises what it found into fuzz/corpus, the regression set CI replays.
#   FUZZ_SECONDS  how long to fuzz (default 1800)
#   FUZZ_JOBS     parallel fuzzing processes (default: the machine's cores)
#   FUZZ_TARGET   all (default: parse, check, lower, print, emit, fmt properties) or check (the
#                 front end alone, several times faster); both minimise into the same corpus
#   FUZZ_PREBUILT a folder holding fuzz/cgraph_fuzz, fuzz/cgraph_fuzz_check and
#                 fuzz/cgraph_fuzz_replay built here earlier (and lib/ with any shared library they
#                 need): nothing is installed or built, for a machine with more cores and no
#                 network (the device machine: docs/reliability.md says how)
#   FUZZ_MERGE    1 (default) minimises into fuzz/corpus and replays it; 0 stops after fuzzing
#                 and leaves the inputs it kept in build/fuzz/corpus, for a call with a time
#                 limit to spend on fuzzing (merge them on another machine: reliability.md)
#   FUZZ_ARCHIVE  a folder: after fuzzing (also after a finding) writes there summary.txt (the
#                 executions summed over every job, the jobs that ended "Done", the findings),
#                 logs.tar.gz (every job's log), corpus.tar.gz (the inputs kept) and any
#                 finding's input: a few files that come back whole from a machine that returns
#                 a limited number of them (the device machine)
#   FUZZ_CORPUS_IN a corpus.tar.gz written by an earlier FUZZ_ARCHIVE: the fuzzing goes on
#                 from the inputs it kept
#   FUZZ_TIMEOUT  seconds one input may run before libFuzzer calls it a timeout (default 10).
#                 Its alarm is wall-clock: jobs at `nice 19` beside a build or a CI run stopped
#                 on inputs that take 1.3 s alone (runs 132, 133, 137); give such a run 30
#   FUZZ_BUILD    the build folder (default build/fuzz); with FUZZ_PREBUILT, a second folder
#                 lets two runs (the two targets) go side by side (scripts/fuzz_both.sh)
#   FUZZ_RESTART  seconds after which the jobs stop and fresh ones start from the seeds, until
#                 FUZZ_SECONDS have passed (default: never). The whole compiler's jobs slowed to a
#                 quarter of their rate after 60-80 minutes on the development machine (runs 297,
#                 302); fresh jobs ran at the first rate again (run 303). Each round keeps its
#                 inputs apart (corpus, corpus-r2, ...; the first round alone also reads the
#                 inputs FUZZ_CORPUS_IN brought or an earlier run left in corpus), its logs are named fuzz-rN-*.log, and the
#                 summary counts every round; a finding or an interruption ends the rounds.
#                 Do not edit this script while it runs: bash reads it as it goes (run 304)
# Figures for docs/reliability.md are in build/fuzz/fuzz-*.log ("stat::" lines).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${FUZZ_BUILD:-build/fuzz} root=$PWD
if [ -n "${FUZZ_PREBUILT:-}" ]; then
  mkdir -p "$build/fuzz" && cp "$FUZZ_PREBUILT"/fuzz/cgraph_fuzz* "$build/fuzz/"
  export LD_LIBRARY_PATH="$PWD/$FUZZ_PREBUILT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  bash scripts/setup.sh
  command -v clang++-14 >/dev/null || { echo "fuzz.sh: needs clang++-14 (Debian package clang-14)"; exit 2; }
  [ -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ] ||
    { echo "fuzz.sh: needs libFuzzer (Debian package libclang-rt-14-dev)"; exit 2; }
  flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -gline-tables-only"
  # Release without NDEBUG: assertions (Boost's included) stay on, as in the Debug sanitizer build.
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O2 -DCMAKE_CXX_COMPILER=clang++-14 -DCGRAPH_FUZZ=ON \
    -DCGRAPH_WITH_RUNTIME=OFF -DCGRAPH_BUILD_BENCH=OFF -DCGRAPH_BUILD_EXAMPLES=OFF -DCGRAPH_INSTALL=OFF \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined"
  cmake --build "$build" --target cgraph_fuzz cgraph_fuzz_check cgraph_fuzz_replay -j "$(nproc)"
fi
case "${FUZZ_TARGET:-all}" in
  all) fuzzer=cgraph_fuzz ;;
  check) fuzzer=cgraph_fuzz_check ;;
  *) echo "fuzz.sh: FUZZ_TARGET is all or check"; exit 2 ;;
esac

# Seeds: every example and golden input, and the regression corpus.
seeds=$build/seeds work=$build/corpus
rm -rf "$seeds" && mkdir -p "$seeds" "$work"
[ -n "${FUZZ_CORPUS_IN:-}" ] && tar xzf "$FUZZ_CORPUS_IN" -C "$build"  # its corpus/ joins $work
find examples tests/golden -name '*.cgraph' -exec cp {} "$seeds/" \;
cp fuzz/corpus/* "$seeds/" 2>/dev/null || true

jobs=${FUZZ_JOBS:-$(nproc)} seconds=${FUZZ_SECONDS:-1800}
restart=${FUZZ_RESTART:-$seconds}
[[ "$restart" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: FUZZ_RESTART is a number of seconds above 0"; exit 2; }
rounds=$(( (seconds + restart - 1) / restart ))
rm -rf "$build"/fuzz-*.log "$build"/corpus-r*
for ((round = 1; round <= rounds; round++)); do
  # The last round takes what is left; every round after the first keeps its inputs apart.
  span=$(( round < rounds ? restart : seconds - (rounds - 1) * restart )) kept=corpus ran=$round
  ((round > 1)) && kept=corpus-r$round && mkdir -p "$build/$kept"
  (cd "$build" && ./fuzz/$fuzzer -dict="$root/fuzz/cgraph.dict" -max_total_time="$span" \
    -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 -jobs="$jobs" -workers="$jobs" \
    "$kept" seeds "$root/fuzz/findings") || status=$?  # fuzz/findings is read, never copied into seeds
  if ((rounds > 1)); then  # libFuzzer names its logs fuzz-JOB.log: keep each round's
    for log in "$build"/fuzz-[0-9]*.log; do
      if [ -e "$log" ]; then mv "$log" "$build/fuzz-r$round-${log##*/fuzz-}"; fi
    done
  fi
  findings=$(cd "$build" && ls -d crash-* leak-* timeout-* oom-* 2>/dev/null || true)
  if [ "${status:-0}" != 0 ] || [ -n "$findings" ]; then break; fi
done
# Every round's kept inputs in one folder (they are named by their hash), for the archive and merge.
find "$build" -path "$build/corpus-r*" -type f -exec cp -n -t "$work" {} +
tail -n 20 "$build"/fuzz-*.log
if [ -n "${FUZZ_ARCHIVE:-}" ]; then
  mkdir -p "$FUZZ_ARCHIVE"
  {
    echo "target: $fuzzer; jobs: $jobs; seconds: $seconds${FUZZ_RESTART:+; restarted every $restart s, $ran of $rounds rounds run}"
    # A job's last count: a job sent SIGINT twice prints its statistics twice.
    awk '/^stat::number_of_executed_units/ { if (!(FILENAME in n)) jobs++; n[FILENAME] = $2 }
      END { for (f in n) s += n[f]; print "executions:", s + 0, "over", jobs + 0, "jobs" }' "$build"/fuzz-*.log
    echo "jobs that ended \"Done\": $(grep -l "^Done" "$build"/fuzz-*.log | wc -l) of $(ls "$build"/fuzz-*.log | wc -l)"
    echo "inputs kept: $(ls "$work" | wc -l)"
    echo "findings: ${findings:-none}"
  } > "$FUZZ_ARCHIVE/summary.txt"
  (cd "$build" && tar czf "$FUZZ_ARCHIVE/logs.tar.gz" fuzz-*.log && tar czf "$FUZZ_ARCHIVE/corpus.tar.gz" corpus)
  for f in $findings; do cp "$build/$f" "$FUZZ_ARCHIVE/"; done
  cat "$FUZZ_ARCHIVE/summary.txt"
fi
if [ "${status:-0}" != 0 ]; then
  # A run stopped with SIGINT also ends non-zero; only the files say whether it found something.
  if [ -n "$findings" ]; then
    echo "fuzz.sh: the fuzzer stopped with a finding:" $findings "(in $build)"
  else
    echo "fuzz.sh: the fuzzer stopped early (exit $status) with no finding: interrupted, or see $build/fuzz-*.log"
  fi
  exit 1
fi

[ "${FUZZ_MERGE:-1}" = 0 ] && exit 0

# Minimise into the regression corpus: the smallest set of inputs that covers what all did.
# fuzz/findings, the inputs of past findings, stays out of it: coverage alone would drop some.
# The front-end target sees less code, so it only adds what is new to it and drops nothing.
if [ "$fuzzer" = cgraph_fuzz ]; then
  rm -rf "$build/minimised" && mkdir -p "$build/minimised"
  "$build/fuzz/$fuzzer" -merge=1 "$build/minimised" fuzz/corpus "$work" "$seeds"
  rm -rf fuzz/corpus && mv "$build/minimised" fuzz/corpus
else
  "$build/fuzz/$fuzzer" -merge=1 fuzz/corpus "$work"
fi
"$build/fuzz/cgraph_fuzz_replay" fuzz/corpus fuzz/findings

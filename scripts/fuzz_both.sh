#!/usr/bin/env bash
# Fuzzes both targets side by side from binaries built earlier (FUZZ_PREBUILT, as fuzz.sh takes
# it): the front end (`check`) and the whole compiler, each in its own build folder, for a
# machine with many cores and a time limit on each call (the device machine). Nothing is merged:
# each target's summary, logs and kept inputs come back under FUZZ_ARCHIVE/check and
# FUZZ_ARCHIVE/all (docs/reliability.md says how to merge them here).
#   FUZZ_PREBUILT  required (see fuzz.sh)
#   FUZZ_ARCHIVE   required: where the two archives go
#   FUZZ_SECONDS   how long each target fuzzes (default 540)
#   FUZZ_JOBS      jobs in all (default: the machine's cores), split evenly between the targets
#   FUZZ_CHECK_JOBS how many of them fuzz the front end (default half): it runs about twice as many
#                  executions a job as the whole compiler, so a call that counts toward a total
#                  of executions gives it more (run 274)
#   FUZZ_CORPUS_DIR a folder holding check.tar.gz and/or all.tar.gz, corpus.tar.gz files an earlier
#                  archive wrote: each target goes on from its own kept inputs (FUZZ_CORPUS_IN)
#   FUZZ_TIMEOUT   as fuzz.sh (default here 30)
#   FUZZ_RESTART   as fuzz.sh: fresh jobs every so many seconds, for each target
# Every 30 s FUZZ_ARCHIVE/progress.txt gets each target's executions so far (the sum of its jobs'
# last status lines): a call cut off by its limit, before fuzz.sh writes the summaries, still
# brings back what ran (run 209 came back with nothing: the device budget ran out first).
# A device call returns at most 8 files, so the archive holds at most 8: progress.txt, each
# target's summary, logs and inputs, and one findings.tar.gz when something was found (runs
# 226-228 lost check/summary.txt to the limit while fuzz.sh's output was archived as well; that
# output now stays in the build folders, and its last lines are printed when a summary is missing).
set -euo pipefail
: "${FUZZ_PREBUILT:?fuzz_both.sh: set FUZZ_PREBUILT}" "${FUZZ_ARCHIVE:?fuzz_both.sh: set FUZZ_ARCHIVE}"
# Absolute, from the caller's folder: fuzz.sh writes it from its build folder.
FUZZ_ARCHIVE=$(mkdir -p "$FUZZ_ARCHIVE" && cd "$FUZZ_ARCHIVE" && pwd)
if [ -n "${FUZZ_CORPUS_DIR:-}" ]; then  # likewise from the caller's folder; a wrong one is an error, not a fresh start
  FUZZ_CORPUS_DIR=$(cd "$FUZZ_CORPUS_DIR" && pwd) || { echo "fuzz_both.sh: FUZZ_CORPUS_DIR is not a folder"; exit 2; }
fi
cd "$(dirname "$0")/.."
mkdir -p build
jobs=${FUZZ_JOBS:-$(nproc)}
check_jobs=${FUZZ_CHECK_JOBS:-$(( jobs / 2 > 0 ? jobs / 2 : 1 ))}
run() {  # target, build folder, jobs
  local corpus=${FUZZ_CORPUS_DIR:+$FUZZ_CORPUS_DIR/$1.tar.gz}
  [ -n "$corpus" ] && [ -e "$corpus" ] || corpus=  # a target with no archive there starts from the seeds
  FUZZ_CORPUS_IN=$corpus FUZZ_TARGET=$1 FUZZ_BUILD=$2 FUZZ_JOBS=$3 FUZZ_MERGE=0 FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-30} \
    FUZZ_SECONDS=${FUZZ_SECONDS:-540} FUZZ_ARCHIVE=$FUZZ_ARCHIVE/$1 bash scripts/fuzz.sh > "$2.out" 2>&1
}
progress() {  # one line a target: executions so far, from each job's last "#N" status line
  for t in check all; do
    for log in build/fuzz-both-$t/fuzz-*.log; do  # a job may have no log, or no status line, yet
      [ -e "$log" ] || continue
      grep -a '^#[0-9]' "$log" | tail -n 1 || true
    done | awk -v t="$t" '{ s += substr($1, 2) } END { print t ": " s + 0 " executions so far over " NR " jobs" }'
  done
  date -u +"at %H:%M:%S UTC"
}
run check build/fuzz-both-check "$check_jobs" & front=$!
run all build/fuzz-both-all "$(( jobs - check_jobs > 0 ? jobs - check_jobs : 1 ))" & whole=$!
(while sleep 30; do progress > "$FUZZ_ARCHIVE/progress.tmp" && mv "$FUZZ_ARCHIVE/progress.tmp" "$FUZZ_ARCHIVE/progress.txt"; done) & watcher=$!
status=0
wait "$front" || status=1
wait "$whole" || status=1
kill "$watcher" 2>/dev/null || true
progress > "$FUZZ_ARCHIVE/progress.txt"
# fuzz.sh copies each finding beside its target's summary; one archive of them all keeps the count.
findings=$(cd "$FUZZ_ARCHIVE" && ls -d check/crash-* check/leak-* check/timeout-* check/oom-* \
  all/crash-* all/leak-* all/timeout-* all/oom-* 2>/dev/null || true)
if [ -n "$findings" ]; then
  (cd "$FUZZ_ARCHIVE" && tar czf findings.tar.gz $findings && rm -f $findings)
fi
for t in check all; do
  echo "== $t"; cat "$FUZZ_ARCHIVE/$t/summary.txt" 2>/dev/null || tail -5 "build/fuzz-both-$t.out"
done
exit $status

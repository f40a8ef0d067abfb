#!/usr/bin/env bash
# Checks cgraph's host work against bench/host_work/budget.txt: each line's program runs under
# callgrind at two repeat counts, and the difference in instructions, divided by the line's
# units, is compared with its budget. Exits 1 when a figure is above its budget; says so when
# one is more than 5% below, so that the budget comes down with the change that earned it.
# Usage: scripts/host_work_budget.sh BENCH_DIR [NAME…] (the build's bench/ folder; NAMEs: only
# those lines, to measure a change without running all of them)
set -uo pipefail
bench=${1:?usage: host_work_budget.sh BENCH_DIR [NAME…]}
shift
only=" $* "
budget_file="$(dirname "$0")/../bench/host_work/budget.txt"
command -v valgrind > /dev/null || { echo "valgrind is missing"; exit 1; }
instructions() {  # program, repeats, arguments...
  local program=$1 repeats=$2
  shift 2
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bench/$program" "$@" --repeats "$repeats" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
status=0
while read -r name program rest; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  [[ "$only" != "  " && "$only" != *" $name "* ]] && continue
  read -r -a words <<< "$rest"
  budget=${words[-1]} per=${words[-2]} repeats=${words[-3]}
  args=("${words[@]:0:${#words[@]}-3}")
  low=${repeats%%:*} high=${repeats##*:}
  a=$(instructions "$program" "$low" "${args[@]}")
  b=$(instructions "$program" "$high" "${args[@]}")
  if [[ -z "$a" || -z "$b" ]]; then
    echo "$name: $program did not run under callgrind"
    status=1
    continue
  fi
  figure=$(( (b - a) / per ))
  if (( figure > budget )); then
    echo "$name: $figure instructions, over its budget of $budget"
    status=1
  elif (( figure * 100 < budget * 95 )); then
    echo "$name: $figure instructions, budget $budget (more than 5% below: lower the budget in bench/host_work/budget.txt)"
  else
    echo "$name: $figure instructions, budget $budget"
  fi
done < "$budget_file"
for name in "$@"; do  # a NAME no line has is a typo, not a pass
  grep -q "^$name " "$budget_file" || { echo "$name: no such line in $budget_file"; status=1; }
done
exit $status

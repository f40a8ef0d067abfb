#!/usr/bin/env bash
# One way to run a compute-sanitizer tool over the GPU tests, for the device scripts
# (device_check.sh, gpu_proof.sh, sanitize_cases.sh), so the flags and the cases a tool skips
# are written once:
#   sanitize.sh TOOL PROGRAM [DOCTEST ARGS…]   runs PROGRAM under TOOL (its exit status)
#   sanitize.sh --skip TOOL                     prints the doctest argument that leaves out the
#                                               cases TOOL cannot run (nothing when none)
# --report-api-errors no: cgraph probes cudaFuncGetParamInfo one index past the last parameter
# of a module's or NVRTC source's kernel (CUDA has no count), which the API-error report would
# list (the tests' isomorphism check probes the same way); every memory, race and sync check
# stays on, and cgraph checks every CUDA result itself. (scripts/device_check.sh runs the
# examples, whose kernels are registered, with the report on.) --error-exitcode 9: a finding
# fails.
# racecheck (CUDA 13.0) loses the launches of the `attributes` graph's cluster kernel inside the
# test binary ("Internal Sanitizer Error: Detected a failure to track a kernel launch") and its
# results come out wrong, though the same graph is right natively and under memcheck and
# synccheck, and a hand-written cluster graph is racecheck-clean: those cases run under the
# other two tools only (docs/reliability.md).
set -uo pipefail
skip_for() { [ "$1" = racecheck ] && printf "%s\n" "-tce=v2.attributes*"; return 0; }
if [ "${1:-}" = --skip ]; then
  skip_for "${2:?usage: sanitize.sh --skip TOOL}"
  exit 0
fi
tool=${1:?usage: sanitize.sh TOOL PROGRAM [ARGS…]} program=${2:?usage: sanitize.sh TOOL PROGRAM [ARGS…]}
shift 2
skip=$(skip_for "$tool")
exec compute-sanitizer --tool "$tool" --report-api-errors no --error-exitcode 9 "$program" "$@" ${skip:+"$skip"}

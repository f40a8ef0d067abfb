#!/usr/bin/env bash
# One backend: the CUDA graph calls below may be made from runtime/src/backend/ only, and each of
# the six named by issue 13 from exactly one source file under runtime/ and include/. Comments
# do not count. Run by CTest as backend.one_place.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
calls() { grep -rlE "^[^/]*\b$1\(" runtime include --include='*.cpp' --include='*.hpp' --include='*.cu' || true; }
for api in cudaStreamBeginCaptureToGraph cudaStreamUpdateCaptureDependencies cudaGraphConditionalHandleCreate \
           cudaUserObjectCreate cudaGraphExecKernelNodeSetParams cudaGraphInstantiateWithParams; do
  files=$(calls "$api")
  if [ "$(echo "$files" | grep -c .)" != 1 ]; then
    echo "backend.one_place: $api is called from: ${files:-nowhere}"; status=1
  fi
done
for api in cudaGraphAdd[A-Za-z0-9]* cudaGraphExec[A-Za-z0-9]*SetParams[A-Za-z0-9]* cudaGraphExecUpdate cudaStreamBeginCapture \
           cudaStreamEndCapture cudaLaunchHostFunc cudaGraphInstantiate[A-Za-z]* cudaGraphCreate cudaGraphRetainUserObject; do
  outside=$(calls "$api" | grep -v '^runtime/src/backend/' || true)
  if [ -n "$outside" ]; then echo "backend.one_place: $api is called outside runtime/src/backend: $outside"; status=1; fi
done
[ $status = 0 ] && echo "backend.one_place: every CUDA graph call is in runtime/src/backend"
exit $status

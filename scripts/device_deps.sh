#!/usr/bin/env bash
# The headers the device machine lacks, for its scripts to carry (../shared/DEVICE.md): run here,
# on the development machine, once per checkout, before the first device call; every device
# script then checks for them (`bash scripts/device_deps.sh --check`) and says what is missing
# before a build that would fail on it. range-v3 0.12 needs four folders: range, meta, concepts
# and std (its iterator headers include std/detail/associated_types.hpp; a checkout carrying
# only the first three failed its first device call, run 58).
set -euo pipefail
cd "$(dirname "$0")/.."
folders=(range meta concepts std)
if [ "${1:-}" = --check ]; then
  for f in "${folders[@]}"; do
    [ -d ".device-deps/include/$f" ] && continue
    echo "device_deps: .device-deps/include/$f is missing: run 'bash scripts/device_deps.sh' on the development machine and carry .device-deps" >&2
    exit 1
  done
  exit 0
fi
mkdir -p .device-deps/include
for f in "${folders[@]}"; do
  [ -d "/usr/include/$f" ] || { echo "device_deps: /usr/include/$f not found (install librange-v3-dev: bash scripts/setup.sh)" >&2; exit 1; }
  rm -rf ".device-deps/include/$f" && cp -r "/usr/include/$f" .device-deps/include/
done
grep -qx '/.device-deps/' .gitignore || echo "device_deps: .device-deps/ is not in .gitignore" >&2
echo "device_deps: .device-deps/include holds ${folders[*]} ($(du -sh .device-deps | cut -f1)); carry .device-deps"

#!/usr/bin/env bash
# Installs what cgraph needs from Debian's packages; does nothing when all of it is present.
# Called by the README's two commands and by .ci/run, so a fresh machine needs nothing else.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  libboost-dev      # Boost.Spirit X3 (headers only)
  librange-v3-dev
  doctest-dev
  libfmt-dev
  libcli11-dev
  graphviz          # renders `cgraphc dot` output in the tests
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

#!/usr/bin/env bash
# Installs the Debian 12 packages attnlab builds with, and only those that are
# missing. Safe to run again: with everything present it installs nothing and
# does not touch the network. Runs as root, or through sudo when it exists.
#   scripts/setup.sh           what building and testing need
#   scripts/setup.sh --fuzz    also clang and libFuzzer, for scripts/fuzz.sh (CI)
set -euo pipefail

packages=(
  cmake g++ make
  libcli11-dev nlohmann-json3-dev libfmt-dev
  libxtensor-dev libxsimd-dev libopenblas0-pthread
  libgtest-dev libbenchmark-dev
  # Student's t CDF and quantile for the confidence intervals and tests of lib/stats (headers only)
  libboost-math-dev
  # running sweeps elsewhere: a one-node Slurm cluster in CI, GNU parallel
  slurm-wlm munge parallel
  # figures (--plot, attnlab plot): gnuplot without X, and the font every figure names;
  # libxml2 only for the tests, which parse each SVG as XML
  gnuplot-nox fonts-dejavu-core libxml2-dev
)
case "${1:-}" in
  "") ;;
  --fuzz) packages+=(clang libclang-rt-14-dev) ;;
  *) echo "usage: scripts/setup.sh [--fuzz]" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages present" >&2
  exit 0
fi

as_root=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: run as root to install: ${missing[*]}" >&2; exit 1; }
  as_root=(sudo)
fi

echo "setup: installing ${missing[*]}" >&2
# A fresh image may never have fetched its package lists.
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"

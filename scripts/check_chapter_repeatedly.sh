#!/usr/bin/env bash
# Runs the instructor's CI line N times in a row (default 20), with -j 1, 2
# and 4 in turn, and fails at the first run whose tables differ from
# data/chapter.txt. A flaky trained digit (one run in seven once failed) shows
# here, so .ci/run calls this rather than the default test suite.
#
# One table is held apart: translation (issue 13) trains four encoder-decoders
# for about two minutes on 2 cores (4 at -j 1), nine times longer than all the
# other tables together (~13 s a run). Twenty runs of it would add ~40 minutes
# to CI's 90.
# So the other tables run N times as before, and translation runs
# min(N, 3) times, once with each of -j 1, 2 and 4: its figures are the ones
# a different number of threads could disturb (its rows train side by side),
# and a trained digit that flips one run in seven still shows within the 20
# runs of the other trained tables, which share fit()'s recipe and kernels.
# Each part is checked against its own section of data/chapter.txt, cut out
# by its "== KIND: FILE ==" heading.
#
# Usage: scripts/check_chapter_repeatedly.sh [N] [ATTNLAB]   (ATTNLAB: build/attnlab)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
attnlab=${2:-build/attnlab}
jobs=(1 2 4)
slow=experiments/translation.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
err=$tmp/err
# data/chapter.txt in two: the slow table's section and every other one
awk -v slow="== translation: $slow ==" -v a="$tmp/slow.txt" -v b="$tmp/rest.txt" '
  /^== .* ==$/ { into = ($0 == slow) ? a : b }
  { print > into }' data/chapter.txt
grep -qx "== translation: $slow ==" "$tmp/slow.txt" || { echo "data/chapter.txt has no table for $slow" >&2; exit 1; }
rest=()
for f in experiments/*.json; do [[ $f == "$slow" ]] || rest+=("$f"); done

check() {  # LABEL EXPECTED -j J SPEC...
  local label=$1 expected=$2 j=$4
  shift 4
  if ! "$attnlab" run "$@" -j "$j" --check "$expected" >/dev/null 2>"$err"; then
    echo "chapter check $label (-j $j) failed:" >&2
    grep -v '^attnlab: running' "$err" >&2 || true
    exit 1
  fi
  echo "chapter check $label (-j $j): every table matches"
}

start=$SECONDS
for ((i = 1; i <= runs; i++)); do
  check "$i of $runs" "$tmp/rest.txt" -j "${jobs[$(((i - 1) % 3))]}" "${rest[@]}"
done
slow_runs=$((runs < 3 ? runs : 3))
for ((i = 1; i <= slow_runs; i++)); do
  check "translation $i of $slow_runs" "$tmp/slow.txt" -j "${jobs[$(((i - 1) % 3))]}" "$slow"
done
echo "$runs chapter checks (translation: $slow_runs) in a row passed in $((SECONDS - start)) s"

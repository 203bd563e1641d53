#!/usr/bin/env bash
# Runs a libFuzzer target of tests/fuzz for a given time:
#   scripts/fuzz.sh TARGET SECONDS      TARGET: spec, spec_set, set, check, or all (each for SECONDS)
# Builds them with clang in build-fuzz/ (ASan and UBSan on, so a bug is a
# crash), writes the dictionary of spec keys from the registry, seeds each
# corpus from experiments/ and data/, and keeps what it finds in
# build-fuzz/fuzz/corpus/TARGET for the next run. A crash is written to
# build-fuzz/fuzz/crashes/TARGET/ and the script exits 1: copy the input to
# tests/fuzz/regressions/TARGET/ (replayed by every later run) and add a test.
# Environment: FUZZ_BUILD (tree, default build-fuzz), FUZZ_JOBS (-j of the build, default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { echo "usage: scripts/fuzz.sh spec|spec_set|set|check|all SECONDS" >&2; exit 2; }
[[ $# -eq 2 ]] || usage
[[ $2 =~ ^[0-9]+$ ]] || usage
targets=("$1")
[[ $1 == all ]] && targets=(spec spec_set set check)
for t in "${targets[@]}"; do [[ $t =~ ^(spec|spec_set|set|check)$ ]] || usage; done
seconds=$2
tree=${FUZZ_BUILD:-build-fuzz}

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [[ ! -f $tree/CMakeCache.txt ]]; then
  cmake -S . -B "$tree" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNLAB_FUZZ=ON \
    -DATTNLAB_BENCHMARKS=OFF "${launcher[@]}" >/dev/null
fi
cmake --build "$tree" -j "${FUZZ_JOBS:-2}" --target fuzz_dict "${targets[@]/#/fuzz_}" >/dev/null

work=$tree/fuzz
mkdir -p "$work"
"$tree/tests/fuzz/fuzz_dict" >"$work/spec.dict"

# Seeds: the specs, the committed chapter (against itself and with one digit
# changed), and --set lines a user types.
seed() {
  local t=$1 dir=$work/seeds/$t
  rm -rf "$dir" && mkdir -p "$dir"
  case $t in
    spec) cp experiments/*.json "$dir/" ;;
    spec_set)
      for f in experiments/*.json; do
        { printf 'epochs=2\nlr=0.01\nhidden_sizes=[16,32]\n\0'; cat "$f"; } >"$dir/$(basename "$f")"
      done ;;
    set)
      printf 'epochs=3\n' >"$dir/int"
      printf 'hidden_sizes=[2,4]\ncell=lstm\n' >"$dir/list_and_string"
      printf 'lr=1e-3\nvariants=["none","learned"]\nn_train=100\n' >"$dir/three"
      printf 'seed=4294967295\ndropout=0.5\n' >"$dir/bounds" ;;
    check)
      { cat data/chapter.txt; printf '\0'; cat data/chapter.txt; } >"$dir/same"
      { cat data/chapter.txt; printf '\0'; sed 's/0\.9167/0.9168/' data/chapter.txt; } >"$dir/one_digit"
      { head -c 2000 data/chapter.txt; printf '\0'; head -c 1500 data/chapter.txt; } >"$dir/cut" ;;
  esac
}

status=0
for t in "${targets[@]}"; do
  seed "$t"
  mkdir -p "$work/corpus/$t" "$work/crashes/$t" "tests/fuzz/regressions/$t"
  echo "fuzz: $t for ${seconds}s" >&2
  log=$work/$t.log
  # Regressions first (each must pass), then the search; one process, one core.
  if ! "$tree/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -dict="$work/spec.dict" -timeout=10 \
      -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 -artifact_prefix="$work/crashes/$t/" \
      "$work/corpus/$t" "$work/seeds/$t" "tests/fuzz/regressions/$t" >"$log" 2>&1; then
    status=1
    echo "fuzz: $t FOUND A CRASH; the input is in $work/crashes/$t/:" >&2
    grep -E "ERROR|invariant|SUMMARY|Test unit written" "$log" | head -5 >&2
  fi
  # The last status line and the totals: time, executions, coverage.
  grep -E "^#[0-9]+" "$log" | tail -1 >&2 || true
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$log" >&2 || true
done
exit $status

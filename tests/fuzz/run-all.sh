#!/bin/bash
# run-all.sh BUILD_DIR SECONDS - run every fuzz target for SECONDS over its
# seed corpus (tests/fuzz/corpus/<target>/, read-only; new inputs go to a temp
# folder). Fails on the first crash.
set -euo pipefail
build=$1; secs=${2:-20}
here=$(cd "$(dirname "$0")" && pwd)
shopt -s nullglob
n=0
for bin in "$build"/tests/fuzz/fuzz_*; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  work=$(mktemp -d)
  seeds=()
  [ -d "$here/corpus/$name" ] && seeds=("$here/corpus/$name")
  maxlen=65536
  if [ "$name" = fuzz_rocpd ]; then      # a binary seed, generated: nothing committed
    mkdir -p "$work/seed"
    python3 "$here/../tools/rocpd_from_csv.py" --sample "$work/seed/sample.db"
    seeds+=("$work/seed")
    maxlen=131072
  fi
  echo "== $name (${secs}s)"
  mkdir -p "$work/new"
  "$bin" -max_total_time="$secs" -max_len="$maxlen" -print_final_stats=1 "$work/new" "${seeds[@]}" 2>&1 | tail -n 4
  rm -rf "$work"
  n=$((n + 1))
done
echo "fuzz: $n target(s) ran without a crash"

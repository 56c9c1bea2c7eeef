#!/bin/bash
# final.sh - the last device call of a session, when little device time is
# left: one build, then the issue-19 energy proof (energy.sh), the issue-14
# workloads end to end (final18.sh PARTS=e2e: Triton mma.sync, copies, JAX
# through plain -> pmc -> power -> analyze) and the issue-18 toggle costs
# (toggle18.sh), each under its own deadline, every table printed last.
#   . .gpu/env.sh; bash tests/gpu/final.sh
# Env: E_S, X_S, T_S: the three deadlines in seconds (170, 240, 80);
# VARIANTS for toggle18.sh (default: the light ones; full is measured already).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=/tmp/bfinal
export OUT=${OUT:-$ROOT/gpu-out}
mkdir -p "$OUT"
t0=$SECONDS
( cmake -S "$ROOT" -B "$B" -DCMAKE_BUILD_TYPE=Release >/tmp/final-build.log 2>&1 &&
  cmake --build "$B" -j"$(nproc)" --target benchrun benchrun-cupti >>/tmp/final-build.log 2>&1 ) ||
  { tail -30 /tmp/final-build.log; exit 1; }
cmake --build "$B" -j"$(nproc)" --target gpu-test-programs >>/tmp/final-build.log 2>&1 ||
  echo "final.sh: gpu-test-programs did not build (see the logs)"
cp /tmp/final-build.log "$OUT/final-build.log"
echo "final.sh: build $((SECONDS - t0)) s"
DEADLINE_S=${E_S:-170} bash "$ROOT/tests/gpu/energy.sh" "$B" >/tmp/final-energy.out 2>&1
echo "final.sh: energy done at $((SECONDS - t0)) s"
DEADLINE_S=${X_S:-240} PARTS=e2e bash "$ROOT/tests/gpu/final18.sh" "$B" >/tmp/final-e2e.out 2>&1
echo "final.sh: e2e done at $((SECONDS - t0)) s"
DEADLINE_S=${T_S:-80} VARIANTS=${VARIANTS:-user user-async startstop} \
    bash "$ROOT/tests/gpu/toggle18.sh" "$B" >/tmp/final-toggle.out 2>&1
echo "final.sh: toggle done at $((SECONDS - t0)) s"
for f in energy-table.txt final18.txt toggle18.txt; do
    echo "===== $f"; cat "$OUT/$f" 2>/dev/null || echo "(missing)"
done

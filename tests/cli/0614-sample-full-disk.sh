#!/bin/bash
# 0614-sample-full-disk: the sampler on a full disk. When writing
# a telemetry file fails (ENOSPC from tests/fault/failio.c), that GPU's
# sampling stops with the reason, and the summary (stderr and
# sampler_<prefix>.json) counts the samples written, never the ones read:
# each GPU's "samples" equals the data lines in its CSV.
. "$(dirname "$0")/lib.sh"
SHIM=$BR_BINARY_DIR/tests/failio.so
[ -f "$SHIM" ] || { fail "fault shim not built"; finish; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

# GPU 1's file fills up after 3000 bytes; GPU 0's does not.
expect_exit 0 "sampling onto a full disk" -- env LD_PRELOAD="$SHIM" BR_FAULT=enospc \
    BR_FAULT_PATH=profiling_result_full_1 BR_FAULT_AFTER=3000 \
    "$BENCHRUN" sample --backend sim --gpus 0,1 --interval-ms 1 --prefix full -o "$T/s" -- sleep 0.4
expect_grep "cannot write '.*profiling_result_full_1.csv': No space left on device; no more samples for GPU 1" \
    "$T/err" "the reason is given"
python3 - "$T/s" <<'PY' && pass "samples counted as written, per GPU and in total" || fail "samples counted as read"
import json, os, sys
d = sys.argv[1]
j = json.load(open(os.path.join(d, "sampler_full.json")))
lines = {}
for g in (0, 1):
    with open(os.path.join(d, "profiling_result_full_%d.csv" % g)) as f:
        lines[g] = sum(1 for _ in f) - 2          # metadata line and header
by_gpu = {g["gpu"]: g for g in j["gpus"]}
assert lines[1] < lines[0], lines
for g in (0, 1):
    assert by_gpu[g]["samples"] == lines[g], (g, by_gpu[g]["samples"], lines[g])
assert "No space left on device" in by_gpu[1]["write_error"] and by_gpu[0]["write_error"] is None, by_gpu
assert j["samples"] == lines[1], (j["samples"], lines)    # the samples every GPU has
PY
n1=$(($(wc -l <"$T/s/profiling_result_full_1.csv") - 2))
expect_grep "gpu 1: $n1 samples written, then: No space left on device" "$T/err" "stderr says how many were written"
finish

#!/bin/bash
# 0611-sample-sim: benchrun sample under the sim backend around real commands:
# file format checked by a parser, inst_power/energy known answers, exit
# status pass-through, achieved interval at 1 ms (figures printed), usage errors.
. "$(dirname "$0")/lib.sh"

# check_csv FILE NCOLS: every line after the header has NCOLS fields, numbers or nan,
# timestamps strictly increasing, the file ends with a newline. Prints the row count.
check_csv() {
    python3 - "$1" "$2" <<'EOF'
import math, sys
path, ncols = sys.argv[1], int(sys.argv[2])
data = open(path, "rb").read()
assert data.endswith(b"\n"), "last line is not complete"
lines = data.decode().split("\n")[:-1]
assert "=" in lines[0] and lines[1].startswith("timestamp_ns,"), "metadata/header"
prev = -1
for i, line in enumerate(lines[2:], start=3):
    f = line.split(",")
    assert len(f) == ncols, f"line {i}: {len(f)} fields"
    t = int(f[0]); assert t > prev, f"line {i}: time not increasing"; prev = t
    for v in f[1:]:
        float(v)  # accepts nan
print(len(lines) - 2)
EOF
}

out=$T/o
expect_exit 0 "sample sim around sleep 1" -- "$BENCHRUN" sample --backend sim --gpus 0,1 -i 1 -p t -o "$out" -- sleep 1
for g in 0 1; do
    f=$out/profiling_result_t_$g.csv
    rows=$(check_csv "$f" 12) && pass "gpu $g: $rows well-formed rows" || fail "gpu $g: malformed CSV"
    [ "${rows:-0}" -ge 500 ] && [ "${rows:-0}" -le 1500 ] && pass "gpu $g: ~1000 rows in 1 s" || fail "gpu $g: $rows rows"
    expect_grep "^benchrun_telemetry=1 device=$g backend=sim " "$f" "gpu $g: metadata says backend=sim"
done
expect_grep '^timestamp_ns,current_socket_power_W,inst_power_W,gfx_clock_MHz,edge_temp_C,hotspot_temp_C,energy_J,mem_clock_MHz,source_timestamp_ns,refreshed,' \
    "$out/profiling_result_t_0.csv" "header: required six columns first, then the extras"
expect_grep '^boottime_ns=[0-9]+$' "$out/clock_ref.txt" "clock_ref has boottime"
expect_grep '^monotonic_ns=[0-9]+$' "$out/clock_ref.txt" "clock_ref has monotonic"
expect_grep '^realtime_ns=[0-9]+$' "$out/clock_ref.txt" "clock_ref has realtime"
expect_grep 'samples per GPU' "$T/err" "summary on stderr"
[ -s "$T/out" ] && fail "sampler wrote to stdout" || pass "nothing on stdout"

# Known answers (sim, 1 ms): inst_power of row k = socket power of row k-1;
# energy_J = sum of the previous rows' power x 1 ms; the first sample precedes the
# command and comes after clock_ref.
awk -F, 'NR <= 2 { next }
    { n++; if (n >= 3 && ($3 - p) * ($3 - p) > 1e-6) bad++; if (n >= 2) e += p * 0.001;
      if (($7 - e) * ($7 - e) > 1e-4) ebad++; p = $2 }
    END { if (bad || ebad || n < 10) { print "bad inst " bad " bad energy " ebad; exit 1 } }' \
    "$out/profiling_result_t_1.csv" && pass "inst_power and energy_J known answers" || fail "inst_power/energy known answers"
ref=$(sed -n 's/^boottime_ns=//p' "$out/clock_ref.txt")
first=$(sed -n 3p "$out/profiling_result_t_0.csv" | cut -d, -f1)
[ "$first" -ge "$ref" ] && [ $((first - ref)) -lt 1000000000 ] && pass "first sample just after clock_ref" \
    || fail "first sample $first vs clock_ref $ref"

# Achieved interval at 1 ms on this machine: print the figures, assert a generous bound.
python3 - "$out/sampler_t.json" <<'EOF' && pass "achieved median interval within 0.8-1.5 ms" || fail "achieved interval"
import json, sys
j = json.load(open(sys.argv[1]))
print("achieved interval: median %.4f ms, p99 %.4f ms, max gap %.3f ms, missed %d, samples %d, cpu %.3f s"
      % (j["interval_achieved_median_ms"], j["interval_achieved_p99_ms"],
         j["interval_achieved_max_gap_ms"], j["deadlines_missed"], j["samples"], j["sampler_cpu_s"]))
assert j["backend"] == "sim" and j["exit_status"] == 0 and j["command"] == ["sleep", "1"]
assert len(j["gpus"]) == 2 and j["gpus"][1]["source_refresh_hz"] > 500
sys.exit(0 if 0.8 <= j["interval_achieved_median_ms"] <= 1.5 else 1)
EOF

# Exit status of the command, 127 when it cannot start.
expect_exit 7 "exit status passed through" -- "$BENCHRUN" sample --backend sim -o "$T/s1" -- sh -c 'exit 7'
expect_exit 137 "killed command -> 128+9" -- "$BENCHRUN" sample --backend sim -o "$T/s2" -- sh -c 'kill -9 $$'
expect_exit 127 "missing command" -- "$BENCHRUN" sample --backend sim -o "$T/s3" -- /nonexistent/cmd
expect_grep "cannot run '/nonexistent/cmd'" "$T/err" "missing command named"

# Multi-node file names.
expect_exit 0 "--node" -- "$BENCHRUN" sample --backend sim --node nodeA --gpus 2 -p w -o "$T/n" -- true
[ -f "$T/n/profiling_result_w_nodeA_2.csv" ] && [ -f "$T/n/clock_ref_nodeA.txt" ] && \
    [ -f "$T/n/sampler_w_nodeA.json" ] && pass "node in file names" || fail "node file names: $(ls "$T/n")"

# Usage errors and unwritable output.
expect_exit 2 "no command" -- "$BENCHRUN" sample --backend sim
expect_exit 2 "bad --gpus" -- "$BENCHRUN" sample --gpus 1-x -- true
expect_exit 2 "bad interval" -- "$BENCHRUN" sample --interval-ms 0 -- true
expect_exit 2 "unknown backend" -- "$BENCHRUN" sample --backend frob -- true
expect_exit 2 "prefix with a slash" -- "$BENCHRUN" sample --backend sim -p a/b -- true
touch "$T/afile"
expect_exit 1 "output folder under a file" -- "$BENCHRUN" sample --backend sim -o "$T/afile/sub" -- true
expect_grep "cannot create directory '$T/afile" "$T/err" "unwritable output named"
expect_exit 1 "nvml library missing" -- env BENCHRUN_NVML_LIBRARY=libnvidia-ml-missing.so.1 \
    "$BENCHRUN" sample --backend nvml -o "$T/nv" -- true
expect_grep "cannot load libnvidia-ml-missing.so.1" "$T/err" "missing library named"
finish

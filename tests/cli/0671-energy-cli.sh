#!/bin/bash
# 0671-energy-cli: `benchrun energy` command line and inputs: a seed-layout
# power run worked by hand (no energy_J column: inst_power_W x time), no
# kernel trace (all idle), --energy-from/--fit-from/--lag-ms/--telemetry/
# --out-dir, the Perfetto trace (tests/cli/check_trace.py: one process per
# GPU, slices that nest per lane, power/clock/temperature counters) and its
# size bound on 300,000 launches, malformed and missing inputs (file:line,
# exit 1), usage errors (exit 2).
. "$(dirname "$0")/lib.sh"
GEN=$BR_BINARY_DIR/tests/gen_power
json() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
check() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$3', expected '$2'"; fi; }
TH='"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"'

# --- the seed's telemetry layout, by hand ------------------------------------
# inst_power_W sample i is the mean over [t(i-1), t(i)); the kernel runs 1-3 ms:
# [1,2) at 300 W and [2,3) at 400 W -> 0.3 + 0.4 = 0.7 J, no idle in its window.
S=$T/seed
mkdir -p "$S/ktrace_synth"
{ echo "device_id=0 interval_ms=1 counter_resolution_uJ=15.259"
  echo "timestamp_ns,current_socket_power_W,inst_power_W,gfx_clock_MHz,edge_temp_C,hotspot_temp_C"
  for i in 0 1 2 3 4; do echo "$((i * 1000000)),111,$(((i + 1) * 100)),$((1000 + i * 100)),nan,50"; done
} > "$S/profiling_result_synth_0.csv"
{ echo "$TH"
  echo '"KERNEL_DISPATCH","Agent 4",1,1,7,1,1,"void k1(int*)",1,1000000,3000000,0,0,8,0,16,64,1,1,64,1,1'
} > "$S/ktrace_synth/synth_7_kernel_trace.csv"
expect_exit 0 "energy on a seed-layout run" -- "$BENCHRUN" energy "$S"
E=$S/energy
check "k1 energy by hand" "0.7" "$(json "$E/energy_summary.json" 'round(j["kernels"][0]["energy_J"], 12)')"
check "k1 display name (the seed's: the first 80 characters)" "void k1(int*)" "$(json "$E/energy_summary.json" 'j["kernels"][0]["kernel"]')"
check "k1 clock: 1200 over [1,2), 1300 over [2,3)" "1250.0" "$(json "$E/energy_summary.json" 'j["kernels"][0]["clock_running_MHz"]')"
check "power x time of inst_power_W" "power x time inst_power_W" "$(json "$E/energy_summary.json" 'j["whole_run"]["energy_source"] + " " + j["gpus"][0]["power_column"]')"
check "no idle in the kernel window" "0.0" "$(json "$E/energy_summary.json" 'j["whole_run"]["idle_J"]')"
check "agent matched (only file)" "only telemetry file of the node" "$(json "$E/energy_summary.json" 'j["gpus"][0]["trace_gpus"][0]["matched_by"]')"
expect_grep '^void k1\(int\*\),void k1\(int\*\),1,2\.0,0\.70*1?,100\.0,350\.0,1250\.0,' "$E/energy_per_kernel.csv" "CSV row: launches, ms, J, share, W, MHz"
expect_grep '^TOTAL,TOTAL,' "$E/energy_per_kernel.csv" "CSV ends with TOTAL"
expect_grep '^## Energy' "$E/energy.md" "energy.md has the Energy section"
expect_grep '^\| void k1\(int\\\*\) \| 0\.7 \| time \| 0\.7 \| 100 \| 350 \|' "$E/energy.md" "energy.md row (Markdown escaped; split by time: no fit)"
expect_exit 0 "trace of the seed-layout run" -- python3 "$BR_SOURCE_DIR/tests/cli/check_trace.py" "$E/power_trace.json" 1 1

# --- copies, by hand: two GPUs (agents 4, 5 <-> devices 0, 1) ---------------
# inst_power_W (i+1)*100 W over [i-1, i) ms on both. k1 [1,3) ms on each GPU:
# 0.7 J each; a D2D copy on agent 4 [3,4): 0.5 J; a P2P copy 4 -> 5 [4,5)
# occupies both GPUs: 0.6 J on each; GPU 1 is idle over [3,4): 0.5 J; a
# host-to-host copy occupies no GPU: left out, with a warning.
C=$T/copies
mkdir -p "$C/ktrace_synth"
for d in 0 1; do
    { echo "device_id=$d interval_ms=1"
      echo "timestamp_ns,current_socket_power_W,inst_power_W,gfx_clock_MHz,edge_temp_C,hotspot_temp_C"
      for i in 0 1 2 3 4 5; do echo "$((i * 1000000)),111,$(((i + 1) * 100)),1000,nan,50"; done
    } > "$C/profiling_result_synth_$d.csv"
done
{ echo "$TH"
  echo '"KERNEL_DISPATCH","Agent 4",1,1,7,1,1,"void k1(int*)",1,1000000,3000000,0,0,8,0,16,64,1,1,64,1,1'
  echo '"KERNEL_DISPATCH","Agent 5",1,1,7,2,1,"void k1(int*)",2,1000000,3000000,0,0,8,0,16,64,1,1,64,1,1'
} > "$C/ktrace_synth/synth_7_kernel_trace.csv"
{ echo '"Kind","Direction","Stream_Id","Source_Agent_Id","Destination_Agent_Id","Correlation_Id","Start_Timestamp","End_Timestamp","Bytes"'
  echo '"MEMORY_COPY","MEMORY_COPY_DEVICE_TO_DEVICE",7,"Agent 4","Agent 4",3,3000000,4000000,1024'
  echo '"MEMORY_COPY","MEMORY_COPY_DEVICE_TO_DEVICE",7,"Agent 4","Agent 5",4,4000000,5000000,1024'
  echo '"MEMORY_COPY","MEMORY_COPY_HOST_TO_HOST",7,"Host","Host",5,1000000,2000000,1024'
} > "$C/ktrace_synth/synth_7_memory_copy_trace.csv"
expect_exit 0 "energy with copies" -- "$BENCHRUN" energy "$C"
expect_grep '1 host-to-host copies left out' "$T/err" "host-to-host copy left out, said"
CJ=$C/energy/energy_summary.json
check "copy rows" "['copy D2D', 'copy P2P']" "$(json "$CJ" '[c["kernel"] for c in j["copies"]]')"
check "D2D on GPU 0: 0.5 J" "0.5" "$(json "$CJ" 'round(j["copies"][0]["energy_J"], 12)')"
check "P2P on both GPUs: 0.6 + 0.6 J" "1.2" "$(json "$CJ" 'round(j["copies"][1]["energy_J"], 12)')"
check "k1 on both GPUs: 0.7 + 0.7 J" "1.4" "$(json "$CJ" 'round(j["kernels"][0]["energy_J"], 12)')"
check "idle: GPU 1 over [3,4)" "0.5" "$(json "$CJ" 'round(j["whole_run"]["idle_J"], 12)')"
check "total = kernels + copies + idle" "3.6 1.4 1.7" "$(json "$CJ" '" ".join(str(round(j["whole_run"][k], 12)) for k in ("energy_J", "kernels_J", "copies_J"))')"

# --- the outputs are one set: replaced whole, a foreign folder refused ---------
touch "$E/mine.txt"
expect_exit 0 "energy again over its own set" -- "$BENCHRUN" energy "$S"
[ -f "$E/mine.txt" ] && [ -f "$E/energy_summary.json" ] && pass "set replaced, the user's file kept" \
    || fail "set not replaced as a whole"
mkdir -p "$T/foreign" && echo x >"$T/foreign/notes.txt"
expect_exit 1 "a folder that is no energy output" -- "$BENCHRUN" energy "$S" -o "$T/foreign"
expect_grep "is not an energy folder" "$T/err" "refused, says why"

# --- no kernel trace: the sampled span is idle --------------------------------
N=$T/notrace
mkdir -p "$N"
cp "$S/profiling_result_synth_0.csv" "$N/"
expect_exit 0 "energy without a trace" -- "$BENCHRUN" energy "$N"
expect_grep 'no \*kernel_trace.csv' "$T/err" "warns that there is no trace"
check "all idle: 0.2+0.3+0.4+0.5 J" "1.4" "$(json "$N/energy/energy_summary.json" 'round(j["whole_run"]["idle_J"], 12)')"

# --- options on a generated counter run ----------------------------------------
G=$T/gen
"$GEN" --gpus 2 --launches 200 "$G" >/dev/null || fail "gen_power"
expect_exit 0 "--energy-from power --fit-from none --out-dir" -- "$BENCHRUN" energy "$G" --energy-from power --fit-from none -o "$T/o1"
check "power x time on request" "power x time" "$(json "$T/o1/energy_summary.json" 'j["whole_run"]["energy_source"]')"
check "no fit on request" "False" "$(json "$T/o1/energy_summary.json" 'j["fit"]["done"]')"
expect_exit 0 "--lag-ms 0 --fit-from counter" -- "$BENCHRUN" energy "$G" --lag-ms 0 --fit-from counter -o "$T/o2"
check "lag given, not estimated" "0.0 False energy counter" "$(json "$T/o2/energy_summary.json" 'j["fit"]["lag_ms"], j["fit"]["lag_estimated"], j["fit"]["source"]' | tr -d "(),'")"
expect_exit 0 "--telemetry one GPU of two" -- "$BENCHRUN" energy "$G" -T "$G/profiling_result_gen_1.csv" -o "$T/o3"
check "one GPU read" "1 profiling_result_gen_1.csv" "$(json "$T/o3/energy_summary.json" 'len(j["gpus"]), j["gpus"][0]["file"]' | tr -d "(),'")"
expect_exit 0 "two GPUs, 400 launches in the trace" -- python3 "$BR_SOURCE_DIR/tests/cli/check_trace.py" "$T/o2/power_trace.json" 2 400

# --- size bound: 300,000 launches ----------------------------------------------
B=$T/big
"$GEN" --kernel tiny:200:0.05 --kernel small:300:0.08 --gap-ms 0.05 --launches 300000 "$B" >/dev/null || fail "gen_power big"
expect_exit 0 "energy on 300,000 launches" -- "$BENCHRUN" energy "$B" --fit-from none
n=$(json "$B/energy/power_trace.json" 'sum(1 for e in j["traceEvents"] if e["ph"] == "X")')
if [ "$n" -le 200000 ]; then pass "slices bounded ($n <= 200000)"; else fail "slices not bounded: $n"; fi
check "merging recorded" "True" "$(json "$B/energy/power_trace.json" 'j["otherData"]["slices_merged"] > 0')"
expect_exit 0 "bounded trace is valid" -- python3 "$BR_SOURCE_DIR/tests/cli/check_trace.py" "$B/energy/power_trace.json" 1 -1
check "every launch still in the CSV" "300000" "$(python3 -c 'import csv,sys; print(sum(int(r["launches"]) for r in csv.DictReader(open(sys.argv[1])) if r["kernel"] in ("tiny", "small")))' "$B/energy/energy_per_kernel.csv")"

# --- malformed and missing inputs ----------------------------------------------
M=$T/bad
mkdir -p "$M"
cp -r "$S/ktrace_synth" "$M/"
{ head -3 "$S/profiling_result_synth_0.csv"; echo "2000000,111,oops,1000,nan,50"; } > "$M/profiling_result_synth_0.csv"
expect_exit 1 "malformed telemetry row" -- "$BENCHRUN" energy "$M"
expect_grep 'profiling_result_synth_0.csv:4: column .inst_power_W.' "$T/err" "error names file:line and column"
mkdir -p "$T/empty"
expect_exit 1 "no telemetry" -- "$BENCHRUN" energy "$T/empty"
expect_grep 'no telemetry file' "$T/err" "says there is no telemetry"
{ head -4 "$S/profiling_result_synth_0.csv"; printf '2000000,111,300,1100'; } > "$M/profiling_result_synth_0.csv"
expect_exit 0 "truncated last line" -- "$BENCHRUN" energy "$M"
expect_grep 'cut short' "$T/err" "warns about the cut line"
{ echo "$TH"; echo '"KERNEL_DISPATCH","Agent 4",1,1,7,1,1,"k",1,5,x,0,0,8,0,16,64,1,1,64,1,1'; } > "$M/ktrace_synth/synth_7_kernel_trace.csv"
expect_exit 1 "malformed trace" -- "$BENCHRUN" energy "$M"
expect_grep 'synth_7_kernel_trace.csv:2:' "$T/err" "trace error names file:line"
expect_exit 1 "not a folder" -- "$BENCHRUN" energy "$T/nope"

# --- usage ---------------------------------------------------------------------
expect_exit 2 "no PROF_DIR" -- "$BENCHRUN" energy
expect_exit 2 "two folders" -- "$BENCHRUN" energy "$S" "$N"
expect_exit 2 "bad --fit-from" -- "$BENCHRUN" energy "$S" --fit-from sometimes
expect_exit 2 "bad --energy-from" -- "$BENCHRUN" energy "$S" --energy-from driver
expect_exit 2 "bad --lag-ms" -- "$BENCHRUN" energy "$S" --lag-ms soon
expect_exit 2 "unknown option" -- "$BENCHRUN" energy "$S" --frobnicate
expect_exit 0 "--help" -- "$BENCHRUN" energy --help
expect_grep 'usage: benchrun energy PROF_DIR' "$T/out" "help on stdout"
finish

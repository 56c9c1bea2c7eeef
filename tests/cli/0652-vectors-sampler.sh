#!/bin/bash
# 0652-vectors-sampler: `benchrun sample --backend sim` (the real sampler and
# its file format) around a short command, a kernel trace placed inside the
# sampled span, then `benchrun vectors`: the metadata line is understood
# (requested interval, node=none), samples outside the kernel window are
# dropped, the sampler's own report and clock_ref.txt are embedded.
. "$(dirname "$0")/lib.sh"

R=$T/prof-sim
expect_exit 0 "sampler (sim) around sleep" -- "$BENCHRUN" sample --backend sim --gpus 0,1 \
    --interval-ms 1 --prefix demo -o "$R" -- sleep 0.3
f=$R/profiling_result_demo_0.csv
[ -s "$f" ] || { fail "no telemetry written"; finish; }
first=$(awk -F, 'NR==3{print $1}' "$f")
last=$(tail -n 1 "$f" | cut -d, -f1)
a=$(( first + (last - first) / 4 )); b=$(( last - (last - first) / 4 ))
mkdir -p "$R/ktrace_demo/host"
{ echo '"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"'
  echo "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,5,1,2,\"void k(double*)\",1,$a,$b,0,0,8,0,16,64,1,1,64,1,1"
} > "$R/ktrace_demo/host/5_kernel_trace.csv"

expect_exit 0 "vectors on the sampler's output" -- "$BENCHRUN" vectors "$R" --tdp 750 --per-gpu
V=$R/sampling_vectors.json
py() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); d=j["description"]; print(eval(sys.argv[2]))' "$V" "$1"; }
[ "$(py 'd["sampling_detail"]["requested_interval_ms"]')" = "1.0" ] && pass "requested interval from the metadata" || fail "requested interval"
[ "$(py 'd["window_detail"]["samples_dropped_before"] > 0 and d["window_detail"]["samples_dropped_after"] > 0')" = True ] && pass "samples dropped on both sides" || fail "trimming"
[ "$(py 'd["samples_used"] < d["samples_total"]')" = True ] && pass "used < total" || fail "used/total"
[ "$(py '" ".join(g["key_suffix"] for g in d["gpus_sampled_detail"])')" = "gpu0 gpu1" ] && pass "node=none: plain gpu suffixes" || fail "suffixes: $(py '[g["key_suffix"] for g in d["gpus_sampled_detail"]]')"
[ "$(py '"sampler_demo.json" in d["sampling_detail"]["sampler_reports"]')" = True ] && pass "sampler report embedded" || fail "sampler report"
[ "$(py '"boottime_ns" in d["clock_alignment_detail"]["clock_ref"]')" = True ] && pass "clock_ref embedded" || fail "clock_ref"
[ "$(py 'd["clock_alignment_detail"]["samples_cover_window"]')" = True ] && pass "samples cover the window" || fail "alignment"
[ "$(py '"socket_power_gpu1" in j')" = True ] && pass "per-GPU vectors" || fail "per-GPU vectors"
median=$(py 'd["sampling_detail"]["achieved_interval_ms"]["median"]')
echo "achieved median interval under the sim backend here: $median ms"
finish

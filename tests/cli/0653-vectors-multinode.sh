#!/bin/bash
# 0653-vectors-multinode: CLOCK_BOOTTIME is per node, so a multi-node power
# run's samples are trimmed per node with that node's traces only
# (ktrace_<tag>/<node>/). Two node folders whose clocks are 3 days apart (the
# test cluster's "nodes" share one machine, so only such a run shows it): one
# window over both nodes would keep samples that lie outside each node's own
# kernel window. Known answers for the pooled, per-node (<vector>_<node>) and
# per-GPU vectors, the per-node alignment, and the warnings of a node without
# a trace folder.
. "$(dirname "$0")/lib.sh"

H="timestamp_ns,current_socket_power_W,inst_power_W,gfx_clock_MHz,edge_temp_C,hotspot_temp_C,energy_J,mem_clock_MHz"
TH='"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"'
json() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
check() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$3', expected '$2'"; fi; }
D=259200000000000                 # 3 days in ns: nid002 booted 3 days before nid001
trace() {  # trace DIR NODE START END
    mkdir -p "$1/ktrace_app/$2"
    { echo "$TH"
      echo "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,9,1,3,\"k\",1,$3,$(($3 + 5)),0,0,8,0,16,64,1,1,64,1,1"
      echo "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,9,2,3,\"k\",2,$(($4 - 5)),$4,0,0,8,0,16,64,1,1,64,1,1"
    } > "$1/ktrace_app/$2/app_$RANDOM$RANDOM""_kernel_trace.csv"
}
telem() {  # telem DIR NODE GPU OFFSET INSIDE_W OUTSIDE_W
    { echo "node=$2 device=$3 interval_ms=1 backend=sim clock=CLOCK_BOOTTIME"; echo "$H"
      echo "$(($4 + 500)),$6,$6,1000,40,50,0,1300"      # before its node's window
      echo "$(($4 + 2000)),$5,$5,1000,40,50,1,1300"
      echo "$(($4 + 3000)),$5,$5,1000,40,50,2,1300"
      echo "$(($4 + 5000)),$6,$6,1000,40,50,3,1300"     # after its node's window
    } > "$1/profiling_result_app_$2_$3.csv"
}
M=$T/prof-200
mkdir -p "$M"
for g in 0 1; do
    telem "$M" nid001 $g 0 750 1425           # inside: 1.0 TDP (entry 5); outside 1.9 (entry 14)
    telem "$M" nid002 $g $D 1125 1425         # inside: 1.5 TDP (entry 10)
done
trace "$M" nid001 1000 4000
trace "$M" nid002 $((D + 1000)) $((D + 4000))
printf 'boottime_ns=900\n' > "$M/clock_ref_nid001.txt"
printf 'boottime_ns=%s\n' $((D + 900)) > "$M/clock_ref_nid002.txt"

expect_exit 0 "two nodes 3 days apart, --per-gpu" -- "$BENCHRUN" vectors "$M" --tdp 750 --per-gpu
V=$M/sampling_vectors.json
check "per-node window" "True" "$(json "$V" 'j["description"]["window_detail"]["per_node"]')"
check "samples used / total (2 of 4 per GPU)" "8 16" "$(json "$V" '"%d %d" % (j["description"]["samples_used"], j["description"]["samples_total"])')"
check "dropped before/after" "4 4" "$(json "$V" '"%d %d" % (j["description"]["window_detail"]["samples_dropped_before"], j["description"]["window_detail"]["samples_dropped_after"])')"
check "pooled: half 1.0, half 1.5, nothing at 1.9" "0.5 0.5 0.0" "$(json "$V" '"%s %s %s" % (j["inst_power"][5], j["inst_power"][10], j["inst_power"][14])')"
check "per-node vector nid001" "1.0 1.0" "$(json "$V" '"%s %s" % (j["inst_power_nid001"][5], sum(j["inst_power_nid001"]))')"
check "per-node vector nid002" "1.0 1.0" "$(json "$V" '"%s %s" % (j["inst_power_nid002"][10], sum(j["inst_power_nid002"]))')"
check "per-GPU vector of nid002 gpu1" "1.0" "$(json "$V" 'j["inst_power_nid002_gpu1"][10]')"
check "keys" "inst_power_nid001 inst_power_nid002 inst_power_nid001_gpu0 inst_power_nid001_gpu1 inst_power_nid002_gpu0 inst_power_nid002_gpu1" "$(json "$V" '" ".join(k for k in j if k.startswith("inst_power_"))')"
check "node windows" "nid001 1000 4000 nid002 $((D + 1000)) $((D + 4000))" "$(json "$V" '" ".join("%s %d %d" % (n["node"], n["start_ns"], n["end_ns"]) for n in j["description"]["window_detail"]["nodes"])')"
check "per-node alignment: first kernel 0.5 ms after the node's first sample" "0.0005 0.0005" "$(json "$V" '" ".join(str(n["first_kernel_after_first_sample_ms"]) for n in j["description"]["window_detail"]["nodes"])')"
check "per-node coverage" "True True" "$(json "$V" '" ".join(str(n["samples_cover_window"]) for n in j["description"]["window_detail"]["nodes"])')"
expect_no_grep "do not cover" "$T/err" "no coverage warning (each node against its own window)"

# --no-trim keeps all 16
expect_exit 0 "--no-trim" -- "$BENCHRUN" vectors "$M" --tdp 750 --per-gpu --no-trim --out "$T/nt.json"
check "--no-trim: all samples" "16" "$(json "$T/nt.json" 'j["description"]["samples_used"]')"
check "--no-trim: 1.9 TDP appears" "0.5" "$(json "$T/nt.json" 'j["inst_power"][14]')"

# a node without its own trace folder: its samples are kept, with a warning
rm -r "$M/ktrace_app/nid002"
expect_exit 0 "nid002 has no trace folder" -- "$BENCHRUN" vectors "$M" --tdp 750 --per-gpu --out "$T/one.json"
expect_grep "node nid002: no kernel trace" "$T/err" "warning names the node"
check "nid001 trimmed, nid002 untrimmed" "2 4" "$(json "$T/one.json" '"%d %d" % (j["description"]["window_detail"]["nodes"][0]["samples_used"] // 2, j["description"]["window_detail"]["nodes"][1]["samples_used"] // 2)')"

# single node folder layout of older runs (traces not in node folders): one window, as before
rm -r "$M/ktrace_app/nid001"
trace "$M" . 1000 4000
expect_exit 0 "traces outside node folders" -- "$BENCHRUN" vectors "$M" --tdp 750 --out "$T/flat.json"
check "not per node" "False" "$(json "$T/flat.json" 'j["description"]["window_detail"]["per_node"]')"
finish

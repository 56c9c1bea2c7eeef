#!/bin/bash
# 0650-vectors: `benchrun vectors` on small hand-written power runs: known
# answers (900/1275/1425 W of a 750 W TDP on numpy's edges), TDP from the
# gfx942 arch profile through run.json, all-NaN edge temperature skipped,
# trimming vs --no-trim, --per-gpu and multi-node names, --label/--out,
# truncated last line (warning, exit 0), malformed CSV (file:line, exit 1),
# no sample in the window, usage errors (exit 2).
. "$(dirname "$0")/lib.sh"

H="timestamp_ns,current_socket_power_W,inst_power_W,gfx_clock_MHz,edge_temp_C,hotspot_temp_C,energy_J,mem_clock_MHz"
TH='"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"'
# json FILE EXPR: prints a Python expression over the parsed JSON j.
json() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
check() {  # check DESC EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$3', expected '$2'"; fi
}
trace() {  # trace DIR START END
    mkdir -p "$1/ktrace_app/node7"
    { echo "$TH"
      echo "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,9,1,3,\"void f<int, 2>(int*, int)\",1,$2,$(($2 + 5)),0,0,8,0,16,64,1,1,64,1,1"
      echo "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,9,2,3,\"void f<int, 2>(int*, int)\",2,$(($3 - 5)),$3,0,0,8,0,16,64,1,1,64,1,1"
    } > "$1/ktrace_app/node7/99_kernel_trace.csv"
}

# --- one GPU, TDP from gfx942.json via run.json ---------------------------
R=$T/prof-99
mkdir -p "$R"
cat > "$R/run.json" <<'J'
{ "stage": "power", "workload": "demo", "job_id": "99", "gpu_arch": "gfx942" }
J
{ echo "# device=0 interval_ms=1 backend=sim clock=CLOCK_BOOTTIME"
  echo "$H"
  echo "1000,100,100,138,nan,35,0,1300"      # before the window
  echo "2000,900,900,2100,nan,50,1,1300"     # 1.2 -> entry 7 (numpy edge 1.1999999999999997)
  echo "3000,1275,1275,2150,nan,60,2,1300"   # 1.7 -> entry 12
  echo "4000,1425,1425,1500,nan,70,3,1300"   # 1.9 -> entry 14
  echo "5000,1500,1500,2200,nan,115,4,1300"  # 2.0: population, no entry
  echo "9000,700,700,700,nan,40,5,1300"      # after the window
} > "$R/profiling_result_demo_0.csv"
printf 'boottime_ns=900 monotonic_ns=800 realtime_ns=1700000000000000000\n' > "$R/clock_ref.txt"
trace "$R" 1500 6000

expect_exit 0 "vectors on a one-GPU run" -- "$BENCHRUN" vectors "$R"
expect_grep "^vectors: $R/sampling_vectors.json" "$T/out" "summary names the output"
expect_grep "edge_temp +skipped: no valid samples in edge_temp_C \(sensor not exposed: all nan\)" "$T/out" "edge_temp skipped in the summary"
V=$R/sampling_vectors.json
check "inst_power known answer" "[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0, 0.0, 0.25, 0.0, 0.25]" "$(json "$V" 'j["inst_power"]')"
check "socket_power = inst_power here" "$(json "$V" 'j["inst_power"]')" "$(json "$V" 'j["socket_power"]')"
check "gfx_frequency: 2100 in entry 21, 2150 too, 2200 above" "[0.25, 0.5]" "$(json "$V" '[j["gfx_frequency"][15], j["gfx_frequency"][21]]')"
check "hotspot_temp entries" "[0.25, 0.25, 0.25]" "$(json "$V" '[j["hotspot_temp"][i] for i in (4, 6, 8)]')"
check "no edge_temp key" "False" "$(json "$V" '"edge_temp" in j')"
check "skipped_vectors" "edge_temp" "$(json "$V" '",".join(s["name"] for s in j["description"]["skipped_vectors"])')"
check "TDP from gfx942.json" "750.0 True" "$(json "$V" 'j["description"]["vector_creation_detail"]["tdp_W"], j["description"]["vector_creation_detail"]["tdp_source"].endswith("arch/gfx942.json")' | tr -d '(),')"
check "label from run.json" "demo" "$(json "$V" 'j["description"]["label"]')"
check "GPU name from the profile" "AMD Instinct MI300X" "$(json "$V" 'j["description"]["gpu_detail"]["name"]')"
check "window and drops" "1500 6000 1 1" "$(json "$V" '" ".join(str(j["description"]["window_detail"][k]) for k in ("start_ns","end_ns","samples_dropped_before","samples_dropped_after"))')"
check "samples total/used" "6 4" "$(json "$V" '"%d %d" % (j["description"]["samples_total"], j["description"]["samples_used"])')"
check "population and above" "4 1" "$(json "$V" '"%d %d" % (j["description"]["bins"]["inst_power"]["samples_in_population"], j["description"]["bins"]["inst_power"]["samples_above_last_edge"])')"
check "edge 7 as numpy prints it" "1.1999999999999997" "$(json "$V" 'repr(j["description"]["bins"]["inst_power"]["edges"][7])')"
check "clock_ref recorded" "900" "$(json "$V" 'j["description"]["clock_alignment_detail"]["clock_ref"]["boottime_ns"]')"
check "alignment: samples cover the window" "True" "$(json "$V" 'j["description"]["clock_alignment_detail"]["samples_cover_window"]')"
check "requested interval" "1.0" "$(json "$V" 'j["description"]["sampling_detail"]["requested_interval_ms"]')"
check "run_info embedded" "power" "$(json "$V" 'j["description"]["run_info_fields"]["stage"]')"
ls "$R" | grep -q '\.tmp\.' && fail "temporary file left behind" || pass "no temporary file left"

expect_exit 0 "--no-trim --label --out" -- "$BENCHRUN" vectors "$R" --no-trim --label "My App" --out "$T/nt.json"
check "--no-trim uses every sample" "6" "$(json "$T/nt.json" 'j["description"]["samples_used"]')"
check "--label" "My App" "$(json "$T/nt.json" 'j["description"]["label"]')"
check "--no-trim: 700 W (0.9333) lands in entry 4" "0.2" "$(json "$T/nt.json" 'j["inst_power"][4]')"

expect_exit 0 "--tdp overrides the profile" -- "$BENCHRUN" vectors "$R" --tdp 600 --out "$T/600.json"
check "900 W of 600 W = 1.5 -> entry 10" "0.25" "$(json "$T/600.json" 'j["inst_power"][10]')"

# --- truncated last line: warning, not fatal --------------------------------
printf '6000,800,800,1000,nan,50,6,1' >> "$R/profiling_result_demo_0.csv"
expect_exit 0 "truncated last line is not fatal" -- "$BENCHRUN" vectors "$R" --out "$T/tr.json"
expect_grep "profiling_result_demo_0.csv:9: last line has no end" "$T/err" "truncation reported with file:line"
check "truncation recorded" "True" "$(json "$T/tr.json" 'j["description"]["gpus_sampled_detail"][0]["last_line_truncated"]')"

# --- multi-GPU, multi-node: pooling and per-GPU names --------------------------
M=$T/prof-100
mkdir -p "$M"
for node in nid001 nid002; do for g in 0 1; do
    w=$([ $node = nid001 ] && echo 750 || echo 1500)
    { echo "node=$node device=$g interval_ms=1 backend=sim"; echo "$H"
      echo "2000,$w,$w,1000,40,50,0,1300"; echo "3000,$w,$w,1000,40,50,0,1300"; } \
        > "$M/profiling_result_app_${node}_$g.csv"
done; done
trace "$M" 1000 4000
printf '# clock reference\nboottime_ns=111\n' > "$M/clock_ref_nid001.txt"
printf '# clock reference\nboottime_ns=222\n' > "$M/clock_ref_nid002.txt"
expect_exit 0 "multi-node --per-gpu" -- "$BENCHRUN" vectors "$M" --tdp 750 --per-gpu
V=$M/sampling_vectors.json
check "pooled: half at 1.0 (entry 5), half at 2.0 (above)" "0.5 0.5 4" "$(json "$V" '"%s %s %d" % (j["inst_power"][5], sum(j["inst_power"]), j["description"]["bins"]["inst_power"]["samples_above_last_edge"])')"
check "per-node and per-GPU keys" "inst_power_nid001 inst_power_nid002 inst_power_nid001_gpu0 inst_power_nid001_gpu1 inst_power_nid002_gpu0 inst_power_nid002_gpu1" "$(json "$V" '" ".join(k for k in j if k.startswith("inst_power_"))')"
check "nid001 GPU vector" "1.0" "$(json "$V" 'j["inst_power_nid001_gpu1"][5]')"
check "nid002 GPU: all above the last edge" "0.0" "$(json "$V" 'sum(j["inst_power_nid002_gpu0"])')"
check "edge_temp present when measured" "True" "$(json "$V" '"edge_temp" in j')"
check "4 GPUs sampled" "4" "$(json "$V" 'len(j["description"]["gpus_sampled_detail"])')"
check "per-node clock_ref files" "111 222" "$(json "$V" '" ".join(v["boottime_ns"] for v in sorted(j["description"]["clock_alignment_detail"]["clock_ref_nodes"].values(), key=lambda v: v["boottime_ns"]))')"

# --- no sample in range: a vector with an empty population is skipped ------------
C=$T/prof-cold
mkdir -p "$C"
{ echo "x=1"; echo "$H"; echo "1,100,100,1000,20,25,0,1"; echo "2,100,100,1000,21,26,0,1"; } \
    > "$C/profiling_result_c_0.csv"
expect_exit 0 "all power below 0.5 TDP, all temperatures below 30 C" -- "$BENCHRUN" vectors "$C" --tdp 750
check "only gfx_frequency written" "['gfx_frequency']" "$(json "$C/sampling_vectors.json" '[k for k in j if k != "description"]')"
check "skipped with the reason" "no sample at or above the first edge (x >= 0.5 fraction of TDP)" "$(json "$C/sampling_vectors.json" 'j["description"]["skipped_vectors"][0]["reason"]')"
check "four skipped" "4" "$(json "$C/sampling_vectors.json" 'len(j["description"]["skipped_vectors"])')"

# --- errors ----------------------------------------------------------------
expect_exit 2 "no PROF_DIR" -- "$BENCHRUN" vectors
expect_grep "expected the power run folder" "$T/err" "usage error names what is missing"
expect_exit 2 "unknown option" -- "$BENCHRUN" vectors "$R" --frob
expect_exit 2 "bad --tdp" -- "$BENCHRUN" vectors "$R" --tdp abc
expect_exit 2 "two folders" -- "$BENCHRUN" vectors "$R" "$M"
expect_exit 1 "not a folder" -- "$BENCHRUN" vectors "$T/nope"
mkdir -p "$T/empty"
expect_exit 1 "no telemetry file" -- "$BENCHRUN" vectors "$T/empty"
expect_grep "no telemetry file" "$T/err" "says there is no telemetry file"

B=$T/prof-bad
mkdir -p "$B"
{ echo "x=1"; echo "$H"; echo "1,2,3,4,5,6,7,8"; echo "2,2,3,4,5"; } > "$B/profiling_result_b_0.csv"
expect_exit 1 "malformed row" -- "$BENCHRUN" vectors "$B" --tdp 750
expect_grep "profiling_result_b_0.csv:4: expected 8 fields as in the header, found 5" "$T/err" "error names file:line"
{ echo "x=1"; echo "timestamp_ns,inst_power_W"; } > "$B/profiling_result_b_0.csv"
expect_exit 1 "missing column" -- "$BENCHRUN" vectors "$B" --tdp 750
expect_grep "profiling_result_b_0.csv:2: missing column 'current_socket_power_W'" "$T/err" "missing column named"
{ echo "x=1"; echo "$H"; echo "10,2,3,4,5,6,7,8"; } > "$B/profiling_result_b_0.csv"
trace "$B" 5000 9000
expect_exit 1 "no sample in the kernel window" -- "$BENCHRUN" vectors "$B" --tdp 750
expect_grep "no telemetry sample inside the kernel window" "$T/err" "window error explains"
expect_exit 1 "no TDP known" -- "$BENCHRUN" vectors "$B"
expect_grep "pass --arch NAME or --tdp W" "$T/err" "asks for --arch or --tdp"
ls "$B" | grep -q sampling_vectors && fail "output written on error" || pass "no output on error"
finish

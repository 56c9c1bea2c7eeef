#!/bin/bash
# 0316-analyze-nvidia-regs-from-trace: NVIDIA counter rows whose VGPR_Count is 0
# (CUPTI could not read the launched function's registers; seen on the H200 for
# calib_reglimit) take registers per thread from the power-run kernel trace
# (CUPTI activity records: 128). gh100 limit for 128 registers x 256 threads:
# 4096 registers per warp, 4 warps per sub-partition = 16 warps/SM; without the
# trace only the block limits apply (64). Achieved 15.5 warps: 96.875 % of 16.
. "$(dirname "$0")/lib.sh"
python3 - "$T" <<'PY'
import os, sys
d = sys.argv[1]
os.makedirs(f"{d}/pmc/02_sm_util"); os.makedirs(f"{d}/kt")
cyc = 1.98 * 1e6 * 132                      # 1 ms at 1980 MHz on 132 SMs
ctrs = {"sm__cycles_active.sum": cyc, "sm__warps_active.sum": 15.5 * cyc,
        "smsp__inst_executed.sum": 1e6, "smsp__thread_inst_executed.sum": 32e6,
        "smsp__issue_active.sum": 1e5, "sm__pipe_tensor_cycles_active.sum": 0,
        "sm__cycles_elapsed.sum": cyc, "gpu__time_duration.sum": 1e6}
hdr = ("Correlation_Id,Dispatch_Id,Agent_Id,Queue_Id,Process_Id,Thread_Id,Grid_Size,Kernel_Id,"
       "Kernel_Name,Workgroup_Size,LDS_Block_Size,Scratch_Size,VGPR_Count,Accum_VGPR_Count,"
       "SGPR_Count,Counter_Name,Counter_Value,Start_Timestamp,End_Timestamp")
with open(f"{d}/pmc/02_sm_util/02_sm_util_7_counter_collection.csv", "w") as f:
    f.write(",".join(f'"{h}"' for h in hdr.split(",")) + "\n")
    for i in (1, 2):
        for c, v in ctrs.items():
            f.write(f'{i},{i},"Agent 0",0,7,7,270336,1,"calib_reglimit",256,0,264,0,0,0,'
                    f'"{c}",{v!r},{i * 10**7},{i * 10**7 + 10**6}\n')
th = ("Kind,Agent_Id,Queue_Id,Stream_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,"
      "Start_Timestamp,End_Timestamp,LDS_Block_Size,Scratch_Size,VGPR_Count,Accum_VGPR_Count,"
      "SGPR_Count,Workgroup_Size_X,Workgroup_Size_Y,Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z")
with open(f"{d}/kt/calib_9_kernel_trace.csv", "w") as f:
    f.write(",".join(f'"{h}"' for h in th.split(",")) + "\n")
    for i in (1, 2):
        f.write(f'"KERNEL_DISPATCH","Agent 0",1,7,9,{i},1,"calib_reglimit",{i},{i * 10**7},'
                f'{i * 10**7 + 9 * 10**5},0,264,128,0,0,256,1,1,270336,1,1\n')
PY
col() {   # col CSV METRIC: the calib_reglimit row's value
    python3 -c 'import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["kernel"] == "calib_reglimit": print(r[sys.argv[2]])' "$1" "$2"
}
expect_exit 0 "analyze without a trace" -- "$BENCHRUN" analyze "$T/pmc" --arch gh100 \
    --clock-mhz 1980 --out-dir "$T/a0"
expect_exit 0 "analyze with the power-run trace" -- "$BENCHRUN" analyze "$T/pmc" --arch gh100 \
    --clock-mhz 1980 --power-ktrace "$T/kt" --out-dir "$T/a1"
m0=$(col "$T/a0/per_kernel_metrics.csv" max_waves_CU)
m1=$(col "$T/a1/per_kernel_metrics.csv" max_waves_CU)
o1=$(col "$T/a1/per_kernel_metrics.csv" Occupancy_of_max_pct)
[ "$m0" = 64 ] && pass "registers unknown: block limits only (64)" || fail "no trace: max_waves_CU $m0, want 64"
[ "$m1" = 16 ] && pass "registers from the trace: 16 warps" || fail "trace: max_waves_CU $m1, want 16"
# CSV floats are Python repr (all 17 digits): compare within 1e-9
python3 -c "import sys; sys.exit(abs(float('$o1') - 96.875) > 1e-9)" \
    && pass "occupancy of its limit 96.875 %" || fail "Occupancy_of_max_pct $o1, want 96.875"
# No telemetry, no --clock-mhz: the fallback clock. NVIDIA messages name
# NVIDIA's quantity, never the AMD counter.
expect_exit 0 "analyze with the fallback clock" -- "$BENCHRUN" analyze "$T/pmc" --arch gh100 \
    --out-dir "$T/a2"
expect_grep "own sm__cycles_elapsed / N_SM / time" "$T/err" "fallback warning names sm__cycles_elapsed"
expect_no_grep "GRBM" "$T/err" "no AMD counter in the messages"
expect_grep "sm__cycles_elapsed fallback" "$T/a2/report.md" "report.md clock source"
expect_no_grep "GRBM" "$T/a2/report.md" "no AMD counter in report.md"
expect_no_grep "GRBM" "$T/a2/summary.json" "no AMD counter in summary.json"
finish

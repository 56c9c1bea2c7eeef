#!/bin/bash
# 0913-gpu-multi-tools: the parts of tests/gpu/multi.sh that need no
# GPU. tests/gpu/mlaunch.sh (benchrun's LAUNCHER outside Slurm): N copies with
# SLURM_LOCALID/SLURM_PROCID/SLURM_NTASKS and LOCAL_RANK/RANK/WORLD_SIZE, the
# first failing copy's status, SIGTERM forwarded; `benchrun plain` through it
# with BIND_GPU_PER_TASK=1 (CUDA_VISIBLE_DEVICES = rank; fake 2-GPU nvidia-smi);
# tests/gpu/multi_report.py on a small synthetic run (counter and trace files
# per process, telemetry of the mapping check): PASS rows on good data, FAIL
# when a rank's kernel shows up in another rank's file, FLOPs differ by > 1 %,
# or the power rises in the wrong telemetry file.
. "$(dirname "$0")/lib.sh"
unset SLURM_JOB_ID SLURM_NTASKS SLURM_LOCALID SLURM_PROCID CUDA_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES
ML=$BR_SOURCE_DIR/tests/gpu/mlaunch.sh
REP=$BR_SOURCE_DIR/tests/gpu/multi_report.py
check() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$3', expected '$2'"; fi; }

# --- mlaunch.sh --------------------------------------------------------------
expect_exit 0 "3 copies" -- bash "$ML" -n 3 bash -c 'echo "$SLURM_PROCID $SLURM_LOCALID $SLURM_NTASKS $RANK $LOCAL_RANK $WORLD_SIZE ${SLURM_JOB_ID:-nojob}"'
check "each copy's variables" "0 0 3 0 0 3 nojob|1 1 3 1 1 3 nojob|2 2 3 2 2 3 nojob" "$(sort "$T/out" | paste -sd'|')"
expect_exit 7 "first failing copy's status" -- bash "$ML" -n 3 bash -c 'exit $((SLURM_PROCID == 0 ? 0 : 6 + SLURM_PROCID))'
expect_exit 2 "usage: no -n" -- bash "$ML" echo hi
expect_exit 2 "usage: -n 0" -- bash "$ML" -n 0 echo hi
bash "$ML" -n 2 bash -c 'trap "echo got-term-$SLURM_PROCID; exit 143" TERM; sleep 30 & wait' >"$T/sig.out" 2>&1 &
mpid=$!
sleep 0.5
kill -TERM $mpid
t0=$SECONDS
wait $mpid
rc=$?
check "SIGTERM forwarded, launcher exits with the copies' status" "143" "$rc"
[ $((SECONDS - t0)) -lt 10 ] && pass "stopped promptly" || fail "took $((SECONDS - t0)) s"
check "both copies got SIGTERM" "got-term-0 got-term-1" "$(sort "$T/sig.out" | paste -sd' ')"

# --- benchrun plain through LAUNCHER=mlaunch.sh with BIND_GPU_PER_TASK=1 ---------
mkdir -p "$T/bin"
cat >"$T/bin/nvidia-smi" <<'SMI'
#!/bin/sh
case "$*" in
    *--query-gpu=compute_cap\ *) printf '9.0\n9.0\n' ;;
    *) printf 'NVIDIA H200, 9.0, 580.159.04\nNVIDIA H200, 9.0, 580.159.04\n' ;;
esac
SMI
chmod +x "$T/bin/nvidia-smi"
cat >"$T/r.conf" <<CONF
WORKLOAD=ranks
RESULTS_DIR=$T/results
VENDOR=nvidia
NGPUS=2
NTASKS=2
BIND_GPU_PER_TASK=1
LAUNCHER=(bash $ML -n 2)
app_env() { export NCCL_NVLS_ENABLE=0; }
app_cmd() { APP_CMD=(bash -c 'echo "rank=\$SLURM_PROCID cvd=\$CUDA_VISIBLE_DEVICES nvls=\$NCCL_NVLS_ENABLE"'); }
CONF
expect_exit 0 "plain through mlaunch.sh" -- env PATH="$T/bin:$PATH" "$BENCHRUN" plain "$T/r.conf"
app=$(ls "$T"/results/plain-*/app.txt 2>/dev/null | head -1)
check "one GPU per task" "rank=0 cvd=0 nvls=0|rank=1 cvd=1 nvls=0" "$(grep '^rank=' "$app" | sort | paste -sd'|')"

# --- multi_report.py on a synthetic 2-GPU run --------------------------------------
W=$T/w
mk() {  # mk W FLOP1 HOT_FILE SWAP: writes a synthetic multi.sh work folder
python3 - "$@" <<'PY'
import os, sys
w, flop1, hot, swap = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
TH = ('"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name",'
      '"Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count",'
      '"Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z",'
      '"Grid_Size_X","Grid_Size_Y","Grid_Size_Z"')
CH = '"Correlation_Id","Dispatch_Id","Agent_Id","Queue_Id","Process_Id","Thread_Id","Grid_Size","Kernel_Id","Kernel_Name","Workgroup_Size","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Counter_Name","Counter_Value","Start_Timestamp","End_Timestamp"'
def put(p, text):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, "w").write(text)
pmc, prof, plain = f"{w}/ranks/results/pmc-1", f"{w}/ranks/results/prof-2", f"{w}/ranks/results/plain-0"
pids = {0: 101, 1: 202}
app = ""
for r, pid in pids.items():
    ffma = 1000 if r == 0 else int(1000 * flop1)
    app += f"multi_rank rank={r} pid={pid} visible={r} bus=00000000:0{r + 1}:00.0 launches=3 ffma={ffma} flop={2 * ffma} ms=1.0\n"
    k = f"void fma_work<{1 - r if (swap and r == 1) else r}>(float*, float, float)"
    rows = "".join(f'{d},{d},"Agent 0",1,{pid},1,1,1,"{k}",1,0,0,8,0,16,"sm__sass_thread_inst_executed_op_ffma_pred_on.sum",{ffma // 3 + (ffma % 3 if d == 1 else 0)},{d}0,{d}5\n' for d in (1, 2, 3))
    put(f"{pmc}/01_flops_sass/01_flops_sass_{pid}_counter_collection.csv", CH + "\n" + rows)
    # pass 02 ran as other processes (pids + 1000): tensor ops, 500 FLOP per GPU
    rows = "".join(f'{d},{d},"Agent 0",1,{pid + 1000},1,1,1,"{k}",1,0,0,8,0,16,"sm__ops_path_tensor_src_bf16_dst_fp32.sum",{250 if d < 3 else 0},{d}0,{d}5\n' for d in (1, 2, 3))
    put(f"{pmc}/02_tensor/02_tensor_{pid + 1000}_counter_collection.csv", CH + "\n" + rows)
    tr = "".join(f'"KERNEL_DISPATCH","Agent 0",1,1,1,{d},1,"{k}",{d},{d}00,{d}50,0,0,8,0,16,64,1,1,64,1,1\n' for d in (1, 2, 3))
    put(f"{prof}/ktrace_ranks/ranks_{pid}_kernel_trace.csv", TH + "\n" + tr)
    tel = f"device={r} interval_ms=1 pci=00000000:0{r + 1}:00.0\ntimestamp_ns,current_socket_power_W\n"
    tel += "".join(f"{1000000 * i},100\n" for i in range(50))
    put(f"{prof}/profiling_result_ranks_{r}.csv", tel)
put(f"{plain}/app.txt", app)
put(f"{prof}/app.txt", app)
put(f"{w}/runs.tsv", f"ranks\t{plain}\t{pmc}\t{prof}\n")
put(f"{w}/logs/stages.tsv", "ranks.plain\t0\t1.0\nranks.pmc\t0\t2.0\n")
put(f"{w}/logs/gpus.csv", "0, 00000000:02:00.0, NVIDIA H200, 700.00 W\n1, 00000000:01:00.0, NVIDIA H200, 700.00 W\n")
# mapping check: CUDA_VISIBLE_DEVICES=1,0 -> CUDA 0 is nvidia-smi index 1 (bus 01)
put(f"{w}/logs/map.log", "multi_rank heavy bus=00000000:01:00.0 visible=1,0 seconds=4\n")
for g, bus in ((0, "01"), (1, "02")):
    tel = f"device={g} pci=00000000:{bus}:00.0\ntimestamp_ns,current_socket_power_W\n"
    tel += "".join(f"{1000000 * i},{600 if (g == hot and i > 10) else 90}\n" for i in range(60))
    put(f"{w}/map/profiling_result_map_{g}.csv", tel)
PY
}
mk "$W" 1.0 0 0
expect_exit 0 "report on good data" -- python3 "$REP" "$W"
cp "$T/out" "$T/good.txt"
for row in "ranks: app lines" "ranks pmc 01_flops_sass: one GPU per file" "ranks pmc 02_tensor: one GPU per file" "ranks: FLOP per GPU within 1%" \
           "ranks: ffma counter = expected" "ranks trace: one GPU per file" \
           "ranks: one telemetry file per GPU, ~1 ms" "NVML ordinal 0 = CUDA device 0 (bus id)" \
           "power rise in the right telemetry file" "map sampler GPU 0 interval" "stage ranks.pmc"; do
    expect_grep "^$(printf '%s' "$row" | sed 's/[][().*%]/\\&/g') +PASS" "$T/good.txt" "PASS: $row"
done
expect_grep "2 GPUs, 2500, 2500 FLOP; spread 0\.000 %" "$T/good.txt" "FLOP per GPU over both passes (grouped by GPU, not pid)"
expect_grep "ranks: analyze busy % +FAIL +no analysis/summary.json" "$T/good.txt" "missing analysis is a FAIL, not a crash"

mk "$T/w3" 1.0 0 1
expect_exit 0 "report: rank 1's process ran rank 0's kernel" -- python3 "$REP" "$T/w3"
expect_grep "^ranks pmc 01_flops_sass: one GPU per file +FAIL +.*GPU 0 in" "$T/out" "FAIL: rank 0's kernel in rank 1's file"
expect_grep "^ranks trace: one GPU per file +FAIL +.*app says rank 1" "$T/out" "FAIL: trace file of rank 1 holds rank 0's kernel"
mk "$T/w2" 1.02 1 0
expect_exit 0 "report on bad data" -- python3 "$REP" "$T/w2"
cp "$T/out" "$T/bad.txt"
expect_grep "^ranks: FLOP per GPU within 1% +FAIL +.*spread 1\.58" "$T/bad.txt" "FAIL: 2 % FLOP spread"
expect_grep "^power rise in the right telemetry file +FAIL" "$T/bad.txt" "FAIL: power rose on the other GPU"
bash -n "$BR_SOURCE_DIR/tests/gpu/multi.sh" && pass "multi.sh parses (bash -n)" || fail "multi.sh: bash -n"
finish

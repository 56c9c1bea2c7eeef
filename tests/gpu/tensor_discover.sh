#!/bin/bash
# tensor_discover.sh - one device call (issue 14, discovery): what the GPU and
# CUPTI do on the paths benchrun did not cover yet. Output: $OUT/discover.txt
# (the short table, printed last) and $OUT/discover-logs.tar.gz.
#   1. SASS of calib.cu's tensor-path kernels (cuobjdump): which instruction
#      each inline-PTX kernel became, and how many per loop;
#   2. ncu's per-path tensor counters (ops and instructions) on those kernels,
#      on a Triton mma.sync matmul and on a Triton wgmma matmul;
#   3. tests/gpu/sass_repro.cu modes under the SASS pass (01_flops_sass
#      metrics) of libbenchrun-cupti.so, then the crashing ones again with each
#      candidate workaround (BENCHRUN_CUPTI_SERIALIZE=1, _STRIP_PDL=1);
#   4. the JAX bf16 GEMM plain, under the SASS pass (XLA defaults, autotuning
#      off, each workaround), and under the bf16 per-path counters;
#   5. copy_step.py under `benchrun trace` (the memory copy trace).
# usage: . .gpu/env.sh; DEADLINE_S=440 bash tests/gpu/tensor_discover.sh [BUILD_DIR]
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-/tmp/b14}
FINAL=${OUT:-$ROOT/gpu-out}
W=$(mktemp -d)/disc
O=$W/logs
mkdir -p "$O" "$FINAL"
export PATH=$PATH:/usr/local/cuda/bin PYTHONUNBUFFERED=1
DEADLINE_S=${DEADLINE_S:-440}
STAGE_S=${STAGE_S:-90}
LOGNAME_=discover
. "$ROOT/tests/gpu/lib.sh"
T=$O/table.txt
row() { echo "$*" >>"$T"; }

finish_up() {
    tar -C "$W" -czf "$FINAL/discover-logs.tar.gz" logs 2>/dev/null
    cp "$T" "$FINAL/discover.txt" 2>/dev/null
    cat "$T"
}
trap finish_up EXIT

build_benchrun || { row "build failed"; exit 1; }
LIB=$B/lib/benchrun/libbenchrun-cupti.so
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$O/gpu.txt" 2>&1
row "gpu: $(cat "$O/gpu.txt") $(date -u +%FT%TZ)"

OPS="sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum,sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32.sum,sm__ops_path_tensor_op_hgmma_src_fp16.sum,sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16.sum,sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum,sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum,sm__ops_path_tensor_op_hmma_src_tf32_dst_fp32.sum,sm__ops_path_tensor_src_fp8.sum,sm__ops_path_tensor_op_igmma_src_int8.sum,sm__ops_path_tensor_op_imma_src_int8.sum,sm__ops_path_tensor_op_imma_src_int8_sparsity_off.sum,sm__ops_path_tensor_src_fp64.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_fp16.sum,sm__ops_path_tensor_src_tf32_dst_fp32.sum,sm__ops_path_tensor_src_int8.sum"
INST="sm__inst_executed_pipe_tensor_op_hmma.sum,sm__inst_executed_pipe_tensor_op_gmma.sum,sm__inst_executed_pipe_tensor_op_imma.sum,sm__inst_executed_pipe_tensor_op_dmma.sum"
SASS="sm__sass_thread_inst_executed_op_dadd_pred_on.sum,sm__sass_thread_inst_executed_op_dmul_pred_on.sum,sm__sass_thread_inst_executed_op_dfma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_hadd_pred_on.sum,sm__sass_thread_inst_executed_op_hmul_pred_on.sum,sm__sass_thread_inst_executed_op_hfma_pred_on.sum"
NCU="ncu --csv --page raw --print-units base --clock-control none --target-processes all"
if [ "${SKIP_NCU_CALIB:-0}" != 1 ]; then
# 1. SASS of the tensor-path kernels
st nvcc_calib nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o "$W/calib" \
    "$ROOT/share/benchrun/calibrate/calib.cu" -lcublas
cuobjdump -sass "$W/calib" >"$O/calib.sass" 2>&1
python3 - "$O/calib.sass" >>"$T" <<'PY'
import re, sys, collections
cur, counts = None, collections.OrderedDict()
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"Function : (\S+)", line)
    if m:
        cur = m.group(1); counts[cur] = collections.Counter(); continue
    m = re.search(r"\b((?:HMMA|HGMMA|IMMA|IGMMA|QGMMA|DMMA|HFMA2|HMUL2|HADD2|DFMA|DMUL|DADD|FFMA|FMUL|FADD)[.\w]*)", line)
    if cur and m:
        counts[cur][m.group(1)] += 1
for f, c in counts.items():
    if "mma" in f or "mixed" in f:
        print("sass", f, " ".join(f"{k}x{v}" for k, v in sorted(c.items())))
PY

# 2. ncu per-path counters
st ncu_calib $NCU --metrics "$OPS,$INST,$SASS" --log-file "$O/ncu_calib.csv" \
    "$W/calib" only=tensor mma_blocks=132 mma_iters=64 mma_reps=1
st ncu_triton2 $NCU --metrics "$OPS,$INST" -k regex:mm_kernel --log-file "$O/ncu_triton2.csv" \
    python3 "$ROOT/tests/gpu/triton_mma.py" 2048 1 2
st ncu_triton4 $NCU --metrics "$OPS,$INST" -k regex:mm_kernel --log-file "$O/ncu_triton4.csv" \
    python3 "$ROOT/tests/gpu/triton_mma.py" 2048 1 4
grep -h "triton_mma:" "$O"/ncu_triton*.log | sed 's/^/app /' >>"$T"
python3 - "$O" >>"$T" <<'PY'
import csv, sys, os
d = sys.argv[1]
for name in ("ncu_calib", "ncu_triton2", "ncu_triton4"):
    p = os.path.join(d, name + ".csv")
    if not os.path.exists(p):
        print("ncu", name, "no file"); continue
    lines = [l for l in open(p, errors="replace") if not l.startswith("==")]
    rows = list(csv.reader(lines))
    if len(rows) < 3:
        print("ncu", name, "empty"); continue
    hdr = rows[0]
    ki = hdr.index("Kernel Name") if "Kernel Name" in hdr else None
    for r in rows[2:]:
        if ki is None or len(r) != len(hdr):
            continue
        vals = []
        for i, h in enumerate(hdr):
            if h.startswith(("sm__ops", "sm__inst", "sm__sass")):
                v = r[i].replace(",", "")
                try:
                    fv = float(v)
                except ValueError:
                    continue
                if fv:
                    short = h.replace("sm__ops_path_tensor_", "ops.").replace("sm__inst_executed_pipe_tensor_", "inst.").replace("sm__sass_thread_inst_executed_", "sass.").replace(".sum", "")
                    vals.append(f"{short}={fv:.0f}")
        print("ncu", name, r[ki][:40], " ".join(vals))
PY

fi
# 3. reproducer modes under the SASS pass
P01=$(python3 -c "import json;print(','.join(next(p['counters'] for p in json.load(open('$ROOT/share/benchrun/arch/gh100.json'))['passes'] if p['name']=='01_flops_sass')))")
st nvcc_repro nvcc -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 -o "$W/sass_repro" \
    "$ROOT/tests/gpu/sass_repro.cu" -lcuda -lpthread
under() {   # under NAME ENV... -- CMD: CMD in counter mode with pass 01's metrics
    local name=$1; shift
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
    mkdir -p "$W/u/$name"
    st "$name" env CUDA_INJECTION64_PATH="$LIB" BENCHRUN_CUPTI_OUT="$W/u/$name" \
        BENCHRUN_CUPTI_NAME="$name"_%pid% BENCHRUN_CUPTI_METRICS="${METRICS:-$P01}" "${envs[@]}" "$@"
    local rc=$?
    cp "$W/u/$name"/*_cupti.json "$O/$name.cupti.json" 2>/dev/null
    return $rc
}
# 4. JAX
st jax_plain python3 "$ROOT/tests/gpu/jax_gemm.py" 4096 5
row "jax plain rc=$? $(grep -h '^jax_gemm' "$O/jax_plain.log" | cut -c1-120)"
under jax_sass -- python3 "$ROOT/tests/gpu/jax_gemm.py" 4096 5
row "jax sass default rc=$?"
grep -h "benchrun-cupti:" "$O/jax_sass.log" | head -40 >"$O/jax_crash.txt"
head -8 "$O/jax_crash.txt" | sed 's/^/  jax: /' >>"$T"
under jax_mlp_sass -- python3 "$ROOT/tests/gpu/jax_gemm.py" 2048 3 mlp
row "jax mlp sass default rc=$?"
grep -h "benchrun-cupti:" "$O/jax_mlp_sass.log" | head -40 >"$O/jax_mlp_crash.txt"
head -8 "$O/jax_mlp_crash.txt" | sed 's/^/  jax mlp: /' >>"$T"
under jax_sass_noat XLA_FLAGS=--xla_gpu_autotune_level=0 -- python3 "$ROOT/tests/gpu/jax_gemm.py" 4096 5
row "jax sass autotune0 rc=$?"
under jax_sass_nopdl BENCHRUN_CUPTI_STRIP_PDL=1 -- python3 "$ROOT/tests/gpu/jax_gemm.py" 4096 5
row "jax sass strip_pdl rc=$?"
under jax_sass_serial BENCHRUN_CUPTI_SERIALIZE=1 -- python3 "$ROOT/tests/gpu/jax_gemm.py" 4096 5
row "jax sass serialize rc=$?"
METRICS=sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32.sum,sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum,gpu__time_duration.sum \
    under jax_bf16 XLA_FLAGS=--xla_gpu_autotune_level=0 -- python3 "$ROOT/tests/gpu/jax_gemm.py" 6144 5
row "jax bf16 counters autotune0 rc=$?"
for f in "$O"/jax_*.cupti.json "$O"/triton*.cupti.json "$O"/repro_ex_pdl.cupti.json; do
    [ -f "$f" ] && row "census $(basename "$f"): $(python3 -c "import json,sys;d=json.load(open('$f'));print(d.get('launch_census'),'dropped',d.get('launches_dropped'),'err',d.get('error'))" 2>&1 | cut -c1-300)"
done
python3 - "$W/u/jax_bf16" >>"$T" <<'PY'
import csv, glob, sys, collections
tot = collections.defaultdict(float); cnt = collections.Counter()
for f in glob.glob(sys.argv[1] + "/*counter_collection.csv"):
    for r in csv.DictReader(open(f)):
        tot[(r["Kernel_Name"][:50], r["Counter_Name"])] += float(r["Counter_Value"])
        if r["Counter_Name"].startswith("gpu__time"):
            cnt[r["Kernel_Name"][:50]] += 1
for (k, c), v in sorted(tot.items()):
    if v and not c.startswith("gpu__"):
        print(f"jaxcnt {k} {c} {v:.0f} launches={cnt[k]} per_launch={v / max(cnt[k], 1):.0f} 2n3={2 * 6144 ** 3}")
PY

st ncu_jax env XLA_FLAGS="--xla_gpu_autotune_level=0 --xla_dump_to=$O/xla_dump --xla_dump_hlo_as_text" \
    $NCU --metrics "$OPS,$INST" -k regex:gemm --launch-count 2 --log-file "$O/ncu_jax.csv" \
    python3 "$ROOT/tests/gpu/jax_gemm.py" 6144 1
row "ncu jax rc=$? $(python3 -c "
import csv,sys
rows=[r for r in csv.reader(l for l in open('$O/ncu_jax.csv') if not l.startswith('=='))]
h=rows[0]
for r in rows[2:]:
    print(r[h.index('Kernel Name')][:40], ' '.join(f'{k}={r[i]}' for i,k in enumerate(h) if k.endswith('.sum') and r[i] not in ('0','')))
" 2>&1 | tr '\n' ';' | cut -c1-700)"
ls "$O/xla_dump" 2>/dev/null | grep -i "after_optimizations.txt" | head -3 >>"$O/xla_files.txt"
under triton2_sass -- python3 "$ROOT/tests/gpu/triton_mma.py" 2048 2 2
row "triton mma.sync sass rc=$?"
under triton4_sass -- python3 "$ROOT/tests/gpu/triton_mma.py" 2048 2 4
row "triton wgmma sass rc=$?"
# 3b. reproducer modes
MODES="launch ex ex_cluster1 ex_cluster2 cluster_compiled ex_pdl ex_pdl_plain pdl_kernel library churn threads threads_pdl loader contexts graph"
for m in $MODES; do
    st "plain_$m" "$W/sass_repro" "$m"
    prc=$?
    under "repro_$m" -- "$W/sass_repro" "$m"
    rc=$?
    line="repro $m plain=$prc sass=$rc"
    if [ $rc -ne 0 ] && [ $prc -eq 0 ]; then
        under "repro_${m}_serial" BENCHRUN_CUPTI_SERIALIZE=1 -- "$W/sass_repro" "$m"; line="$line serialize=$?"
        under "repro_${m}_nopdl" BENCHRUN_CUPTI_STRIP_PDL=1 -- "$W/sass_repro" "$m"; line="$line strip_pdl=$?"
        grep -h "benchrun-cupti:" "$O/repro_$m.log" | head -12 | sed "s/^/  $m: /" >>"$O/crashes.txt"
    fi
    row "$line"
done

# 5. copies in the trace
st copy_trace "$BR" trace -o "$W/copy" --name copy -- python3 "$ROOT/tests/gpu/copy_step.py" 1 6
row "copy trace rc=$? $(grep -h '^copy_step' "$O/copy_trace.log")"
for f in "$W"/copy/*memory_copy_trace.csv; do
    [ -f "$f" ] && cp "$f" "$O/" && python3 - "$f" >>"$T" <<'PY'
import csv, sys, collections
b = collections.Counter(); t = collections.Counter(); n = collections.Counter()
for r in csv.DictReader(open(sys.argv[1])):
    d = r["Direction"]; n[d] += 1; b[d] += int(r["Bytes"] or 0)
    t[d] += int(r["End_Timestamp"]) - int(r["Start_Timestamp"])
for d in n:
    print(f"copies {d} n={n[d]} bytes={b[d]} ms={t[d] / 1e6:.3f} GB/s={b[d] / max(t[d], 1):.1f}")
PY
done
ls "$W/copy" >>"$O/copy_files.txt" 2>&1

#!/bin/bash
# 0911-nvidia-collectors: the NVIDIA rows of the collector table. `benchrun pmc`
# on VENDOR=nvidia (an H200 detected as sm_90: profile gh100) uses the cupti collector (env prefix
# with CUDA_INJECTION64_PATH and the pass's metrics); `--collector ncu` runs the
# fake ncu (tests/fakes/ncu, recorded H200 output) with the documented options
# and converts its CSV into <pass>_counter_collection.csv; `benchrun power`
# traces under the CUPTI library into ktrace_<tag>/; `benchrun counters list`
# asks the host tool (a fake here: BENCHRUN_CUPTI_HOST) for the chip's metrics.
. "$(dirname "$0")/lib.sh"
unset SLURM_JOB_ID SLURM_NTASKS SLURM_LOCALID ROCR_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES
export PATH=$T/bin:$BR_SOURCE_DIR/tests/fakes:$PATH
mkdir -p "$T/bin"   # one H200 as nvidia-smi reports it (only for this test)
cat >"$T/bin/nvidia-smi" <<'SMI'
#!/bin/sh
case "$*" in
    *--query-gpu=compute_cap\ *) echo 9.0 ;;
    *) echo "NVIDIA H200, 9.0, 580.159.04" ;;
esac
SMI
chmod +x "$T/bin/nvidia-smi"
export BENCHRUN_CUPTI_LIB=$T/libbenchrun-cupti.so   # a stand-in file: dry runs and env only
: >"$BENCHRUN_CUPTI_LIB"
cat >"$T/w.conf" <<CONF
WORKLOAD=axpy
WORKLOAD_DESC="axpy on an H200"
RESULTS_DIR=$T/results
VENDOR=nvidia
NGPUS=1
NTASKS=1
SAMPLE_BACKEND=sim
SAMPLE_GPUS=0
app_cmd() { APP_CMD=(/bin/sh -c 'echo app ran'); }
CONF

expect_exit 0 "pmc dry run, default collector" -- "$BENCHRUN" pmc "$T/w.conf" --dry-run
expect_grep "gh100.json: 6 passes, collector cupti" "$T/out" "gh100 default set, cupti collector"
expect_grep "env CUDA_INJECTION64_PATH=$T/libbenchrun-cupti.so BENCHRUN_CUPTI_OUT=[^ ]*/01_flops_sass BENCHRUN_CUPTI_NAME=01_flops_sass_%pid% BENCHRUN_CUPTI_METRICS=sm__sass_thread_inst_executed_op_dadd_pred_on.sum," \
    "$T/out" "pass 01 runs under the CUPTI library with its metrics"
# the passes share the run folder for the availability image: the pass folder's parent
python3 - "$T/out" <<'PY' && pass "passes share their run folder (BENCHRUN_CUPTI_CACHE)" \
    || fail "BENCHRUN_CUPTI_CACHE is not each pass folder's parent"
import os, re, sys
lines = [l for l in open(sys.argv[1]) if "BENCHRUN_CUPTI_METRICS=" in l]
pairs = [(re.search(r"BENCHRUN_CUPTI_OUT=(\S+)", l), re.search(r"BENCHRUN_CUPTI_CACHE=(\S+)", l)) for l in lines]
sys.exit(0 if len(pairs) == 6 and all(o and c and os.path.dirname(o[1]) == c[1] for o, c in pairs) else 1)
PY

expect_exit 0 "power dry run traces under CUPTI" -- "$BENCHRUN" power "$T/w.conf" --dry-run
expect_grep "env CUDA_INJECTION64_PATH=[^ ]+ BENCHRUN_CUPTI_OUT=[^ ]*/ktrace_axpy BENCHRUN_CUPTI_NAME=axpy_%pid%$" \
    "$T/out" "power: trace-only prefix into ktrace_axpy/ (no metrics)"

# ncu cross-check collector on the recorded ncu output (3 launches, 12 metrics)
cat >"$T/set.json" <<'JSON'
{ "passes": [ { "name": "01_x", "counters": ["sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
  "dram__bytes_read.sum", "gpu__time_duration.sum"] } ] }
JSON
expect_exit 0 "pmc --collector ncu" -- env FAKE_NCU_ARGV="$T/ncu.argv" \
    "$BENCHRUN" pmc "$T/w.conf" --collector ncu --counters "$T/set.json"
run=$(ls -d "$T"/results/pmc-local-* | tail -1)
csv=$run/01_x/01_x_counter_collection.csv
[ -s "$csv" ] && pass "ncu CSV converted" || fail "$csv missing"
rows=$(grep -c 'sm__sass_thread_inst_executed_op_ffma_pred_on.sum' "$csv")
[ "$rows" = 3 ] && pass "3 launches x ffma rows" || fail "ffma rows: $rows"
expect_grep '"sm__sass_thread_inst_executed_op_ffma_pred_on.sum",1048576' "$csv" "ffma count per launch"
for a in --csv "--page raw" "--print-units base" "--clock-control none"; do
    tr '\n' ' ' <"$T/ncu.argv" | grep -q -- "$a" && pass "ncu $a" || fail "ncu argv lacks $a"
done
expect_grep '^pass 01_x: rc=0, [0-9.]+ s, 1 counter file' "$T/out" "pass reported"

# counters list on NVIDIA: host tool `list GH100`, saved with a Chip line, checkable
cat >"$T/host" <<'HOST'
#!/bin/sh
[ "$1 $2" = "list GH100" ] || { echo "bad args: $*" >&2; exit 2; }
cut -f1 "$BR_FIXTURE" | grep -v '^#' | grep -v '^Chip' | sed 's/$/	counter/'
HOST
chmod +x "$T/host"   # (PATH below without tests/fakes: its rocprofv3 would list first)
expect_exit 0 "counters list on an H200" -- env PATH="$T/bin:/usr/bin:/bin" BENCHRUN_CUPTI_HOST="$T/host" \
    BR_FIXTURE="$BR_SOURCE_DIR/tests/fixtures/nvidia/gh100-base-metrics.txt" \
    "$BENCHRUN" counters list -o "$T/list.txt"
expect_grep 'cupti output saved' "$T/out" "the cupti lister ran"
expect_grep '^Chip gh100$' "$T/list.txt" "chip line (arch profile name)"
expect_exit 0 "the saved list checks the gh100 default set" -- \
    "$BENCHRUN" counters check --arch gh100 default "$T/list.txt"
finish

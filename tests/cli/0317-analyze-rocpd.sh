#!/bin/bash
# 0317-analyze-rocpd: rocpd input. One generated run (gen_rocprof: 7.x, two
# processes, agent_info, a power run) is written three ways: rocprofv3 CSV,
# rocpd databases (tests/tools/rocpd_from_csv.py: rocprofv3's own schema SQL,
# one <prefix>_results.db per process) and rocpd2csv files (the databases
# read back through their views, title-case names, Guid/Pid columns). analyze
# must give byte-identical per_kernel_metrics.csv and top_kernels.csv and the
# same summary.json but for file names, and the known answers of
# expected.json; vectors the same vectors. Then malformed databases, and the
# pmc and power stages collecting in rocpd through the fake rocprofv3
# (ROCPROF_FORMAT, run.json output_format, the power summary).
. "$(dirname "$0")/lib.sh"
unset SLURM_JOB_ID SLURM_NTASKS SLURM_LOCALID ROCR_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES
GEN=$BR_BINARY_DIR/tests/gen_rocprof
CONV="python3 $BR_SOURCE_DIR/tests/tools/rocpd_from_csv.py"
CHECK="python3 $BR_SOURCE_DIR/tests/cli/check_expected.py"

"$GEN" --agent-info --procs 2 --kernels 6 --launches 150 --power "$T/csv/prof" "$T/csv/pmc" >/dev/null ||
    fail "gen_rocprof"
$CONV "$T/csv" "$T/db" || fail "rocpd_from_csv"
$CONV --rocpd2csv "$T/csv" "$T/c2" || fail "rocpd_from_csv --rocpd2csv"
n=$(find "$T/db" -name '*_results.db' | wc -l)
[ "$n" -eq 14 ] && pass "14 databases: 6 passes + power run, 2 processes each" || fail "$n databases"
[ -z "$(find "$T/db" -name '*.csv' -path '*pmc*' ! -name 'expected*')" ] && pass "no CSV left in the rocpd pmc run" ||
    fail "CSV files in the rocpd run"
expect_grep '^"Guid","Kind","Agent_Id"' "$(ls "$T"/c2/prof/ktrace_gen/*_kernel_trace.csv | head -1)" "rocpd2csv trace header"

for v in csv db c2; do
    expect_exit 0 "analyze ($v)" -- "$BENCHRUN" analyze "$T/$v/pmc" --power "$T/$v/prof" -o "$T/a-$v"
    if $CHECK "$T/csv/pmc/expected.json" "$T/a-$v" >"$T/check-$v" 2>&1; then pass "$v: expected.json matches"
    else fail "$v: values differ from expected.json"; sed 's/^/  | /' "$T/check-$v" | head >&2; fi
done
expect_no_grep 'warning' "$T/err" "no warning from the rocpd2csv files"
for v in db c2; do
    for f in per_kernel_metrics.csv top_kernels.csv; do
        if cmp -s "$T/a-csv/$f" "$T/a-$v/$f"; then pass "$v: $f identical to the CSV run's"
        else fail "$v: $f differs"; diff "$T/a-csv/$f" "$T/a-$v/$f" | head -5 >&2; fi
    done
    python3 - "$T/a-csv/summary.json" "$T/a-$v/summary.json" "$T/csv" "$T/$v" <<'PY' && pass "$v: summary.json equal but for file names" || fail "$v: summary.json differs"
import json, re, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
roots = sys.argv[3:5]
def norm(x, root):
    if isinstance(x, dict):
        return {k: norm(v, root) for k, v in x.items() if k != "inputs"}
    if isinstance(x, list):
        return [norm(v, root) for v in x]
    if isinstance(x, str):
        x = x.replace(root, "<R>")
        return re.sub(r"_(counter_collection|kernel_trace|agent_info)\.csv|_results\.db", "<F>", x)
    return x
na, nb = norm(a, roots[0]), norm(b, roots[1])
if na != nb:
    for k in na:
        if na[k] != nb.get(k):
            print("differs:", k, file=sys.stderr)
    sys.exit(1)
PY
done
python3 - "$T/a-db/summary.json" <<'PY' && pass "inputs name the databases and their layout" || fail "inputs of the rocpd run"
import json, sys
p = json.load(open(sys.argv[1]))["inputs"]["passes"][0]
assert p["layout"] == "counter_collection rocpd (counters_collection view), kernel_trace rocpd (kernels view)", p
assert p["processes"] == 2 and all(f.endswith("_results.db") for f in p["files"]), p
PY

# one database as --power-ktrace
db1=$(ls "$T"/db/prof/ktrace_gen/*_results.db | head -1)
expect_exit 0 "analyze --power-ktrace DB" -- "$BENCHRUN" analyze "$T/db/pmc" --power-ktrace "$db1" -o "$T/a-k"

# vectors: the kernel window from the databases
for v in csv db; do
    expect_exit 0 "vectors ($v)" -- "$BENCHRUN" vectors "$T/$v/prof" --arch gfx942 --out "$T/vec-$v.json"
done
python3 - "$T/vec-csv.json" "$T/vec-db.json" <<'PY' && pass "vectors and window equal from CSV and rocpd traces" || fail "vectors differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for k in a:
    if k != "description":
        assert a[k] == b[k], k
wa, wb = a["description"]["window_detail"], b["description"]["window_detail"]
for k in ("start_ns", "end_ns", "dispatches", "samples_dropped_before", "samples_dropped_after"):
    assert wa[k] == wb[k], k
assert all(f.endswith("_results.db") for f in wb["trace_files"]), wb["trace_files"]
PY

# --- malformed databases: clear errors naming the file
bad() { # NAME CONTENT-COMMAND PATTERN
    local d=$T/bad-$1
    mkdir -p "$d/01_fp64_flops"
    eval "$2" >"$d/01_fp64_flops/01_fp64_flops_1_results.db"
    expect_exit 1 "analyze: $1" -- "$BENCHRUN" analyze "$d" -o "$d/out"
    expect_grep "01_fp64_flops_1_results.db: $3" "$T/err" "$1: error names the file"
}
bad text "printf '\"Kind\",\"Agent_Id\"\n'" "not an SQLite database"
bad empty ": " "empty file \(not a rocpd database\)"
bad noviews "python3 -c 'import sqlite3,sys; d=sqlite3.connect(\"$T/nv.db\"); d.execute(\"create table t(x)\"); d.commit(); sys.stdout.buffer.write(open(\"$T/nv.db\",\"rb\").read())'" \
    "not a rocpd database: no view 'counters_collection'"
bad types "python3 -c 'import sqlite3,sys; d=sqlite3.connect(\"$T/ty.db\"); d.execute(\"create view counters_collection as select 1 as kernel_name, 1 as dispatch_id, 1 as start, 2 as end, \\\"X\\\" as counter_name, 1 as value\"); d.commit(); sys.stdout.buffer.write(open(\"$T/ty.db\",\"rb\").read())'" \
    "view counters_collection, row 1: column kernel_name: expected text, got INTEGER"

# --- collecting in rocpd: pmc and power stages with the fake rocprofv3
export PATH=$BR_SOURCE_DIR/tests/fakes:$PATH
fake_amd_gpus 1
app=$BR_BINARY_DIR/tests/demo_workload
mkdir -p "$T/rocm713/.info" "$T/rocm72/.info" "$T/rocm64/.info"
echo "7.13.0-123" >"$T/rocm713/.info/version"
echo "7.2.0-43" >"$T/rocm72/.info/version"
echo "6.4.1-9" >"$T/rocm64/.info/version"
mkconf() { # FILE FORMAT ROCM
    cat >"$1" <<CONF
WORKLOAD=rp
RESULTS_DIR=$T/results
NGPUS=1
NTASKS=1
SAMPLE_BACKEND=sim
SAMPLE_GPUS=0
ROCPROF_FORMAT=$2
ROCM_PATH=$3
app_cmd() { APP_CMD=("$app" --size 100 --iters 1); }
CONF
}
printf '{"passes": [{"name": "p1", "counters": ["SQ_WAVES", "GRBM_GUI_ACTIVE"]}]}\n' >"$T/set.json"
mkconf "$T/rocpd.conf" rocpd "$T/rocm72"
expect_exit 0 "pmc with ROCPROF_FORMAT=rocpd" -- "$BENCHRUN" pmc "$T/rocpd.conf" --counters "$T/set.json"
expect_grep '^pass p1: rc=0, [0-9.]+ s, 1 counter file' "$T/out" "the database counts as the counter file"
run=$(ls -d "$T"/results/pmc-local-*)
[ -s "$run/p1/p1_results.db" ] && pass "p1/p1_results.db written" || fail "no p1_results.db"
[ -z "$(ls "$run"/p1/*.csv 2>/dev/null)" ] && pass "no CSV in the rocpd pass" || fail "CSV next to the database"
python3 -c "
import json; d = json.load(open('$run/run.json'))
assert d['output_format'] == 'rocpd' and d['output_format_reason'] == 'ROCPROF_FORMAT=rocpd', d
" && pass "run.json output_format rocpd" || fail "run.json output_format"
expect_exit 0 "analyze the rocpd pmc run" -- "$BENCHRUN" analyze "$run" --arch gfx942 -o "$T/a-stage"
python3 -c "
import csv; rows = list(csv.DictReader(open('$T/a-stage/per_kernel_metrics.csv')))
assert len(rows) == 3 and rows[0]['kernel'] == 'TOTAL', rows
assert rows[0]['launches'] == '4', rows[0]['launches']
" && pass "2 kernels, 4 launches read from the database" || fail "per_kernel_metrics of the rocpd stage run"
expect_exit 0 "power with ROCPROF_FORMAT=rocpd" -- "$BENCHRUN" power "$T/rocpd.conf"
prun=$(ls -d "$T"/results/prof-local-*)
[ -s "$prun/ktrace_rp/rp_results.db" ] && pass "ktrace_rp/rp_results.db written" || fail "no trace database"
expect_grep '^  kernels traced +4 in 1 trace file' "$T/out" "power summary reads the database"
python3 -c "
import json; d = json.load(open('$prun/run.json'))
assert d['output_format'] == 'rocpd' and d['power_summary']['kernels_traced'] == 4, d
" && pass "run.json of the power run" || fail "power run.json"
# (the fake writes its trace after the app: no sample inside that window)
expect_exit 0 "vectors of the rocpd power run" -- "$BENCHRUN" vectors "$prun" --no-trim --out "$T/vec-stage.json"
python3 -c "
import json; w = json.load(open('$T/vec-stage.json'))['description']['window_detail']
assert w['dispatches'] == 4 and w['trace_files'] == ['ktrace_rp/rp_results.db'], w
" && pass "vectors window from the database" || fail "vectors window"

rm -rf "$T/results"
mkconf "$T/auto713.conf" auto "$T/rocm713"
expect_exit 0 "pmc dry run, auto on ROCm 7.13" -- "$BENCHRUN" pmc "$T/auto713.conf" --dry-run
expect_grep 'output rocpd \(auto: ROCm 7.13\+ deprecates' "$T/out" "auto picks rocpd on 7.13"
expect_grep 'rocprofv3 --pmc .* --output-format rocpd ' "$T/out" "rocprofv3 asked for rocpd"
mkconf "$T/auto72.conf" auto "$T/rocm72"
expect_exit 0 "pmc dry run, auto on ROCm 7.2" -- "$BENCHRUN" pmc "$T/auto72.conf" --dry-run
expect_grep 'output csv \(auto: CSV is current before ROCm 7.13\)' "$T/out" "auto keeps CSV on 7.2"
expect_exit 0 "power dry run, auto on ROCm 7.13" -- "$BENCHRUN" power "$T/auto713.conf" --dry-run
expect_grep 'kernel trace output: rocpd' "$T/out" "power trace in rocpd on 7.13"
expect_grep 'rocprofv3 --kernel-trace --memory-copy-trace --output-format rocpd ' "$T/out" "tracer asked for rocpd"
mkconf "$T/old.conf" rocpd "$T/rocm64"
expect_exit 1 "rocpd on ROCm 6.4" -- "$BENCHRUN" pmc "$T/old.conf" --dry-run
expect_grep 'ROCPROF_FORMAT=rocpd: rocprofv3 of ROCm 6.4 has no rocpd output' "$T/err" "rocpd needs 7.0"
mkconf "$T/badfmt.conf" sqlite "$T/rocm72"
expect_exit 1 "ROCPROF_FORMAT=sqlite" -- "$BENCHRUN" pmc "$T/badfmt.conf" --dry-run
expect_grep 'ROCPROF_FORMAT must be auto, csv or rocpd, got .sqlite.' "$T/err" "bad format named"
finish

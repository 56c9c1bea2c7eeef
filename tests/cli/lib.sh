# lib.sh - helpers sourced by the command-line tests (tests/cli/NNNN-*.sh).
# Environment from CTest: BENCHRUN (binary), BR_SOURCE_DIR, BR_BINARY_DIR.
set -u
: "${BENCHRUN:?run through ctest}"
BR_FAILS=0
T=$(mktemp -d "${TMPDIR:-/tmp}/brtest.XXXXXX")
trap 'rm -rf "$T"' EXIT

fail() { echo "FAIL: $*" >&2; BR_FAILS=$((BR_FAILS + 1)); }
pass() { echo "ok: $*"; }

# expect_exit CODE DESC -- CMD...: runs CMD, stdout/stderr into $T/out, $T/err.
expect_exit() {
    local want=$1 desc=$2; shift 3
    "$@" >"$T/out" 2>"$T/err"
    local got=$?
    if [ "$got" -eq "$want" ]; then pass "$desc (exit $got)"
    else fail "$desc: exit $got, expected $want"; sed 's/^/  stderr: /' "$T/err" >&2; fi
}
# expect_grep PATTERN FILE DESC
expect_grep() {
    if grep -qE -- "$1" "$2"; then pass "$3"
    else fail "$3: /$1/ not in $2"; sed 's/^/  | /' "$2" | head -20 >&2; fi
}
expect_no_grep() {
    if grep -qE -- "$1" "$2"; then fail "$3: /$1/ found in $2"; else pass "$3"; fi
}
# fake_amd_gpus N: a fake AMD node for GPU detection and binding checks:
# BENCHRUN_SYSFS_ROOT points benchrun's KFD topology probe at $T/sysfs, with a
# CPU node 0 and N MI300X (gfx942) nodes (Slurm jobs inherit it: sbatch
# exports the environment).
fake_amd_gpus() {
    local n=$1 i kfd=$T/sysfs/sys/class/kfd/kfd/topology/nodes
    mkdir -p "$kfd/0"
    printf 'cpu_cores_count 96\nsimd_count 0\ngfx_target_version 0\n' >"$kfd/0/properties"
    for i in $(seq 1 "$n"); do
        mkdir -p "$kfd/$i"
        printf 'cpu_cores_count 0\nsimd_count 1216\ngfx_target_version 90402\n' >"$kfd/$i/properties"
    done
    export BENCHRUN_SYSFS_ROOT=$T/sysfs
}

# demo_conf FILE TAG: a minimal conf running the demo workload once (1 GPU,
# 1 task, no vendor), results under $T/results.
demo_conf() {
    cat >"$1" <<CONF
WORKLOAD=$2
RESULTS_DIR=$T/results
NGPUS=1
NTASKS=1
VENDOR=none
app_cmd() { APP_CMD=("$BR_BINARY_DIR/tests/demo_workload" --size 100 --iters 1); }
CONF
}

# python_with MODULE: prints a python3 that imports MODULE (python3 on PATH,
# else the distribution's /usr/bin/python3); prints nothing when none does.
python_with() {
    local c
    for c in python3 /usr/bin/python3; do
        if command -v "$c" >/dev/null && "$c" -c "import $1" 2>/dev/null; then echo "$c"; return; fi
    done
}

finish() {
    if [ "$BR_FAILS" -eq 0 ]; then echo "all checks passed"; exit 0; fi
    echo "$BR_FAILS check(s) failed" >&2; exit 1
}

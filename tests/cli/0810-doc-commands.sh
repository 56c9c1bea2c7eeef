#!/bin/bash
# 0810-doc-commands: every benchrun command of SKILL.md and README.md runs as
# written. Commands are the `benchrun ...` lines of ```sh blocks
# (tests/cli/doc_commands.py: synopsis lines with [--options] or UPPERCASE
# placeholders are not run; `# no-test: <reason>` skips a line; `# exit N`
# expects status N). They run with bash in a scratch folder that holds what the
# documents refer to:
#   hns.conf                  examples/lammps_hns16812.conf, LMP_ROOT moved into
#                             the scratch folder, its REQUIRED_FILES created
#                             (so RESULTS_DIR is scratch too)
#   counters_list_gfx942.txt  tests/fixtures/amd/7.0/list-avail.txt
#   results/pmc-123456        a generated counter run (gen_rocprof) and
#   results/prof-123457       its power run (+ run.json with gpu_arch)
#   results/prof-123456       the bundled example power run (examples/demo)
# with no Slurm allocation and `benchrun` first on PATH.
. "$(dirname "$0")/lib.sh"
unset SLURM_JOB_ID SLURM_NTASKS SLURM_LOCALID BENCHRUN_SHARE
W=$T/w
mkdir -p "$W/bin" "$W/results"
ln -s "$BENCHRUN" "$W/bin/benchrun"
export PATH="$W/bin:$PATH"

make_world() {
    local lmp=$W/lammps
    sed "s|^LMP_ROOT=.*|LMP_ROOT=$lmp|" "$BR_SOURCE_DIR/examples/lammps_hns16812.conf" >"$W/hns.conf"
    grep -q "^LMP_ROOT=$lmp\$" "$W/hns.conf" || fail "example conf has no LMP_ROOT= line to redirect"
    mkdir -p "$lmp/build-gfx942" "$lmp/examples/hns"
    printf '#!/bin/sh\necho "Loop time of 1.0 on 8 procs"\n' >"$lmp/build-gfx942/lmp"
    chmod +x "$lmp/build-gfx942/lmp"
    touch "$lmp/examples/hns/in.reaxff.hns" "$lmp/examples/hns/data.hns-equil" \
          "$lmp/examples/hns/ffield.reax.hns"
    cp "$BR_SOURCE_DIR/tests/fixtures/amd/7.0/list-avail.txt" "$W/counters_list_gfx942.txt"
    "$BR_BINARY_DIR/tests/gen_rocprof" --kernels 6 --launches 120 --agent-info \
        --power "$W/results/prof-123457" "$W/results/pmc-123456" >"$T/gen.log" 2>&1 ||
        fail "gen_rocprof: $(cat "$T/gen.log")"
    echo '{"workload": "hns16812", "gpu_arch": "gfx942"}' >"$W/results/prof-123457/run.json"
    cp -r "$BR_SOURCE_DIR/examples/demo/prof-example" "$W/results/prof-123456"
}

# run_doc FILE MIN: runs FILE's commands; at least MIN must run.
run_doc() {
    local file=$1 min=$2 ran=0 where act cmd want got
    python3 "$BR_SOURCE_DIR/tests/cli/doc_commands.py" "$BR_SOURCE_DIR/$file" >"$T/cmds" ||
        { fail "$file: cannot extract commands"; return; }
    while IFS=$'\t' read -r -d '' where act cmd; do
        where=${where#"$BR_SOURCE_DIR/"}
        case $act in
            synopsis|skip) echo "-- $where: $act: $cmd"; continue ;;
        esac
        want=${act#run }
        (cd "$W" && bash -c "$cmd") >"$T/out" 2>"$T/err" </dev/null
        got=$?
        ran=$((ran + 1))
        if [ "$got" -eq "$want" ]; then
            pass "$where: $cmd (exit $got)"
        else
            fail "$where: '$cmd' exited $got, expected $want"
            sed 's/^/  | /' "$T/err" | head -15 >&2
        fi
    done <"$T/cmds"
    [ "$ran" -ge "$min" ] && pass "$file: $ran command(s) run" ||
        fail "$file: only $ran command(s) found to run (expected at least $min)"
}

# The extractor on a known sample.
cat >"$T/sample.md" <<'MD'
```sh
benchrun plain CONF [--dry-run]
benchrun plain x.conf --dry-run
benchrun analyze a \
    --power b
benchrun sample -- srun ./app   # no-test: needs GPUs
benchrun counters check default bad.txt   # exit 1
make demo
```
```
benchrun not-sh-block
```
MD
python3 "$BR_SOURCE_DIR/tests/cli/doc_commands.py" "$T/sample.md" | tr '\0' '\n' | cut -f2- >"$T/got"
printf '%s\n' "synopsis	benchrun plain CONF [--dry-run]" "run 0	benchrun plain x.conf --dry-run" \
    "run 0	benchrun analyze a --power b" "skip	benchrun sample -- srun ./app   # no-test: needs GPUs" \
    "run 1	benchrun counters check default bad.txt   # exit 1" >"$T/want"
diff -u "$T/want" "$T/got" >&2 && pass "extractor classifies the sample" || fail "extractor output differs"

make_world
[ "$(command -v benchrun)" = "$W/bin/benchrun" ] && pass "benchrun on PATH is the build's" ||
    fail "benchrun on PATH: $(command -v benchrun)"
run_doc SKILL.md 10
run_doc README.md 3
# SKILL.md defines every column of top_kernels.csv (as analyze writes it now).
csv=$W/results/pmc-123456/analysis/top_kernels.csv
if [ -f "$csv" ]; then
    python3 - "$csv" "$BR_SOURCE_DIR/SKILL.md" >"$T/cols" 2>&1 <<'PY' &&
import csv, sys
header = next(csv.reader(open(sys.argv[1])))
rows = [l for l in open(sys.argv[2], encoding="utf-8") if l.startswith("| ")]
names = {n.strip() for l in rows for n in l.split("|")[1].split(",")}
missing = [c for c in header if c != "kernel_full_name" and c not in names]
print(", ".join(missing))
sys.exit(1 if missing else 0)
PY
        pass "SKILL.md defines every top_kernels.csv column" ||
        fail "SKILL.md's top-kernels table lacks column(s): $(cat "$T/cols")"
else
    fail "no $csv (the analyze command of SKILL.md did not run?)"
fi
[ -e "$W/lammps/results" ] && ls "$W/lammps/results" | grep -q . &&
    fail "a dry run created results: $(ls "$W/lammps/results")" || pass "dry runs created no result folder"
finish

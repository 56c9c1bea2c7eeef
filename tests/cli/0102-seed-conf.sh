#!/bin/bash
# 0102-seed-conf: the seed-format LAMMPS conf (arrays, functions, $OUT_DIR in
# app_cmd) loads unchanged; dry runs of plain/pmc/power match golden files
# (paths normalized), create nothing, and show srun -n8 and the app argv.
. "$(dirname "$0")/lib.sh"
unset SLURM_JOB_ID SLURM_NTASKS SLURM_LOCALID
fixture=$BR_SOURCE_DIR/tests/fixtures/conf/lammps_hns16812.conf
golden=$BR_SOURCE_DIR/tests/cli/golden
export BR_FIXTURE_ROOT=$T/lammps
mkdir -p "$T/lammps/build-gfx942" "$T/lammps/examples/hns"
touch "$T/lammps/build-gfx942/lmp" "$T/lammps/examples/hns/"{in.reaxff.hns,data.hns-equil,ffield.reax.hns}
share=$(cd "$BR_SOURCE_DIR/share/benchrun" && pwd -P)

normalize() {
    sed -e "s#$T#<T>#g" -e "s#$share#<SHARE>#g" -e "s#$(dirname "$BENCHRUN")#<BIN>#g" \
        -e "s#$BR_SOURCE_DIR#<SRC>#g" -e 's#local-[0-9]\{8\}T[0-9]\{6\}Z-[0-9]\+#<JOBID>#g'
}

for stage in plain pmc power; do
    expect_exit 0 "$stage --dry-run of the seed conf" -- "$BENCHRUN" $stage "$fixture" --dry-run
    normalize <"$T/out" >"$T/$stage.txt"
    if [ -n "${BR_UPDATE_GOLDEN:-}" ]; then cp "$T/$stage.txt" "$golden/0102-$stage-dry-run.txt"; fi
    if diff -u "$golden/0102-$stage-dry-run.txt" "$T/$stage.txt" >"$T/diff"; then
        pass "$stage dry run matches golden"
    else
        fail "$stage dry run differs from golden"; cat "$T/diff" >&2
    fi
    expect_grep '^\[dry-run\] .*srun -n8 bash ' "$T/out" "$stage: srun -n NTASKS"
    expect_grep "APP_CMD: .*/lmp -k on g 8 .* -log .*/$([ $stage = power ] && echo prof || echo $stage)-<?local" \
        "$T/out" "$stage: OUT_DIR inside app_cmd is the run folder"
    [ -e "$T/lammps/results" ] && fail "$stage dry run created RESULTS_DIR"
done

# Missing input: the same conf fails before anything runs.
rm "$T/lammps/examples/hns/data.hns-equil"
expect_exit 1 "missing REQUIRED_FILES entry" -- "$BENCHRUN" plain "$fixture" --dry-run
expect_grep "REQUIRED_FILES entry '.*data.hns-equil' does not exist" "$T/err" "names the missing file"
finish

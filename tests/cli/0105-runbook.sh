#!/bin/bash
# 0105-runbook: RUNBOOK_<tag>.md of the seed-format LAMMPS conf matches the
# golden file (paths normalized): every step, partition and -n from the conf,
# the pmc -t estimate and the afterok chain; --out; the -t estimate from a
# finished plain run.
. "$(dirname "$0")/lib.sh"
unset SLURM_JOB_ID SLURM_NTASKS BENCHRUN_SCRIPTS
golden=$BR_SOURCE_DIR/tests/cli/golden/0105-runbook.md
export BR_FIXTURE_ROOT=$T/lammps
cp "$BR_SOURCE_DIR/tests/fixtures/conf/lammps_hns16812.conf" "$T/hns.conf"

expect_exit 0 "runbook" -- "$BENCHRUN" runbook "$T/hns.conf"
expect_grep "^runbook: $T/RUNBOOK_hns16812.md$" "$T/out" "path printed"
norm() {
    sed -e "s#$T#<T>#g" -e "s#$(dirname "$BENCHRUN")#<BIN>#g" -e "s#$BR_SOURCE_DIR#<SRC>#g" "$1"
}
norm "$T/RUNBOOK_hns16812.md" >"$T/rb.md"
[ -n "${BR_UPDATE_GOLDEN:-}" ] && cp "$T/rb.md" "$golden"
if diff -u "$golden" "$T/rb.md" >"$T/diff"; then pass "runbook matches golden"
else fail "runbook differs from golden"; cat "$T/diff" >&2; fi
for step in '## 0. Dry runs' '## 2. Counter list' '## 3. Plain run' '## 4. PMC run' '## 5. Power run' \
            '## 6. Analyze' '## 7. Telemetry vectors' 'dependency=afterok:\$plain'; do
    expect_grep "$step" "$T/RUNBOOK_hns16812.md" "has '$step'"
done
expect_grep '^sbatch -p mi3008x -n 8 -J hns16812-plain .*/run_plain.sbatch ' "$T/RUNBOOK_hns16812.md" \
    "partition and -n from the conf"

# the seed's chain: pmc and power both wait for plain (not power for pmc)
expect_grep '^pmc=\$\(sbatch .*--dependency=afterok:\$plain ' "$T/RUNBOOK_hns16812.md" "pmc after plain"
expect_grep '^power=\$\(sbatch .*--dependency=afterok:\$plain ' "$T/RUNBOOK_hns16812.md" "power after plain"
expect_no_grep 'afterok:\$pmc' "$T/RUNBOOK_hns16812.md" "nothing waits for pmc"
# step 0's check names what the dry run prints before launch.sh
mkdir -p "$T/lammps/build-gfx942" "$T/lammps/examples/hns"   # its REQUIRED_FILES
touch "$T/lammps/build-gfx942/lmp" "$T/lammps/examples/hns/"{in.reaxff.hns,data.hns-equil,ffield.reax.hns}
expect_exit 0 "plain --dry-run" -- "$BENCHRUN" plain "$T/hns.conf" --dry-run
launcher=$(sed -n 's/^\[dry-run\] \(.*\) bash .*launch\.sh [^-].*/\1/p' "$T/out" | head -1)
[ -n "$launcher" ] && grep -qF "the app line starts with \`$launcher\`" "$T/RUNBOOK_hns16812.md" \
    && pass "step 0 check: \`$launcher\` as the dry run prints it" \
    || fail "step 0 check does not name the dry run's '$launcher'"

# --out, and the pmc -t estimate from a finished plain run (6 passes x 3 x 100 s = 30 min)
mkdir -p "$T/lammps/results/plain-99"
printf '{"status": "ok", "exit_status": 0, "wall_time_s": 100.0, "gpu_arch": "gfx942"}\n' \
    >"$T/lammps/results/plain-99/run.json"
expect_exit 0 "runbook --out" -- "$BENCHRUN" runbook "$T/hns.conf" --out "$T/other.md"
expect_grep '^sbatch -p mi3008x -n 8 -J hns16812-pmc -t 00:30:00 ' "$T/other.md" "-t from the plain run"
expect_grep 'plain run plain-99' "$T/other.md" "estimate says where it came from"
expect_exit 1 "runbook of a missing conf" -- "$BENCHRUN" runbook "$T/none.conf"
expect_exit 2 "runbook without CONF" -- "$BENCHRUN" runbook
finish

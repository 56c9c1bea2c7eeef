#!/bin/bash
# 0108-examples: the shipped example confs load (template, LAMMPS worked
# example, demo) and the demo conf dry-runs every stage.
. "$(dirname "$0")/lib.sh"
unset SLURM_JOB_ID SLURM_NTASKS
ex=$BR_SOURCE_DIR/examples
for c in workload.conf.template lammps_hns16812.conf; do
    expect_exit 0 "$c loads (runbook)" -- "$BENCHRUN" runbook "$ex/$c" --out "$T/$c.md"
done
export BENCHRUN_DEMO_BUILD=$BR_BINARY_DIR BENCHRUN_DEMO_RESULTS=$T/results
for s in plain pmc power; do
    expect_exit 0 "demo.conf $s --dry-run" -- "$BENCHRUN" $s "$ex/demo/demo.conf" --dry-run
done
[ -e "$T/results" ] && fail "dry runs created results" || pass "dry runs created nothing"
finish

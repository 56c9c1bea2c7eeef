#!/bin/bash
# 0107-doctor-install: doctor prints every section and exits 0 on a machine
# without a GPU; `cmake --install` gives a benchrun that works from any folder
# (share/benchrun found next to the executable, wrappers with the installed
# path substituted).
. "$(dirname "$0")/lib.sh"
unset SLURM_JOB_ID SLURM_NTASKS
expect_exit 0 "doctor" -- "$BENCHRUN" doctor
for s in '^GPUs$' '^Tools \(PATH\)$' '^Libraries \(dlopen\)$' '^Sampler backends' '^Slurm$' \
         '^Permissions$' '  rocprofv3 ' '  NVML ' '  AMD counters ' '  NVIDIA counters ' '  launch.sh +present'; do
    expect_grep "$s" "$T/out" "doctor: $s"
done
expect_exit 2 "doctor with an argument" -- "$BENCHRUN" doctor extra

cmake --install "$BR_BINARY_DIR" --prefix "$T/inst" >"$T/install.log" 2>&1 || { fail "cmake --install"; cat "$T/install.log" >&2; finish; }
inst=$T/inst/bin/benchrun
[ -x "$inst" ] && pass "installed binary" || fail "no $inst"
[ -f "$T/inst/share/benchrun/launch.sh" ] && pass "launch.sh installed" || fail "launch.sh not installed"
for w in run_plain run_pmc run_power list_counters; do
    expect_grep "^bin=\\\$\\{BENCHRUN:-$T/inst/bin/benchrun\\}" "$T/inst/share/benchrun/scripts/$w.sbatch" \
        "$w.sbatch has the installed path"
    expect_exit 0 "installed $w.sbatch parses" -- bash -n "$T/inst/share/benchrun/scripts/$w.sbatch"
done
demo_conf "$T/w.conf" inst
mkdir -p "$T/elsewhere"
(cd "$T/elsewhere" && env -u BENCHRUN_SHARE "$inst" plain ../w.conf) >"$T/out" 2>"$T/err" \
    && pass "installed benchrun runs from another folder" || { fail "installed run"; cat "$T/err" >&2; }
expect_grep "launch.sh" "$(ls -d "$T"/results/plain-*)/run_info.txt" "run used a launch.sh"
expect_grep "$T/inst/share/benchrun/launch.sh" "$(ls -d "$T"/results/plain-*)/run_info.txt" "the installed launch.sh"
(cd "$T/elsewhere" && env BENCHRUN= DRY_RUN=1 bash "$T/inst/share/benchrun/scripts/run_plain.sbatch" ../w.conf) \
    >"$T/out" 2>&1 && pass "installed wrapper finds the installed benchrun" || { fail "installed wrapper"; cat "$T/out" >&2; }
finish

#!/bin/bash
# 0106-sbatch-wrappers: the wrappers parse (bash -n), start with #!/bin/bash and
# #SBATCH defaults, and exec benchrun: $BENCHRUN first, PATH as fallback,
# DRY_RUN=1 for a dry run, the seed's list_counters.sbatch OUTPUT form.
. "$(dirname "$0")/lib.sh"
unset SLURM_JOB_ID SLURM_NTASKS
dir=$BR_SOURCE_DIR/scripts
for w in run_plain run_pmc run_power list_counters; do
    f=$dir/$w.sbatch
    [ -x "$f" ] && pass "$w.sbatch executable" || fail "$w.sbatch missing or not executable"
    expect_exit 0 "bash -n $w.sbatch" -- bash -n "$f"
    [ "$(head -n 1 "$f")" = "#!/bin/bash" ] && pass "$w: #!/bin/bash" || fail "$w: shebang"
    for k in job-name nodes ntasks time output; do
        expect_grep "^#SBATCH --$k=" "$f" "$w: #SBATCH --$k"
    done
done
demo_conf "$T/w.conf" wrap
expect_exit 0 "DRY_RUN=1 bash run_plain.sbatch" -- env BENCHRUN="$BENCHRUN" DRY_RUN=1 bash "$dir/run_plain.sbatch" "$T/w.conf"
expect_grep '^\[dry-run\] # plain stage' "$T/out" "dry run through the wrapper"
expect_exit 0 "DRY_RUN=1 bash run_power.sbatch" -- env BENCHRUN="$BENCHRUN" DRY_RUN=1 bash "$dir/run_power.sbatch" "$T/w.conf"
expect_exit 0 "bash run_plain.sbatch (real run)" -- env BENCHRUN="$BENCHRUN" bash "$dir/run_plain.sbatch" "$T/w.conf"
expect_grep '^plain: wrap: exit status 0' "$T/out" "plain run through the wrapper"
mkdir -p "$T/bin" && ln -s "$BENCHRUN" "$T/bin/benchrun"
expect_exit 0 "benchrun from PATH" -- env -u BENCHRUN PATH="$T/bin:$PATH" DRY_RUN=1 bash "$dir/run_pmc.sbatch" "$T/w.conf" --counters "$BR_SOURCE_DIR/tests/fixtures/counters/seed6.json"
expect_exit 1 "no benchrun anywhere" -- env -u BENCHRUN PATH=/usr/bin:/bin bash "$dir/run_plain.sbatch" "$T/w.conf"
expect_grep 'benchrun not found: set BENCHRUN' "$T/err" "clear error"
# list_counters.sbatch OUTPUT -> benchrun counters list -o OUTPUT
printf '#!/bin/bash\necho "$@" > %s/args\n' "$T" >"$T/bin/fakebr" && chmod +x "$T/bin/fakebr"
expect_exit 0 "list_counters.sbatch FILE" -- env BENCHRUN="$T/bin/fakebr" bash "$dir/list_counters.sbatch" "$T/list.txt"
[ "$(cat "$T/args")" = "counters list -o $T/list.txt" ] && pass "seed form mapped to -o" || fail "args: $(cat "$T/args")"
# list_counters.sbatch OUTPUT MODULE: the module is loaded first (seed)
eval "module() { echo \"module \$*\" >'$T/module.log'; }"   # the job's shell does not know \$T
export -f module
expect_exit 0 "list_counters.sbatch FILE MODULE" -- env BENCHRUN="$T/bin/fakebr" bash "$dir/list_counters.sbatch" "$T/list.txt" rocm/7.2.0
[ "$(cat "$T/module.log" 2>/dev/null)" = "module load rocm/7.2.0" ] && pass "module loaded" || fail "module: $(cat "$T/module.log" 2>/dev/null)"
[ "$(cat "$T/args")" = "counters list -o $T/list.txt" ] && pass "then counters list -o FILE" || fail "args: $(cat "$T/args")"
module() { return 1; }
export -f module
expect_exit 1 "module load fails: the job fails" -- env BENCHRUN="$T/bin/fakebr" bash "$dir/list_counters.sbatch" "$T/list.txt" rocm/0.0
expect_grep "module load rocm/0.0 failed" "$T/err" "says which module"
unset -f module
# run_pmc.sbatch CONF COUNTERS: the seed's second argument is the counter set
expect_exit 0 "run_pmc.sbatch CONF COUNTERS" -- env BENCHRUN="$T/bin/fakebr" bash "$dir/run_pmc.sbatch" "$T/w.conf" my.json
[ "$(cat "$T/args")" = "pmc $T/w.conf --counters my.json" ] && pass "COUNTERS mapped to --counters" || fail "args: $(cat "$T/args")"
expect_exit 0 "run_pmc.sbatch CONF --counters SET" -- env BENCHRUN="$T/bin/fakebr" bash "$dir/run_pmc.sbatch" "$T/w.conf" --counters ml
[ "$(cat "$T/args")" = "pmc $T/w.conf --counters ml" ] && pass "benchrun form unchanged" || fail "args: $(cat "$T/args")"
finish

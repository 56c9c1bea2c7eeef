#!/usr/bin/env bash
# run.sh - the Slurm tests: bring up the local cluster, run `ctest -L slurm`, stop it.
#
#   bash tests/slurm/run.sh BUILD_DIR
#
# Called by .ci/run (step 5). When the cluster cannot start (no root, no
# packages, slurmd refuses to run on this machine) the tests are SKIPPED with a
# loud banner and exit 0, except under CI (CI=true, set by .ci/run) where that
# is a failure: on the CI machine the Slurm tests must run.
# BR_SLURM_JOBS sets how many tests run at once (default 6; jobs mostly sleep,
# and the nodes declare 8 CPUs each, see cluster.sh).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: tests/slurm/run.sh BUILD_DIR}
[ -d "$build" ] || { echo "run.sh: no build folder '$build'" >&2; exit 2; }
build=$(cd "$build" && pwd)

banner() {
    echo "################################################################################" >&2
    echo "## $*" >&2
    echo "################################################################################" >&2
}

t0=$SECONDS
bash "$here/cluster.sh" start
rc=$?
if [ $rc -ne 0 ]; then
    if [ "${CI:-}" = true ]; then
        banner "SLURM TESTS FAILED: the local Slurm cluster did not start (cluster.sh exit $rc)"
        exit 1
    fi
    banner "SLURM TESTS SKIPPED: the local Slurm cluster could not start on this machine (exit $rc)"
    exit 0
fi
trap 'bash "$here/cluster.sh" stop' EXIT
eval "$(bash "$here/cluster.sh" env)"
export BR_SLURM_REQUIRED=1          # from here on a missing cluster fails a test

ctest --test-dir "$build" -L slurm --output-on-failure -j "${BR_SLURM_JOBS:-6}"
rc=$?
if [ $rc -ne 0 ]; then
    sl=${BR_SLURM_DIR:-${TMPDIR:-/tmp}/benchrun-slurm}
    echo "--- last lines of the Slurm daemon logs ($sl/log) ---" >&2
    tail -n 25 "$sl"/log/*.log >&2 2>/dev/null
fi
echo "Slurm tests: exit $rc after $((SECONDS - t0)) s" >&2
exit $rc

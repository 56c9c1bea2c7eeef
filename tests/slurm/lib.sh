# lib.sh - helpers sourced by the Slurm tests (tests/slurm/NNNN-*.sh).
#
# Builds on tests/cli/lib.sh (expect_exit, expect_grep, pass, fail, finish, $T)
# and adds: the cluster check (skip with exit 77 when no cluster runs, unless
# BR_SLURM_REQUIRED=1 as under tests/slurm/run.sh), job state through
# `scontrol -o show job`, waiting for jobs, and a work folder that jobs can see
# (kept when a check failed, for the logs).
. "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.sh"
export PATH="/usr/sbin:/usr/bin:/sbin:/bin:$PATH"
BR_SLURM_DIR=${BR_SLURM_DIR:-${TMPDIR:-/tmp}/benchrun-slurm}
if [ -z "${SLURM_CONF:-}" ] && [ -f "$BR_SLURM_DIR/etc/slurm.conf" ]; then
    export SLURM_CONF=$BR_SLURM_DIR/etc/slurm.conf
fi
# Keep the work folder when something failed: the job output is the evidence.
trap 'if [ "$BR_FAILS" -eq 0 ]; then rm -rf "$T"; else echo "kept for inspection: $T" >&2; fi' EXIT

# Exit 77 (CTest SKIP_RETURN_CODE) when no cluster answers, loudly; a failure
# instead when the cluster is required.
slurm_require() {
    if command -v scontrol >/dev/null && timeout 10 scontrol ping 2>/dev/null | grep -q 'is UP'; then
        return 0
    fi
    if [ "${BR_SLURM_REQUIRED:-0}" = 1 ]; then
        echo "FAIL: no Slurm cluster answers (scontrol ping), but BR_SLURM_REQUIRED=1" >&2
        exit 1
    fi
    echo "######## SKIPPED: no Slurm cluster (start one: tests/slurm/cluster.sh start; or use tests/slurm/run.sh BUILD_DIR)" >&2
    exit 77
}

# job_field JOBID NAME: one field of `scontrol -o show job` (e.g. JobState, ExitCode, Reason).
job_field() { scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }

# wait_job JOBID [TIMEOUT_S]: waits until the job has ended; prints its final JobState
# (WAIT_TIMEOUT(<state>) if it did not end in time).
wait_job() {
    local end=$((SECONDS + ${2:-180})) s=""
    while [ $SECONDS -lt $end ]; do
        s=$(job_field "$1" JobState)
        case "$s" in
            PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED|REQUEUED|SIGNALING|RESIZING|STAGE_OUT|"") sleep 0.5 ;;
            *) echo "$s"; return 0 ;;
        esac
    done
    echo "WAIT_TIMEOUT($s)"
}

# expect_job JOBID STATE DESC [TIMEOUT_S]: waits for the job and checks its final state.
expect_job() {
    local s; s=$(wait_job "$1" "${4:-180}")
    if [ "$s" = "$2" ]; then pass "$3 (job $1 $s)"
    else
        fail "$3: job $1 ended $s, expected $2"
        scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | grep -E '^(JobState|Reason|ExitCode|NodeList|StdOut|Command)=' | sed 's/^/  | /' >&2
    fi
}

# show_file FILE: prints a file indented on stderr (for failures).
show_file() { [ -f "$1" ] && sed "s|^|  $(basename "$1") | |" "$1" | tail -n 40 >&2; }

# The demo workload built with this tree (fake_amd_gpus: tests/cli/lib.sh).
DEMO=$BR_BINARY_DIR/tests/demo_workload

# submitted_ids FILE: the job ids of the last submission in submitted.json, one per line.
submitted_ids() {
    python3 -c 'import json,sys; [print(j["job_id"]) for j in json.load(open(sys.argv[1]))["submissions"][-1]["jobs"]]' "$1"
}

# job_start_after JOB_A JOB_B: true when A started at or after B ended.
job_start_after() {
    local s e; s=$(job_field "$1" StartTime); e=$(job_field "$2" EndTime)
    [[ "$s" > "$e" || "$s" == "$e" ]]
}

# csv_complete FILE [HEADER_LINE [MIN_ROWS]]: every row after the header
# (line 2 for telemetry, whose line 1 is metadata; 1 for a kernel trace) has
# the header's field count, there are at least MIN_ROWS rows (default 1), and
# the file ends with a newline: nothing half-written. Fields are counted
# outside double quotes (kernel names).
csv_complete() {
    local h=${2:-2} min=${3:-1}
    awk -v h="$h" -v min="$min" '{ gsub(/"[^"]*"/, "q"); n = split($0, f, ",") }
                   NR == h { want = n } NR > h && n != want { bad++ }
                   END { exit !(NR >= h + min && bad == 0) }' "$1" &&
        [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ]
}

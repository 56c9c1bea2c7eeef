#!/bin/bash
# 0101-conf-errors: every workload.conf validation error (README
# "workload.conf") gives one clear error line naming the conf, exit 1, and
# creates nothing.
. "$(dirname "$0")/lib.sh"

# good_conf FILE [EXTRA LINES...]: a valid conf, then the extra lines.
good_conf() {
    local f=$1; shift
    cat >"$f" <<CONF
WORKLOAD=t1
WORKLOAD_DESC="test"
RESULTS_DIR=$T/results
NGPUS=1
NTASKS=1
VENDOR=none
REQUIRED_FILES=("$T/app")
app_cmd() { APP_CMD=("$T/app" --out "\$OUT_DIR/x"); }
CONF
    printf '%s\n' "$@" >>"$f"
}
touch "$T/app"

# check NAME PATTERN CONF: plain and its dry run both fail with exactly one
# stderr line matching PATTERN, and RESULTS_DIR stays absent.
check() {
    local name=$1 pat=$2 conf=$3
    for dry in "" --dry-run; do
        expect_exit 1 "$name ${dry:-(run)}" -- "$BENCHRUN" plain "$conf" $dry
        expect_grep "^benchrun: .*$pat" "$T/err" "$name: message"
        [ "$(wc -l <"$T/err")" -eq 1 ] || { fail "$name: more than one stderr line"; cat "$T/err" >&2; }
        [ -e "$T/results" ] && { fail "$name: RESULTS_DIR was created"; rm -rf "$T/results"; }
    done
}

good_conf "$T/ok.conf"
expect_exit 0 "valid conf dry-runs" -- "$BENCHRUN" plain "$T/ok.conf" --dry-run

check "missing conf" "$T/nope.conf: cannot read the workload conf: No such file" "$T/nope.conf"
mkdir "$T/dir.conf"
check "conf is a directory" "dir.conf: cannot read the workload conf: it is a directory" "$T/dir.conf"
if [ "$(id -u)" -ne 0 ]; then
    good_conf "$T/unreadable.conf"; chmod 000 "$T/unreadable.conf"
    check "unreadable conf" "cannot read the workload conf: Permission denied" "$T/unreadable.conf"
fi

for f in WORKLOAD RESULTS_DIR NGPUS NTASKS; do
    good_conf "$T/no$f.conf" "unset $f"
    check "missing $f" "no$f.conf: required field $f is not set" "$T/no$f.conf"
done
good_conf "$T/empty.conf" "WORKLOAD="
check "empty WORKLOAD" "WORKLOAD is empty" "$T/empty.conf"
good_conf "$T/space.conf" "WORKLOAD='my app'"
check "WORKLOAD with a space" "WORKLOAD must be a tag without blanks or '/', got 'my app'" "$T/space.conf"
good_conf "$T/noapp.conf" "unset -f app_cmd"
check "no app_cmd" "noapp.conf: no app_cmd function" "$T/noapp.conf"
good_conf "$T/noset.conf" "app_cmd() { true; }"
check "app_cmd sets no APP_CMD" "noset.conf: app_cmd did not set APP_CMD" "$T/noset.conf"
good_conf "$T/emptyarr.conf" "app_cmd() { APP_CMD=(); }"
check "app_cmd sets an empty APP_CMD" "app_cmd did not set APP_CMD" "$T/emptyarr.conf"
for v in 0 -1 two 1.5 ""; do
    good_conf "$T/ngpus.conf" "NGPUS='$v'"
    check "NGPUS='$v'" "NGPUS must be a positive integer, got '$v'" "$T/ngpus.conf"
    good_conf "$T/ntasks.conf" "NTASKS='$v'"
    check "NTASKS='$v'" "NTASKS must be a positive integer, got '$v'" "$T/ntasks.conf"
done
good_conf "$T/req.conf" "REQUIRED_FILES+=(\"$T/missing/lmp\")"
check "missing REQUIRED_FILES entry" "req.conf: REQUIRED_FILES entry '$T/missing/lmp' does not exist" "$T/req.conf"
good_conf "$T/syntax.conf" "app_env() {" "  export X=1" "if true; then"
check "bash syntax error" "syntax.conf: bash syntax error: line [0-9]+: syntax error" "$T/syntax.conf"
good_conf "$T/exit.conf" "exit 3"
check "conf that exits" "exit.conf: the conf stopped bash before its end" "$T/exit.conf"
good_conf "$T/bind.conf" "BIND_GPU_PER_TASK=yes"
check "BIND_GPU_PER_TASK=yes" "BIND_GPU_PER_TASK must be 0 or 1" "$T/bind.conf"
good_conf "$T/vendor.conf" "VENDOR=intel"
check "VENDOR=intel" "VENDOR must be amd, nvidia or none" "$T/vendor.conf"

# Output of the conf itself (echo) must not corrupt the loader.
good_conf "$T/echo.conf" 'echo "hello from the conf"' 'printf "\0S\0WORKLOAD\0evil\0"'
expect_exit 0 "conf that prints" -- "$BENCHRUN" plain "$T/echo.conf" --dry-run
expect_grep "stage of 't1'" "$T/out" "printing conf keeps its WORKLOAD"
finish

# lib.sh - shared by the one-call GPU scripts (tests/gpu/e2e.sh, multi.sh).
# The caller sets ROOT (repo), B (build folder), O (log folder), LOGNAME_
# (its log file's base name), DEADLINE_S and STAGE_S before sourcing.

log() { echo "== $(date +%T) $*" | tee -a "$O/$LOGNAME_.log"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
T_START=$(now_ms)

# st NAME CMD...: runs CMD (killed after STAGE_S or at the deadline), output to
# $O/NAME.log, "NAME rc seconds" to stages.tsv; skipped (rc 124) past the deadline.
st() {
    local name=$1 t0 rc left; shift
    t0=$(now_ms)
    left=$(( DEADLINE_S - (t0 - T_START) / 1000 ))
    [ "$left" -gt "$STAGE_S" ] && left=$STAGE_S
    if [ "$left" -le 5 ]; then
        printf '%s\t124\t0\n' "$name" >>"$O/stages.tsv"; log "$name: skipped (deadline)"; return 124
    fi
    timeout -s TERM -k 10 "$left" "$@" >"$O/$name.log" 2>&1
    rc=$?
    printf '%s\t%d\t%.1f\n' "$name" "$rc" "$(( $(now_ms) - t0 ))e-3" >>"$O/stages.tsv"
    log "$name: exit $rc"
    return $rc
}

# build_benchrun: benchrun and libbenchrun-cupti.so into $B (a build folder
# configured for another source tree cannot be reused: a fresh one then);
# sets BR. Returns 1 with the build log's tail on failure.
build_benchrun() {
    if [ -f "$B/CMakeCache.txt" ] && ! grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$ROOT" "$B/CMakeCache.txt"; then
        B=$(mktemp -d)/build
    fi
    log "build ($B)"
    if ! { [ -f "$B/CMakeCache.txt" ] || cmake -S "$ROOT" -B "$B" -DCMAKE_BUILD_TYPE=Release >"$O/build.log" 2>&1; } ||
       ! cmake --build "$B" -j"$(nproc)" --target benchrun benchrun-cupti >>"$O/build.log" 2>&1; then
        tail -30 "$O/build.log"; return 1
    fi
    BR=$B/benchrun
}

#!/bin/bash
# 0001-help: --help of every command exits 0; unknown command/option exits 2.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "benchrun --help" -- "$BENCHRUN" --help
expect_grep '^usage: benchrun' "$T/out" "top-level usage on stdout"
expect_exit 0 "benchrun --version" -- "$BENCHRUN" --version
expect_grep '^benchrun [0-9]' "$T/out" "version line"
expect_exit 2 "no command" -- "$BENCHRUN"
expect_exit 2 "unknown command" -- "$BENCHRUN" frobnicate
expect_grep "'frobnicate' is not a benchrun command" "$T/err" "unknown command named"
expect_exit 2 "unknown top-level option" -- "$BENCHRUN" --frob

cmds=$("$BENCHRUN" --help | awk '/^Commands:/{on=1; next} on && /^  [a-z]/{print $1}')
[ -n "$cmds" ] || fail "no commands listed in --help"
for c in $cmds; do
    expect_exit 0 "$c --help" -- "$BENCHRUN" "$c" --help
    expect_grep "^usage: benchrun $c" "$T/out" "$c usage on stdout"
    # a printf escape left in text that is printed as it is
    ! grep -n '%%' "$T/out" >/dev/null || fail "$c --help prints '%%': $(grep -m1 '%%' "$T/out")"
    expect_exit 0 "help $c" -- "$BENCHRUN" help "$c"
done
finish

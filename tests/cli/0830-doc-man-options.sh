#!/bin/bash
# 0830-doc-man-options: docs/benchrun.1 has a section for every command of
# `benchrun --help` (and none for a command that does not exist), every option
# of each command's --help appears in that command's section (so the man page
# cannot drift from the code), groff renders it without warnings, and
# `cmake --install` puts it in share/man/man1.
. "$(dirname "$0")/lib.sh"
man1=$BR_SOURCE_DIR/docs/benchrun.1
[ -f "$man1" ] || { fail "no docs/benchrun.1"; finish; }
# roff source as plain text: \- is -, font escapes dropped.
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$man1" >"$T/man.txt"

section() {  # section CMD: the lines of ".SS CMD" up to the next .SS/.SH
    awk -v c="$1" '$0 == ".SS " c {on=1; next} on && /^\.S[SH]/ {exit} on' "$T/man.txt"
}
# Options a --help defines: long options of the usage lines and of the option
# lines (lines that start with blanks then '-'); short ones of the option lines.
help_options() {
    awk '/^usage:/ {u=1} u && !/^usage:/ && !/^ +[[]/ && !/^ +benchrun/ {u=0}
         u || /^ +-/ {print}' "$1" |
        grep -oE -- '(^|[][ ,|])--?[A-Za-z][A-Za-z0-9-]*' | sed -E 's/^[][ ,|]//' | sort -u
}

cmds=$("$BENCHRUN" --help | awk '/^Commands:/{on=1; next} on && /^  [a-z]/{print $1}')
[ -n "$cmds" ] || fail "no commands in benchrun --help"
for c in $cmds; do
    section "$c" >"$T/sec"
    if [ ! -s "$T/sec" ]; then fail "no '.SS $c' section in docs/benchrun.1"; continue; fi
    "$BENCHRUN" "$c" --help >"$T/help" 2>&1
    n=0
    for o in $(help_options "$T/help"); do
        n=$((n + 1))
        grep -qE -- "(^|[^A-Za-z0-9-])$o([^A-Za-z0-9-]|\$)" "$T/sec" ||
            fail "$c: option $o of --help is not in the man page's '$c' section"
    done
    pass "$c: $n option(s) of --help in the man page"
done
for s in $(awk '/^\.SS /{print $2}' "$T/man.txt"); do
    echo "$cmds" | grep -qx "$s" || fail "man page section '$s' is not a benchrun command"
done
# The extractor itself: a known option line and a usage line are seen.
printf 'usage: benchrun x A [--alpha N]\n                  [--beta]\n\nText --gamma.\n  -d, --delta  x\n' >"$T/h"
[ "$(help_options "$T/h" | tr '\n' ' ')" = "--alpha --beta --delta -d " ] &&
    pass "option extractor" || fail "option extractor: $(help_options "$T/h" | tr '\n' ' ')"

if command -v groff >/dev/null; then
    groff -man -ww -z "$man1" 2>"$T/groff" && [ ! -s "$T/groff" ] &&
        pass "groff: no warnings" || { fail "groff warnings"; cat "$T/groff" >&2; }
else
    echo "skip: groff not installed"
fi
if command -v cmake >/dev/null && [ -f "$BR_BINARY_DIR/cmake_install.cmake" ]; then
    cmake --install "$BR_BINARY_DIR" --prefix "$T/inst" >"$T/inst.log" 2>&1 || fail "cmake --install"
    f=$(find "$T/inst" -path '*/man1/benchrun.1' | head -1)
    [ -n "$f" ] && cmp -s "$f" "$man1" && pass "installed as share/man/man1/benchrun.1" ||
        fail "cmake --install did not install man1/benchrun.1 (re-run cmake so it sees docs/benchrun.1)"
fi
finish

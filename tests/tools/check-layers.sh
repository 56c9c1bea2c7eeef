#!/bin/bash
# check-layers.sh - the include layering of src/, as docs/design.md states it.
#
# A module is a folder of src/ holding sources (src/trace/cupti is a module of
# its own). Each module may include its own headers and those of the modules
# its row of the "Layers" table in docs/design.md names (the lines between
# <!-- layers --> and <!-- /layers -->, "| `module` | `dep`, `dep` |"); a
# private header (*_int.h) only from its own folder; every module has a row,
# and the table has no cycle. So a back edge (a reader including a writer,
# the engine including a stage) fails the build's test suite.
#
# usage: check-layers.sh [SRC_DIR [TABLE_FILE]]   (default: src docs/design.md
#        of the source tree this script is in)
# Prints one line per violation, "src/read/x.c:12: read includes write/y.h
# (read may use: util)". Exit 0 clean, 1 violations, 2 no table or a bad one.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
src=${1:-$here/src}
table=${2:-$here/docs/design.md}
[ -d "$src" ] || { echo "check-layers: no folder $src" >&2; exit 2; }
[ -f "$table" ] || { echo "check-layers: no table file $table" >&2; exit 2; }

rows=$(awk '/<!-- layers -->/ {on = 1; next} /<!-- \/layers -->/ {on = 0}
            on && /^\|/ && !/^\| *(module|-)/ {
                n = split($0, c, "|"); m = c[2]; d = c[3]
                gsub(/[` ]/, "", m); gsub(/[` ]/, "", d); gsub(/-/, "", d); gsub(/–/, "", d)
                print m ":" d }' "$table")
[ -n "$rows" ] || { echo "check-layers: no layers table in $table" >&2; exit 2; }

modules=$(cd "$src" && find . -name '*.[ch]' | sed 's|^\./||; s|/[^/]*$||' | grep -v '^[^/]*\.[ch]$' |
          sort -u)
find_row() { printf '%s\n' "$rows" | awk -F: -v m="$1" '$1 == m { print $2; f = 1 } END { exit !f }'; }

bad=0
for m in $modules; do
    if ! find_row "$m" >/dev/null; then
        echo "$table: module '$m' (src/$m) has no row in the layers table"
        bad=1
    fi
done

# The table names only its own modules and has no cycle: modules whose uses
# are all gone are taken away until none is left, or a cycle remains.
cycle=$(printf '%s\n' "$rows" | awk -F: '{ mod[$1] = 1; uses[$1] = $2 }
    END {
        for (m in mod) { n = split(uses[m], d, ",")
            for (i = 1; i <= n; i++) if (d[i] != "" && !(d[i] in mod)) print "unknown " m " " d[i] }
        do { gone = 0
            for (m in mod) { n = split(uses[m], d, ","); ok = 1
                for (i = 1; i <= n; i++) if (d[i] != m && (d[i] in mod)) ok = 0
                if (ok) { delete mod[m]; gone = 1 } }
        } while (gone)
        for (m in mod) left = left " " m
        if (left != "") print "cycle" left }')
while read -r kind a b; do
    case $kind in
    unknown) echo "$table: layers table: '$a' may use '$b', which has no row"; bad=1 ;;
    cycle) echo "$table: the layers table has a cycle among:$a ${b:-}"; bad=1 ;;
    esac
done <<<"$cycle"

for m in $modules; do
    allowed=$(find_row "$m")
    for f in "$src/$m"/*.[ch]; do
        [ -f "$f" ] || continue
        rel=${f#"$src"/}
        awk -v m="$m" -v allowed="$allowed" -v file="src/$rel" '
            BEGIN { n = split(allowed, a, ","); for (i = 1; i <= n; i++) ok[a[i]] = 1; ok[m] = 1 }
            /^[ \t]*#[ \t]*include[ \t]*"[^"]*\// {
                h = $0; sub(/^[^"]*"/, "", h); sub(/".*/, "", h)
                t = h; sub(/\/[^\/]*$/, "", t)
                if (!(t in ok))
                    printf "%s:%d: %s includes %s (%s may use: %s)\n", file, FNR, m, h, m, allowed == "" ? "nothing" : allowed
                else if (t != m && h ~ /_int\.h$/)
                    printf "%s:%d: %s includes %s, a header private to %s\n", file, FNR, m, h, t
            }' "$f"
    done
done > "${TMPDIR:-/tmp}/check-layers.$$"
if [ -s "${TMPDIR:-/tmp}/check-layers.$$" ]; then
    cat "${TMPDIR:-/tmp}/check-layers.$$"
    bad=1
fi
rm -f "${TMPDIR:-/tmp}/check-layers.$$"
exit $bad

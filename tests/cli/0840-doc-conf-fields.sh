#!/bin/bash
# 0840-doc-conf-fields: docs/conf.md has a table row for every field the conf
# loader reads (BR_CONF_SCALARS and BR_CONF_ARRAYS of src/conf/conf.c) and for
# every function it calls, and no row for a field the loader does not read, so
# the conf reference cannot drift from the code.
. "$(dirname "$0")/lib.sh"
doc=$BR_SOURCE_DIR/docs/conf.md
src=$BR_SOURCE_DIR/src/conf/conf.c
# The two macros, joined across their continuation lines.
fields=$(awk '/^#define BR_CONF_(SCALARS|ARRAYS)/ {on=1} on {print} on && !/\\$/ {on=0}' "$src" |
         grep -oE '"[^"]*"' | tr -d '"' | tr ' ' '\n' | grep -E '^[A-Z_]+$' | sort -u)
[ "$(echo "$fields" | wc -l)" -ge 20 ] && pass "loader fields found ($(echo $fields | wc -w))" ||
    fail "could not read the field list from $src: '$fields'"
for f in $fields; do
    grep -qE "^\| \`$f\` \|" "$doc" && pass "docs/conf.md: $f" || fail "docs/conf.md has no row for $f"
done
for fn in stage_inputs app_env app_cmd; do
    grep -qE "^\| \`$fn\(\)\` \|" "$doc" && pass "docs/conf.md: $fn()" || fail "docs/conf.md has no row for $fn()"
done
for f in $(grep -oE '^\| `[A-Z_]+` \|' "$doc" | tr -d '|` '); do
    echo "$fields" | grep -qx "$f" || fail "docs/conf.md documents $f, which the loader does not read"
done
finish

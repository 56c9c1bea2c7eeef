#!/bin/bash
# 0850-source-layers: the include layering of src/ (docs/design.md §3) holds,
# and the check fails on each kind of violation: a back edge, a private
# header used from another folder, a module without a row, a cycle in the table.
. "$(dirname "$0")/lib.sh"
check=$BR_SOURCE_DIR/tests/tools/check-layers.sh

expect_exit 0 "src/ follows docs/design.md's layers" -- bash "$check"
[ ! -s "$T/out" ] && pass "no violation printed" || { fail "violations:"; cat "$T/out" >&2; }

# A copy of the tree and of the table to break.
cp -r "$BR_SOURCE_DIR/src" "$T/src"
cp "$BR_SOURCE_DIR/docs/design.md" "$T/design.md"
expect_exit 0 "the copy is clean too" -- bash "$check" "$T/src" "$T/design.md"

# A reader that includes a writer: data flowing back.
f=$(ls "$T"/src/read/*.c | head -1)
echo '#include "write/analysis.h"' >>"$f"
line=$(wc -l <"$f")
expect_exit 1 "a back edge (read -> write) fails" -- bash "$check" "$T/src" "$T/design.md"
expect_grep "^src/read/$(basename "$f"):$line: read includes write/analysis.h \(read may use: " \
    "$T/out" "the violation names file, line, module and header"
sed -i '$d' "$f"

# The engine's private header from a writer.
g=$(ls "$T"/src/write/*.c | head -1)
echo '#include "metrics/mx_int.h"' >>"$g"
expect_exit 1 "a private header from another folder fails" -- bash "$check" "$T/src" "$T/design.md"
expect_grep "write includes metrics/mx_int.h, a header private to metrics" "$T/out" "private header named"
sed -i '$d' "$g"

# A new folder without a row.
mkdir "$T/src/newmod" && echo 'int newmod_x;' >"$T/src/newmod/newmod.c"
expect_exit 1 "a module without a row fails" -- bash "$check" "$T/src" "$T/design.md"
expect_grep "module 'newmod' \(src/newmod\) has no row" "$T/out" "missing row named"
rm -r "$T/src/newmod"

# A cycle in the table: util may use read, which may use util.
sed -i 's/^| `util` | – |$/| `util` | `read` |/' "$T/design.md"
expect_exit 1 "a cycle in the table fails" -- bash "$check" "$T/src" "$T/design.md"
expect_grep "the layers table has a cycle among:.*read" "$T/out" "cycle reported"
finish

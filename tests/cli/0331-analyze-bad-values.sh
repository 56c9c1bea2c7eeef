#!/bin/bash
# 0331-analyze-bad-values: analysis inputs never give silent wrong results.
# Each bad value is rejected with file:line or used with a
# warning that names it: NaN, +-inf, 1e309, negative and 2^64-1 counter
# values, a whole pass of NaN, every dispatch duplicated, a telemetry clock
# of 0, agent_info values far outside the possible, passes without a kernel in
# common. Names that are not UTF-8 survive into summary.json, escaped; report.md
# escapes Markdown and HTML; non-regular input files are refused; malformed
# files get clear messages; pass names are checked where counters files are read.
. "$(dirname "$0")/lib.sh"
GEN=$BR_BINARY_DIR/tests/gen_rocprof
CHECK="python3 $BR_SOURCE_DIR/tests/cli/check_expected.py"
[ -x "$GEN" ] || { fail "generator not built: $GEN"; finish; }
"$GEN" --launches 40 --kernels 5 --agent-info --power "$T/baseprof" "$T/base" >/dev/null || fail "generator failed"
P=01_fp64_flops
CC=$P/${P}_counter_collection.csv
KT=$P/${P}_kernel_trace.csv
AI=$P/${P}_agent_info.csv
TEL=profiling_result_gen_0.csv

fresh() { rm -rf "$T/run" "$T/prof"; cp -r "$T/base" "$T/run"; cp -r "$T/baseprof" "$T/prof"; }
edit() { awk "$2" "$T/run/$1" >"$T/edit.tmp" && mv "$T/edit.tmp" "$T/run/$1"; }
# set_value ROW VALUE: Counter_Value of data row ROW (file line ROW+1) of $CC
set_value() {
    python3 - "$T/run/$CC" "$1" "$2" <<'PY'
import sys
path, row, val = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode()
lines = open(path, "rb").read().split(b"\n")
hdr = lines[0].decode().split(",")
f = lines[row].rsplit(b",", 3)          # ..., Counter_Value, Start, End
lines[row] = b",".join([f[0], val, f[2], f[3]])
open(path, "wb").write(b"\n".join(lines))
PY
}
# warned PATTERN DESC: summary.json checks.warnings has a match
warned() {
    python3 - "$T/run/analysis/summary.json" "$1" <<'PY' && pass "$2" || fail "$2"
import json, re, sys
w = json.load(open(sys.argv[1]))["checks"]["warnings"]
assert any(re.search(sys.argv[2], x) for x in w), w
PY
}

# 1. Counter values that cannot be counts: left out of the sums, each kind
# named with the first file:line and how many.
for v in nan -inf inf 1e309 -5 18446744073709551615; do
    fresh; set_value 1 "$v"
    expect_exit 0 "Counter_Value $v" -- "$BENCHRUN" analyze "$T/run"
    warned "pass $P: 1 counter value\(s\) left out .*${P}_counter_collection.csv:2" "Counter_Value $v: warned with file:line"
done
fresh; set_value 1 nan
"$BENCHRUN" analyze "$T/run" >/dev/null 2>&1
python3 - "$T/run/analysis/summary.json" <<'PY' && pass "NaN named as not finite" || fail "NaN reason"
import json, sys
w = json.load(open(sys.argv[1]))["checks"]["warnings"]
assert any("not finite" in x and "'nan'" in x for x in w), w
PY

# 2. A whole pass of NaN: every value left out, every counter of it has no data.
fresh; python3 - "$T/run/$CC" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
out = [lines[0]] + [",".join(l.rsplit(",", 3)[:1] + ["nan"] + l.rsplit(",", 3)[2:]) if l else l for l in lines[1:]]
open(sys.argv[1], "w").write("\n".join(out))
PY
expect_exit 0 "a pass of NaN" -- "$BENCHRUN" analyze "$T/run"
warned "pass $P: [0-9]+ counter value\(s\) left out" "whole-pass NaN: values left out, counted"
warned "counter SQ_INSTS_VALU_ADD_F64 \(pass $P\): no data" "whole-pass NaN: its counters have no data"

# 3. Every dispatch twice: the repeated rows are left out, the values stay right.
fresh; tail -n +2 "$T/base/$CC" >>"$T/run/$CC"
expect_exit 0 "every dispatch duplicated" -- "$BENCHRUN" analyze "$T/run" --power "$T/prof"
warned "pass $P: [0-9]+ repeated counter row\(s\) .*left out.*${P}_counter_collection.csv:[0-9]+" "duplicates warned"
$CHECK --quiet "$T/run/expected.json" "$T/run/analysis" >"$T/chk" 2>&1 \
    && pass "duplicates: values as expected" || { fail "duplicates: values differ"; head -5 "$T/chk" >&2; }

# 4. Telemetry gfx clock 0: those samples are not a clock.
fresh; awk -F, 'BEGIN { OFS = "," } NR > 2 { $4 = 0 } { print }' "$T/prof/$TEL" >"$T/edit.tmp" && mv "$T/edit.tmp" "$T/prof/$TEL"
expect_exit 0 "telemetry clock 0" -- "$BENCHRUN" analyze "$T/run" --power "$T/prof"
warned "telemetry: [0-9]+ in-kernel sample\(s\) with gfx_clock_MHz 0 or below left out" "clock 0 warned"
python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['clock']; assert c['clock_MHz'] != 0 and (c['sampled'] or {}).get('clock_MHz') is None, c" \
    "$T/run/analysis/summary.json" && pass "clock 0 not used" || fail "clock 0 used"

# 5. agent_info values beyond the possible are not used.
fresh; for p in "$T"/run/*/; do n=$(basename "$p"); sed -i 's/,304,/,1e20,/' "$p/${n}_agent_info.csv"; done
expect_exit 0 "Cu_Count 1e20" -- "$BENCHRUN" analyze "$T/run"
warned "agent_info Cu_Count = 1e\+20 .* is not used" "absurd agent_info warned"
python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['arch']['constants']['N_CU']; assert c=={'value':304,'source':'profile'}, c" \
    "$T/run/analysis/summary.json" && pass "N_CU stays the profile's" || fail "N_CU from the absurd value"

# 6. Passes with no kernel in common measured different programs.
fresh; for f in "$T"/run/02_fp32_int_ops/*.csv; do
    sed -i 's/"void /"void o_/; s/"hip_parallel/"o_hip_parallel/; s/"stream_copy/"o_stream_copy/; s/"matmul/"o_matmul/; s/"tiny_reduce/"o_tiny_reduce/' "$f"
done
expect_exit 0 "disjoint passes" -- "$BENCHRUN" analyze "$T/run"
warned "passes $P and 02_fp32_int_ops have no kernel in common" "disjoint passes warned"

# 7. A kernel name that is not UTF-8 reaches every JSON file, escaped.
fresh; for f in "$T"/run/*/*.csv "$T"/prof/ktrace_gen/*.csv; do sed -i 's/"void gemm_tile/"void gemm\xff\xfetile/' "$f"; done
expect_exit 0 "non-UTF-8 kernel name" -- "$BENCHRUN" analyze "$T/run" --power "$T/prof" --top-n 5
python3 - "$T/run/analysis/summary.json" <<'PY' && pass "summary.json loads; the kernel is there, \\xFF\\xFE escaped" || fail "non-UTF-8 name in summary.json"
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
names = [k["kernel_full_name"] for k in d["top_kernels"]]
assert any("gemm\\xFF\\xFEtile" in n for n in names), names
PY
LC_ALL=C grep -q $'gemm\xff\xfetile' "$T/run/analysis/per_kernel_metrics.csv" && pass "CSV keeps the bytes" || fail "CSV lost the name"
expect_exit 0 "vectors with a label that is not UTF-8" -- "$BENCHRUN" vectors "$T/prof" --arch gfx942 --label $'run \xff'
python3 -c "import json,sys; d=json.load(open(sys.argv[1], encoding='utf-8')); assert d['description']['label']==sys.argv[2], d['description']['label']" \
    "$T/prof/sampling_vectors.json" 'run \xFF' && pass "sampling_vectors.json loads, label escaped" || fail "vectors JSON with a non-UTF-8 label"
expect_exit 0 "analyze with the power run's vectors" -- "$BENCHRUN" analyze "$T/run" --power "$T/prof"
expect_grep '<h2>Telemetry vectors' "$T/run/analysis/report.html" "report.html draws the vectors"
# A corrupt sampling_vectors.json: said on stderr and in the warnings, its
# plots left out, the rest of the analysis as before.
head -c 40 "$T/prof/sampling_vectors.json" >"$T/vec.tmp" && mv "$T/vec.tmp" "$T/prof/sampling_vectors.json"
expect_exit 0 "a truncated sampling_vectors.json" -- "$BENCHRUN" analyze "$T/run" --power "$T/prof"
expect_grep 'sampling_vectors.json:[0-9]+: invalid JSON .*: its telemetry vectors are left out of report.html' "$T/err" "stated on stderr"
warned 'sampling_vectors.json:[0-9]+: invalid JSON .*left out of report.html' "stated in summary.json's warnings"
expect_no_grep '<h2>Telemetry vectors' "$T/run/analysis/report.html" "no vectors drawn from it"
expect_grep '<svg' "$T/run/analysis/report.html" "the rest of report.html is there"
printf '[1, 2]\n' >"$T/prof/sampling_vectors.json"
expect_exit 0 "a sampling_vectors.json that is not an object" -- "$BENCHRUN" analyze "$T/run" --power "$T/prof"
warned 'sampling_vectors.json: not a JSON object: its telemetry vectors are left out' "non-object stated"

# 8. report.md escapes Markdown and HTML in kernel names and perf lines.
fresh; for f in "$T"/run/*/*.csv; do sed -i 's/"void gemm_tile</"void gemm|*x*<script>y<\/script>`z`[a]_</' "$f"; done
printf 'Perf: <b>fast</b> | *99* [x](y)\n' >"$T/run/$P/rocprof.$P.txt"
expect_exit 0 "Markdown and HTML in names" -- "$BENCHRUN" analyze "$T/run" --perf-regex '^Perf:' --top-n 5
md=$T/run/analysis/report.md
expect_no_grep '<script>|<b>' "$md" "no raw HTML in report.md"
grep -qF 'gemm\|\*x\*&lt;script>y&lt;/script>\`z\`[a]\_&lt;double, 64, 4>' "$md" \
    && pass "kernel name escaped" || fail "kernel name not escaped: $(grep -o 'gemm[^ ]*' "$md" | head -1)"
grep -qF 'Perf: &lt;b>fast&lt;/b> \| \*99\* [x\](y)' "$md" \
    && pass "perf line escaped" || fail "perf line not escaped: $(grep -o 'Perf:.*' "$md" | head -1)"

# 9. Inputs that are not regular files are refused, at once.
fresh; rm "$T/run/$CC"; ln -s /dev/zero "$T/run/$CC"
expect_exit 1 "counter file = /dev/zero" -- timeout 20 "$BENCHRUN" analyze "$T/run"
expect_grep "${P}_counter_collection.csv: not a regular file \(a character device\)" "$T/err" "/dev/zero refused"
fresh; rm "$T/run/$CC"; mkfifo "$T/run/$CC"
expect_exit 1 "counter file = FIFO" -- timeout 20 "$BENCHRUN" analyze "$T/run"
expect_grep "${P}_counter_collection.csv: not a regular file \(a FIFO\)" "$T/err" "FIFO refused"
fresh; rm "$T/prof/$TEL"; mkfifo "$T/prof/$TEL"
expect_exit 1 "telemetry file = FIFO" -- timeout 20 "$BENCHRUN" analyze "$T/run" --power "$T/prof"
expect_grep "$TEL'?: not a regular file" "$T/err" "telemetry FIFO refused"
fresh; mkfifo "$T/run/run.json"
expect_exit 0 "run.json a FIFO: not read, no hang" -- timeout 20 "$BENCHRUN" analyze "$T/run"

# 10. Clear messages for malformed files.
fresh; tr '\n' '\r' <"$T/base/$CC" >"$T/run/$CC"
expect_exit 1 "CR-only line ends" -- "$BENCHRUN" analyze "$T/run"
expect_grep "${P}_counter_collection.csv:1: lines end in CR only" "$T/err" "CR-only named"
fresh; edit "$CC" 'NR == 3 { sub(/gemm_tile</, "gemm\ntile<") } { print }'
expect_exit 1 "a newline inside a quoted name" -- "$BENCHRUN" analyze "$T/run"
expect_grep "${P}_counter_collection.csv:3: a quoted field is not closed on its line \(a line break inside a kernel name\?\)" "$T/err" "quoted newline named"
fresh; set_value 1 "$(printf '12\\x003')"; python3 - "$T/run/$CC" <<'PY'
import sys
p = sys.argv[1]; b = open(p, "rb").read().replace(b"12\\x003", b"12\x003"); open(p, "wb").write(b)
PY
expect_exit 1 "a NUL inside a number" -- "$BENCHRUN" analyze "$T/run"
expect_grep "${P}_counter_collection.csv:2: column Counter_Value: expected a number, got '12\\\\x003'" "$T/err" "NUL shown"
fresh; edit "$CC" 'NR == 2 { sub(/^1,1,/, "1,18446744073709551615,") } { print }'
expect_exit 1 "Dispatch_Id 2^64-1" -- "$BENCHRUN" analyze "$T/run"
expect_grep "${P}_counter_collection.csv:2: column Dispatch_Id: 18446744073709551615 is 2\^64-1" "$T/err" "2^64-1 named"

# Negative timestamps are rejected with file:line wherever they are read.
fresh; edit "$CC" 'NR == 2 { sub(/,1550[0-9]+,/, ",-1550,") } { print }'
expect_exit 1 "negative Start_Timestamp (counter file)" -- "$BENCHRUN" analyze "$T/run"
expect_grep "${P}_counter_collection.csv:2: column Start_Timestamp: expected a non-negative integer, got '-1550'" "$T/err" "counter file: file:line"
fresh; edit "../prof/ktrace_gen/10000_kernel_trace.csv" 'NR == 3 { sub(/,20[0-9]+,/, ",-2,") } { print }'
expect_exit 1 "negative timestamp (power-run trace)" -- "$BENCHRUN" analyze "$T/run" --power "$T/prof"
expect_grep "10000_kernel_trace.csv:3: " "$T/err" "power-run trace: file:line"
fresh; awk -F, 'BEGIN { OFS = "," } NR == 5 { $1 = "-" $1 } { print }' "$T/prof/$TEL" >"$T/edit.tmp" && mv "$T/edit.tmp" "$T/prof/$TEL"
expect_exit 1 "negative timestamp (telemetry)" -- "$BENCHRUN" analyze "$T/run" --power "$T/prof"
expect_grep "$TEL:5: .*timestamp_ns" "$T/err" "telemetry: file:line"

# A 70 MB line: an error, not 70 MB (or 1 GB) of memory.
fresh; python3 -c "import sys; f=open(sys.argv[1],'a'); f.write('x' * 70000000 + '\n')" "$T/run/$CC"
expect_exit 1 "a 70 MB line in a counter file" -- "$BENCHRUN" analyze "$T/run"
expect_grep "${P}_counter_collection.csv:[0-9]+: a line longer than 64 MiB" "$T/err" "long line named"

# 11. Pass names and pass lists from counters files.
pass_list() { python3 - "$T/run/counters.json" "$@" <<'PY'
import json, sys
path, how = sys.argv[1], sys.argv[2]
d = json.load(open(path))
if how == "dup": d["passes"].append(d["passes"][0])
elif how == "many": d["passes"] = [{"name": "p%d" % i, "counters": ["SQ_WAVES"]} for i in range(10000)]
else: d["passes"][0]["name"] = how
json.dump(d, open(path, "w"))
PY
}
fresh; pass_list dup
expect_exit 1 "a pass listed twice" -- "$BENCHRUN" analyze "$T/run"
expect_grep "counters.json: passes\[6\].name: pass '$P' is listed twice \(passes\[0\] too\)" "$T/err" "blamed on counters.json"
expect_no_grep 'gfx942.json' "$T/err" "not blamed on the profile"
fresh; pass_list many
t0=$SECONDS
expect_exit 1 "10,000 passes" -- "$BENCHRUN" analyze "$T/run"
expect_grep 'counters.json: 10000 passes; at most 256' "$T/err" "too many passes named"
[ "$(wc -l <"$T/err")" -lt 5 ] && pass "one message, not one per pass" || fail "$(wc -l <"$T/err") message lines"
for n in '..' '.' '-rf' "$P*0+1234567" 'a b'; do
    fresh; pass_list "$n"
    expect_exit 1 "pass name '$n'" -- "$BENCHRUN" analyze "$T/run"
    expect_grep "counters.json: passes\[0\].name: pass name '.*' may hold only letters, digits" "$T/err" "pass name '$n' refused"
    cp "$T/run/counters.json" "$T/bad-counters.json"
    demo_conf "$T/pmc.conf" bad
    expect_exit 1 "pmc with pass name '$n'" -- "$BENCHRUN" pmc "$T/pmc.conf" --counters "$T/bad-counters.json" --dry-run
    expect_grep "bad-counters.json: passes\[0\].name: pass name" "$T/err" "pmc refuses pass name '$n'"
done
finish

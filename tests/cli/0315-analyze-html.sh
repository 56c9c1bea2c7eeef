#!/bin/bash
# 0315-analyze-html: analyze writes analysis/report.html next to report.md: a
# self-contained page (no http, no script) that python's html.parser reads,
# every <svg> closed, one roofline dot per top kernel (or listed as "not on
# the roofline"), the generated kernel names with < > and " escaped, no NaN
# printed, and a power timeline whose lines stay bounded (<= 2000 points) on a
# 200000-sample telemetry file while a one-sample spike survives.
. "$(dirname "$0")/lib.sh"
GEN=$BR_BINARY_DIR/tests/gen_rocprof
[ -x "$GEN" ] || { fail "generator not built: $GEN"; finish; }
"$GEN" --power "$T/prof" "$T/pmc" >/dev/null || { fail "generator failed"; finish; }

# check HTML: python assertions on the page; prints what failed.
check() {
    python3 - "$1" "$2" <<'PY'
import csv, html.parser, re, sys
page, topcsv = sys.argv[1], sys.argv[2]
s = open(page, encoding="utf-8").read()
bad = []
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.open_svg = 0; self.max_svg = 0
    def handle_starttag(self, tag, a):
        if tag == "svg": self.open_svg += 1; self.max_svg = max(self.max_svg, self.open_svg)
    def handle_endtag(self, tag):
        if tag == "svg": self.open_svg -= 1
p = P(); p.feed(s); p.close()
if p.open_svg != 0 or s.count("<svg") != s.count("</svg>"): bad.append("unclosed <svg>")
if "http" in s.lower(): bad.append("'http' in the page (not self-contained)")
if "<script" in s.lower(): bad.append("script in the page")
if re.search(r"\bnan\b|\binf\b", re.sub(r"<[^>]*>", " ", s), re.I): bad.append("nan/inf printed")
tops = [r[0] for r in csv.reader(open(topcsv))][1:]
tops = [t for t in tops if t != "TOTAL"]
off = re.findall(r"<ul class=offroof>(.*?)</ul>", s, re.S)
noff = off[0].count("<li>") if off else 0
if s.count("class='kdot'") + noff - ("<li>TOTAL</li>" in s) != len(tops):
    bad.append("dots %d + off %d != top kernels %d" % (s.count("class='kdot'"), noff, len(tops)))
if s.count("class='tdot'") + ("<li>TOTAL</li>" in s) != 1: bad.append("TOTAL not marked once")
for t in tops:
    if any(c in t for c in '<>"') and html.escape(t, quote=True).replace("&#x27;", "&#39;") not in s:
        bad.append("kernel name not escaped: " + t)
    if '"' in t and t in s: bad.append("raw kernel name with a quote: " + t)
pts = [len(m.split()) for m in re.findall(r"class='tl'[^>]*points='([^']*)'", s)]
print("polylines", pts)
if not pts or max(pts) > 2000: bad.append("timeline polylines missing or over 2000 points")
for b in bad: print("BAD:", b)
sys.exit(1 if bad else 0)
PY
}

expect_exit 0 "analyze with the power run" -- "$BENCHRUN" analyze "$T/pmc" --power "$T/prof"
H=$T/pmc/analysis/report.html
[ -f "$H" ] && pass "report.html written" || fail "no report.html"
grep -q '[<>"]' "$T/pmc/analysis/top_kernels.csv" || fail "generator names lost their < > \" (test is moot)"
if check "$H" "$T/pmc/analysis/top_kernels.csv" >"$T/check" 2>&1; then
    pass "well-formed, self-contained, one dot per top kernel, names escaped, no nan"
else
    fail "report.html checks"; sed 's/^/  | /' "$T/check" >&2
fi
expect_grep 'class=timeline' "$H" "timeline drawn"
expect_grep "class='busy'" "$H" "kernel-busy band"
expect_grep 'peak_TFLOPs_mix' "$H" "compute roof"

# A long telemetry file (200000 samples over the run) with one 999 W spike.
python3 - "$T/prof/profiling_result_gen_0.csv" "$T/prof/profiling_result_long_1.csv" <<'PY'
import sys
rows = [l for l in open(sys.argv[1]) if l[0].isdigit()]
t0, t1 = int(rows[0].split(",")[0]), int(rows[-1].split(",")[0])
n = 200000
with open(sys.argv[2], "w") as f:
    f.write("# device=1 interval_ms=1 backend=generated clock=CLOCK_BOOTTIME\n")
    f.write("timestamp_ns,current_socket_power_W,inst_power_W,gfx_clock_MHz,edge_temp_C,hotspot_temp_C\n")
    for i in range(n):
        w = 999 if i == n // 3 else 300 + (i % 7)
        f.write("%d,%d,%d,1500,40,50\n" % (t0 + (t1 - t0) * i // n, w, w))
PY
expect_exit 0 "analyze with a 200000-sample telemetry file" -- "$BENCHRUN" analyze "$T/pmc" --power "$T/prof"
if check "$H" "$T/pmc/analysis/top_kernels.csv" >"$T/check2" 2>&1; then
    pass "long telemetry: every line <= 2000 points ($(head -1 "$T/check2"))"
else
    fail "long telemetry checks"; sed 's/^/  | /' "$T/check2" >&2
fi
expect_grep ">999</text>" "$H" "the 999 W spike survives decimation"

# No power run: no timeline, still a valid page.
expect_exit 0 "analyze without a power run" -- "$BENCHRUN" analyze "$T/pmc" --out-dir "$T/nopower"
expect_no_grep 'class=timeline' "$T/nopower/report.html" "no timeline without a power run"
finish

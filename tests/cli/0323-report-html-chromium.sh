#!/bin/bash
# 0323-report-html-chromium: report.html opened in a real browser. Headless
# Chromium (Debian's chromium, the `ci` level of build-aux/install-deps.sh)
# loads the page of a generated counter + power run and must: exit 0 with no
# console message; keep in its DOM (--dump-dom) every plot element the page
# has (the summary, roofline dots, the timeline's lines and launch spans, the
# energy bars: a markup error would make the parser drop or move them); and
# paint a screenshot that is not blank (tests/cli/png_check.py: > 2 % of the
# pixels not white, > 10 colours). Without chromium the test says SKIPPED and
# passes, except under CI (CI=true), where that is a failure.
. "$(dirname "$0")/lib.sh"
CHROME=
for c in chromium chromium-browser google-chrome; do
    command -v "$c" >/dev/null && { CHROME=$(command -v "$c"); break; }
done
if [ -z "$CHROME" ]; then
    if [ "${CI:-}" = true ]; then fail "chromium not found (CI: build-aux/install-deps.sh ci installs it)"; finish; fi
    echo "SKIPPED: chromium not found (apt-get install chromium); report.html not opened in a browser"
    exit 0
fi
GEN=$BR_BINARY_DIR/tests/gen_rocprof
"$GEN" --kernels 6 --launches 80 --power "$T/prof" "$T/pmc" >/dev/null || { fail "generator failed"; finish; }
expect_exit 0 "analyze with a power run" -- "$BENCHRUN" analyze "$T/pmc" --power "$T/prof"
H=$T/pmc/analysis/report.html

chrome() {  # chrome OUTFILE ARGS...: one headless run, its own empty profile
    local out=$1
    shift
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --enable-logging=stderr --v=0 --user-data-dir="$(mktemp -d "$T/ud.XXXXXX")" "$@" \
        "file://$H" >"$out" 2>"$out.err"
}
chrome "$T/dom.html" --dump-dom
rc=$?
[ "$rc" -eq 0 ] && pass "chromium --dump-dom exit 0" || { fail "chromium exit $rc"; tail -5 "$T/dom.html.err" >&2; }
expect_no_grep 'CONSOLE|Uncaught' "$T/dom.html.err" "no console message from the page"
count() { grep -o "$1" "$2" | wc -l; }
for el in 'class="summary"' 'class="roofline"' 'class="kdot"' 'class="timeline"' 'class="tl"' \
          'class="strip"' 'class="busy"' 'class="energy"' 'class="ebar"'; do
    src=$(count "${el//\"/\'}" "$H") dom=$(count "$el" "$T/dom.html")
    src=$((src + $(count "${el//\"/}" "$H")))
    if [ "$dom" -gt 0 ] && [ "$dom" -eq "$src" ]; then pass "DOM keeps $el ($dom)"
    else fail "$el: $dom in the DOM, $src in the page"; fi
done

chrome "$T/shot.log" --window-size=1200,2400 --screenshot="$T/shot.png"
rc=$?
[ "$rc" -eq 0 ] && [ -s "$T/shot.png" ] && pass "screenshot written" || fail "screenshot: exit $rc"
out=$(python3 "$BR_SOURCE_DIR/tests/cli/png_check.py" "$T/shot.png")
echo "  $out"
python3 - "$out" <<'PY' && pass "screenshot is not blank" || fail "blank screenshot: $out"
import re, sys
m = re.search(r"non-white ([0-9.]+) %, colours ([0-9]+)", sys.argv[1])
sys.exit(0 if m and float(m.group(1)) > 2 and int(m.group(2)) > 10 else 1)
PY
finish

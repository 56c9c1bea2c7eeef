#!/bin/bash
# 0321-arch-cdna: the gfx90a and gfx950 profiles against rocprofiler-sdk's
# counter definitions (tests/fixtures/amd/counter_defs/), the constructed
# gfx90a --list-avail fixture, and analyze's answers for a GPU without a
# profile (gfx1100) and for --arch against a different agent_info.
. "$(dirname "$0")/lib.sh"
FX=$BR_SOURCE_DIR/tests/fixtures/amd
ARCH=$BR_SOURCE_DIR/share/benchrun/arch

for a in gfx90a gfx942 gfx950; do
    python3 - "$ARCH/$a.json" "$FX/counter_defs/$a.txt" >"$T/missing" <<'PY'
import json, sys
prof = json.load(open(sys.argv[1]))
known = set(open(sys.argv[2]).read().split())
for p in prof["passes"]:
    for c in p["counters"]:
        if c not in known:
            print(p["name"], c)
PY
    if [ -s "$T/missing" ]; then fail "$a: counters not defined for $a: $(tr '\n' ' ' <"$T/missing")"
    else pass "$a: every pass counter is defined for $a in counter_defs.yaml"; fi
done
expect_no_grep '^SQ_INSTS_VALU_MFMA_MOPS_F8$' "$FX/counter_defs/gfx90a.txt" "gfx90a has no FP8 MFMA counter"
expect_no_grep '^TCC_EA0_RDREQ$' "$FX/counter_defs/gfx90a.txt" "gfx90a has no TCC_EA0_RDREQ"
expect_grep '^TCC_EA_RDREQ_32B_sum$' "$FX/counter_defs/gfx90a.txt" "gfx90a names it TCC_EA_RDREQ_32B_sum"
expect_grep '^SQ_INSTS_VALU_MFMA_MOPS_F6F4$' "$FX/counter_defs/gfx950.txt" "gfx950 counts FP6/FP4 MFMA"
expect_no_grep '^SQ_INSTS_VALU_MFMA_MOPS_F6F4$' "$FX/counter_defs/gfx942.txt" "gfx942 has no F6F4 counter"

for set in default ml; do
    expect_exit 0 "gfx90a set $set fits the gfx90a list fixture" -- \
        "$BENCHRUN" counters check --arch gfx90a "$set" "$FX/7.0-gfx90a-login/list-avail.txt"
    expect_grep '^OK$' "$T/out" "gfx90a $set: OK"
done
expect_exit 1 "gfx942's set does not fit a gfx90a" -- \
    "$BENCHRUN" counters check --arch gfx942 default "$FX/7.0-gfx90a-login/list-avail.txt"
expect_grep 'TCC_EA0_RDREQ_sum is not in the list' "$T/out" "the TCC_EA0 name is reported"

# analyze: an agent_info naming a GPU without a profile, then --arch against it.
"$BR_BINARY_DIR/tests/gen_rocprof" --agent-info "$T/pmc" >/dev/null || fail "gen_rocprof"
sed -i 's/gfx942/gfx1100/g' "$T"/pmc/*/*_agent_info.csv
expect_exit 1 "analyze: agent_info names gfx1100" -- "$BENCHRUN" analyze "$T/pmc" -o "$T/a1"
expect_grep "no arch profile for 'gfx1100' \(from agent_info Name \(.*_agent_info.csv\)\)" "$T/err" "says there is no profile"
expect_grep 'the profiles are gfx90a, gfx942, gfx950, gh100' "$T/err" "lists the profiles"
expect_grep 'docs/arch-profile.md\) or pass --arch FILE' "$T/err" "says how to add one"
expect_no_grep 'invalid JSON' "$T/err" "no JSON error"
expect_exit 0 "analyze --arch gfx942 on the gfx1100 run" -- \
    "$BENCHRUN" analyze "$T/pmc" -o "$T/a2" --arch gfx942
expect_grep 'warning: --arch: profile gfx942 \(.*gfx942.json\) but agent_info Name is gfx1100' "$T/err" "mismatch warned"
sed -i 's/gfx1100/gfx942/g' "$T"/pmc/*/*_agent_info.csv
expect_exit 0 "analyze --arch gfx942 on a gfx942 run" -- "$BENCHRUN" analyze "$T/pmc" -o "$T/a3" --arch gfx942
expect_no_grep 'but agent_info Name' "$T/err" "no mismatch warning when they agree"
# a gfx90a run is analyzed with the gfx90a profile (agent_info Name)
sed -i 's/gfx942/gfx90a/g' "$T"/pmc/*/*_agent_info.csv
expect_exit 0 "analyze a run whose agent_info names gfx90a" -- "$BENCHRUN" analyze "$T/pmc" -o "$T/a4"
python3 - "$T/a4/summary.json" <<'PY' || fail "gfx90a profile not used"
import json, sys
s = json.load(open(sys.argv[1]))
a = s["arch"]
assert a["arch"] == "gfx90a", a["arch"]
PY
pass "gfx90a run -> gfx90a profile"
finish

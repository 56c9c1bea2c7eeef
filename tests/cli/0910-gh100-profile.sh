#!/bin/bash
# 0910-gh100-profile: share/benchrun/arch/gh100.json against what the H200 exposes:
# every counter of every pass is a base metric ncu 2025.3.1 lists for gh100
# (tests/fixtures/nvidia/gh100-base-metrics.txt, the NVIDIA list layout), a
# misspelled one is reported, and the peaks (per-SM-per-clock rate x SMs x clock)
# match the H200 datasheet (TFLOP/s dense, TB/s; FP64 33.5 as the H100 whitepaper, the
# datasheet rounds it to 34) within 1.5 %.
. "$(dirname "$0")/lib.sh"
FX=$BR_SOURCE_DIR/tests/fixtures/nvidia
LIST=$FX/gh100-base-metrics.txt

for set in default ml; do
    expect_exit 0 "gh100 set $set: every counter is listed" -- \
        "$BENCHRUN" counters check --arch gh100 "$set" "$LIST"
    expect_grep '^OK$' "$T/out" "$set: OK"
done
expect_grep 'layout nvidia, 1 GPU\(s\), architecture\(s\): gh100' "$T/out" "ncu list layout parsed"

# A set with a misspelled counter and one from another chip family.
cat >"$T/bad.json" <<'JSON'
{ "arch": "gh100", "passes": [ { "name": "01_x", "counters": [
  "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "sm__sass_thread_inst_executed_op_fmaa_pred_on.sum",
  "dram__bytes_red.sum" ] } ] }
JSON
expect_exit 1 "misspelled counters are problems" -- "$BENCHRUN" counters check "$T/bad.json" "$LIST"
expect_grep 'fmaa_pred_on.sum is not in the list' "$T/out" "misspelled SASS counter named"
expect_grep 'dram__bytes_red.sum is not in the list' "$T/out" "misspelled DRAM counter named"
expect_no_grep 'op_ffma_pred_on.sum is not' "$T/out" "valid counter (base name + .sum) accepted"

# Peaks: H200 SXM datasheet, dense.
"$BENCHRUN" doc metrics --arch gh100 >"$T/doc" 2>&1
while read -r name want; do
    got=$(grep -E "^\| \`$name\` \|" "$T/doc" | head -1 | awk -F'|' '{gsub(/ /, "", $3); print $3}')
    if [ -n "$got" ] && awk -v g="$got" -v w="$want" 'BEGIN { d = (g - w) / w; exit !(d < 0.015 && d > -0.015) }'; then
        pass "$name = $got (datasheet $want)"
    else
        fail "$name = '$got', datasheet $want"
    fi
done <<'PEAKS'
PEAK_FP64_VALU 33.5
PEAK_FP64_TENSOR 67
PEAK_FP32_VALU 67
PEAK_TF32_TENSOR 495
PEAK_BF16_TENSOR 989
PEAK_F16_TENSOR 989
PEAK_F8_TENSOR 1979
PEAK_MEM_BW 4.8
PEAKS
finish

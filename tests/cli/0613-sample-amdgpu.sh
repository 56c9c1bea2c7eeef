#!/bin/bash
# 0613-sample-amdgpu: the amdgpu backend on the fake sysfs trees of
# tests/fixtures/sysfs (one per gpu_metrics revision, hwmon only, malformed):
# decoded values in the CSV, GPU numbering, clear errors; the committed trees
# are exactly what tests/tools/mkgpumetrics writes.
. "$(dirname "$0")/lib.sh"
fx=$BR_SOURCE_DIR/tests/fixtures/sysfs

# row FILE: the first data row.
row() { sed -n 3p "$1"; }

for r in 4 5 6 7 8 9; do
    d=$T/v$r
    expect_exit 0 "v1.$r: sample 2 GPUs" -- env BENCHRUN_SYSFS_ROOT="$fx/v1_$r" \
        "$BENCHRUN" sample --backend amdgpu --gpus 0,1 -o "$d" -p a -- sleep 0.05
    # GPU 1 = KFD node 2: power 300 + r + 1, gfx mean 1950, hotspot 50 + r, energy origin 0
    want="^[0-9]+,$((301 + r)).000,nan,1950.0,nan,$((50 + r)).00,0.000000,1300.0,$((1000000000000 + r)),1,$((40 + r)).00,2100.0$"
    row "$d/profiling_result_a_1.csv" > "$T/row"
    expect_grep "$want" "$T/row" "v1.$r: decoded row of GPU 1"
    expect_grep "detail=gpu_metrics_v1.$r .*pci=|pci=0000:26:00.0 .*detail=gpu_metrics_v1.$r" \
        "$d/profiling_result_a_1.csv" "v1.$r: metadata names revision and PCI id"
    expect_grep "energy_resolution_J=1.52587890625e-05" "$d/profiling_result_a_0.csv" "v1.$r: energy unit"
done

d=$T/hw
expect_exit 0 "hwmon only" -- env BENCHRUN_SYSFS_ROOT="$fx/hwmon" \
    "$BENCHRUN" sample --backend amdgpu -o "$d" -p h -- true
row "$d/profiling_result_h_0.csv" > "$T/row"
expect_grep '^[0-9]+,345.000,nan,2100.0,nan,56.00,nan,1300.0,nan,1,47.00,2100.0$' "$T/row" "hwmon row"
expect_grep 'detail=hwmon' "$d/profiling_result_h_0.csv" "hwmon named in metadata"

expect_exit 1 "short gpu_metrics" -- env BENCHRUN_SYSFS_ROOT="$fx/short" \
    "$BENCHRUN" sample --backend amdgpu -o "$T/e1" -- true
expect_grep 'renderD128/device/gpu_metrics: short file: 100 bytes, the table needs 3872' "$T/err" "short file named"
expect_exit 1 "unknown revision" -- env BENCHRUN_SYSFS_ROOT="$fx/unknown" \
    "$BENCHRUN" sample --backend amdgpu -o "$T/e2" -- true
expect_grep 'unknown gpu_metrics revision 1.3' "$T/err" "unknown revision named"
expect_exit 1 "no GPU 5" -- env BENCHRUN_SYSFS_ROOT="$fx/v1_8" \
    "$BENCHRUN" sample --backend amdgpu --gpus 5 -o "$T/e3" -- true
expect_grep 'no AMD GPU with index 5 \(2 visible' "$T/err" "missing index named"
expect_exit 1 "ROCR_VISIBLE_DEVICES applies" -- env BENCHRUN_SYSFS_ROOT="$fx/v1_8" ROCR_VISIBLE_DEVICES=1 \
    "$BENCHRUN" sample --backend amdgpu --gpus 1 -o "$T/e4" -- true
expect_exit 1 "no AMD GPU at all" -- env BENCHRUN_SYSFS_ROOT="$T/empty" \
    "$BENCHRUN" sample --backend amdgpu -o "$T/e5" -- true

# Permission denied on sysfs: as a user who cannot read gpu_metrics (setpriv
# drops root to nobody when the suite runs as root).
as_user=()
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    chmod 755 "$T"
fi
if [ "$(id -u)" != 0 ] || [ ${#as_user[@]} -gt 0 ]; then
    cp -r "$fx/v1_8" "$T/perm" && chmod 000 "$T/perm/sys/class/drm/renderD128/device/gpu_metrics"
    mkdir -m 777 "$T/e6"
    expect_exit 1 "unreadable gpu_metrics" -- "${as_user[@]}" env BENCHRUN_SYSFS_ROOT="$T/perm" \
        "$BENCHRUN" sample --backend amdgpu -o "$T/e6" -- true
    expect_grep "cannot open '.*gpu_metrics': Permission denied \(the amdgpu sysfs files need read permission\)" \
        "$T/err" "permission error named"
else
    echo "note: root without setpriv: permission-denied case not run"
fi

gen=$BR_BINARY_DIR/tests/mkgpumetrics
if [ -x "$gen" ]; then
    "$gen" "$T/regen" && diff -r "$T/regen" "$fx" >/dev/null \
        && pass "committed fixtures = mkgpumetrics output" || fail "fixtures differ from mkgpumetrics output"
fi
finish

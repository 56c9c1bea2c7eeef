#!/bin/bash
# make-prof-example.sh BENCHRUN OUT_DIR - regenerates the bundled example power
# run (examples/demo/prof-example/) that `make demo` feeds to `benchrun vectors`.
# GENERATED DATA, not a measurement: the telemetry comes from the sampler's
# test-only `sim` backend (every file says backend=sim), the kernel trace is
# written here in the rocprofv3 7.x layout with kernels covering the middle
# half of the sampled span, and run.json names gfx942 so the TDP comes from
# share/benchrun/arch/gfx942.json.
set -euo pipefail
benchrun=$1; out=$2
rm -rf "$out"
"$benchrun" sample --backend sim --gpus 0,1 --interval-ms 4 --prefix demo -o "$out" -- sleep 0.4
f=$out/profiling_result_demo_0.csv
first=$(awk -F, 'NR==3{print $1}' "$f"); last=$(tail -n 1 "$f" | cut -d, -f1)
a=$(( first + (last - first) / 4 )); span=$(( (last - first) / 2 ))
mkdir -p "$out/ktrace_demo/localhost"
{
  echo '"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"'
  for k in $(seq 0 19); do
    s=$(( a + k * span / 20 )); e=$(( s + span / 25 )); agent=$(( 4 + k % 2 ))
    echo "\"KERNEL_DISPATCH\",\"Agent $agent\",1,1,4242,$((k + 1)),7,\"void demo_axpy<double>(double*, double const*, double, int)\",$((k + 1)),$s,$e,0,0,32,0,16,256,1,1,1048576,1,1"
  done
} > "$out/ktrace_demo/localhost/4242_kernel_trace.csv"
cat > "$out/run.json" <<J
{
  "stage": "power",
  "workload": "demo",
  "description": "generated example power run (sim sampler, synthetic kernel trace)",
  "job_id": "example",
  "gpu_arch": "gfx942",
  "gpu_name": "AMD Instinct MI300X (generated data)",
  "status": "ok"
}
J
echo "example power run written to $out"

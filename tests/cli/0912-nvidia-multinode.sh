#!/bin/bash
# 0912-nvidia-multinode: NNODES > 1 on NVIDIA. pids repeat across nodes, so the
# CUPTI counter files carry the node like rocprofv3's (<pass>_<node>_<pid>_…):
# the pmc prefix names BENCHRUN_CUPTI_NAME=<pass>_@NODE@_%pid%, the power
# stage traces into ktrace_<tag>/@NODE@/, and launch.sh replaces @NODE@ per
# task with $SLURMD_NODENAME (else `hostname -s`), so two "nodes" running the
# same pid write two files. Dry runs with a fake nvidia-smi (0911 style); the
# launch is run for real with a stand-in app that writes the name it was given.
. "$(dirname "$0")/lib.sh"
unset SLURM_JOB_ID SLURM_NTASKS SLURM_LOCALID ROCR_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES
export PATH=$T/bin:$PATH
mkdir -p "$T/bin"
cat >"$T/bin/nvidia-smi" <<'SMI'
#!/bin/sh
case "$*" in
    *--query-gpu=compute_cap\ *) echo 9.0 ;;
    *) echo "NVIDIA H200, 9.0, 580.159.04" ;;
esac
SMI
chmod +x "$T/bin/nvidia-smi"
export BENCHRUN_CUPTI_LIB=$T/libbenchrun-cupti.so
: >"$BENCHRUN_CUPTI_LIB"
conf() {  # conf NNODES NTASKS
    cat >"$T/w$1.conf" <<CONF
WORKLOAD=axpy
RESULTS_DIR=$T/results
VENDOR=nvidia
NGPUS=2
NNODES=$1
NTASKS=$2
SAMPLE_BACKEND=sim
SAMPLE_GPUS=0
app_cmd() { APP_CMD=(bash -c 'n=\${BENCHRUN_CUPTI_NAME//%pid%/4242}; echo "\$n" > "\$BENCHRUN_CUPTI_OUT/\${n}_counter_collection.csv"'); }
CONF
}
conf 2 2
conf 1 2

expect_exit 0 "pmc dry run, 2 nodes" -- "$BENCHRUN" pmc "$T/w2.conf" --dry-run
expect_grep "BENCHRUN_CUPTI_OUT=[^ ]*/01_flops_sass BENCHRUN_CUPTI_NAME=01_flops_sass_@NODE@_%pid% BENCHRUN_CUPTI_METRICS=" \
    "$T/out" "counter files named <pass>_<node>_<pid>"
expect_grep "^\[dry-run\] srun -N2 -n2 bash [^ ]*launch.sh" "$T/out" "srun over both nodes"
expect_exit 0 "pmc dry run, 1 node" -- "$BENCHRUN" pmc "$T/w1.conf" --dry-run
expect_grep "BENCHRUN_CUPTI_NAME=01_flops_sass_%pid% " "$T/out" "one node: no node in the name"
expect_no_grep "@NODE@" "$T/out" "one node: no @NODE@ token"

expect_exit 0 "power dry run, 2 nodes" -- "$BENCHRUN" power "$T/w2.conf" --dry-run
expect_grep "BENCHRUN_CUPTI_OUT=[^ ]*/ktrace_axpy/@NODE@ BENCHRUN_CUPTI_NAME=axpy_%pid%$" \
    "$T/out" "power: trace per node folder ktrace_axpy/<node>/"
expect_grep "sample --node" "$T/out" "one sampler per node"

# launch.sh replaces @NODE@ per task: same pid on two nodes, two files
mkdir -p "$T/run" "$T/o"
for n in nodeA nodeB; do
    expect_exit 0 "launch on $n" -- env SLURMD_NODENAME=$n bash "$BR_SOURCE_DIR/share/benchrun/launch.sh" \
        "$T/w2.conf" "$T/run" "$T/o" env CUDA_INJECTION64_PATH="$BENCHRUN_CUPTI_LIB" \
        BENCHRUN_CUPTI_OUT="$T/o" BENCHRUN_CUPTI_NAME=01_x_@NODE@_%pid%
done
check() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$3', expected '$2'"; fi; }
check "one counter file per node" "01_x_nodeA_4242_counter_collection.csv 01_x_nodeB_4242_counter_collection.csv" \
    "$(cd "$T/o" && echo *_counter_collection.csv)"
finish

#!/bin/sh
# bench/gpu/cuda_devices.sh - the host call on several GPUs, on a machine
# with two or more (nvidia-h100-x2 / nvidia-h200-x2 / -x4). One call, about
# 7 minutes, each step under its own timeout:
#   tests  test_cuda_host in full (with every device: the battery through
#          device_count = GEMM_CUDA_ALL_DEVICES, out of core on each device,
#          the refusals, the timing on two devices), then
#          GEMM_CUDA_TEST_SMALL=1 under compute-sanitizer memcheck;
#   bench  bench_cuda_devices: ours on D GPUs beside ours on 1 GPU and
#          cuBLASXt on the same D, fp32 and fp64, SIZES (16384,32768), the
#          physical limit, and the out-of-core run under CAP bytes per GPU.
# Binaries: `make gpu-bin-cuda-host` where nvcc is writes .gpu/host (sm_90a);
# carry .gpu/host. Logs go to $OUT; the table comes last.
cd "$(dirname "$0")/../.." || exit 2
OUT=${OUT:-build/gpu_out}
BIN=${GPU_BIN:-.gpu/host}
SIZES=${SIZES:-16384,32768}
DEVICES=${DEVICES:-$(nvidia-smi -L | wc -l)}
CAP=${CAP:-4e9}
STEPS=${STEPS:-tests bench}
step() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
mkdir -p "$OUT"
{
    date -u
    nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader 2>&1
    nvidia-smi topo -m 2>&1 | head -n 6
    echo "cores: $(nproc)"; free -g | sed -n 2p
    cat "$BIN/commit.txt" 2>/dev/null
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
if step tests; then
    echo "=== tests"
    timeout -k 5 150 "$BIN/test_cuda_host" >"$OUT/test.log" 2>&1
    echo "exit $?" >>"$OUT/test.log"
    grep -v '^ok ' "$OUT/test.log" | grep -v '^== ' | tail -n 15
    GEMM_CUDA_TEST_SMALL=1 timeout -k 5 100 compute-sanitizer --tool memcheck --error-exitcode 9 \
        "$BIN/test_cuda_host" >"$OUT/memcheck.log" 2>&1
    echo "exit $?" >>"$OUT/memcheck.log"
    grep -E 'ERROR SUMMARY|FAIL|passed, ' "$OUT/memcheck.log" | tail -n 8
fi
if step bench; then
    echo "=== bench"
    timeout -k 5 320 "$BIN/bench_cuda_devices" --devices "$DEVICES" --sizes "$SIZES" --prec f32,f64 --reps 5 \
        --cap "$CAP" --csv "$OUT/devices.csv" >"$OUT/bench.log" 2>&1
    echo "exit $?" >>"$OUT/bench.log"
    cat "$OUT/bench.log"
fi

#!/bin/sh
# bench/gpu/cuda_host.sh - the CUDA host-pointer path on a GPU machine.
#
# Call 1 (STEPS="tests bench", the default; at most about 9 minutes, each
# step under its own timeout: 120 + 150 + 260 s):
#   tests  test_cuda_host in full (the battery through the host calls in every
#          mode and order, the capped tiled path under small max_device_bytes,
#          pageable, page-locked and device memory, two threads at once), then
#          GEMM_CUDA_TEST_SMALL=1 under compute-sanitizer memcheck;
#   bench  end to end from pageable memory, fp32 n = 2048, 8192, 16384 and fp64
#          n = 2048, 8192: ours (default mode = automatic choice), PINNED, MAPPED,
#          ours on page-locked operands, copy-then-cuBLAS, cuBLASXt (block
#          tuned), the physical limit; small sizes; the copy-thread count.
# Call 2 (STEPS=ooc; about 3-5 minutes; an H100 with 128 GB of host memory:
#   on a GPU that holds 97 GB the product is in core and proves nothing):
#   ooc    fp32 n = 90000 (97 GB of operands) beside the in-core rate at
#          n = 32768, and again under max_device_bytes = 40 GB; 64 sampled
#          elements against fp64 sums, every element of C checked written.
#
# Binaries: `make gpu-bin-cuda-host` where nvcc is writes .gpu/host (sm_90a);
# carry .gpu/host. GPU_BIN=folder overrides; when they are missing or do not
# start, they are built here into build/host_gpu (up to 7 minutes: in a first call
# without the other steps). SIZES, SIZES_F64, OOC_N, OOC_CAP override the defaults.
# Logs and the CSV go to $OUT (at most 8 files); the summary table comes last.
cd "$(dirname "$0")/../.." || exit 2
OUT=${OUT:-build/gpu_out}
BIN=${GPU_BIN:-.gpu/host}
SIZES=${SIZES:-2048,8192,16384}
SIZES_F64=${SIZES_F64:-2048,8192}
OOC_N=${OOC_N:-90000}
OOC_CAP=${OOC_CAP:-40e9}
STEPS=${STEPS:-tests bench}
step() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
mkdir -p "$OUT"
{
    date -u
    nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version --format=csv,noheader 2>&1
    echo "cores: $(nproc); steps: $STEPS"; free -g | sed -n 2p
    git log -1 --format='commit %H' 2>/dev/null
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

if ! [ -x "$BIN/test_cuda_host" ] || ! [ -x "$BIN/bench_cuda_host" ] || ! "$BIN/test_cuda_host" --plans >/dev/null 2>&1; then
    echo "building the binaries here (none in $BIN, or they do not start)"
    BIN=build/host_gpu
    timeout 420 make -j2 --no-print-directory CUDA_HOST_BIN=$BIN gpu-bin-cuda-host >"$OUT/build.log" 2>&1 ||
        { tail -n 30 "$OUT/build.log"; exit 1; }
fi

if step tests; then
    echo "=== tests"
    timeout -k 5 120 "$BIN/test_cuda_host" >"$OUT/test.log" 2>&1
    echo "exit $?" >>"$OUT/test.log"
    grep -v '^ok ' "$OUT/test.log" | grep -v '^== ' | tail -n 15
    GEMM_CUDA_TEST_SMALL=1 timeout -k 5 150 compute-sanitizer --tool memcheck --error-exitcode 9 \
        "$BIN/test_cuda_host" >"$OUT/memcheck.log" 2>&1
    echo "exit $?" >>"$OUT/memcheck.log"
    grep -E 'ERROR SUMMARY|FAIL|passed, ' "$OUT/memcheck.log" | tail -n 8
fi

if step bench; then
    echo "=== benchmark"
    timeout -k 5 260 "$BIN/bench_cuda_host" --sizes "$SIZES" --sizes-f64 "$SIZES_F64" --prec f32,f64 \
        --small 32,64,128,256,512 --threads 2,4,8,12,16 --csv "$OUT/bench.csv" >"$OUT/bench.log" 2>&1
    echo "exit $?" >>"$OUT/bench.log"
    grep -v '^exit' "$OUT/bench.log" | tail -n 22
fi

if step ooc; then
    echo "=== out of core"
    avail_gb=$(awk '/MemAvailable/ { printf "%d", $2 / 1048576 }' /proc/meminfo)
    need_gb=$(awk -v n="$OOC_N" 'BEGIN { printf "%d", 12 * n * n / 1073741824 + 6 }')
    if [ "$avail_gb" -lt "$need_gb" ]; then
        OOC_N=$(awk -v a="$avail_gb" 'BEGIN { printf "%d", int(sqrt((a - 6) * 1073741824 / 12) / 1000) * 1000 }')
        echo "only $avail_gb GB of host memory available: n = $OOC_N instead"
    fi
    timeout -k 5 420 "$BIN/bench_cuda_host" --sizes 0 --ooc "$OOC_N" --incore 32768 --ooc-cap "$OOC_CAP" \
        >"$OUT/ooc.log" 2>&1
    echo "exit $?" >>"$OUT/ooc.log"
    cat "$OUT/ooc.log"
fi

{
    echo "=== summary ($(head -n 1 "$OUT/env.txt"); $(sed -n 2p "$OUT/env.txt"))"
    if [ -f "$OUT/test.log" ]; then
        printf 'tests:           %s\n' "$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$OUT/test.log" | tail -n 1) ($(tail -n 1 "$OUT/test.log"))"
        printf 'memcheck, small: %s; %s\n' "$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$OUT/memcheck.log" | tail -n 1)" \
            "$(grep 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -n 1) ($(tail -n 1 "$OUT/memcheck.log"))"
    fi
    [ -f "$OUT/ooc.log" ] && { grep '^OOC ' "$OUT/ooc.log" || echo "OOC: no result ($(tail -n 1 "$OUT/ooc.log"))"; }
    [ -f "$OUT/bench.log" ] && { sed -n '/^host-pointer GEMM on/,$p' "$OUT/bench.log" | grep -v '^exit'; tail -n 1 "$OUT/bench.log"; }
} | tee "$OUT/summary.txt"

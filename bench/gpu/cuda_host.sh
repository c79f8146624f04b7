#!/bin/sh
# bench/gpu/cuda_host.sh - the CUDA host-pointer path on a GPU machine, in one
# call of the device tool (about 8 minutes on a 16-core, 128 GB host):
#   1. tests: test_cuda_host in full, then small under compute-sanitizer memcheck;
#   2. the benchmark: n = 1024..16384, fp32 and fp64, end to end from pageable
#      memory: ours in each mode, copy-then-cuBLAS, cuBLASXt (block size tuned),
#      the physical limit; small sizes; the copy-thread count;
#   3. out of core: fp32 n = 90000 (97 GB of operands) beside the in-core rate at
#      n = 32768, and again under max_device_bytes = 40 GB (a block order).
# Binaries: `make cuda-host-bins` where nvcc is, then carry build/test_cuda_host
# and build/bench_cuda_host (or GPU_BIN=folder); built here only when missing or
# not starting. OOC_N, OOC_CAP, SIZES override the defaults; STEPS="tests bench
# ooc" (the default) names the steps to run, so two calls can share the work.
# Logs and the CSV go to $OUT (7 files); the summary table comes last.
cd "$(dirname "$0")/../.." || exit 2
OUT=${OUT:-build/gpu_out}
BIN=${GPU_BIN:-build}
SIZES=${SIZES:-1024,2048,4096,8192,16384}
OOC_N=${OOC_N:-90000}
OOC_CAP=${OOC_CAP:-40e9}
STEPS=${STEPS:-tests bench ooc}
step() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
mkdir -p "$OUT"
{
    date -u
    nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version --format=csv 2>&1
    echo "cores: $(nproc)"; free -g
    git log -1 --format='commit %H' 2>/dev/null
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

if ! [ -x "$BIN/test_cuda_host" ] || ! [ -x "$BIN/bench_cuda_host" ] || ! "$BIN/test_cuda_host" --plans >/dev/null 2>&1; then
    echo "building the binaries here (they were not carried, or do not start)"
    BIN=build
    timeout 420 make -j2 --no-print-directory build/test_cuda_host build/bench_cuda_host >"$OUT/build.log" 2>&1 ||
        { tail -n 30 "$OUT/build.log"; exit 1; }
fi

if step tests; then
    echo "=== 1. tests"
    timeout -k 5 120 "$BIN/test_cuda_host" >"$OUT/test.log" 2>&1
    echo "exit $?" >>"$OUT/test.log"
    grep -v '^ok ' "$OUT/test.log" | grep -v '^== ' | tail -n 15
    GEMM_CUDA_TEST_SMALL=1 timeout -k 5 100 compute-sanitizer --tool memcheck --error-exitcode 9 "$BIN/test_cuda_host" \
        >"$OUT/memcheck.log" 2>&1
    echo "exit $?" >>"$OUT/memcheck.log"
    grep -E 'ERROR SUMMARY|FAIL|passed, ' "$OUT/memcheck.log" | tail -n 8
fi

if step bench; then
    echo "=== 2. benchmark"
    timeout -k 5 190 "$BIN/bench_cuda_host" --sizes "$SIZES" --prec f32,f64 --small 32,64,128,256,512 \
        --threads 2,4,8,12,16 --csv "$OUT/bench.csv" >"$OUT/bench.log" 2>&1
    echo "exit $?" >>"$OUT/bench.log"
    tail -n 14 "$OUT/bench.log"
fi

if step ooc; then
    echo "=== 3. out of core"
    avail_gb=$(awk '/MemAvailable/ { printf "%d", $2 / 1048576 }' /proc/meminfo)
    need_gb=$(awk -v n="$OOC_N" 'BEGIN { printf "%d", 12 * n * n / 1073741824 + 6 }')
    if [ "$avail_gb" -lt "$need_gb" ]; then
        OOC_N=$(awk -v a="$avail_gb" 'BEGIN { printf "%d", int(sqrt((a - 6) * 1073741824 / 12) / 1000) * 1000 }')
        echo "only $avail_gb GB of host memory available: n = $OOC_N instead"
    fi
    timeout -k 5 160 "$BIN/bench_cuda_host" --sizes 0 --ooc "$OOC_N" --incore 32768 --ooc-cap "$OOC_CAP" \
        >"$OUT/ooc.log" 2>&1
    echo "exit $?" >>"$OUT/ooc.log"
    cat "$OUT/ooc.log"
fi

{
    echo "=== summary ($(head -n 1 "$OUT/env.txt"); $(sed -n 2,3p "$OUT/env.txt" | tail -n 1))"
    if [ -f "$OUT/test.log" ]; then
        printf 'tests:           %s\n' "$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$OUT/test.log" | tail -n 1) ($(tail -n 1 "$OUT/test.log"))"
        printf 'memcheck, small: %s; %s\n' "$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$OUT/memcheck.log" | tail -n 1)" \
            "$(grep 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -n 1) ($(tail -n 1 "$OUT/memcheck.log"))"
    fi
    [ -f "$OUT/ooc.log" ] && { grep '^OOC ' "$OUT/ooc.log" || echo "OOC: no result ($(tail -n 1 "$OUT/ooc.log"))"; }
    [ -f "$OUT/bench.log" ] && sed -n '/^host-pointer GEMM on/,$p' "$OUT/bench.log" | grep -v '^exit'
} | tee "$OUT/summary.txt"

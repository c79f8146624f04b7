#!/bin/sh
# bench/gpu/ozaki.sh - the int8 product and the emulated fp64 / fp32
# products on a GPU machine: the tests (tests/test_cuda_ozaki.cu), the
# small run under compute-sanitizer memcheck, then the benchmark beside
# cuBLAS (bench/bench_cuda_ozaki.cu; BENCH_ARGS passed on). Every step has
# a timeout. Logs go to $OUT.
#
# Built here (sm_90a) and carried in .gpu/ozaki:
#     make gpu-bin-ozaki      (or nvcc ... into /work/main/.gpu/ozaki)
# then, from the repository root on the GPU machine:
#     GPU_BIN=.gpu/ozaki sh bench/gpu/ozaki.sh
# STEPS picks parts: tests, memcheck, bench (default all three).
OUT=${OUT:-build/gpu_out}
GPU_BIN=${GPU_BIN:-.gpu/ozaki}
STEPS=${STEPS:-tests memcheck bench}
mkdir -p "$OUT"
{
    date -u
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null
    git log -1 --format='commit %H' 2>/dev/null
} >"$OUT/ozaki_env.txt"
cat "$OUT/ozaki_env.txt"
rc=0
for step in $STEPS; do
    case $step in
    tests)
        timeout -k 5 200 "$GPU_BIN/test_cuda_ozaki" >"$OUT/test_cuda_ozaki.log" 2>&1 || rc=1
        grep -v '^ok ' "$OUT/test_cuda_ozaki.log" | tail -n 30
        grep "worst" "$OUT/test_cuda_ozaki.log" | head -40 ;;
    memcheck)
        GEMM_CUDA_TEST_SMALL=1 timeout -k 5 200 compute-sanitizer --tool memcheck --error-exitcode 9 \
            "$GPU_BIN/test_cuda_ozaki" >"$OUT/test_cuda_ozaki.memcheck.log" 2>&1 || rc=1
        grep -E 'ERROR SUMMARY|FAIL|passed' "$OUT/test_cuda_ozaki.memcheck.log" | tail -n 5 ;;
    bench)
        # shellcheck disable=SC2086
        timeout -k 5 400 "$GPU_BIN/bench_cuda_ozaki" $BENCH_ARGS >"$OUT/bench_cuda_ozaki.log" 2>&1 || rc=1
        cat "$OUT/bench_cuda_ozaki.log" ;;
    esac
done
exit $rc

#!/bin/sh
# bench/gpu/verify.sh - verified products on the GPU (options.verify): the
# tests (tests/test_cuda_verify.cu: injected faults caught on device and
# host pointers, exact, split-K and TF32; the battery verified: no false
# alarm; strided and pointer-array batches with host and device lists: a
# fault in member 2 of 4 caught and named), the small run under
# compute-sanitizer memcheck, then the cost (bench/bench_cuda_verify.cu:
# fp32, TF32, fp64 at n = 2048, 4096, 8192, plain and verified
# interleaved, medians), and the same bench built from the code before the
# fused sums (bench_cuda_verify_before, when carried) for the comparison on
# the same card. Under 4 minutes; every step has a timeout. Logs go to $OUT.
#
# Built here (sm_90a) and carried in .gpu/verify:
#     make gpu-bin-verify      (or nvcc ... into /work/main/.gpu/verify)
# then, from the repository root on the GPU machine:
#     GPU_BIN=.gpu/verify sh bench/gpu/verify.sh
OUT=${OUT:-build/gpu_out}
GPU_BIN=${GPU_BIN:-.gpu/verify}
mkdir -p "$OUT"
{
    date -u
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
    git log -1 --format='commit %H' 2>/dev/null
} >"$OUT/verify_env.txt"
cat "$OUT/verify_env.txt"
rc=0
timeout -k 5 80 "$GPU_BIN/test_cuda_verify" >"$OUT/test_cuda_verify.log" 2>&1 || rc=1
grep -v '^ok ' "$OUT/test_cuda_verify.log" | tail -n 30
if command -v compute-sanitizer >/dev/null 2>&1; then
    GEMM_CUDA_TEST_SMALL=1 timeout -k 5 75 compute-sanitizer --tool memcheck --error-exitcode 9 \
        "$GPU_BIN/test_cuda_verify" >"$OUT/test_cuda_verify.memcheck.log" 2>&1 || rc=1
    grep -E 'ERROR SUMMARY|FAIL|passed' "$OUT/test_cuda_verify.memcheck.log" | tail -n 5
fi
timeout -k 5 45 "$GPU_BIN/bench_cuda_verify" --n 2048,4096,8192 --rounds 9 >"$OUT/bench_cuda_verify.txt" 2>&1 || rc=1
cat "$OUT/bench_cuda_verify.txt"
if [ -x "$GPU_BIN/bench_cuda_verify_before" ]; then
    timeout -k 5 35 "$GPU_BIN/bench_cuda_verify_before" --n 2048,4096,8192 --rounds 9 \
        >"$OUT/bench_cuda_verify_before.txt" 2>&1 || rc=1
    cat "$OUT/bench_cuda_verify_before.txt"
fi
exit $rc

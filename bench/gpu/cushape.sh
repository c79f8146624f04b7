#!/bin/bash
# bench/gpu/cushape.sh - tiny batch members and grouped batches on one GPU
# (under 4 minutes): test_cuda_batch in full, its tiny-member and grouped
# tests (--tiny, GEMM_CUDA_TEST_SMALL=1) under compute-sanitizer memcheck, then
# bench_cuda_batch's rows for them, median of 9: strided 16^3 and 32^3 x
# 10000 (and 64^3, whose kernel did not change), fp32 and fp64, the
# automatic choice (the tiny kernel) and the configuration these members
# ran on before (--kernel simt / dmma: the 64 x 64 tiles), interleaved
# with cublas?gemmStridedBatched; then the grouped sets (moe: 64 members,
# m 128..4096, n = k = 4096; small: 1000 members of 16..64) beside
# cublasGemmGroupedBatchedEx and a loop of cublas?gemm.
# Binaries (sm_90a), built on any machine with nvcc:
#     F="-std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a"
#     nvcc $F tests/test_cuda_batch.cu -o .gpu/cushape/test_cuda_batch
#     nvcc $F bench/bench_cuda_batch.cu -o .gpu/cushape/bench_cuda_batch -lcublas
# then, on the GPU machine (carry .gpu/cushape): bash bench/gpu/cushape.sh
# Logs go to $OUT: test.log, memcheck.log, bench.log, bench_*.csv.
cd "$(dirname "$0")/../.." || exit 2
BIN=${GPU_BIN:-.gpu/cushape}
OUT=${OUT:-build/gpu_out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 120 "$BIN/test_cuda_batch" >"$OUT/test.log" 2>&1
echo "test_cuda_batch exit $?" >>"$OUT/test.log"
grep -v '^ok ' "$OUT/test.log" | tail -n 20
GEMM_CUDA_TEST_SMALL=1 timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 "$BIN/test_cuda_batch" --tiny \
    >"$OUT/memcheck.log" 2>&1
echo "memcheck exit $? (124: ran past its 80 s)" >>"$OUT/memcheck.log"
grep -E 'ERROR SUMMARY|passed, |exit ' "$OUT/memcheck.log" | tail -n 3
B="$BIN/bench_cuda_batch --reps 9"
{
    echo "== automatic (tiny kernel at 16^3 and 32^3)"
    timeout 30 $B --prec f32,f64 --shapes 16x10000,32x10000,64x10000 --csv "$OUT/bench_auto.csv"
    echo "== before: the 64 x 64 tiles (fp32 SIMT, fp64 DMMA), forced"
    timeout 20 $B --prec f32 --kernel simt --shapes 16x10000,32x10000 --csv "$OUT/bench_simt.csv"
    timeout 20 $B --prec f64 --kernel dmma --shapes 16x10000,32x10000 --csv "$OUT/bench_dmma.csv"
    echo "== automatic again (the same session, a second pass)"
    timeout 30 $B --prec f32,f64 --shapes 16x10000,32x10000 --csv "$OUT/bench_auto2.csv"
    echo "== grouped"
    timeout 90 $B --prec f32,f64 --grouped moe,small --csv "$OUT/bench_grouped.csv"
} >"$OUT/bench.log" 2>&1
echo "bench exit $?" >>"$OUT/bench.log"
cat "$OUT/bench.log"

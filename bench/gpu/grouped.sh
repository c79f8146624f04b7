#!/bin/bash
# bench/gpu/grouped.sh - grouped batches on one GPU (under 4 minutes):
# test_cuda_batch in full, its tiny-member and grouped tests (--tiny,
# GEMM_CUDA_TEST_SMALL=1) under compute-sanitizer memcheck, then
# bench_cuda_batch --grouped, median of 9, beside cublasGemmGroupedBatchedEx
# and a loop of cublas?gemm: moe (64 members, m 128..4096, n = k = 4096:
# group by group), small (1000 members of 16..64) and tiny (1000 members of
# 8..32, k 16..64): each of these a single launch of the grouped tiny kernel.
# Binaries (sm_90a), built on any machine with nvcc:
#     F="-std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a"
#     nvcc $F tests/test_cuda_batch.cu -o .gpu/grouped/test_cuda_batch
#     nvcc $F bench/bench_cuda_batch.cu -o .gpu/grouped/bench_cuda_batch -lcublas
# then, on the GPU machine (carry .gpu/grouped): bash bench/gpu/grouped.sh
# Logs go to $OUT: test.log, memcheck.log, bench.log, bench_grouped.csv.
cd "$(dirname "$0")/../.." || exit 2
BIN=${GPU_BIN:-.gpu/grouped}
OUT=${OUT:-build/gpu_out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 100 "$BIN/test_cuda_batch" >"$OUT/test.log" 2>&1
echo "test_cuda_batch exit $?" >>"$OUT/test.log"
grep -v '^ok ' "$OUT/test.log" | tail -n 20
GEMM_CUDA_TEST_SMALL=1 timeout 50 compute-sanitizer --tool memcheck --error-exitcode 9 "$BIN/test_cuda_batch" --tiny \
    >"$OUT/memcheck.log" 2>&1
echo "memcheck exit $? (124: ran past its 50 s)" >>"$OUT/memcheck.log"
grep -E 'ERROR SUMMARY|passed, |exit ' "$OUT/memcheck.log" | tail -n 3
{
    echo "== grouped"
    timeout 70 "$BIN/bench_cuda_batch" --reps 9 --prec f32,f64 --grouped tiny,small,moe --csv "$OUT/bench_grouped.csv"
} >"$OUT/bench.log" 2>&1
echo "bench exit $?" >>"$OUT/bench.log"
cat "$OUT/bench.log"

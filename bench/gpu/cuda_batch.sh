#!/bin/bash
# bench/gpu/cuda_batch.sh - the CUDA batches on one GPU in one run (about a
# minute): build/test_cuda_batch in full, then with GEMM_CUDA_TEST_SMALL=1
# under compute-sanitizer memcheck, then bench_cuda_batch (strided batches
# beside cublas?gemmStridedBatched / cublasGemmStridedBatchedEx at 64^3 x
# 10000, 256^3 x 1000, 1024^3 x 16; fp32, fp64, TF32, FP16, BF16).
# Binaries are built on any machine with nvcc (no GPU needed):
#     make gpu-bin-cuda-batch        (-> .gpu/cbatch, sm_90a)
# then, on the GPU machine (device tool, carry [".gpu/cbatch"]):
#     bash bench/gpu/cuda_batch.sh
# Logs go to $OUT: test.log, memcheck.log, bench.log, bench.csv.
cd "$(dirname "$0")/../.." || exit 2
BIN=${GPU_BIN:-.gpu/cbatch}
OUT=${OUT:-build/gpu_out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 200 "$BIN/test_cuda_batch" >"$OUT/test.log" 2>&1
echo "test_cuda_batch exit $?" >>"$OUT/test.log"
grep -v '^ok ' "$OUT/test.log" | tail -n 20
GEMM_CUDA_TEST_SMALL=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 "$BIN/test_cuda_batch" \
    >"$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" >>"$OUT/memcheck.log"
grep -E 'ERROR SUMMARY|passed, |exit ' "$OUT/memcheck.log" | tail -n 3
timeout 200 "$BIN/bench_cuda_batch" --reps 11 --csv "$OUT/bench.csv" >"$OUT/bench.log" 2>&1
echo "bench_cuda_batch exit $?" >>"$OUT/bench.log"
cat "$OUT/bench.log"

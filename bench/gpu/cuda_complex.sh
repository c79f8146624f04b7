#!/bin/bash
# bench/gpu/cuda_complex.sh - the complex CUDA calls on one GPU in one run
# (under four minutes: each step has its timeout): test_cuda_complex in
# full, then with GEMM_CUDA_TEST_SMALL=1 under compute-sanitizer memcheck,
# then bench_cuda_complex (gemm_cuda_cgemm / _zgemm beside cublasCgemm /
# cublasZgemm at n = 2048, 4096, 8192, every op pair; the strided batches
# beside cublas?gemmStridedBatched at 64^3 x 10000, 256^3 x 1000,
# 1024^3 x 16, op pairs NN, CN, NT), and the batches with 32^3 and 128^3
# members too, automatic and with the real product forced (--path 1).
# Binaries are built on any machine with nvcc (no GPU needed):
#     make gpu-bin-cuda-complex       (-> .gpu/cucplx, sm_90a)
# then, on the GPU machine, from the repository root:
#     bash bench/gpu/cuda_complex.sh
# Logs go to $OUT: test.log, memcheck.log, bench.log, bench.csv.
cd "$(dirname "$0")/../.." || exit 2
BIN=${GPU_BIN:-.gpu/cucplx}
OUT=${OUT:-build/gpu_out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 120 "$BIN/test_cuda_complex" >"$OUT/test.log" 2>&1
echo "test_cuda_complex exit $?" >>"$OUT/test.log"
grep -v '^ok ' "$OUT/test.log" | tail -n 30
GEMM_CUDA_TEST_SMALL=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 "$BIN/test_cuda_complex" \
    >"$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" >>"$OUT/memcheck.log"
grep -E 'ERROR SUMMARY|passed, |exit |^FAIL' "$OUT/memcheck.log" | tail -n 8
timeout 80 "$BIN/bench_cuda_complex" --reps 7 --csv "$OUT/bench.csv" >"$OUT/bench.log" 2>&1
echo "bench_cuda_complex exit $?" >>"$OUT/bench.log"
cat "$OUT/bench.log"
# the batches again with two more member sizes, the automatic choice and
# the real product forced (--path 1: how every complex call ran before the
# native kernel), alternating twice
for pass in 1 2; do
    for path in 0 1; do
        echo "== batches, pass $pass, path $path"
        timeout 60 "$BIN/bench_cuda_complex" --reps 7 --sizes "" --batches 32x10000,64x10000,128x2000,256x1000,1024x16 \
            --batch-ops NN,CN,NT --path $path 2>&1 | grep -v '^NVIDIA'
    done
done

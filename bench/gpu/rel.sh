#!/bin/sh
# bench/gpu/rel.sh - the reliability checks that need a GPU, in one run of
# at most about 4 minutes (each step under its own timeout):
#   test_cuda_batch  in full: the batteries, the refusals (a member's C over
#                    its own A, and a strided C over the next member's A, with
#                    device pointers; members past their allocation; lists in
#                    device memory; C in mapped host memory 5 members for 4);
#   test_cuda_host   GEMM_CUDA_TEST_SMALL=1 (its full run takes up to 2
#                    minutes): the host path in every mode, and that C over A
#                    or B is refused while blocks side by side in one array
#                    (a blocked LU's A22 -= A21 * A12) are computed;
#   test_cuda_tc     the tensor-core and mixed-type calls (no false overlap
#                    refusal among them);
#   test_cuda        the battery on every kernel, single calls;
#   then test_cuda_batch with GEMM_CUDA_TEST_SMALL=1 under compute-sanitizer
#   memcheck, if time is left.
# Binaries (sm_90a) are built where nvcc is, no GPU needed, into .gpu/rel:
#     F="-std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -Xcompiler -Wall,-Wextra"
#     for t in test_cuda_batch test_cuda_host test_cuda_tc test_cuda; do
#         nvcc $F tests/$t.cu -o .gpu/rel/$t; done
# then, from the repository root on a 1-GPU machine (carry .gpu/rel):
#     sh bench/gpu/rel.sh
# Logs go to $OUT: env.txt and one NAME.log per step; each log ends with
# the program's "N passed, N failed" line and its exit status.
cd "$(dirname "$0")/../.." || exit 2
BIN=${GPU_BIN:-.gpu/rel}
OUT=${OUT:-build/gpu_out}
mkdir -p "$OUT"
{
    date -u
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1
    git log -1 --format='commit %H' 2>/dev/null
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
start=$(date +%s)
run() { # run NAME SECONDS [ENV=VALUE ...] COMMAND...: one step, its summary
    name=$1 limit=$2; shift 2
    left=$((230 - ($(date +%s) - start)))
    [ "$left" -lt "$limit" ] && limit=$left
    if [ "$limit" -lt 10 ]; then echo "$name: SKIPPED (no time left)"; return; fi
    timeout -k 5 "$limit" env "$@" >"$OUT/$name.log" 2>&1
    echo "exit $?" >>"$OUT/$name.log"
    grep -v '^ok ' "$OUT/$name.log" | tail -n 12 | sed "s/^/$name: /"
}
run test_cuda_batch 60 "$BIN/test_cuda_batch"
run test_cuda_host 60 GEMM_CUDA_TEST_SMALL=1 "$BIN/test_cuda_host"
run test_cuda_tc 45 "$BIN/test_cuda_tc"
run test_cuda 45 "$BIN/test_cuda"
run memcheck_batch 60 GEMM_CUDA_TEST_SMALL=1 compute-sanitizer --tool memcheck --error-exitcode 9 "$BIN/test_cuda_batch"
echo "total $(($(date +%s) - start)) s"

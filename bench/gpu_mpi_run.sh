#!/bin/bash
# bench/gpu_mpi_run.sh - everything the MPI backend needs from the 2-GPU
# machine, in one call of the device tool (its time is shared and short):
#   1. what the machine has (GPUs, links, Open MPI and its CUDA support);
#   2. the test program built by nvcc (CUDA local multiply) at P = 1, 2, 4
#      (4 = the 2x2 grid, two ranks per GPU);
#   3. bench-mpi: GPUs (1, 2, and 4 ranks on 2), then CPU ranks 1, 4, 9, 16.
# Prebuilt binaries in build/mpi_cuda/ (made where nvcc is, as the build
# below makes them) are used when they start here; else they are built here.
# Results land in $OUT (the device tool's folder) or build/gpu_out.
set -o pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-build/gpu_out}
mkdir -p "$OUT/gpu" "$OUT/cpu"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
{
    date -u; nvidia-smi -L; nvidia-smi topo -m; nproc; lscpu | grep -E 'Model name|Socket|Thread|Core'
    mpirun --version | head -1; ompi_info 2>/dev/null | grep -iE 'cuda|ucx' | head -8
    git log -1 --format='commit %H' 2>/dev/null || true
} >"$OUT/env.log" 2>&1
cat "$OUT/env.log"

tbin=build/mpi_cuda/test_mpi_cuda bbin=build/mpi_cuda/bench_mpi_cuda
inc=$(mpicc --showme:incdirs | sed 's/^/ /; s/ \([^ ]\)/ -I\1/g')
lib=$(mpicc --showme:libdirs | sed 's/^/ /; s/ \([^ ]\)/ -L\1/g')
if ! [ -x $tbin ] || ldd $tbin | grep -q 'not found' || ldd $bbin | grep -q 'not found' ||
   ! timeout 60 mpirun --allow-run-as-root -np 1 $bbin --local cuda --sizes 256 --what single --reps 1 >/dev/null 2>&1; then
    echo "building with nvcc here"
    mkdir -p build/mpi_cuda
    NV="nvcc -x cu -std=c++17 -O2 -DGEMM_MPI_CUDA -gencode=arch=compute_90,code=sm_90"
    $NV $inc tests/test_mpi.c -o $tbin $lib -lmpi &
    $NV $inc bench/bench_mpi.c -o $bbin $lib -lmpi &
    wait
fi
mpicc -std=c99 -O2 -march=native bench/bench_mpi.c -o build/bench_mpi -lm

if [ "${RUN:-1}" = 2 ]; then # the follow-up: after the caching change, and the CPU ranks that did not fit
    echo "=== tests (CUDA build) at P = 2 4"
    timeout -k 5 ${TEST_LIMIT:-60} env MPI_TEST_NOBUILD=1 MPI_TEST_BIN=$tbin GEMM_MPI_TEST_RANKS="2 4" GEMM_MPI_TEST_STAGE_BYTES=4096 \
        GEMM_MPI_TEST_CASES=1 GEMM_MPI_TEST_TIMEOUT=30 sh tests/test_mpi.sh 2>&1 | tee "$OUT/test.log" | tail -n 12
    M="mpirun --allow-run-as-root --bind-to none"
    g="$bbin --local cuda"
    {
        timeout 60 $M -np 2 $g --sizes 16384,32768 --what single,resident
        timeout 40 $M -np 2 $g --sizes 32768 --prec f32 --what e2e
        timeout 30 $M -np 4 $g --sizes 16384 --what resident,e2e --reps 2
        timeout 25 $M -np 2 $g --sizes 16384 --prec f32 --what resident --path staged
    } 2>&1 | tee "$OUT/gpu/bench_mpi.log" | grep '^csv,' | sed 's/^csv,//' >"$OUT/gpu/results_mpi.csv"
    for p in 9 16; do
        timeout 40 mpirun --allow-run-as-root --bind-to core --map-by core -np $p build/bench_mpi --local cpu \
            --sizes 16384 --prec f32 --reps 1 --warmup 0 --what resident
    done 2>&1 | tee "$OUT/cpu/bench_mpi.log" | grep '^csv,' | sed 's/^csv,//' >"$OUT/cpu/results_mpi.csv"
    cat "$OUT/gpu/results_mpi.csv" "$OUT/cpu/results_mpi.csv"
    exit 0
fi

echo "=== tests (CUDA build) at P = 1 2 4"
timeout -k 5 ${TEST_LIMIT:-100} env MPI_TEST_NOBUILD=1 MPI_TEST_BIN=$tbin GEMM_MPI_TEST_RANKS="1 2 4" GEMM_MPI_TEST_STAGE_BYTES=4096 \
    GEMM_MPI_TEST_CASES=1 GEMM_MPI_TEST_TIMEOUT=45 sh tests/test_mpi.sh 2>&1 | tee "$OUT/test.log" | tail -n 30

echo "=== bench: GPUs"
timeout -k 5 ${GPU_LIMIT:-140} env BENCH_MPI_OUT="$OUT/gpu" BENCH_MPI_BIN=build/bench_mpi BENCH_MPI_CUDA_BIN=$bbin \
    sh bench/bench_mpi.sh gpu 2>&1 | tail -n 40
echo "=== bench: CPU ranks"
timeout -k 5 ${CPU_LIMIT:-120} env BENCH_MPI_OUT="$OUT/cpu" BENCH_MPI_BIN=build/bench_mpi \
    sh bench/bench_mpi.sh cpu 2>&1 | tail -n 12

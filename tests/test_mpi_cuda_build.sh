#!/bin/sh
# tests/test_mpi_cuda_build.sh - the CUDA build of gemm_mpi.h, as the GPU
# machine makes it: nvcc with Open MPI's flags, GEMM_MPI_CUDA on, host
# warnings as errors: it builds and links the test and the benchmark
# against gemm_cuda.cuh.
# Last line: N passed, N failed[, N skipped].
cd "$(dirname "$0")/.." || exit 2
out=build/mpi_cuda
mkdir -p "$out"
. tests/checks.sh
if ! have nvcc || ! have mpicc; then
    echo "SKIPPED test-mpi-cuda-build: needs nvcc and mpicc (CUDA toolkit; tests/deps.sh mpi)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
MPI_INC=$(mpicc --showme:incdirs | sed 's/^/ /; s/ \([^ ]\)/ -I\1/g')
MPI_LIB="$(mpicc --showme:libdirs | sed 's/^/ /; s/ \([^ ]\)/ -L\1/g') $(mpicc --showme:libs | sed 's/^/ /; s/ \([^ ]\)/ -l\1/g')"
# The device code goes through the front end only, to PTX (as
# tests/cuda_build_checks.sh does: ptxas and the device optimiser on every
# kernel were most of this suite's time); the two builds run side by side.
# The host side at -O1 for the test (the library's GEMM_MPI_CUDA code and its
# flow-based warnings: -O2 took a third longer) and at -O0 for the benchmark
# (its own code: the library's is the test's).
NV="nvcc -x cu -std=c++17 -DGEMM_MPI_CUDA -gencode=arch=compute_90a,code=compute_90a -Xcicc -O0 -Xcompiler -Wall,-Wextra,-Werror"
# shellcheck disable=SC2086
$NV -O0 $MPI_INC bench/bench_mpi.c -o $out/bench_mpi_cuda $MPI_LIB >$out/bench.log 2>&1 &
bench=$!
# shellcheck disable=SC2086
check "nvcc: tests/test_mpi.c with gemm_cuda.cuh builds and links" \
    $NV -O1 $MPI_INC tests/test_mpi.c -o $out/test_mpi_cuda $MPI_LIB
wait $bench
rc=$?
check "nvcc: bench/bench_mpi.c builds and links" sh -c "cat $out/bench.log; test $rc = 0 && ! grep -qi warning $out/bench.log"
summary

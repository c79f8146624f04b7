#!/bin/sh
# tests/test_mpi_cuda_build.sh - the CUDA build of gemm_mpi.h, as the GPU
# machine makes it: nvcc with Open MPI's flags, GEMM_MPI_CUDA on, host
# warnings as errors. With the real gemm_cuda.cuh at the repository root it
# builds and links the test and the benchmark; without it, it compiles
# against the declarations in tests/mpi_cuda_stub/ (no link).
# Last line: N passed, N failed[, N skipped].
cd "$(dirname "$0")/.." || exit 2
out=build/mpi_cuda
mkdir -p "$out"
passed=0 failed=0
have() { command -v "$1" >/dev/null 2>&1; }
if ! have nvcc || ! have mpicc; then
    echo "SKIPPED test-mpi-cuda-build: needs nvcc and mpicc (CUDA toolkit; tests/deps.sh mpi)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
check() { # check "what" command...
    what=$1; shift
    if "$@" >"$out/log" 2>&1; then passed=$((passed + 1)); echo "ok   $what"
    else failed=$((failed + 1)); echo "FAIL $what"; sed 's/^/     /' "$out/log" | head -30; fi
}
MPI_INC=$(mpicc --showme:incdirs | sed 's/^/ /; s/ \([^ ]\)/ -I\1/g')
MPI_LIB="$(mpicc --showme:libdirs | sed 's/^/ /; s/ \([^ ]\)/ -L\1/g') $(mpicc --showme:libs | sed 's/^/ /; s/ \([^ ]\)/ -l\1/g')"
NV="nvcc -x cu -std=c++17 -O2 -DGEMM_MPI_CUDA -Xcompiler -Wall,-Wextra,-Werror"
if [ -f gemm_cuda.cuh ]; then
    # shellcheck disable=SC2086
    check "nvcc: tests/test_mpi.c with gemm_cuda.cuh builds and links" \
        $NV -gencode=arch=compute_90,code=sm_90 $MPI_INC tests/test_mpi.c -o $out/test_mpi_cuda $MPI_LIB
    # shellcheck disable=SC2086
    check "nvcc: bench/bench_mpi.c builds and links" \
        $NV -gencode=arch=compute_90,code=sm_90 $MPI_INC bench/bench_mpi.c -o $out/bench_mpi_cuda $MPI_LIB
else
    echo "(no gemm_cuda.cuh at the root yet: compiling against tests/mpi_cuda_stub)"
    # shellcheck disable=SC2086
    check "nvcc: tests/test_mpi.c compiles with GEMM_MPI_CUDA (stub API)" \
        $NV -Itests/mpi_cuda_stub $MPI_INC -c tests/test_mpi.c -o $out/test_mpi_cuda.o
    # shellcheck disable=SC2086
    check "nvcc: examples/mpi_cannon.c compiles with GEMM_MPI_CUDA (stub API)" \
        $NV -Itests/mpi_cuda_stub $MPI_INC -c examples/mpi_cannon.c -o $out/mpi_cannon_cuda.o
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

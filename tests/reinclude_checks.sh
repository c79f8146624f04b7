#!/bin/sh
# tests/reinclude_checks.sh - the stb habit for every shipped header: include
# a header, then #define GEMM_IMPLEMENTATION and include it again, in one
# file (tests/tu_reinclude.c); the same for all backends in one file, and
# the GEMM_ENABLE_* route through gemm.h (MPI with OpenCL and CBLAS beside
# it). Warning-free with -Wall -Wextra -Werror; the CPU, CBLAS and OpenCL
# programs run, the MPI ones link, the CUDA one compiles.
# Last line: N passed, N failed[, N skipped].
cd "$(dirname "$0")/.." || exit 2
out=build/reinclude
mkdir -p "$out"
WARN="-Wall -Wextra -Werror"
. tests/checks.sh
run() { # run NAME "COMPILER FLAGS" [LIBS]: build tests/tu_reinclude.c, run it, expect 6
    check_bg "$1" sh -c "$2 tests/tu_reinclude.c -o $out/$1 $3 -lm -lpthread && test \"\$($out/$1)\" = 6"
}
run cpu "cc -std=c99 $WARN"
run cpu_cxx "g++ -x c++ -std=c++11 $WARN"
run cblas "cc -std=c99 $WARN -DTU_CBLAS"
run cblas_umbrella "cc -std=c99 $WARN -DTU_UMBRELLA -DTU_CBLAS"
if [ -e /usr/include/CL/cl.h ]; then
    run opencl "cc -std=c99 -D_DEFAULT_SOURCE $WARN -DTU_CL" -lOpenCL
    run opencl_umbrella "cc -std=c99 -D_DEFAULT_SOURCE $WARN -DTU_UMBRELLA -DTU_CL" -lOpenCL
else
    skip "OpenCL headers not installed (tests/deps.sh opencl)"
fi
if have mpicc; then
    check_bg "mpi: declarations, then bodies, links" \
        mpicc -std=c99 $WARN -DTU_MPI tests/tu_reinclude.c -o $out/mpi -lm
    check_bg "mpi umbrella: GEMM_ENABLE_MPI + GEMM_IMPLEMENTATION + gemm.h links" \
        mpicc -std=c99 $WARN -DTU_UMBRELLA -DTU_MPI tests/tu_reinclude.c -o $out/mpi_umbrella -lm
    if [ -e /usr/include/CL/cl.h ]; then
        check_bg "every backend in one file (CPU, CBLAS, OpenCL, MPI), then the umbrella route with all of them" sh -c \
            "mpicc -std=c99 -D_DEFAULT_SOURCE $WARN -DTU_MPI -DTU_CL -DTU_CBLAS tests/tu_reinclude.c -o $out/all -lOpenCL -lm &&
             mpicc -std=c99 -D_DEFAULT_SOURCE $WARN -DTU_UMBRELLA -DTU_MPI -DTU_CL -DTU_CBLAS tests/tu_reinclude.c -o $out/all_umbrella -lOpenCL -lm"
    fi
else
    skip "mpicc not installed (tests/deps.sh mpi)"
fi
if have nvcc; then
    check_bg "cuda: declarations, then bodies, under nvcc (compile only)" \
        nvcc -x cu -std=c++17 -gencode arch=compute_90a,code=compute_90a -Xcicc -O0 -Xcompiler -Wall,-Wextra,-Werror \
            -DTU_CUDA -c tests/tu_reinclude.c -o $out/cuda.o
else
    skip "nvcc not installed"
fi
check_wait
summary

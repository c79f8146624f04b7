#!/bin/sh
# tests/test_config.sh - `make test-cpu-config`: gemm_config() and the
# default thread count, field by field (tests/test_config.c): the plain
# build, GEMM_NO_SIMD + GEMM_NO_THREADS, and the backends each build
# compiles in (GEMM_CBLAS, GEMM_ENABLE_OPENCL, gemm_cl.h, both, gemm_mpi.h
# with mpicc, GEMM_ENABLE_CUDA with nvcc); then child processes with
# the environment set (an invalid GEMM_NUM_THREADS named as ignored, an
# OMP_NUM_THREADS list), under `taskset -c 0` (one CPU in the affinity
# mask), after gemm_cpu_set_threads(7), and on emulated CPUs (qemu-x86_64
# -cpu Haswell: avx2, -cpu Nehalem: scalar; aarch64 under qemu-aarch64: neon).
# Last line: N passed, N failed[, N skipped].
cd "$(dirname "$0")/.." || exit 2
out=build/config
mkdir -p "$out"
WARN="-Wall -Wextra -Wpedantic -Werror"
# The builds are only asked for their configuration (no product worth
# timing), so at -O0: a third of -O2's compile time. (-O2 builds of the
# same headers with these backends: test-cpu, test-cblas, test-cl, test-mpi.)
O=-O0
NVCC=${NVCC:-$(command -v nvcc || ls "${CUDA_BIN:-/usr/local/cuda/bin}/nvcc" 2>/dev/null)}
. tests/checks.sh

suite() { # suite "what" binary...: its checks pass (last line "N passed, 0 failed")
    what=$1; shift
    if "$@" >"$out/suite.log" 2>&1 && tail -n 1 "$out/suite.log" | grep -qE '^[0-9]+ passed, 0 failed$'; then
        passed=$((passed + 1)); echo "ok   $what: $(tail -n 1 "$out/suite.log")"
    else
        failed=$((failed + 1)); echo "FAIL $what"; grep -v '^ok' "$out/suite.log" | tail -n 20 | sed 's/^/     /'
    fi
}
built() { # built "what" command...: the build succeeds (a failure counts)
    what=$1; shift
    "$@" >"$out/build.log" 2>&1 && return 0
    failed=$((failed + 1)); echo "FAIL $what (build)"; head -n 20 "$out/build.log" | sed 's/^/     /'
    return 1
}
says() { # says "what" text command...: the command's output contains text
    what=$1 text=$2; shift 2
    check "$what: \"$text\"" sh -c '"$0" "$@" >"'"$out"'/says.log" 2>&1; cat "'"$out"'/says.log"; grep -qF -- "'"$text"'" "'"$out"'/says.log"' "$@"
}

bin=$out/test_config
built "gcc" gcc -std=c99 $O $WARN tests/test_config.c -o $bin -lm -lpthread &&
    suite "gcc: every field" $bin
head -n 1 "$out/suite.log" | sed 's/^/     /'
built "GEMM_NO_SIMD GEMM_NO_THREADS" gcc -std=c99 $O $WARN -DGEMM_NO_SIMD -DGEMM_NO_THREADS tests/test_config.c \
    -o $out/plain -lm -lpthread && suite "GEMM_NO_SIMD + GEMM_NO_THREADS: scalar (GEMM_NO_SIMD), 1 thread" $out/plain
built "GEMM_CBLAS" gcc -std=c99 $O $WARN -DGEMM_CBLAS '-DTEST_BACKENDS="cpu, cblas"' tests/test_config.c \
    -o $out/cblas -lm -lpthread && suite "GEMM_CBLAS: backends cpu, cblas" $out/cblas
if [ -e /usr/include/CL/cl.h ]; then
    built "GEMM_ENABLE_OPENCL" gcc -std=c99 $O $WARN -DGEMM_ENABLE_OPENCL '-DTEST_BACKENDS="cpu, opencl"' \
        tests/test_config.c -o $out/cl -lOpenCL -lm -lpthread && suite "GEMM_ENABLE_OPENCL: backends cpu, opencl" $out/cl
    built "gemm_cl.h" gcc -std=c99 $O $WARN -DTEST_INCLUDE_CL '-DTEST_BACKENDS="cpu, opencl"' \
        tests/test_config.c -o $out/cl2 -lOpenCL -lm -lpthread && suite "gemm_cl.h included: backends cpu, opencl" $out/cl2
    built "GEMM_ENABLE_OPENCL GEMM_CBLAS" gcc -std=c99 $O $WARN -DGEMM_ENABLE_OPENCL -DGEMM_CBLAS \
        '-DTEST_BACKENDS="cpu, opencl, cblas"' tests/test_config.c -o $out/clcblas -lOpenCL -lm -lpthread &&
        suite "GEMM_ENABLE_OPENCL and GEMM_CBLAS: backends cpu, opencl, cblas" $out/clcblas
else skip "OpenCL: no OpenCL headers"; fi
if have mpicc; then
    built "gemm_mpi.h" mpicc -std=c99 $O $WARN -DTEST_INCLUDE_MPI '-DTEST_BACKENDS="cpu, mpi"' tests/test_config.c \
        -o $out/mpi -lm && suite "gemm_mpi.h included: backends cpu, mpi" $out/mpi
else skip "MPI: mpicc not installed"; fi
if [ -n "$NVCC" ]; then
    built "nvcc GEMM_ENABLE_CUDA" "$NVCC" -x cu -std=c++17 -I. -DGEMM_ENABLE_CUDA '-DTEST_BACKENDS="cpu, cuda"' \
        -gencode arch=compute_90a,code=compute_90a -Xcicc -O0 -Xcompiler -Wall,-Wextra -Werror all-warnings \
        tests/test_config.c -o $out/cuda && suite "nvcc, GEMM_ENABLE_CUDA: backends cpu, cuda (no GPU needed)" $out/cuda
else skip "CUDA: nvcc not installed"; fi

# Child processes with the environment set.
if [ -x $bin ]; then
    says "GEMM_NUM_THREADS=abc in the environment" "GEMM_NUM_THREADS=abc ignored" env GEMM_NUM_THREADS=abc $bin print
    says "GEMM_NUM_THREADS=3" "threads: 3 from GEMM_NUM_THREADS" env GEMM_NUM_THREADS=3 OMP_NUM_THREADS=2 $bin print
    says "OMP_NUM_THREADS=2,1, GEMM_NUM_THREADS unset" "threads: 2 from OMP_NUM_THREADS" \
        env -u GEMM_NUM_THREADS OMP_NUM_THREADS=2,1 $bin print
    says "gemm_cpu_set_threads(7) first" "threads: 7 from gemm_cpu_set_threads()" env GEMM_NUM_THREADS=3 $bin print 7
    if have taskset; then
        says "taskset -c 0, no variables" "threads: 1 from the affinity mask" \
            env -u GEMM_NUM_THREADS -u OMP_NUM_THREADS taskset -c 0 $bin print
        suite "taskset -c 0: every field" env -u GEMM_NUM_THREADS -u OMP_NUM_THREADS taskset -c 0 $bin
    else skip "taskset not installed"; fi
    if have aarch64-linux-gnu-gcc && have qemu-aarch64; then
        if built "aarch64" aarch64-linux-gnu-gcc -std=c99 $O $WARN -static tests/test_config.c -o $out/aarch64 -lm -lpthread
        then
            suite "aarch64 under qemu-aarch64: every field" qemu-aarch64 $out/aarch64
            check "... kernel: neon (aarch64: Advanced SIMD)" grep -q 'kernel: neon (aarch64: Advanced SIMD)' "$out/suite.log"
        fi
    else skip "aarch64-linux-gnu-gcc or qemu-aarch64 not installed (tests/deps.sh cpu)"; fi
    if have qemu-x86_64 && [ "$(uname -m)" = x86_64 ]; then
        says "qemu-x86_64 -cpu Haswell" "kernel: avx2 (cpuid: avx2 and fma, no avx512f)" qemu-x86_64 -cpu Haswell $bin print
        says "qemu-x86_64 -cpu Nehalem" "kernel: scalar (cpuid: no avx2 with fma)" qemu-x86_64 -cpu Nehalem $bin print
        suite "qemu-x86_64 -cpu Haswell: every field" qemu-x86_64 -cpu Haswell $bin
    else skip "qemu-x86_64 not installed (package qemu-user)"; fi
fi
summary

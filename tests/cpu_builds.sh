#!/bin/sh
# tests/cpu_builds.sh - the CPU backend under other builds and other CPUs,
# each running the quick battery (tests/test_cpu.c --quick; --smoke under
# emulation):
#   -DGEMM_NO_SIMD (scalar only), -DGEMM_NO_THREADS, clang, g++ (as C++),
#   nvcc (the implementation in a .cu file, as a CUDA user may put it),
#   and the plain -O2 binary on emulated CPUs without AVX-512 (qemu-x86_64
#   -cpu Haswell: must pick avx2) and without AVX (-cpu Nehalem: scalar), so
#   the run-time dispatch never executes an instruction the CPU lacks.
# Last line: N passed, N failed[, N skipped].
cd "$(dirname "$0")/.." || exit 2
out=build/cpu_builds
mkdir -p "$out"
WARN="-Wall -Wextra -Wpedantic -Werror"
. tests/checks.sh

run() { # run "what" expect-regex command...: the battery passes and prints expect
    what=$1 expect=$2; shift 2
    if "$@" >"$out/log" 2>&1 && tail -n 1 "$out/log" | grep -qE '^[0-9]+ passed, 0 failed$' &&
        grep -qE "$expect" "$out/log"; then
        passed=$((passed + 1)); echo "ok   $what: $(tail -n 1 "$out/log")"
    else
        failed=$((failed + 1)); echo "FAIL $what"; grep -v '^ok' "$out/log" | tail -n 20 | sed 's/^/     /'
    fi
}
build() { # build "what" output compiler flags...
    what=$1 bin=$2; shift 2
    if "$@" tests/test_cpu.c -o "$bin" -lm -lpthread >"$out/log" 2>&1; then return 0; fi
    failed=$((failed + 1)); echo "FAIL $what (build)"; head -n 20 "$out/log" | sed 's/^/     /'
    return 1
}

build "GEMM_NO_SIMD" $out/nosimd gcc -std=c99 -O2 $WARN -DGEMM_NO_SIMD &&
    run "GEMM_NO_SIMD: scalar kernel only" '== kernel scalar' $out/nosimd --quick
build "GEMM_NO_THREADS" $out/nothreads gcc -std=c99 -O2 $WARN -DGEMM_NO_THREADS &&
    run "GEMM_NO_THREADS" 'passed' $out/nothreads --quick --only-best
if have clang; then
    build "clang" $out/clang clang -std=c99 -O2 $WARN &&
        run "clang -O2: every kernel" '== kernel scalar' $out/clang --quick
else skip "clang not installed"; fi
if have g++; then
    build "g++" $out/cxx g++ -x c++ -std=c++11 -O2 $WARN &&
        run "g++ -O2 (C++): every kernel" '== kernel scalar' $out/cxx --quick
else skip "g++ not installed"; fi
nvcc=$(command -v nvcc || ls "${CUDA_BIN:-/usr/local/cuda/bin}/nvcc" 2>/dev/null)
if [ -n "$nvcc" ]; then
    sed 's|"../gemm.h"|"gemm.h"|; s|"battery.h"|"tests/battery.h"|; s|"battery_complex.h"|"tests/battery_complex.h"|; s|"cpu_edge_tests.h"|"tests/cpu_edge_tests.h"|; s|"cpu_small_tests.h"|"tests/cpu_small_tests.h"|; s|"cpu_sbgemm_tests.h"|"tests/cpu_sbgemm_tests.h"|' \
        tests/test_cpu.c >"$out/test_cpu.cu"
    if "$nvcc" -I. -O2 -Xcompiler -Wall,-Wextra,-Werror "$out/test_cpu.cu" -o "$out/nvcc" >"$out/log" 2>&1; then
        run "nvcc (.cu implementation unit): every kernel" '== kernel scalar' $out/nvcc --quick
    else failed=$((failed + 1)); echo "FAIL nvcc (build)"; head -n 20 "$out/log" | sed 's/^/     /'; fi
else skip "nvcc not installed"; fi
if have qemu-x86_64; then
    # the plain -O2 binary: make test-cpu's build/test_cpu (-O2 -g; the
    # Makefile builds it first), rather than the same compile again
    plain=build/test_cpu
    [ -x $plain ] || build "plain -O2" $plain gcc -std=c99 -O2 -g $WARN
    [ -x $plain ] &&
        run "qemu-x86_64 -cpu Haswell picks avx2" '== kernel avx2' qemu-x86_64 -cpu Haswell $plain --smoke --no-fork &&
        run "qemu-x86_64 -cpu Nehalem picks scalar" '== kernel scalar' qemu-x86_64 -cpu Nehalem $plain --smoke --no-fork
else skip "qemu-x86_64 not installed (package qemu-user)"; fi

summary

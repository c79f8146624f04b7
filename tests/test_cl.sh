#!/bin/sh
# tests/test_cl.sh - the OpenCL suite: gemm_cl.h as a user's compiler sees it
# (warning-free C99 with gcc and clang, C++ with g++, alone and through
# gemm.h's GEMM_ENABLE_OPENCL), the kernel source src/cl/gemm.cl on its own
# (clang's OpenCL C 1.2 front end, several parameter sets), then build/test_cl,
# build/test_cl_safety (hostile offsets, damaged caches, endless tuning
# files, injected allocation failures) and build/test_cl_batch (the batches)
# on the first OpenCL device; and that `make tune-cl` never writes the
# tracked tuning/gemm_cl.txt.
# Prints SKIPPED when the OpenCL headers, loader or a device are missing.
# `sh tests/test_cl.sh asan` runs the _asan builds of the three instead
# (test_cl_batch --quick; AddressSanitizer, UndefinedBehaviorSanitizer,
# LeakSanitizer; PoCL needs no suppressions).
# Last line: N passed, N failed[, N skipped]. Its files go to build/checks_cl
# (build/checks_cl_asan for the asan run, so that both can run at once).
cd "$(dirname "$0")/.." || exit 2
out=build/checks_cl${1:+_$1}
mkdir -p "$out"
WARN="-Wall -Wextra -Wpedantic -Werror"
. tests/checks.sh
if ! printf '#include <CL/cl.h>\nint main(void){return 0;}\n' | ${CC:-cc} -x c - -o "$out/probe" -lOpenCL 2>/dev/null; then
    echo "SKIPPED OpenCL: no CL/cl.h or libOpenCL (sh tests/deps.sh opencl installs them)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
progs="build/test_cl build/test_cl_safety build/test_cl_batch"
if [ "${1:-}" = asan ]; then progs="build/test_cl_asan build/test_cl_safety_asan build/test_cl_batch_asan"; else
    printf '#define GEMM_IMPLEMENTATION\n#include "gemm_cl.h"\n' >"$out/impl.c"
    printf '#define GEMM_IMPLEMENTATION\n#define GEMM_ENABLE_OPENCL\n#include "gemm.h"\n' >"$out/umbrella.c"
    for cc in gcc clang; do
        command -v $cc >/dev/null 2>&1 || { skipped=$((skipped + 1)); echo "SKIPPED $cc not installed"; continue; }
        for O in -O0 -O2; do
            check "$cc -std=c99 $O $WARN: gemm_cl.h" $cc -std=c99 $O $WARN -I. -c "$out/impl.c" -o "$out/impl.o"
        done
        check "$cc -std=c99 $WARN: gemm.h with GEMM_ENABLE_OPENCL" $cc -std=c99 $WARN -I. -c "$out/umbrella.c" -o "$out/u.o"
        check "$cc: every global symbol starts with gemm_" sh -c \
            "test -z \"\$(nm -g --defined-only $out/impl.o | awk '{print \$3}' | grep -v '^gemm_')\""
    done
    # The kernel is real OpenCL C: it compiles alone with its defaults, and with
    # the built-in sets and the test's extreme ones prepended as the host does.
    if command -v clang >/dev/null 2>&1; then
        for defs in "" "-DPRECISION=64" \
            "-DMWG=14 -DNWG=32 -DKWG=16 -DMDIMC=1 -DNDIMC=1 -DVWM=1 -DVWN=16 -DPACK=1" \
            "-DPRECISION=64 -DMWG=14 -DNWG=16 -DKWG=16 -DMDIMC=1 -DNDIMC=1 -DVWN=8 -DPACK=1" \
            "-DMWG=128 -DNWG=64 -DKWG=16 -DMDIMC=16 -DNDIMC=8 -DVWN=4 -DSA=1 -DSB=1" \
            "-DPRECISION=64 -DMWG=64 -DNWG=64 -DKWG=8 -DMDIMC=16 -DNDIMC=8 -DVWM=2 -DSA=1 -DSB=1 -DPACK=1 -DDB=1" \
            "-DMWG=32 -DNWG=128 -DKWG=16 -DMDIMC=2 -DNDIMC=8 -DVWM=16 -DVWN=16 -DSB=1 -DPACK=1 -DDB=1" \
            "-DMWG=1 -DNWG=1 -DKWG=1 -DMDIMC=1 -DNDIMC=1 -DSA=1 -DSB=1 -DPACK=1" \
            "-DMWG=128 -DNWG=128 -DKWG=16 -DMDIMC=16 -DNDIMC=16 -DVWM=4 -DVWN=4 -DSA=1 -DSB=1 -DPACK=1 -DDB=1 -DWARPM=8" \
            "-DPRECISION=64 -DMWG=64 -DNWG=128 -DKWG=8 -DMDIMC=8 -DNDIMC=16 -DVWM=2 -DVWN=2 -DSA=1 -DSB=1 -DPACK=1 -DWARPM=4"; do
            # shellcheck disable=SC2086 # $defs is a list of options
            check "clang -x cl -cl-std=CL1.2 $WARN: src/cl/gemm.cl ${defs:-(defaults)}" \
                clang -x cl -cl-std=CL1.2 -fsyntax-only $WARN $defs src/cl/gemm.cl
        done
    else
        skipped=$((skipped + 1)); echo "SKIPPED clang not installed: src/cl/gemm.cl not compiled alone"
    fi
    if command -v g++ >/dev/null 2>&1; then
        check "g++ -std=c++11 -O2 $WARN: gemm_cl.h" g++ -x c++ -std=c++11 -O2 $WARN -I. -c "$out/impl.c" -o "$out/impl_cpp.o"
    else
        skipped=$((skipped + 1)); echo "SKIPPED g++ not installed"
    fi
    check "examples/opencl_batched.c builds warning-free and runs (both batch forms, checked)" sh -c \
        "gcc -std=c99 -O2 $WARN examples/opencl_batched.c -o $out/opencl_batched -lOpenCL -lm -lpthread && \
         $out/opencl_batched 16 2000"
    # the tuner writes where the user says, never silently into the repository
    check "make tune-cl writes build/, not the tracked tuning/gemm_cl.txt" sh -c \
        "${MAKE:-make} --no-print-directory -n tune-cl | grep -- '--output build/' && \
         ! ${MAKE:-make} --no-print-directory -n tune-cl | grep -q 'tuning/gemm_cl.txt'"
fi
# Runs one test program; adds its summary line to the counters.
run_prog() {
    prog=$1
    ${MAKE:-make} --no-print-directory "$prog" >"$out/log" 2>&1 || { cat "$out/log"; failed=$((failed + 1)); return; }
    args=""
    case $prog in *_batch_asan) args=--quick ;; esac # the battery's small form under the sanitizers
    ASAN_OPTIONS=detect_leaks=1 "$prog" $args >"$out/run.log" 2>&1
    rc=$?
    grep -v '^ok ' "$out/run.log"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out/run.log" | tail -n 1)
    p=$(echo "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+') f=$(echo "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
    s=$(echo "$line" | grep -oE '[0-9]+ skipped' | grep -oE '[0-9]+')
    # a crash, a sanitizer report or a leak: non-zero exit with nothing failed in the summary
    [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ] && { echo "FAIL $prog exited with $rc"; f=1; }
    passed=$((passed + ${p:-0})) failed=$((failed + ${f:-1})) skipped=$((skipped + ${s:-0}))
}
for prog in $progs; do run_prog "$prog"; done
summary

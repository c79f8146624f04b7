#!/bin/sh
# tests/build_checks.sh - the headers as a user's compiler sees them:
# warning-free as C99 (gcc, clang) and C++ (g++), one implementation per
# program links, GEMM_STATIC works and is warning-free at every -O level,
# every global symbol is gemm_-prefixed,
# no test hook is exported unless GEMM__TEST_HOOKS asks for it, a
# half-overridden allocator is refused, and the CPU benchmarks compile. Last line: N passed, N failed.
cd "$(dirname "$0")/.." || exit 2
out=build/checks
mkdir -p "$out"
WARN="-Wall -Wextra -Wpedantic -Werror"
. tests/checks.sh

for cc in gcc clang; do
    if ! have $cc; then skip "$cc not installed"; continue; fi
    check "$cc -std=c99 $WARN: header only" $cc -std=c99 $WARN -c tests/tu_user.c -o "$out/user_$cc.o"
    check "$cc -std=c99 $WARN: implementation" $cc -std=c99 $WARN -c tests/tu_impl.c -o "$out/impl_$cc.o"
    check "$cc -std=c11 $WARN: implementation" $cc -std=c11 $WARN -c tests/tu_impl.c -o "$out/impl11_$cc.o"
    check "$cc: two translation units link and run" sh -c \
        "$cc -std=c99 $WARN -DTU_USER_MAIN tests/tu_user.c tests/tu_impl.c -o $out/two_$cc -lm && $out/two_$cc"
    # Sizes known only at run time, so no optimisation level can prove a
    # path dead ("'work' may be used uninitialized" once, at -O1 and up).
    for opt in -O1 -O2 -O3 -Os; do
        check "$cc $opt $WARN: GEMM_STATIC, sizes from the command line" \
            $cc -std=c99 $opt $WARN -c tests/tu_static.c -o "$out/static_sizes_$cc.o"
    done
    check "$cc: GEMM_STATIC in two translation units" sh -c \
        "$cc -std=c99 $WARN -DGEMM_STATIC -DTU_USER_MAIN tests/tu_user.c -x c - -o $out/static_$cc -lm <<'X' && $out/static_$cc
#define GEMM_IMPLEMENTATION
#include \"tests/../gemm.h\"
X"
done
if have g++; then
    check "g++ -std=c++11 $WARN: header only" g++ -x c++ -std=c++11 $WARN -c tests/tu_user.c -o "$out/user_cpp.o"
    check "g++ -std=c++11 $WARN: implementation" g++ -x c++ -std=c++11 $WARN -c tests/tu_impl.c -o "$out/impl_cpp.o"
    check "C and C++ translation units link together" sh -c \
        "gcc -std=c99 -DTU_USER_MAIN -c tests/tu_user.c -o $out/mix_user.o && g++ -x c++ -c tests/tu_impl.c -o $out/mix_impl.o && g++ $out/mix_user.o $out/mix_impl.o -o $out/mix && $out/mix"
else
    skip "g++ not installed"
fi
if have nm; then
    bad=$(nm -g --defined-only "$out/impl_gcc.o" 2>/dev/null | awk '{print $3}' | grep -v '^gemm_' || true)
    check "every global symbol starts with gemm_ (${bad:-none other})" test -z "$bad"
    n=$(nm -g --defined-only "$out/impl_gcc.o" | grep -c ' gemm_sgemm$')
    check "gemm_sgemm is defined by the implementation unit" test "$n" = 1
    bad=$(nm -g --defined-only "$out/impl_gcc.o" | awk '{print $3}' | grep -E '^gemm__(cpu_|test_hooks$)' || true)
    check "a default build exports no test hook (gemm__cpu_*, gemm__test_hooks: ${bad:-none})" test -z "$bad"
    n=$(gcc -std=c99 -DGEMM__TEST_HOOKS -c tests/tu_impl.c -o "$out/hooks.o" && nm -g --defined-only "$out/hooks.o" | grep -cE ' gemm__(cpu_kernels?|test_hooks)$')
    check "GEMM__TEST_HOOKS exports the hooks (gemm__test_hooks, gemm__cpu_kernel, gemm__cpu_kernels: $n of 3)" test "$n" = 3
    bad=$(gcc -std=c99 -DGEMM_STATIC -c tests/tu_impl.c -o "$out/static.o" && nm -g --defined-only "$out/static.o" | awk '{print $3}')
    check "GEMM_STATIC exports no symbol (${bad:-none})" test -z "$bad"
else
    skip "nm not installed"
fi
# The CPU benchmarks and tools, which reach into the implementation's
# internals (packing, kernels), compile with the headers as they are now.
for b in bench_cpu bench_tiny bench_batch cpu_tune ladder; do
    check "bench/$b.c compiles ($WARN, no peer)" gcc -std=c99 -O0 $WARN -fsyntax-only bench/$b.c
done
check_fails "GEMM_MALLOC without GEMM_FREE is an #error" gcc -std=c99 -DGEMM_MALLOC=malloc -c tests/tu_impl.c -o "$out/x.o"

summary

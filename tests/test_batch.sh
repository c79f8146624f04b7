#!/bin/sh
# tests/test_batch.sh - the CPU's batches (tests/test_batch.c): the full run,
# then the quick one under the builds whose arithmetic or paths differ: g++
# and gcc -std=gnu99 (which contract multiplies and adds unless told not to:
# a member must still be the single call's bits), -DGEMM_NO_SIMD (no tiny
# kernels), -DGEMM_NO_THREADS. Last line: N passed, N failed.
cd "$(dirname "$0")/.." || exit 2
out=build/batch
mkdir -p "$out"
WARN="-Wall -Wextra -Wpedantic -Werror"
. tests/checks.sh

run_suite() { # run_suite "what" command...: the last line must be "N passed, 0 failed"
    what=$1; shift
    if "$@" >"$out/suite.log" 2>&1 && tail -n 1 "$out/suite.log" | grep -qE '^[0-9]+ passed, 0 failed$'; then
        passed=$((passed + 1)); echo "ok   $what: $(tail -n 1 "$out/suite.log")"
    else
        failed=$((failed + 1)); echo "FAIL $what"; grep -v '^ok' "$out/suite.log" | tail -n 20 | sed 's/^/     /'
    fi
}
variant() { # variant "what" output compiler flags...: build tests/test_batch.c, run it --quick
    what=$1 bin=$2; shift 2
    if "$@" tests/test_batch.c -o "$bin" -lm -lpthread >"$out/build.log" 2>&1; then run_suite "$what" "$bin" --quick
    else failed=$((failed + 1)); echo "FAIL $what (build)"; head -n 20 "$out/build.log" | sed 's/^/     /'; fi
}

run_suite "gcc -std=c99 -O2: everything" ${TEST_BATCH_BIN:-build/test_batch}
if have g++; then variant "g++ -O2 (C++, -ffp-contract=fast)" $out/cxx g++ -x c++ -std=c++11 -O2 $WARN
else skip "g++ not installed"; fi
variant "gcc -std=gnu99 -O3 (-ffp-contract=fast)" $out/gnu gcc -std=gnu99 -O3 $WARN
variant "GEMM_NO_SIMD" $out/nosimd gcc -std=c99 -O2 $WARN -DGEMM_NO_SIMD
variant "GEMM_NO_THREADS" $out/nothreads gcc -std=c99 -O2 $WARN -DGEMM_NO_THREADS
summary

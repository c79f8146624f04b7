#!/bin/sh
# tests/test_cblas.sh - the CBLAS names (gemm_cblas.h): the battery and the
# error-exit tables (tests/test_cblas.c, with the test's cblas_xerbla from
# another file replacing the weak default), the same built as C++, the
# default cblas_xerbla and GEMM_CBLAS_NO_XERBLA (tests/cblas_default.c), the
# symbols an implementation unit exports with GEMM_CBLAS, and
# examples/cblas_compat.c, and netlib's CBLAS level-3 tester
# (tests/netlib_tester.sh). Last line: N passed, N failed.
# CBLAS_TEST_OUT: where its files go (build/cblas; the sanitizer run has its
# own, so that both can run at once).
cd "$(dirname "$0")/.." || exit 2
out=${CBLAS_TEST_OUT:-build/cblas}
mkdir -p "$out"
WARN="-Wall -Wextra -Wpedantic -Werror"
# FLAGS: the battery's build (CBLAS_TEST_FLAGS; -O2 -g); SMALL_FLAGS: the
# small programs' and netlib's tester's (CBLAS_TEST_SMALL_FLAGS; -O0 -g: they
# run in well under a second, and a compile at -O2 takes three times -O0's)
FLAGS=${CBLAS_TEST_FLAGS:-"-O2 -g"}
SMALL_FLAGS=${CBLAS_TEST_SMALL_FLAGS:-"-O0 -g"}
. tests/checks.sh

build() { # build "what" command...: counts a failure only; returns the command's status
    what=$1; shift
    if "$@" >"$out/build.log" 2>&1; then return 0; fi
    failed=$((failed + 1)); echo "FAIL $what (build)"; head -n 20 "$out/build.log" | sed 's/^/     /'
    return 1
}
run_suite() { # run_suite "what" binary args...: its last line must be "N passed, 0 failed"
    what=$1; shift
    if "$@" >"$out/suite.log" 2>&1 && tail -n 1 "$out/suite.log" | grep -qE '^[0-9]+ passed, 0 failed$'; then
        passed=$((passed + 1)); echo "ok   $what: $(tail -n 1 "$out/suite.log")"
    else
        failed=$((failed + 1)); echo "FAIL $what"; grep -v '^ok' "$out/suite.log" | tail -n 20 | sed 's/^/     /'
    fi
}

# suite_bg "what" NAME "build command" [args]: builds $out/NAME and runs it with args, in the background
# (check_bg: each build is a compile of the whole header on one core); its last line must be
# "N passed, 0 failed"; its output in $out/NAME.log.
suite_bg() {
    check_bg "$1" sh -c "$3 -o $out/$2 && $out/$2 $4 >$out/$2.log 2>&1 && tail -n 1 $out/$2.log &&
        tail -n 1 $out/$2.log | grep -qE '^[0-9]+ passed, 0 failed\$'"
}
suite_bg "gcc -std=c99: the battery and the error-exit tables through the cblas_ names" test_cblas \
    "gcc -std=c99 $FLAGS $WARN tests/test_cblas.c tests/cblas_xerbla.c -lm -lpthread" "$CBLAS_TEST_ARGS"
if [ -n "${CBLAS_TEST_FLAGS:-}" ]; then
    : # the sanitizer run (make test-cblas-asan): the C++ build below takes no flags, so test-cblas has run it
elif have g++; then
    build "g++ -std=c++11: the same, as C++" sh -c "g++ -x c++ -std=c++11 -O1 $WARN -c tests/test_cblas.c -o $out/t.o &&
        g++ -x c++ -std=c++11 -O1 $WARN -c tests/cblas_xerbla.c -o $out/x.o && g++ $out/t.o $out/x.o -o $out/test_cblas_cxx -lpthread"
    [ $? = 0 ] && run_suite "the C++ build (test_cblas.c, cblas_xerbla.c), quick" $out/test_cblas_cxx --quick
else skip "g++ not installed"; fi
suite_bg "the default cblas_xerbla prints and returns" default \
    "gcc -std=c99 $SMALL_FLAGS $WARN tests/cblas_default.c -lm -lpthread"
suite_bg "GEMM_CBLAS_NO_XERBLA: the program's own cblas_xerbla in the implementation's file" own \
    "gcc -std=c99 $SMALL_FLAGS $WARN -DTEST_OWN_XERBLA tests/cblas_default.c -lm -lpthread"
check_bg "examples/cblas_compat.c builds and runs" sh -c \
    "gcc -std=c99 $SMALL_FLAGS $WARN examples/cblas_compat.c -o $out/cblas_compat -lm -lpthread && $out/cblas_compat"
check_wait
if [ -n "${CBLAS_TEST_FLAGS:-}" ]; then
    : # the sanitizer run: the symbols' build takes no flags, so test-cblas has checked it
elif have nm && gcc -std=c99 $WARN -DGEMM_CBLAS -c tests/tu_impl.c -o $out/impl.o; then
    names=$(nm -g --defined-only $out/impl.o | awk '{print $3}' | grep -v '^gemm_' | sort | tr '\n' ' ')
    want="cblas_cgemm cblas_cgemm3m cblas_dgemm cblas_dgemm_batch cblas_dgemm_batch_strided cblas_sgemm cblas_sgemm_batch cblas_sgemm_batch_strided cblas_xerbla cblas_zgemm cblas_zgemm3m "
    check "GEMM_CBLAS exports the cblas_ names and nothing else without gemm_ (${names})" test "$names" = "$want"
    kind=$(nm -g --defined-only $out/impl.o | awk '$3 == "cblas_xerbla" {print $2}')
    check "cblas_xerbla is weak (nm: $kind)" test "$kind" = W
else skip "nm not installed"; fi
. tests/netlib_tester.sh
summary

#!/bin/sh
# tests/test_blas.sh - build/libgemm_blas.so (make blas), the drop-in BLAS,
# the three ways README's "A drop-in BLAS" gives:
#   - its dynamic symbols are exactly the BLAS/CBLAS names and the counters;
#   - linked directly (-lgemm_blas): tests/test_blas.c, sgemm_/dgemm_ (and
#     cgemm_/zgemm_, cgemm3m_/zgemm3m_, cblas_zgemm and cblas_zgemm3m)
#     against a loop (every transpose
#     letter, odd leading dimensions), reference
#     BLAS's parameter numbers through the program's own xerbla_, and without
#     one the line reference BLAS's XERBLA prints (C untouched, no crash);
#   - under LD_PRELOAD in front of the system BLAS: Debian's numpy
#     (tests/blas_numpy.py: A @ B, numpy.dot, lstsq in float32 and float64
#     against the results without the preload, rel. 1e-5 / 1e-12 of the norm,
#     and gemm's counters read through ctypes prove gemm served them), and
#     reference LAPACK's dgesv_ at n = 500 (tests/blas_lapack.c: residual,
#     and LAPACK's dgemm_ calls counted by gemm), whichever BLAS (reference
#     or OpenBLAS) Debian's alternatives give.
# Last line: N passed, N failed[, N skipped].
cd "$(dirname "$0")/.." || exit 2
out=build/blas
mkdir -p "$out"
WARN="-Wall -Wextra -Wpedantic -Werror"
LIB=build/libgemm_blas.so
. tests/checks.sh

check "make blas builds $LIB" ${MAKE:-make} --no-print-directory blas
[ -e "$LIB" ] || { summary; exit 1; }

if have nm; then
    names=$(nm -D --defined-only "$LIB" | awk '{print $3}' | sort | tr '\n' ' ')
    want="cblas_cgemm cblas_cgemm3m cblas_dgemm cblas_dgemm_batch cblas_dgemm_batch_strided cblas_sgemm cblas_sgemm_batch cblas_sgemm_batch_strided cblas_zgemm cblas_zgemm3m cgemm3m_ cgemm_ dgemm_ gemm_blas_calls gemm_blas_calls_of sgemm_ zgemm3m_ zgemm_ "
    check "the library exports the BLAS names and the counters, nothing else (${names})" test "$names" = "$want"
else skip "nm not installed"; fi

if have cmake && have nm; then
    check "CMake -DGEMM_BUILD_BLAS=ON builds libgemm_blas.so with the same symbols" sh -c \
        "cmake -S . -B $out/cmake -DGEMM_BUILD_BLAS=ON >/dev/null && cmake --build $out/cmake >/dev/null &&
         test \"\$(nm -D --defined-only $out/cmake/libgemm_blas.so | awk '{print \$3}' | sort | tr '\n' ' ')\" = '$want'"
else skip "cmake or nm not installed"; fi

# Linked directly.
run_c() { # run_c "what" binary: its last line must be "N passed, 0 failed"; stderr in $out/stderr
    what=$1; shift
    if "$@" >"$out/suite.log" 2>"$out/stderr" && tail -n 1 "$out/suite.log" | grep -qE '^[0-9]+ passed, 0 failed$'; then
        passed=$((passed + 1)); echo "ok   $what: $(tail -n 1 "$out/suite.log")"
    else
        failed=$((failed + 1)); echo "FAIL $what"; grep -v '^ok' "$out/suite.log" | tail -n 20 | sed 's/^/     /'
    fi
}
if gcc -std=c99 -O2 $WARN tests/test_blas.c -o $out/test_blas -Lbuild -lgemm_blas -Wl,-rpath,"$PWD/build" -lm \
    >"$out/log" 2>&1; then
    run_c "linked with -lgemm_blas: sgemm_/dgemm_ against the loop, bad arguments without an xerbla_" $out/test_blas
    line=" ** On entry to SGEMM  parameter number  8 had an illegal value"
    check "... prints reference BLAS's line for a bad argument (\"$line\")" grep -qxF "$line" "$out/stderr"
    check "... one line per refused call (24)" test "$(grep -c '^ \*\* On entry to [SD]GEMM  parameter number' "$out/stderr")" = 24
else failed=$((failed + 1)); echo "FAIL tests/test_blas.c builds"; head -20 "$out/log"; fi
if gcc -std=c99 -O2 $WARN -DTEST_OWN_XERBLA tests/test_blas.c -o $out/test_blas_xerbla -Lbuild -lgemm_blas \
    -Wl,-rpath,"$PWD/build" -lm >"$out/log" 2>&1; then
    run_c "... with the program's own xerbla_: each bad argument reaches it with reference BLAS's number" \
        $out/test_blas_xerbla
    check "... and nothing is printed then" test ! -s "$out/stderr"
else failed=$((failed + 1)); echo "FAIL tests/test_blas.c -DTEST_OWN_XERBLA builds"; head -20 "$out/log"; fi

# Under LD_PRELOAD: Debian's numpy (its BLAS: libblas.so.3 through the alternatives).
python=""
for p in /usr/bin/python3 python3; do
    if "$p" -c "import numpy" >/dev/null 2>&1; then python=$p; break; fi
done
if [ -n "$python" ]; then
    umath=$("$python" -c "import numpy.core._multiarray_umath as m; print(m.__file__)")
    echo "     numpy $("$python" -c "import numpy; print(numpy.__version__)") ($python): its BLAS is" \
        "$(ldd "$umath" | awk '/blas|lapack/ {print $1 " -> " $3}' | tr '\n' ' ')($(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 2>/dev/null))"
    rm -f $out/numpy_system.npz
    run_c "numpy without the preload (the system BLAS's results)" "$python" tests/blas_numpy.py save $out/numpy_system.npz
    run_c "numpy under LD_PRELOAD=$LIB: same results, gemm served A @ B, dot and lstsq" \
        env LD_PRELOAD=$LIB "$python" tests/blas_numpy.py compare $out/numpy_system.npz
    grep -E '^(ok|FAIL)' "$out/suite.log" | sed 's/^/     /'
else skip "numpy: no python3 with numpy (Debian: python3-numpy; sh tests/deps.sh blas)"; fi

# Under LD_PRELOAD: reference LAPACK's dgesv_. Linked by path: Debian's
# liblapack.so.3 may be OpenBLAS's (an alternative), whose own dgesv_ calls
# its dgemm kernels directly, past any preload.
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
# (its soname is liblapack.so.3 too, so the rpath makes the loader take it).
refdir=/usr/lib/$multiarch/lapack
if [ -e $refdir/liblapack.so.3 ]; then lapack="$refdir/liblapack.so.3 -Wl,-rpath,$refdir"; else lapack=-llapack; fi
if gcc -std=c99 -O2 $WARN tests/blas_lapack.c -o $out/blas_lapack $lapack -ldl -lm >"$out/log" 2>&1; then
    echo "     LAPACK: $(ldd $out/blas_lapack | awk '/lapack|blas/ {print $1 " -> " $3}' | tr '\n' ' ')"
    run_c "LAPACK dgesv_ n = 500 on the system BLAS" $out/blas_lapack 500 system
    run_c "LAPACK dgesv_ n = 500 under LD_PRELOAD=$LIB: solved, gemm served its dgemm_ calls" \
        env LD_PRELOAD=$LIB $out/blas_lapack 500 gemm
    grep -E '^(ok|FAIL)' "$out/suite.log" | sed 's/^/     /'
else skip "LAPACK: -llapack does not link (Debian: liblapack-dev; sh tests/deps.sh blas)"; fi
summary

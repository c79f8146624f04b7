# tests/netlib_tester.sh - sourced by tests/test_cblas.sh: netlib's CBLAS
# level-3 tester (tests/netlib, Reference-LAPACK 3.11.0) against gemm's
# cblas_sgemm and cblas_dgemm, computational and error-exit tests in both
# layouts, for each precision; the other level-3 routines it tests come from
# Debian's reference BLAS (static, so nothing else can stand in for gemm).
# Proof that gemm's routines are the ones tested: every call the tester's
# wrappers make is counted on its way to gemm (tests/netlib/gemm_impl.c),
# and a build that scales alpha on that way must fail the tester.
# Uses $out, $SMALL_FLAGS, build, check, check_fails and skip from the caller.

netlib_blas=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/blas/libblas.a

# netlib_build PREC NAME IMPL [CFLAGS...]: $out/NAME, the tester for PREC (s
# or d) linked with $out/IMPL.o, gemm_impl.c compiled with CFLAGS; each
# object is built once per run
netlib_build() {
    prec=$1 name=$2 impl=$out/$3.o; shift 3
    nd=$out/netlib-$prec
    mkdir -p "$nd" || return 1
    if [ ! -f "$impl" ]; then
        gcc -std=c99 $SMALL_FLAGS -Wall -Wextra -Werror "$@" -c tests/netlib/gemm_impl.c -o "$impl" || return 1
    fi
    if [ ! -f "$nd/done" ]; then
        for f in c_${prec}blas3 c_${prec}3chke auxiliary c_xerbla; do
            gcc $SMALL_FLAGS -w -DADD_ -Itests/netlib -c tests/netlib/$f.c -o "$nd/$f.o" || return 1
        done
        gfortran -O1 -std=legacy -w -c tests/netlib/c_${prec}blat3.f -o "$nd/c_${prec}blat3.o" && touch "$nd/done" || return 1
    fi
    gfortran $SMALL_FLAGS -o "$out/$name" "$nd"/*.o "$impl" -Wl,--wrap=cblas_sgemm,--wrap=cblas_dgemm "$netlib_blas" -lm -lpthread
}

# netlib_passed PREC LOG: the tester's output says every routine passed the
# error exits and both layouts' computational tests, nothing else went
# wrong, and gemm's ?gemm got at least the calls the tester counted
netlib_passed() {
    prec=$1 log=$2
    grep -q '^ END OF TESTS' "$log" || { echo "the tester did not finish"; return 1; }
    if grep -n '\*\*\*\*\*' "$log"; then return 1; fi
    for r in gemm symm trmm trsm syrk syr2k; do
        for nl_line in 'PASSED THE TESTS OF ERROR-EXITS' 'PASSED THE COLUMN-MAJOR COMPUTATIONAL TESTS' \
            'PASSED THE ROW-MAJOR    COMPUTATIONAL TESTS'; do
            grep -q "^ cblas_$prec$r *$nl_line" "$log" || { echo "no line 'cblas_$prec$r $nl_line'"; return 1; }
        done
    done
    want=$(awk -v r="cblas_${prec}gemm" '$1 == r && /COMPUTATIONAL TESTS/ {gsub(/[()]/, ""); n += $(NF - 1)} END {print n + 0}' "$log")
    got=$(sed -n "s/^gemm_impl: \([0-9]*\) cblas_sgemm calls and \([0-9]*\) cblas_dgemm calls.*/\1 \2/p" "$log" |
        awk -v p="$prec" '{print p == "s" ? $1 : $2}')
    echo "the tester counted $want computational cblas_${prec}gemm calls; $got reached gemm"
    [ "$want" -gt 0 ] && [ -n "$got" ] && [ "$got" -ge "$want" ]
}

netlib_run() { # netlib_run PREC NAME: runs $out/NAME on its input deck; its output in $out/NAME.log
    "$out/$2" <tests/netlib/${1}in3 >"$out/$2.log" 2>&1
}

if ! have gfortran; then skip "netlib's CBLAS tester: gfortran not installed"
elif [ ! -f "$netlib_blas" ]; then skip "netlib's CBLAS tester: $netlib_blas (libblas-dev) not installed"
else
    rm -rf "$out"/netlib-s "$out"/netlib-d "$out"/netlib_impl*.o # built afresh with this run's flags
    for prec in s d; do
        if build "netlib's CBLAS level-3 tester, $prec" netlib_build $prec netlib_${prec}blat3 netlib_impl; then
            netlib_run $prec netlib_${prec}blat3
            check "netlib's CBLAS level-3 tester passes in full with gemm's cblas_${prec}gemm (error exits, both layouts)" \
                netlib_passed $prec "$out/netlib_${prec}blat3.log"
        fi
    done
    if build "netlib's tester with gemm's alpha scaled" netlib_build d netlib_broken netlib_impl_broken -DNETLIB_BREAK_GEMM; then
        netlib_run d netlib_broken
        check "netlib's tester catches gemm's cblas_dgemm computing a wrong product (negative control)" \
            grep -q '^ \*\*\*\*\*\*\* cblas_dgemm  FAILED ON CALL NUMBER' "$out/netlib_broken.log"
    fi
fi

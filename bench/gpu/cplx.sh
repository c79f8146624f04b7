#!/bin/bash
# bench/gpu/cplx.sh - the complex calls (gemm_cgemm / gemm_zgemm) on the GPU
# machines' host CPU (16 cores, AVX-512) beside Debian's OpenBLAS
# cblas_cgemm / cblas_zgemm, in one call of the device tool (about 3
# minutes; every step has its own timeout):
#   0. the CPU; the complex battery (test_complex --quick) on this CPU;
#   1. bench_complex on all threads (taskset -c 0-(NT-1)), n = 256..4096,
#      cgemm and zgemm, row-major NN;
#   2. the same on 1 thread (taskset -c 0), n = 256..2048 (a 1-thread
#      4096^3 zgemm call takes about 10 s: left out to stay in time).
# Binaries: built beforehand where the compilers are (gcc -O2, no -march)
# into .gpu/cplx (ignored by git), carried:
#   mkdir -p .gpu/cplx && cc -std=c99 -O2 tests/test_complex.c -o .gpu/cplx/test_complex -lm -lpthread &&
#   cc -std=c99 -O2 -DBENCH_HAVE_OPENBLAS bench/bench_complex.c -o .gpu/cplx/bench_complex \
#      /usr/lib/x86_64-linux-gnu/libopenblas.so -lm -lpthread
# Peer: OpenBLAS (libopenblas0-pthread, libgfortran5, libquadmath0) from the
# .deb files in $PEERS/deb, unpacked with dpkg -x into a private folder, run
# with OPENBLAS_CORETYPE=SkylakeX and OPENBLAS_THREAD_TIMEOUT=4.
#   bash bench/gpu/cplx.sh    (from the repository root; OUT=... for the logs)
# A trial elsewhere: NT=2 SIZESN=256 SIZES1=256 ARGS=--quick CPLX_BIN=... PEERS=... bash bench/gpu/cplx.sh
# Output in $OUT: env.txt, test.log, complexN.csv, complex1.csv, bench.log.
cd "$(dirname "$0")/../.." || exit 2
OUT=${OUT:-build/cplx_out}
PEERS=${PEERS:-.peers}
BIN=${CPLX_BIN:-.gpu/cplx}
PRIV=${CPLX_PEER_DIR:-build/cplx_peer}
mkdir -p "$OUT" "$PRIV"
NT=${NT:-$(nproc)}
SIZESN=${SIZESN:-256,512,1024,2048,4096}
SIZES1=${SIZES1:-256,512,1024,2048}
for pkg in libopenblas0-pthread libgfortran5 libquadmath0; do
    deb=$(ls "$PEERS"/deb/${pkg}_*.deb 2>/dev/null | head -n 1)
    if [ -n "$deb" ]; then dpkg -x "$deb" "$PRIV"; else echo "cplx: no $pkg .deb in $PEERS/deb"; fi
done
export LD_LIBRARY_PATH="$PWD/$PRIV/usr/lib/x86_64-linux-gnu/openblas-pthread:$PWD/$PRIV/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OPENBLAS_CORETYPE=SkylakeX OPENBLAS_THREAD_TIMEOUT=4
{
    date -u; nproc; grep -m1 'model name' /proc/cpuinfo; cat "$BIN/commit.txt" 2>/dev/null
    ldd "$BIN/bench_complex" | grep -i blas
} >"$OUT/env.txt" 2>&1
timeout 60 "$BIN/test_complex" --quick >"$OUT/test.log" 2>&1
tail -n 1 "$OUT/test.log"
{
    echo "== all $NT threads"
    timeout 120 taskset -c "0-$((NT - 1))" "$BIN/bench_complex" --threads "$NT" --sizes "$SIZESN" \
        --csv "$OUT/complexN.csv" $ARGS
    echo "== 1 thread"
    timeout 100 taskset -c 0 "$BIN/bench_complex" --threads 1 --sizes "$SIZES1" --csv "$OUT/complex1.csv" $ARGS
} >"$OUT/bench.log" 2>&1
cat "$OUT/bench.log"

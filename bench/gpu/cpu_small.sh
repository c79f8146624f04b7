#!/bin/sh
# bench/gpu/cpu_small.sh - small products and small batches on one core of
# the GPU machines' host CPU (16-core AVX-512 Xeon), beside Debian's
# OpenBLAS 0.3.21 (carried as .deb files, unpacked here with dpkg -x into a
# folder of our own, never into /) and libxsmm 1.17 (linked statically into
# bench_tiny). About 2 minutes, at most 4 (every step has its own timeout):
#   0. the CPU; test_cpu --quick --only-best (the small path's size-class
#      edges included) and test_batch --quick on this CPU;
#   1. bench_tiny, n = 8, 16, 32, 64, fp32 and fp64, the 8 layouts: ns per
#      call of gemm, OpenBLAS, libxsmm and a plain loop (pinned: taskset -c 0);
#   2. bench_batch on 1 thread (taskset -c 0): 8^3 .. 128^3 members, fp32
#      and fp64, ours strided / pointers / loop beside a loop of OpenBLAS
#      calls; last, the ratio column (OpenBLAS loop / ours strided).
# OpenBLAS runs its SkylakeX kernel (the benches set OPENBLAS_CORETYPE over
# any preset one and print the kernel OpenBLAS reports).
#
# Binaries: built where the compilers are (`make cpu-small-bin`: gcc -O2, no
# -march) into .gpu/cpu_small (ignored by git), carried; built here only
# when missing (then without libxsmm).
#
#   sh bench/gpu/cpu_small.sh     (from the repository root; OUT=... for the
#                                  logs, the device tool sets it; PEERS=.peers
#                                  by default: .peers/deb/*.deb)
# Output in $OUT: env.txt, test.log, tiny.log, tiny.csv, batch.log, batch.csv.
cd "$(dirname "$0")/../.." || exit 2
OUT=${OUT:-build/cpu_small_out}
PEERS=${PEERS:-.peers}
BIN=${CPU_SMALL_BIN:-.gpu/cpu_small}
PRIV=${CPU_SMALL_PEER_DIR:-build/cpu_small_peer}
mkdir -p "$OUT" "$PRIV"
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }

# ---- the peer: OpenBLAS from Debian's packages, in a folder of our own ----
for pkg in libopenblas0-pthread libgfortran5 libquadmath0; do
    deb=$(ls "$PEERS"/deb/${pkg}_*.deb 2>/dev/null | head -n 1)
    if [ -n "$deb" ]; then dpkg -x "$deb" "$PRIV"; else echo "cpu_small: no $pkg .deb in $PEERS/deb"; fi
done
OBDIR="$PWD/$PRIV/usr/lib/x86_64-linux-gnu/openblas-pthread"
export LD_LIBRARY_PATH="$OBDIR:$PWD/$PRIV/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# ---- the binaries: carried, else built here ----
usable() { [ -x "$1" ] && ! ldd "$1" 2>/dev/null | grep -q 'not found'; }
if ! usable "$BIN/bench_tiny" || ! usable "$BIN/bench_batch" || ! usable "$BIN/test_cpu" || ! usable "$BIN/test_batch"; then
    echo "cpu_small: building here (no carried binaries in $BIN)"
    mkdir -p "$BIN"
    W="-std=c99 -O2 -Wall -Wextra"
    gcc $W tests/test_cpu.c -o "$BIN/test_cpu" -lm -lpthread
    gcc $W tests/test_batch.c -o "$BIN/test_batch" -lm -lpthread
    gcc $W -DBENCH_HAVE_OPENBLAS bench/bench_tiny.c -o "$BIN/bench_tiny" "$OBDIR/libopenblas.so.0" -lm -lpthread
    gcc $W bench/bench_batch.c -o "$BIN/bench_batch" -ldl -lm -lpthread
fi

# ---- 0. the machine, the tests ----
{
    date -u
    echo "binaries of commit $(cat "$BIN/commit.txt" 2>/dev/null || echo unknown)"
    lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Core|Socket|L1d|L2|L3' | cut -c1-200
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
{
    timeout 40 "$BIN/test_cpu" --quick --only-best
    timeout 40 "$BIN/test_batch" --quick
} >"$OUT/test.log" 2>&1
echo "tests: $(grep -E '^[0-9]+ passed' "$OUT/test.log" | tr '\n' ' ')($(elapsed) s)"
grep '^FAIL' "$OUT/test.log" | head -n 10

# ---- 1. small products, 1 thread, pinned ----
timeout 50 taskset -c 0 "$BIN/bench_tiny" --sizes "${TINY_SIZES:-8,16,32,64}" --csv "$OUT/tiny.csv" >"$OUT/tiny.log" 2>&1
echo "tiny rc $? ($(elapsed) s)"
grep -E '^OpenBLAS core|miss a bar' "$OUT/tiny.log"

# ---- 2. small batches, 1 thread, pinned ----
timeout 80 taskset -c 0 "$BIN/bench_batch" --threads 1 --seconds "${SECONDS_PER_ROW:-1}" \
    --openblas "$OBDIR/libopenblas.so.0" --shapes "${SHAPES:-8:10000,16:10000,32:10000,64:2000,128:1000}" \
    --csv "$OUT/batch.csv" >"$OUT/batch.log" 2>&1
echo "batch rc $? ($(elapsed) s)"
grep -E '^(OpenBLAS|gemm|times|prec|f32|f64)' "$OUT/batch.log"

# ---- the tiny table's ratios: OpenBLAS / gemm per layout (bar >= 1) ----
echo
echo "OpenBLAS / gemm ns per call, 1 thread (>= 1: gemm ahead); libxsmm / gemm in brackets"
sed -n '/^fp[36][24] /,$p' "$OUT/tiny.log" | awk -F'|' '
    /^fp/ { lay = $0; next }
    $1 ~ /^ *[0-9]+ *$/ { gsub(/ /, "", $1); printf "%-10s n=%-3s OB/gemm %s  xs/gemm %s\n", lay, $1, $(NF - 1), $NF }'
echo "total $(elapsed) s"

#!/bin/sh
# bench/gpu/cpu_batch.sh - the CPU's batches on the GPU machine's 16-core
# host (AVX-512 Xeon): the batch tests, then bench_batch beside a loop of
# OpenBLAS calls (Debian's 0.3.21, carried as .deb files and unpacked here
# with dpkg -x, never into /) and libxsmm's JIT kernels, on 16 and 2 threads
# (and 1). About 4 minutes; every step has a timeout. Logs and CSV go to
# $OUT; a summary table is printed last.
#
# Built here, carried (the host needs only libc, and libgomp for the libxsmm
# column; without libgomp the script uses the build without it):
#     make gpu-bin-batch          (test_batch, bench_batch, bench_batch_plain in .gpu/bin)
# then, from the repository root there (the peers in .peers/deb):
#     GPU_BIN=.gpu/bin PEERS_DEB=.peers/deb sh bench/gpu/cpu_batch.sh
# Missing binaries are built on the spot with cc (no libxsmm then).
OUT=${OUT:-build/gpu_out}
GPU_BIN=${GPU_BIN:-.gpu/bin}
PEERS_DEB=${PEERS_DEB:-.peers/deb}
PEER_DIR=${PEER_DIR:-/tmp/gemm_cpu_batch_peer}
THREADS=${THREADS:-16,2,1}
SECONDS_PER_ROW=${SECONDS_PER_ROW:-1}
mkdir -p "$OUT" "$PEER_DIR"

{
    date -u
    grep -m1 'model name' /proc/cpuinfo
    echo "cores: $(nproc); flags: $(grep -m1 -o 'avx512f\|avx2' /proc/cpuinfo | sort -u | tr '\n' ' ')"
    git log -1 --format='commit %H' 2>/dev/null
} >"$OUT/cpu_batch_env.txt"
cat "$OUT/cpu_batch_env.txt"

# The binaries: carried, else built here.
bin() { # bin NAME SOURCE FLAGS...: prints the path of a runnable binary NAME
    name=$1 src=$2; shift 2
    if [ -x "$GPU_BIN/$name" ] && ! ldd "$GPU_BIN/$name" 2>/dev/null | grep -q 'not found'; then
        echo "$GPU_BIN/$name"
    elif [ -f "$src" ] && mkdir -p build && timeout 300 cc -std=c99 -O2 "$src" -o "build/$name" "$@" -ldl -lm -lpthread \
        >>"$OUT/cpu_batch_build.log" 2>&1; then
        echo "build/$name"
    fi
}
TEST=$(bin test_batch tests/test_batch.c)
BENCH=$(bin bench_batch bench/bench_batch.c)
[ -n "$BENCH" ] || BENCH=$(bin bench_batch_plain bench/bench_batch.c)
echo "binaries: ${TEST:-no test_batch} ${BENCH:-no bench_batch}"

# OpenBLAS (pthread build) and the Fortran runtime it links.
for deb in "$PEERS_DEB"/libopenblas0-pthread_*.deb "$PEERS_DEB"/libgfortran5_*.deb "$PEERS_DEB"/libquadmath0_*.deb; do
    [ -f "$deb" ] && dpkg -x "$deb" "$PEER_DIR"
done
OPENBLAS=$(ls "$PEER_DIR"/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0 2>/dev/null)
export LD_LIBRARY_PATH="$PEER_DIR/usr/lib/x86_64-linux-gnu/openblas-pthread:$PEER_DIR/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "OpenBLAS: ${OPENBLAS:-not found in $PEERS_DEB (our columns only)}"

if [ -n "$TEST" ]; then
    timeout 180 "$TEST" --quick >"$OUT/cpu_batch_test.log" 2>&1
    echo "test_batch --quick (rc $?): $(tail -n 1 "$OUT/cpu_batch_test.log")"
fi
if [ -n "$BENCH" ]; then
    timeout 420 "$BENCH" --threads "$THREADS" --seconds "$SECONDS_PER_ROW" ${OPENBLAS:+--openblas "$OPENBLAS"} ${SHAPES:+--shapes "$SHAPES"} \
        --csv "$OUT/cpu_batch.csv" >"$OUT/cpu_batch_bench.log" 2>&1
    echo "bench_batch rc $?"
    echo "== summary: median ms per batch, ratio = OpenBLAS loop / ours strided (bar >= 1.5 at 2 threads and 16)"
    grep -E '^(OpenBLAS|gemm|times|prec|f32|f64)' "$OUT/cpu_batch_bench.log"
fi

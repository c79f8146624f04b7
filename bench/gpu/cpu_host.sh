#!/bin/bash
# bench/gpu/cpu_host.sh - the CPU backend on the GPU machines' host CPU (16
# cores, AVX-512), beside Debian's OpenBLAS, in one call of the device tool
# (about 4 minutes; every step has its own timeout):
#   0. what the CPU is and what gemm reads of its caches; the quick test
#      battery on this CPU;
#   1. make bench's table on all threads (NT = nproc, 16 there: taskset -c
#      0-15) and on 1 thread (taskset -c 0): square n = 256..8192 (8192 on
#      all threads only: one 1-thread call takes ~20 s) and the non-square
#      shapes;
#   2. the per-call cost of small products (bench_tiny: loop, gemm, OpenBLAS,
#      libxsmm; n = 1..64, fp32 and fp64, 8 layouts);
#   3. where 1-thread time goes (cpu_tune parts: the call, the micro-kernel
#      alone, packing alone) and a block-size sweep (cpu_tune sweep, fp64);
#   4. last, the ratio table (gemm / OpenBLAS) of step 1.
#
# Binaries: built beforehand where the compilers are (`make cpu-host`: gcc
# -O2, no -march: this CPU is not the build machine's) into .gpu/cpu (ignored
# by git), carried; built here only when missing (then without libxsmm).
# Peers: OpenBLAS (libopenblas0-pthread, with libgfortran5 and libquadmath0)
# from the .deb files in $PEERS/deb, unpacked with dpkg -x into a private
# folder, run with OPENBLAS_CORETYPE=SkylakeX (Debian's 0.3.21 does not
# know newer Xeons). libxsmm is linked statically into bench_tiny.
#
#   sh bench/gpu/cpu_host.sh      (from the repository root; OUT=... for the
#                                  logs, the device tool sets it; PEERS=.peers
#                                  by default: .peers/deb/*.deb)
# A trial elsewhere: NT=2 SQUARES=256:256:256 SQUARES1=256:256:256 SHAPES=300:200:100
#   TINY_ARGS="--sizes 1,8 --quick" SWEEP_SIZE=512 PEERS=... sh bench/gpu/cpu_host.sh
# Output in $OUT: env.txt, test.log, cpuN.csv, cpu1.csv, bench.log,
# tiny.csv, tiny.log, tune.log (at most 8 files).
cd "$(dirname "$0")/../.." || exit 2
OUT=${OUT:-build/cpu_host_out}
PEERS=${PEERS:-.peers}
BIN=${CPU_BIN:-.gpu/cpu}
PRIV=${CPU_HOST_PEER_DIR:-build/cpu_host_peer}
mkdir -p "$OUT" "$PRIV"
NT=${NT:-$(nproc)}
ALL="0-$((NT - 1))"
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }

# ---- the peer: OpenBLAS from Debian's packages, in a folder of our own ----
for pkg in libopenblas0-pthread libgfortran5 libquadmath0; do
    deb=$(ls "$PEERS"/deb/${pkg}_*.deb 2>/dev/null | head -n 1)
    if [ -n "$deb" ]; then dpkg -x "$deb" "$PRIV"; else echo "cpu_host: no $pkg .deb in $PEERS/deb"; fi
done
export LD_LIBRARY_PATH="$PWD/$PRIV/usr/lib/x86_64-linux-gnu/openblas-pthread:$PWD/$PRIV/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OPENBLAS_CORETYPE=SkylakeX OPENBLAS_THREAD_TIMEOUT=4

# ---- the binaries: carried, else built here ----
usable() { [ -x "$1" ] && ! ldd "$1" 2>/dev/null | grep -q 'not found'; }
if ! usable "$BIN/bench_cpu" || ! usable "$BIN/bench_tiny" || ! usable "$BIN/cpu_tune" || ! usable "$BIN/test_cpu"; then
    echo "cpu_host: building here (no carried binaries in $BIN)"
    mkdir -p "$BIN"
    ob="$PRIV/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0"
    W="-std=c99 -O2 -Wall -Wextra"
    gcc $W tests/test_cpu.c -o "$BIN/test_cpu" -lm -lpthread
    gcc $W -DBENCH_HAVE_OPENBLAS bench/bench_cpu.c -o "$BIN/bench_cpu" "$ob" -lm -lpthread
    gcc $W -DBENCH_HAVE_OPENBLAS bench/bench_tiny.c -o "$BIN/bench_tiny" "$ob" -lm -lpthread
    gcc $W -DBENCH_HAVE_OPENBLAS bench/cpu_tune.c -o "$BIN/cpu_tune" "$ob" -lm -lpthread
fi

# ---- 0. the machine, its caches, the tests ----
{
    date -u
    # the binaries' commit (make cpu-host wrote it); the copy's own git may be older than what was built
    if [ -s "$BIN/commit.txt" ]; then echo "binaries of commit $(cat "$BIN/commit.txt")"; else git log -1 --format='commit %H' 2>/dev/null; fi
    lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Core|Socket|L1d|L2|L3|NUMA|Flags' | cut -c1-300
    nproc
    timeout 10 "$BIN/cpu_tune" caches
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt" | grep -v Flags
timeout 90 taskset -c "$ALL" "$BIN/test_cpu" --quick >"$OUT/test.log" 2>&1
echo "tests: $(tail -n 1 "$OUT/test.log") ($(elapsed) s)"

# ---- 1. make bench's table, all threads and 1 thread ----
squares=${SQUARES:-256:256:256,512:512:512,1024:1024:1024,2048:2048:2048,4096:4096:4096,8192:8192:8192}
squares1=${SQUARES1:-256:256:256,512:512:512,1024:1024:1024,2048:2048:2048,4096:4096:4096}
shapes=${SHAPES:-4096:4096:256,256:4096:4096,4096:256:4096,1000:1000:1000}
{
    timeout 100 taskset -c "$ALL" "$BIN/bench_cpu" --threads "$NT" --shapes "$squares,$shapes" --csv "$OUT/cpuN.csv"
    echo "($(elapsed) s)"
    timeout 110 taskset -c 0 "$BIN/bench_cpu" --threads 1 --shapes "$squares1,$shapes" --csv "$OUT/cpu1.csv"
    echo "($(elapsed) s)"
} >"$OUT/bench.log" 2>&1
tail -n 40 "$OUT/bench.log"

# ---- 2. small products, 1 thread ----
timeout 60 taskset -c 0 "$BIN/bench_tiny" ${TINY_ARGS:-} --csv "$OUT/tiny.csv" >"$OUT/tiny.log" 2>&1
echo "tiny: $(tail -n 1 "$OUT/tiny.log") ($(elapsed) s)"

# ---- 3. where 1-thread time goes; block sizes ----
{
    timeout 40 taskset -c 0 "$BIN/cpu_tune" parts --sizes "${PARTS_SIZES:-1024,2048}"
    echo "($(elapsed) s)"
    timeout 45 taskset -c 0 "$BIN/cpu_tune" sweep --prec f64 --sizes "${SWEEP_SIZE:-2048}" --mc 168,336 --kc 256,384,512
    echo "($(elapsed) s)"
} >"$OUT/tune.log" 2>&1
cat "$OUT/tune.log"

# ---- 4. the ratio table ----
echo
echo "gemm / OpenBLAS (SkylakeX), row-major NN, medians; host: $(lscpu | sed -n 's/^Model name: *//p' | head -n 1)"
cat "$OUT/cpu1.csv" "$OUT/cpuN.csv" 2>/dev/null | awk -F, -v nt="$NT" '
    $1 == "cpu" { key = $4 "x" $5 "x" $6; col = $2 " " $3 "t"; r[key, col] = $10
                  if (!(key in seen)) { seen[key] = 1; order[++n] = key } }
    END {
        split("f32 1t,f64 1t,f32 " nt "t,f64 " nt "t", cols, ",")
        printf "%-16s", "m x n x k"; for (c = 1; c <= 4; c++) printf " %8s", cols[c]; printf "\n"
        for (i = 1; i <= n; i++) {
            printf "%-16s", order[i]
            for (c = 1; c <= 4; c++) printf " %8s", ((order[i], cols[c]) in r) ? r[order[i], cols[c]] : "-"
            printf "\n"
        }
    }'
grep -E 'miss a bar' "$OUT/tiny.log"
echo "total $(elapsed) s"

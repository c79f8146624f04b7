#!/bin/bash
# bench/gpu/mpi_host.sh - gemm_mpi.h on a GPU machine (nvidia-h100-x1 or
# nvidia-h200: one GPU, a 16-core host, Open MPI 4.1.6), in one call of the
# device tool, about 8 minutes (9 at most: every step has a limit, and a
# deadline cuts or skips the last steps so that the table is printed):
#   1. CUDA (about 2 min): the test program built by nvcc (CUDA multiply;
#      plans, the root-held and distributed forms, the IPC and staged
#      paths, the root-held stream) at P = 1, 2, 4, the ranks sharing the
#      one GPU; then the plan's set-up breakdown with the CUDA multiply and
#      the root-held form all at once and streamed in 4 k-slabs (2 ranks,
#      n = 8192 fp32).
#   2. CPU ranks (about 6 min), --bind-to core, one thread each, against
#      ScaLAPACK PDGEMM/PSGEMM (block size 256, OpenBLAS SkylakeX kernels,
#      the same process grid and values, interleaved call by call):
#        T1 (one rank's gemm_cpu_?gemm, n = 8192), P = 4, 9, 16 at n = 8192,
#        P = 16 at n = 16384 (P = 4 and 9 at 16384 take 30-60 s a call: they
#        do not fit), the local multiplies alone / all ranks busy (P = 9, 16),
#        4 ranks x 4 threads (hybrid), and the root-held form at P = 16 with
#        the root's physical limit.
#   The table is printed last (bars: ScaLAPACK / ours >= 1.5 at P = 4, 9,
#   16; efficiency T1 / (cores x TP) >= 0.85 at P = 16).
#
# Run (from a checkout with .peers/deb, binaries built beforehand where
# nvcc is: `make mpi-gpu-bin` writes .gpu/bin):
#   device tool: command "bash bench/gpu/mpi_host.sh", carry [".gpu/bin", ".peers"]
# Environment: GPU_BIN (default .gpu/bin) holds bench_mpi (mpicc, ScaLAPACK),
# test_mpi_cuda and bench_mpi_cuda (nvcc); PEERS_DEB (default .peers/deb)
# the Debian packages libscalapack-openmpi2.2, libopenblas0-pthread,
# libgfortran5 and libquadmath0, unpacked with dpkg -x into $WORK/peers
# (never into /). OUT (default build/gpu_out) gets: env.log, test_cuda.log,
# bench.log, results.csv, summary.txt. STEPS="cuda cpu" picks parts.
#   bash bench/gpu/mpi_host.sh --build    builds the binaries into $GPU_BIN here
set -o pipefail
cd "$(dirname "$0")/../.." || exit 2
GPU_BIN=${GPU_BIN:-.gpu/bin}
PEERS_DEB=${PEERS_DEB:-.peers/deb}
OUT=${OUT:-build/gpu_out}
WORK=${WORK:-build/mpi_host}
STEPS=${STEPS:-cuda cpu}
# For a dry run on a small machine: SIZE=512 BIG=1024 BIND="--bind-to none" HYBRID="--bind-to none"
SIZE=${SIZE:-8192} BIG=${BIG:-16384}
BIND=${BIND:---bind-to core --map-by core}
HYBRID=${HYBRID:---bind-to core --map-by slot:PE=4}
export NCCL_NVLS_ENABLE=0

mpi_flags() { # the include (-I) or library (-L) flags of mpicc, for nvcc
    mpicc --showme:"$1" | sed 's/^/ /; s/ \([^ ]\)/ '"$2"'\1/g'
}

build() { # the three binaries, into $GPU_BIN
    mkdir -p "$GPU_BIN"
    mpicc -std=c99 -O2 -march=x86-64-v3 -mtune=generic -Wall -Wextra -Werror -DBENCH_HAVE_SCALAPACK \
        bench/bench_mpi.c -o "$GPU_BIN/bench_mpi" -lscalapack-openmpi -lm || return 1
    NV="nvcc -x cu -std=c++17 -O2 -DGEMM_MPI_CUDA -gencode=arch=compute_90,code=sm_90"
    # shellcheck disable=SC2046
    $NV $(mpi_flags incdirs -I) tests/test_mpi.c -o "$GPU_BIN/test_mpi_cuda" $(mpi_flags libdirs -L) -lmpi &&
        $NV $(mpi_flags incdirs -I) bench/bench_mpi.c -o "$GPU_BIN/bench_mpi_cuda" $(mpi_flags libdirs -L) -lmpi
}
if [ "$1" = "--build" ]; then build && ls -la "$GPU_BIN"; exit; fi

mkdir -p "$OUT" "$WORK"
{
    date -u; nvidia-smi -L 2>&1; nproc; lscpu | grep -E 'Model name|Socket|Thread|Core|MHz'
    free -g | head -2; mpirun --version | head -1; git log -1 --format='commit %H' 2>/dev/null || true
} >"$OUT/env.log" 2>&1
cat "$OUT/env.log"

# The peers, unpacked beside the build (ScaLAPACK's libblas.so.3 and
# liblapack.so.3 resolve to OpenBLAS's in openblas-pthread/).
for deb in "$PEERS_DEB"/libscalapack-openmpi2.2_*.deb "$PEERS_DEB"/libopenblas0-pthread_*.deb \
    "$PEERS_DEB"/libgfortran5_*.deb "$PEERS_DEB"/libquadmath0_*.deb; do
    [ -f "$deb" ] && dpkg -x "$deb" "$WORK/peers"
done
lib=$WORK/peers/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH="$lib:$lib/openblas-pthread${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -x "$GPU_BIN/bench_mpi" ] && [ -x "$GPU_BIN/test_mpi_cuda" ] || { echo "no binaries in $GPU_BIN: building here"; build; }
BENCH=$GPU_BIN/bench_mpi PEER="--peer scalapack"
if ldd "$BENCH" | grep 'not found'; then # no peer: our side alone, said loudly
    echo "WARNING: ScaLAPACK's libraries are missing (PEERS_DEB=$PEERS_DEB): benchmarking without the peer"
    mpicc -std=c99 -O2 -march=x86-64-v3 bench/bench_mpi.c -o "$WORK/bench_mpi" -lm && BENCH=$WORK/bench_mpi PEER=""
fi

M="mpirun --allow-run-as-root --oversubscribe"
csv=$OUT/results.csv
: >"$csv"
# Every step has its own limit, and all together stay under DEADLINE
# seconds (the device tool stops a command at 600): a step that would pass
# it is cut short or skipped, and the table is still printed.
START=$(date +%s)
DEADLINE=${DEADLINE:-560}
left() { echo $((DEADLINE - ($(date +%s) - START) - 15)); }
run() { # run SECONDS mpirun-arguments...: its CSV lines appended
    limit=$1; shift
    [ "$(left)" -lt "$limit" ] && limit=$(left)
    if [ "$limit" -lt 10 ]; then echo "--- skipped (no time left): $*" | tee -a "$OUT/bench.log"; return; fi
    echo "--- (limit $limit s) $*" | tee -a "$OUT/bench.log"
    timeout -k 5 "$limit" $M "$@" 2>&1 | tee -a "$OUT/bench.log" | grep '^csv,' | sed 's/^csv,//' >>"$csv"
    [ "${PIPESTATUS[0]}" = 124 ] && echo "    (timed out after $limit s)" | tee -a "$OUT/bench.log"
}

case " $STEPS " in *" cuda "*)
    echo "=== CUDA: tests at P = 1, 2, 4 on the one GPU"
    timeout -k 5 160 env MPI_TEST_NOBUILD=1 MPI_TEST_BIN="$GPU_BIN/test_mpi_cuda" GEMM_MPI_TEST_RANKS="1 2 4" \
        GEMM_MPI_TEST_STAGE_BYTES=4096 GEMM_MPI_TEST_CASES=1 GEMM_MPI_TEST_TIMEOUT=60 sh tests/test_mpi.sh 2>&1 |
        tee "$OUT/test_cuda.log" | tail -n 14
    echo "=== CUDA: a plan's set-up, 2 ranks on the one GPU"
    run 45 --bind-to none -np 2 "$GPU_BIN/bench_mpi_cuda" --local cuda --sizes $SIZE --prec f32 --what resident,e2e --reps 3
    run 30 --bind-to none -np 2 "$GPU_BIN/bench_mpi_cuda" --local cuda --sizes $SIZE --prec f32 --what e2e --reps 3 \
        --slabs 4
    ;;
esac

case " $STEPS " in *" cpu "*)
    export OPENBLAS_CORETYPE=SkylakeX OPENBLAS_NUM_THREADS=1 GEMM_NUM_THREADS=1
    B="$BENCH --local cpu $PEER --nb 256"
    C=$BIND
    echo "=== CPU ranks against ScaLAPACK"
    # in order of what the bars need most, in case time runs short
    run 60 $C -np 1 $B --what single --sizes $SIZE --reps 1 --warmup 0
    run 50 $C -np 16 $B --what busy,resident --sizes $SIZE --reps 2 --warmup 1
    run 70 $C -np 9 $B --what busy,resident --sizes $SIZE --reps 2 --warmup 1
    run 75 $C -np 4 $B --what resident --sizes $SIZE --reps 1 --warmup 1
    echo "=== 4 ranks x 4 threads"
    run 40 $HYBRID -x GEMM_NUM_THREADS=4 -x OPENBLAS_NUM_THREADS=4 -np 4 \
        $B --what resident --sizes $SIZE --reps 1 --warmup 1
    # one cold call each (its first execute's set-up is the "first-setup" column)
    run 110 $C -np 16 $B --what resident --sizes $BIG --reps 1 --warmup 0
    echo "=== root-held, 16 ranks (all at once, then in 4 streamed k-slabs)"
    run 30 $C -np 16 $B --what e2e --sizes $SIZE --prec f32 --reps 1 --warmup 1
    run 30 $C -np 16 $B --what e2e --sizes $SIZE --prec f32 --reps 1 --warmup 1 --slabs 4
    ;;
esac

# The table: ours against ScaLAPACK, efficiency T1 / (cores x TP) with T1
# the single rank at n = 8192 (for n = 16384, 8 x that: the same rate).
{
    echo
    echo "what     local prec     n  P grid thr | ours s   ScaLAPACK s  peer/ours | eff  | skew   compute shift  | alone  busy   | create first-setup setup | check"
    awk -F, -v size="$SIZE" '
        $1 == "single" { t1[$2 "," $3] = $11 }
        $1 == "alone" { alone[$3 "," $4 "," $5] = $11 }
        $1 == "busy" { busy[$3 "," $4 "," $5] = $11 }
        { rows[++n] = $0 }
        END {
            for (i = 1; i <= n; i++) {
                split(rows[i], f, ",")
                if (f[1] == "alone" || f[1] == "busy") continue
                key = f[2] "," f[3]; k3 = f[3] "," f[4] "," f[5]
                scale = (f[4] / size) ^ 3
                cores = f[5] * f[23]
                eff = (key in t1 && f[1] != "single" && f[11] > 0) ? sprintf("%.2f", t1[key] * scale / (cores * f[11])) : " -  "
                ratio = (f[27] == "scalapack" && f[11] > 0) ? sprintf("%.2f", f[28] / f[11]) : " -"
                printf "%-8s %-5s %-4s %5s %2s %-4s %3s | %-8.3f %-12s %-9s | %-4s | %-6.3f %-7.3f %-6.3f | %-6s %-6s | %-6.3f %-11.4f %-5.3f | %s %s\n",
                    f[1], f[2], f[3], f[4], f[5], f[6], f[23], f[11], (f[27] == "scalapack" ? sprintf("%.3f", f[28]) : "-"),
                    ratio, eff, f[15], f[17], f[19], (k3 in alone ? sprintf("%.3f", alone[k3]) : "-"),
                    (k3 in busy ? sprintf("%.3f", busy[k3]) : "-"), f[25], f[26], f[24], f[22],
                    (f[32] > 0 ? sprintf("(root limit %.3f s, %d slabs)", f[32], f[33]) : "")
            }
        }' "$csv"
    echo "tests (CUDA build): $(tail -n 1 "$OUT/test_cuda.log" 2>/dev/null)"
} | tee "$OUT/summary.txt"

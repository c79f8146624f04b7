#!/bin/bash
# bench/gpu/opencl_batch.sh - the OpenCL batches on an NVIDIA GPU in one run
# that ends within TOTAL_S seconds (230): every step's timeout is the smaller
# of its own limit and what is left. The steps (STEPS picks them):
#   tests  build/test_cl_batch on the device: the battery member by member
#          through both batch forms, the refusals, 70,000-member batches;
#   bench  gemm_cl_?gemm_strided_batched beside CLBlast's GemmStridedBatched
#          (same process and queue, interleaved) at SHAPES (64^3 x 10000,
#          256^3 x 1000, 1024^3 x 16), fp32 and fp64, with a column for
#          gemm_cl with each kernel forced (pack + tiled, direct, the small
#          kernel with 32x32 and 64x64 tiles: where the crossover and the
#          small-kernel rule belong; the rule's choice is the gemm_cl column);
#   then a summary table.
# Binaries are built on a machine with gcc and the OpenCL headers (no GPU needed):
#     make gpu-bin-cl-batch     (= bash bench/gpu/opencl_batch.sh build -> .gpu/cl, CLBlast inside)
# then, on the GPU machine (device tool, carry [".gpu/cl"]):
#     bash bench/gpu/opencl_batch.sh                   (tests, bench: about 2-3 minutes, <= 230 s)
# Logs and CSVs go to $OUT (3 files). Where .gpu/cl lacks the binaries or they do
# not start, it builds them there (gcc, OpenCL headers), CLBlast from
# .peers/deb/libclblast1*.deb (dpkg -x into .gpu/cl/peer, never into /).
# Settings: GPU_BIN (.gpu/cl), GEMM_CL_DEVICE (NVIDIA), STEPS (tests,bench),
# TOTAL_S (230), SHAPES (64:10000,256:1000,1024:16).
set -o pipefail
cd "$(dirname "$0")/../.." || exit 2
BIN=${GPU_BIN:-.gpu/cl}
OUT=${OUT:-build/gpu_out}
STEPS=${STEPS:-tests,bench}
TOTAL_S=${TOTAL_S:-230}
SHAPES=${SHAPES:-64:10000,256:1000,1024:16}
export GEMM_CL_DEVICE=${GEMM_CL_DEVICE:-NVIDIA}
CFLAGS="-std=c99 -D_DEFAULT_SOURCE -O2 -Wall -Wextra"
PEER_LIB=peer/usr/lib/x86_64-linux-gnu

unpack_clblast() {
    [ -e "$BIN/$PEER_LIB/libclblast.so.1" ] && return 0
    deb=$(ls ${PEER_DEB:-.peers/deb/libclblast1_*.deb /work/main/.peers/deb/libclblast1_*.deb} 2>/dev/null | head -n 1)
    [ -n "$deb" ] || { echo "no libclblast1 .deb (.peers/deb/): the benchmark runs without CLBlast"; return 1; }
    mkdir -p "$BIN/peer" && dpkg -x "$deb" "$BIN/peer"
}

build() {
    mkdir -p "$BIN"
    cc $CFLAGS tests/test_cl_batch.c -o "$BIN/test_cl_batch" -lOpenCL -lm -lpthread || return 1
    if unpack_clblast; then
        cc $CFLAGS bench/bench_cl_batch.c -o "$BIN/bench_cl_batch" -DBENCH_HAVE_CLBLAST \
            "$BIN/$PEER_LIB/libclblast.so.1" -Wl,-rpath,"\$ORIGIN/$PEER_LIB" -lOpenCL -lm -lpthread
    else
        cc $CFLAGS bench/bench_cl_batch.c -o "$BIN/bench_cl_batch" -lOpenCL -lm -lpthread
    fi
}

if [ "${1:-}" = build ]; then
    build && ls -la "$BIN" && du -sh "$BIN" && echo "built; carry $BIN to the GPU machine"
    exit $?
fi

mkdir -p "$OUT"
T0=$(date +%s)
elapsed() { echo "[$(($(date +%s) - T0)) s]"; }
left() { echo $((TOTAL_S - 10 - ($(date +%s) - T0))); } # 10 s kept for the summary
limit() { l=$(left); [ "$l" -lt "$1" ] && echo $((l > 0 ? l : 0)) || echo "$1"; }
want() { case ",$STEPS," in *",$1,"*) return 0 ;; esac; return 1; }
run() { # run LIMIT CMD...: CMD under timeout LIMIT; says so when time ran out
    lim=$1; shift
    [ "$lim" -ge 5 ] || { echo "SKIPPED (no time left in TOTAL_S=$TOTAL_S): $*"; return 124; }
    timeout -k 5 "$lim" "$@"
    rc=$?
    [ $rc -eq 124 ] || [ $rc -eq 137 ] && echo "TIMED OUT after $lim s: $*"
    return $rc
}

{
    date -u
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv 2>&1
    git log -1 --format='commit %H %s' 2>/dev/null || echo "commit: (no git here)"
    echo "steps: $STEPS, total $TOTAL_S s"
} >"$OUT/batch_tests.log"
cat "$OUT/batch_tests.log"
ok=1
for b in test_cl_batch bench_cl_batch; do
    [ -x "$BIN/$b" ] && ! ldd "$BIN/$b" | grep -q 'not found' || ok=0
done
if [ $ok = 0 ]; then
    echo "building the binaries here $(elapsed)"
    build >>"$OUT/batch_tests.log" 2>&1 || { echo "build failed:"; tail -n 20 "$OUT/batch_tests.log"; exit 1; }
fi
ldd "$BIN/bench_cl_batch" | grep -E 'clblast|OpenCL' | tee -a "$OUT/batch_tests.log"

if want tests; then
    echo "=== test_cl_batch on $GEMM_CL_DEVICE $(elapsed)"
    run "$(limit 100)" "$BIN/test_cl_batch" >>"$OUT/batch_tests.log" 2>&1
    echo "test_cl_batch exit $? $(elapsed)" >>"$OUT/batch_tests.log"
    grep -E '^(FAIL|SKIPPED|TIMED OUT|device:|test_cl_batch exit)|passed, .* failed|^   \(' "$OUT/batch_tests.log" | tail -n 30
fi

if want bench; then
    echo "=== strided batches beside CLBlast $(elapsed)" | tee -a "$OUT/batch_bench.log"
    run "$(limit 150)" "$BIN/bench_cl_batch" --paths --shapes "$SHAPES" --csv "$OUT/batch_bench.csv" 2>&1 |
        tee -a "$OUT/batch_bench.log"
fi

{
    echo "=== summary ($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1), $(elapsed))"
    echo "gemm_cl strided batch / CLBlast GemmStridedBatched (GFLOP/s ours, CLBlast); bar >= 1.0;"
    echo "then GFLOP/s of gemm_cl with each kernel forced: the best of them is what the rule should pick"
    printf '%-5s %5s %7s | %-24s | %7s %7s %7s %7s\n' prec n count "ours/CLBlast" tiled direct small32 small64
    awk -F, '$1 == "opencl-batch" {
            key = $2 " " $3 " " $4; if (!(key in seen)) { seen[key] = 1; order[++k] = key }
            if ($6 == "CLBlast") cl[key] = sprintf("%5.2f (%7.0f, %7.0f)", $8, $5, $7)
            else g[key, $6] = sprintf("%7.0f", $7) }
        END { for (i = 1; i <= k; i++) { key = order[i]; split(key, f, " ")
            printf "%-5s %5s %7s | %-24s | %7s %7s %7s %7s\n", f[1], f[2], f[3], cl[key], g[key, "gemm_cl-tiled"],
                g[key, "gemm_cl-direct"], g[key, "gemm_cl-small32"], g[key, "gemm_cl-small64"] } }' \
        "$OUT/batch_bench.csv" 2>/dev/null
    echo "tests:"
    grep -E '^[0-9]+ passed, [0-9]+ failed|^test_cl_batch exit|^TIMED OUT|^SKIPPED' "$OUT/batch_tests.log" | sed 's/^/  /'
} | tee "$OUT/batch_summary.txt"

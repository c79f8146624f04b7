#!/bin/bash
# bench/gpu/opencl.sh - the OpenCL backend on an NVIDIA GPU, in one run of at
# most ~8 minutes (each step has its own timeout):
#   1. the device, the driver, the binaries;
#   2. the test programs of `make test-cl` (test_cl, test_cl_safety) on it;
#   3. the benchmark with the built-in parameter sets, beside CLBlast in the
#      same process and queue: fp32/fp64 at n = 1024..8192, the four
#      transposes at 4096;
#   4. the tuner (TUNE_S seconds per precision), then the same benchmark
#      with the sets it found;
#   5. first calls (new processes): no cache, GEMM_CL_CACHE_DIR warm, the
#      driver's own cache warm, both (CUDA_CACHE_DISABLE=1 turns NVIDIA's off);
#   6. a summary table, and the tuned lines to paste into tuning/gemm_cl.txt.
#
# Binaries are built on the machine with the compilers (no GPU needed):
#     bash bench/gpu/opencl.sh build        -> build/gpu_cl/ (CLBlast inside, rpath $ORIGIN)
# then run on the GPU machine (device tool, carry ["build/gpu_cl"]):
#     bash bench/gpu/opencl.sh              -> logs and CSVs in $OUT (7 files)
# Where build/gpu_cl is missing or does not run, it builds there (gcc and
# the OpenCL headers), CLBlast from .peers/deb/libclblast1*.deb (dpkg -x into
# build/gpu_cl/peer, never into /). Settings: GPU_BIN (build/gpu_cl),
# GEMM_CL_DEVICE (NVIDIA), TUNE_S (75), SIZES (1024,2048,4096,8192), TSIZE (4096).
set -o pipefail
cd "$(dirname "$0")/../.." || exit 2
BIN=${GPU_BIN:-build/gpu_cl}
OUT=${OUT:-build/gpu_out}
TUNE_S=${TUNE_S:-75}
SIZES=${SIZES:-1024,2048,4096,8192}
TSIZE=${TSIZE:-4096}
export GEMM_CL_DEVICE=${GEMM_CL_DEVICE:-NVIDIA}
CFLAGS="-std=c99 -D_DEFAULT_SOURCE -O2 -Wall -Wextra"
PEER_LIB=peer/usr/lib/x86_64-linux-gnu

unpack_clblast() {
    [ -e "$BIN/$PEER_LIB/libclblast.so.1" ] && return 0
    deb=$(ls ${PEER_DEB:-.peers/deb/libclblast1_*.deb /work/main/.peers/deb/libclblast1_*.deb} 2>/dev/null | head -n 1)
    [ -n "$deb" ] || { echo "no libclblast1 .deb (.peers/deb/): benchmarks without CLBlast"; return 1; }
    mkdir -p "$BIN/peer" && dpkg -x "$deb" "$BIN/peer"
}

build() {
    mkdir -p "$BIN"
    for t in test_cl test_cl_safety; do cc $CFLAGS tests/$t.c -o "$BIN/$t" -lOpenCL -lm -lpthread || return 1; done
    cc $CFLAGS bench/tune_cl.c -o "$BIN/tune_cl" -lOpenCL -lm -lpthread || return 1
    if unpack_clblast; then
        cc $CFLAGS bench/bench_cl.c -o "$BIN/bench_cl" -DBENCH_HAVE_CLBLAST "$BIN/$PEER_LIB/libclblast.so.1" \
            -Wl,-rpath,"\$ORIGIN/$PEER_LIB" -lOpenCL -lm -lpthread
    else
        cc $CFLAGS bench/bench_cl.c -o "$BIN/bench_cl" -lOpenCL -lm -lpthread
    fi
}

if [ "${1:-}" = build ]; then
    build && ls -la "$BIN" && echo "built; carry $BIN to the GPU machine"
    exit $?
fi

mkdir -p "$OUT"
T0=$(date +%s)
elapsed() { echo "[$(($(date +%s) - T0)) s]"; }
# 1. the machine, and binaries that start here
{
    date -u
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv 2>&1
    git log -1 --format='commit %H %s' 2>/dev/null || echo "commit: (no git here)"
    uname -r; nproc
} >"$OUT/tests.log"
cat "$OUT/tests.log"
ok=1
for b in test_cl test_cl_safety tune_cl bench_cl; do
    [ -x "$BIN/$b" ] && ! ldd "$BIN/$b" | grep -q 'not found' || ok=0
done
if [ $ok = 0 ]; then
    echo "building the binaries here $(elapsed)"
    unpack_clblast
    build >>"$OUT/tests.log" 2>&1 || { echo "build failed:"; tail -n 20 "$OUT/tests.log"; exit 1; }
fi
ldd "$BIN/bench_cl" | grep -E 'clblast|OpenCL' | tee -a "$OUT/tests.log"
timeout 60 "$BIN/tune_cl" --info 2>&1 | tee -a "$OUT/tests.log"

# 2. tests (the device's own built-in set is what they exercise)
echo "=== tests on $GEMM_CL_DEVICE $(elapsed)"
for t in test_cl test_cl_safety; do
    echo "--- $t" >>"$OUT/tests.log"
    timeout -k 5 ${TEST_LIMIT:-120} "$BIN/$t" >>"$OUT/tests.log" 2>&1
    echo "$t exit $?" >>"$OUT/tests.log"
done
grep -E '^(FAIL|SKIPPED|device:|test_cl.* exit)|passed, .* failed' "$OUT/tests.log" | grep -v '^ok ' | tail -n 20

# 3. the built-in sets against CLBlast
bench() { # bench LABEL [env...]: one benchmark run into bench_LABEL.csv, its log appended to bench.log
    label=$1; shift
    echo "=== benchmark, $label sets $(elapsed)" | tee -a "$OUT/bench.log"
    env "$@" timeout -k 5 ${BENCH_LIMIT:-110} "$BIN/bench_cl" --no-first-call --sizes "$SIZES" --trans-size "$TSIZE" \
        --label "$label" --csv "$OUT/bench_$label.csv" 2>&1 | tee -a "$OUT/bench.log" | grep -E 'kernel:|FALLBACK|WRONG'
}
bench built-in

# 4. the tuner, and the sets it found
echo "=== tuner, $TUNE_S s per precision $(elapsed)"
rm -f "$OUT/tuning.txt"
timeout -k 5 $((2 * TUNE_S + 40)) "$BIN/tune_cl" --prec f32,f64 --budget "$TUNE_S" --output "$OUT/tuning.txt" \
    --verbose 2>&1 | tr '\r' '\n' | grep -v '^ *\[' >"$OUT/tune.log"
grep -E 'tried|^  f(32|64) ' "$OUT/tune.log"
if [ -s "$OUT/tuning.txt" ]; then bench tuned GEMM_CL_TUNING_FILE="$OUT/tuning.txt"; fi

# 5. first calls
echo "=== first calls $(elapsed)" | tee -a "$OUT/bench.log"
timeout -k 5 ${FIRST_LIMIT:-100} "$BIN/bench_cl" --first-call-only --csv "$OUT/first_call.csv" 2>&1 | tee -a "$OUT/bench.log"

# 6. the summary
{
    echo "=== summary ($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1), $(elapsed))"
    echo "ours / CLBlast (TFLOP/s ours), built-in sets vs freshly tuned; bars: fp32 >= 1.3, fp64 >= 1.5 at n >= 2048"
    printf '%-5s %-3s %6s | %-20s | %-20s\n' prec op n built-in tuned
    cat "$OUT"/bench_*.csv 2>/dev/null | awk -F, '$1 == "opencl" && $6 == "CLBlast" {
            key = $2 " " $3 " " $4; if (!(key in seen)) { seen[key] = 1; order[++k] = key }
            cell[key, $9] = sprintf("%5.2f (%5.1f)", $8, $5 / 1000) }
        END { for (i = 1; i <= k; i++) { split(order[i], f, " ")
            printf "%-5s %-3s %6s | %-20s | %-20s\n", f[1], f[2], f[3], cell[order[i], "built-in"], cell[order[i], "tuned"] } }'
    echo "first call (s): context + first 256^3 call"
    awk -F, '$1 == "opencl-first-call" { printf "  %s %-24s context %6.3f  first call %6.3f\n", $2, $3, $6, $4 }' \
        "$OUT/first_call.csv" 2>/dev/null
    echo "tests:"
    grep -E '^[0-9]+ passed, [0-9]+ failed' "$OUT/tests.log" | sed 's/^/  /'
    echo "tuned lines (paste below the built-in ones in tuning/gemm_cl.txt; the last line for a device wins):"
    grep -E '^f(32|64) ' "$OUT/tuning.txt" 2>/dev/null | sed 's/^/  /'
} | tee "$OUT/summary.txt"

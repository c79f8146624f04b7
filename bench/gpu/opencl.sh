#!/bin/bash
# bench/gpu/opencl.sh - the OpenCL backend on an NVIDIA GPU in one run that
# ends within TOTAL_S seconds (550): every step's timeout is the smaller of
# its own limit and what is left, so a slow step shortens the later ones
# instead of overrunning the run. The steps, in order (STEPS picks them):
#   tests  the test programs of `make test-cl` (test_cl, test_cl_safety) on
#          the device, with its built-in parameter sets;
#   bench  the built-in sets beside CLBlast (same process and queue):
#          fp32/fp64 at SIZES (1024..8192), the four transposes at TSIZE;
#   first  first calls in new processes, fp32 (FIRST_PREC): no cache,
#          GEMM_CL_CACHE_DIR warm, the driver's cache warm, both;
#   tune   the tuner (at most TUNE_S s per precision, less when little time
#          is left), then the benchmark with the sets it found at 2048..8192;
#   then a summary table (and the tuned lines to paste into tuning/gemm_cl.txt).
# Binaries are built on a machine with gcc and the OpenCL headers (no GPU needed):
#     bash bench/gpu/opencl.sh build     -> .gpu/cl/ (CLBlast inside, found through rpath $ORIGIN)
# then, on the GPU machine (device tool, carry [".gpu/cl"]):
#     bash bench/gpu/opencl.sh                          (tests, bench, first, tune: <= 550 s)
#     STEPS=tune TUNE_S=200 bash bench/gpu/opencl.sh    (a longer tuner pass alone)
# Logs and CSVs go to $OUT (8 files at most). Where .gpu/cl is missing or its
# binaries do not start, it builds them there (gcc, OpenCL headers), CLBlast
# from .peers/deb/libclblast1*.deb (dpkg -x into .gpu/cl/peer, never into /).
# Settings: GPU_BIN (.gpu/cl), GEMM_CL_DEVICE (NVIDIA), STEPS (tests,bench,first,tune),
# TOTAL_S (550), TUNE_S (75), SIZES (1024,2048,4096,8192), TSIZE (4096), FIRST_PREC (f32).
set -o pipefail
cd "$(dirname "$0")/../.." || exit 2
BIN=${GPU_BIN:-.gpu/cl}
OUT=${OUT:-build/gpu_out}
STEPS=${STEPS:-tests,bench,first,tune}
TOTAL_S=${TOTAL_S:-550}
TUNE_S=${TUNE_S:-75}
SIZES=${SIZES:-1024,2048,4096,8192}
TUNED_SIZES=${TUNED_SIZES:-2048,4096,8192}
TSIZE=${TSIZE:-4096}
FIRST_PREC=${FIRST_PREC:-f32}
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
    build && ls -la "$BIN" && du -sh "$BIN" && echo "built; carry $BIN to the GPU machine"
    exit $?
fi

mkdir -p "$OUT"
T0=$(date +%s)
elapsed() { echo "[$(($(date +%s) - T0)) s]"; }
left() { echo $((TOTAL_S - 15 - ($(date +%s) - T0))); } # 15 s kept for the summary
# limit WANT: WANT seconds, or what is left when that is less (0: no time left)
limit() { l=$(left); [ "$l" -lt "$1" ] && echo $((l > 0 ? l : 0)) || echo "$1"; }
want() { case ",$STEPS," in *",$1,"*) return 0 ;; esac; return 1; }
# run LIMIT CMD...: CMD under timeout LIMIT; says so when time ran out before it or during it
run() {
    lim=$1; shift
    [ "$lim" -ge 5 ] || { echo "SKIPPED (no time left in TOTAL_S=$TOTAL_S): $*"; return 124; }
    timeout -k 5 "$lim" "$@"
    rc=$?
    [ $rc -eq 124 ] || [ $rc -eq 137 ] && echo "TIMED OUT after $lim s: $*"
    return $rc
}

# the machine, and binaries that start here
{
    date -u
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv 2>&1
    git log -1 --format='commit %H %s' 2>/dev/null || echo "commit: (no git here)"
    uname -r; nproc
    echo "steps: $STEPS, total $TOTAL_S s"
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
run 30 "$BIN/tune_cl" --info 2>&1 | tee -a "$OUT/tests.log"

if want tests; then # the device's own built-in sets are what they exercise
    echo "=== tests on $GEMM_CL_DEVICE $(elapsed)"
    for t in test_cl test_cl_safety; do
        echo "--- $t $(elapsed)" >>"$OUT/tests.log"
        [ $t = test_cl ] && lim=$(limit 200) || lim=$(limit 100)
        run "$lim" "$BIN/$t" >>"$OUT/tests.log" 2>&1
        echo "$t exit $? $(elapsed)" >>"$OUT/tests.log"
    done
    grep -E '^(FAIL|SKIPPED|TIMED OUT|device:|test_cl.* exit)|passed, .* failed' "$OUT/tests.log" | tail -n 20
fi

bench() { # bench LABEL LIMIT SIZES TSIZE [env...]: one benchmark into bench_LABEL.csv, its log appended to bench.log
    label=$1 lim=$2 sizes=$3 tsize=$4; shift 4
    echo "=== benchmark, $label sets $(elapsed)" | tee -a "$OUT/bench.log"
    run "$lim" env "$@" "$BIN/bench_cl" --no-first-call --sizes "$sizes" --trans-size "$tsize" \
        --label "$label" --csv "$OUT/bench_$label.csv" 2>&1 | tee -a "$OUT/bench.log" | grep -E 'kernel:|FALLBACK|WRONG|TIMED|SKIPPED'
}
want bench && bench built-in "$(limit 130)" "$SIZES" "$TSIZE"

if want first; then
    echo "=== first calls ($FIRST_PREC) $(elapsed)" | tee -a "$OUT/bench.log"
    run "$(limit 80)" "$BIN/bench_cl" --first-call-only --prec "$FIRST_PREC" --csv "$OUT/first_call.csv" 2>&1 |
        tee -a "$OUT/bench.log"
fi

if want tune; then
    # the tuner may overrun its budget by a candidate or the refinement:
    # what is left keeps 60 s for that and 70 s for the benchmark of what it found
    nprec=2; budget=$(( ($(left) - 60 - 70) / nprec ))
    [ "$budget" -gt "$TUNE_S" ] && budget=$TUNE_S
    if [ "$budget" -ge 20 ]; then
        echo "=== tuner, $budget s per precision $(elapsed)"
        rm -f "$OUT/tuning.txt"
        run "$(limit $((nprec * budget + 60)))" "$BIN/tune_cl" --prec f32,f64 --budget "$budget" \
            --output "$OUT/tuning.txt" --verbose 2>&1 | tr '\r' '\n' | grep -v '^ *\[' >"$OUT/tune.log"
        grep -E 'tried|^  f(32|64) |TIMED' "$OUT/tune.log"
        [ -s "$OUT/tuning.txt" ] && bench tuned "$(limit 70)" "$TUNED_SIZES" 0 GEMM_CL_TUNING_FILE="$OUT/tuning.txt"
    else
        echo "SKIPPED tuner: $(left) s left (STEPS=tune TUNE_S=200 runs it alone)"
    fi
fi

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
    grep -E '^[0-9]+ passed, [0-9]+ failed|^test_cl.* exit|^TIMED OUT|^SKIPPED' "$OUT/tests.log" | sed 's/^/  /'
    echo "tuned lines (paste below the built-in ones in tuning/gemm_cl.txt; the last line for a device wins):"
    grep -E '^f(32|64) ' "$OUT/tuning.txt" 2>/dev/null | sed 's/^/  /'
} | tee "$OUT/summary.txt"

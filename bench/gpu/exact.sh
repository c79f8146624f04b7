#!/bin/bash
# bench/gpu/exact.sh - issue 13 (exact fp32 / fp64 beside cuBLAS) on one GPU
# machine (nvidia-h100-x1 or nvidia-h200), in one call of the device tool,
# about 6 minutes at most (every step has its own timeout, capped by the time
# left; the whole script stops at 400 s):
#   1. test_cuda in full: every exact kernel and configuration (options.variant)
#      through the differential battery, the paths the automatic choice takes
#      (operand copies, K splits, tile shapes), split-K off bit-reproducible,
#      refusals, larger and misaligned shapes;
#   2. bench_cuda's exact table: issue 13's shapes (1024^3..4096^3 in all four
#      transposes, 8192^3, 16384^3 fp32, 256x4096x4096, 4096x4096x256,
#      8192x8192x1024, 16384x128x16384) beside cublasSgemm / cublasDgemm,
#      with what ran and the ratio against the issue's bar;
#   3. test_cuda with GEMM_CUDA_TEST_SMALL=1 under compute-sanitizer memcheck,
#   4. and under racecheck (make test-cuda's test_cuda part);
#   5. the research sweep (bench/research/exact: its 40 correctness cases, then
#      the timed shapes) of the shipped configurations
#      forced one by one (base.vN) beside the automatic choice (base) and the
#      research kernels they came from, per cell (selection-rule data);
#   and a summary table last.
#
# Run, from a checkout where nvcc is (no GPU needed), then on the GPU machine:
#   bash bench/gpu/exact.sh --build      # writes build/gpu_exact/{test_cuda,bench_cuda,sweep_exact} (sm_90a)
#   device tool: command "bash bench/gpu/exact.sh", carry ["build/gpu_exact"]
# Environment: GPU_BIN (default build/gpu_exact): the prebuilt binaries (built
# there with nvcc when missing); OUT (default build/gpu_exact_out) gets at most
# 8 files: env.txt, test_full.log, bench_exact.txt, bench_exact.csv,
# test_memcheck.log, test_racecheck.log, sweep.txt, sweep.csv; STEPS picks
# parts (default "test bench memcheck racecheck sweep").
cd "$(dirname "$0")/../.." || exit 2
GPU_BIN=${GPU_BIN:-build/gpu_exact}
OUT=${OUT:-build/gpu_exact_out}
STEPS=${STEPS:-test bench memcheck racecheck sweep}
NVCC=${NVCC:-nvcc}
FLAGS="-std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a" # Hopper only: the machines this runs on
T0=$(date +%s)
left() { echo $((395 - ($(date +%s) - T0))); }
cap() { # cap SECONDS: the smaller of SECONDS and the time left less 10 s (at least 1)
    local l=$(($(left) - 10)); [ "$1" -lt "$l" ] && l=$1; [ "$l" -lt 1 ] && l=1; echo "$l"
}
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }

build() {
    mkdir -p "$GPU_BIN"
    command -v "$NVCC" >/dev/null 2>&1 || { [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc; }
    ( make headers >/dev/null 2>&1 || true )
    "$NVCC" $FLAGS tests/test_cuda.cu -o "$GPU_BIN/test_cuda" &
    "$NVCC" $FLAGS bench/bench_cuda.cu -o "$GPU_BIN/bench_cuda" -lcublas &
    make -s NVCC="$NVCC" build/sweep_exact >/dev/null && cp build/sweep_exact "$GPU_BIN/sweep_exact" &
    wait
    [ -x "$GPU_BIN/test_cuda" ] && [ -x "$GPU_BIN/bench_cuda" ] && [ -x "$GPU_BIN/sweep_exact" ]
}
if [ "$1" = "--build" ]; then build && ls -la "$GPU_BIN"; exit; fi
# the run is bounded: the script re-runs itself under `timeout 400`
if [ -z "$GEMM_EXACT_INNER" ]; then GEMM_EXACT_INNER=1 exec timeout -k 5 400 bash "$0" "$@"; fi

mkdir -p "$OUT"
{
    date -u; nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,power.limit,temperature.gpu,driver_version \
        --format=csv 2>&1
    git log --oneline -1 2>/dev/null
} | tee "$OUT/env.txt"
if [ ! -x "$GPU_BIN/test_cuda" ] || [ ! -x "$GPU_BIN/bench_cuda" ] || [ ! -x "$GPU_BIN/sweep_exact" ]; then
    echo "== building (no prebuilt binaries in $GPU_BIN)"
    timeout "$(cap 240)" bash "$0" --build >>"$OUT/env.txt" 2>&1 || { echo "build failed"; tail -n 30 "$OUT/env.txt"; }
fi

# result of a step: "ok", "FAIL (...)", "TIMEOUT", "not run (...)"
declare -A RES
tally() { # tally STEP LOG RC: the log's "N passed, N failed" line and the exit status
    local line; line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$2" 2>/dev/null | tail -n 1)
    if [ "$3" = 124 ] || [ "$3" = 137 ]; then RES[$1]="TIMEOUT ($line)"
    elif [ "$3" = 0 ] && [ -n "$line" ]; then RES[$1]="ok: $line"
    else RES[$1]="FAIL (exit $3${line:+, $line})"; fi
}

if has test; then
    echo "== test_cuda (full), $(left) s left"
    timeout "$(cap 150)" "$GPU_BIN/test_cuda" >"$OUT/test_full.log" 2>&1
    tally test "$OUT/test_full.log" $?
    grep -E '^FAIL|^== .*FAILURES' "$OUT/test_full.log" | head -n 20
fi
if has bench; then
    echo "== bench_cuda: issue 13's table, $(left) s left"
    timeout "$(cap 150)" "$GPU_BIN/bench_cuda" --prec f32,f64 --host 0 --csv "$OUT/bench_exact.csv" \
        >"$OUT/bench_exact.txt" 2>&1
    rc=$?
    if [ $rc = 0 ]; then RES[bench]="ok"; elif [ $rc = 124 ]; then RES[bench]="TIMEOUT"; else RES[bench]="FAIL (exit $rc)"; fi
    grep -q WRONG "$OUT/bench_exact.txt" && RES[bench]="FAIL (a WRONG result)"
    sed '/^summary: ours/,$d' "$OUT/bench_exact.txt"
fi
for tool in memcheck racecheck; do
    has $tool || continue
    echo "== test_cuda (small) under compute-sanitizer $tool, $(left) s left"
    if ! command -v compute-sanitizer >/dev/null 2>&1; then RES[$tool]="FAIL (compute-sanitizer not found)"; continue; fi
    if [ "$(left)" -lt 40 ]; then RES[$tool]="not run (out of time)"; continue; fi
    GEMM_CUDA_TEST_SMALL=1 timeout "$(cap 150)" compute-sanitizer --tool $tool --error-exitcode 9 "$GPU_BIN/test_cuda" \
        >"$OUT/test_$tool.log" 2>&1
    tally $tool "$OUT/test_$tool.log" $?
    grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^FAIL|Error' "$OUT/test_$tool.log" | head -n 20
done
if has sweep; then
    echo "== sweep: the shipped configurations per cell, $(left) s left"
    if [ "$(left)" -lt 40 ]; then RES[sweep]="not run (out of time)"
    else
        : >"$OUT/sweep.txt"
        for run in "f32 base,base.v1,base.v2,base.v3,base.v4,s_w128x128_k8,s_w128x64" \
                   "f64 base,base.v2,base.v3,d_ws_128x128"; do
            set -- $run
            timeout "$(cap 90)" "$GPU_BIN/sweep_exact" --prec "$1" --cands "$2" --timeout 30 \
                --csv "$OUT/sweep_$1.csv" >>"$OUT/sweep.txt" 2>&1
            rc=$?
            [ $rc = 0 ] || RES[sweep]="FAIL (exit $rc, $1)"
        done
        cat "$OUT/sweep_f32.csv" "$OUT/sweep_f64.csv" 2>/dev/null >"$OUT/sweep.csv"; rm -f "$OUT"/sweep_f*.csv
        [ -z "${RES[sweep]}" ] && RES[sweep]="ok"
        grep -A 30 '== summary' "$OUT/sweep.txt"
    fi
fi

echo
echo "== summary ($(( $(date +%s) - T0 )) s, $(head -n 3 "$OUT/env.txt" | tail -n 1 | cut -d, -f1))"
for s in test bench memcheck racecheck sweep; do
    has $s && printf '%-10s %s\n' "$s" "${RES[$s]:-not run}"
done
sed -n '/^summary: ours/,$p' "$OUT/bench_exact.txt" 2>/dev/null

#!/bin/bash
# bench/gpu/tensor_cores.sh - issue 19 (the tensor-core modes on every shape,
# and the fp32-accurate mode) on one GPU machine (nvidia-h100-x1 or
# nvidia-h200), in one call of the device tool, about 9 minutes at most
# (every step has its own timeout; the whole script stops at 550 s):
#   1. test_cuda_tc in full (every tensor-core mode incl. fp32-accurate, every
#      kernel and WGMMA schedule, layouts, edges, refusals, the accurate
#      mode's error promise and special values);
#   2. the same with GEMM_CUDA_TEST_SMALL=1 under compute-sanitizer memcheck;
#   3. the fp32-accurate table: beside cublasSgemm and gemm's exact SIMT
#      kernel, speed and max error on [-1, 1] and 2^-20..2^20 inputs;
#   4. issue 19's table for TF32, FP16, BF16 beside cublasGemmEx (same
#      types, math and transposes);
#   5. a sweep of WGMMA schedules (tile height, raster, grid, split) on the
#      shapes that fell short (--quick: 3 interleaved pairs each);
#   6. HGMMA in the SASS of the kernels the accurate mode runs;
#   and a summary table last.
#
# Run, from a checkout where nvcc is (no GPU needed), then on the GPU machine:
#   bash bench/gpu/tensor_cores.sh --build      # writes build/gpu_tc/{test_cuda_tc,bench_cuda}
#   device tool: command "bash bench/gpu/tensor_cores.sh", carry ["build/gpu_tc"]
# (another folder: GPU_BIN=build/gpu_tc2 on both lines, and carry it; build/ is git-ignored)
# Environment: GPU_BIN (default build/gpu_tc): the prebuilt binaries (built
# there with nvcc when missing); OUT (default build/gpu_tc_out) gets at most
# 8 files: env.txt, test_full.log, test_memcheck.log, bench_acc.txt,
# bench_table.txt, table.csv, sweep.txt (+ sweep.csv), and prints the
# summary. STEPS picks parts (default "test memcheck acc table sweep sass").
cd "$(dirname "$0")/../.." || exit 2
GPU_BIN=${GPU_BIN:-build/gpu_tc}
OUT=${OUT:-build/gpu_tc_out}
STEPS=${STEPS:-test memcheck acc table sweep sass}
NVCC=${NVCC:-nvcc}
FLAGS="-std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a" # Hopper only: the machines this runs on
T0=$(date +%s)
left() { echo $((545 - ($(date +%s) - T0))); }
cap() { # cap SECONDS: the smaller of SECONDS and the time left less 10 s (at least 1)
    local l=$(($(left) - 10)); [ "$1" -lt "$l" ] && l=$1; [ "$l" -lt 1 ] && l=1; echo "$l"
}
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }

build() {
    mkdir -p "$GPU_BIN"
    command -v "$NVCC" >/dev/null 2>&1 || { [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc; }
    ( make headers >/dev/null 2>&1 || true )
    "$NVCC" $FLAGS tests/test_cuda_tc.cu -o "$GPU_BIN/test_cuda_tc" &
    "$NVCC" $FLAGS bench/bench_cuda.cu -o "$GPU_BIN/bench_cuda" -lcublas &
    wait
    [ -x "$GPU_BIN/test_cuda_tc" ] && [ -x "$GPU_BIN/bench_cuda" ]
}
if [ "$1" = "--build" ]; then build && ls -la "$GPU_BIN"; exit; fi
# the run is bounded: the script re-runs itself under `timeout 550`
if [ -z "$GEMM_TC_INNER" ]; then GEMM_TC_INNER=1 exec timeout -k 5 550 bash "$0" "$@"; fi

mkdir -p "$OUT"
{
    date -u; nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,power.limit,driver_version --format=csv 2>&1
    git log --oneline -1 2>/dev/null
} | tee "$OUT/env.txt"
if [ ! -x "$GPU_BIN/test_cuda_tc" ] || [ ! -x "$GPU_BIN/bench_cuda" ]; then
    echo "== building (no prebuilt binaries in $GPU_BIN)"
    timeout "$(cap 200)" bash "$0" --build >>"$OUT/env.txt" 2>&1 || { echo "build failed"; tail -n 30 "$OUT/env.txt"; }
fi
T=$GPU_BIN/test_cuda_tc
B=$GPU_BIN/bench_cuda

if has test; then
    echo "== 1. test_cuda_tc (full), $(left) s left"
    timeout "$(cap 170)" "$T" >"$OUT/test_full.log" 2>&1
    echo "rc=$?"
    grep -E '^FAIL|^== |^accuracy' "$OUT/test_full.log" | grep -v 'all passed' | head -n 40
    grep -E '^accuracy' "$OUT/test_full.log" | head -n 12
    tail -n 1 "$OUT/test_full.log"
fi
if has memcheck; then
    echo "== 2. test_cuda_tc small under compute-sanitizer memcheck, $(left) s left"
    GEMM_CUDA_TEST_SMALL=1 timeout "$(cap 120)" compute-sanitizer --tool memcheck --error-exitcode 9 "$T" \
        >"$OUT/test_memcheck.log" 2>&1
    echo "rc=$?"
    grep -E 'ERROR SUMMARY|^FAIL|Invalid|out of bounds' "$OUT/test_memcheck.log" | head -n 20
    tail -n 1 "$OUT/test_memcheck.log"
fi
if has acc; then
    echo "== 3. fp32-accurate beside cublasSgemm and the SIMT kernel, $(left) s left"
    timeout "$(cap 60)" "$B" --prec acc --acc-sizes 2048,4096,8192,16384 --host 0 2>&1 | tee "$OUT/bench_acc.txt"
fi
if has table; then
    echo "== 4. issue 19's table (TF32, FP16, BF16 vs cublasGemmEx), $(left) s left"
    timeout "$(cap 120)" "$B" --prec tf32,f16,bf16 --host 0 --csv "$OUT/table.csv" 2>&1 | tee "$OUT/bench_table.txt"
fi
if has sweep; then
    echo "== 5. WGMMA schedules (variant:group:grid:split[:epilogue:reduce]), $(left) s left"
    # 1/2: 256/128-row tiles; group: raster (-8 along N); grid -1: a block per unit (not persistent);
    # epilogue 1: staged through shared memory (2, the default: from the registers); reduce 1: split K
    # summed by a separate kernel (2, the default: by the part that finishes last)
    CONFIGS=${CONFIGS:-0:0:0:0,1:0:0:0,2:0:0:0,0:0:0:0:1:0,2:0:-1:0,1:16:0:0,1:-8:0:0,1:0:0:1,1:0:0:2,1:0:0:2:0:1}
    SHAPES=${SHAPES:-8192:8192:8192,8192:8192:1024,4096:4096:256,256:4096:4096,4096:256:4096,16384:128:16384,4096:4096:4096}
    timeout "$(cap 80)" "$B" --prec tf32,f16 --shapes "$SHAPES" --configs "$CONFIGS" --quick --host 0 \
        --csv "$OUT/sweep.csv" >"$OUT/sweep.txt" 2>&1
    echo "rc=$?"
fi
if has sass && command -v cuobjdump >/dev/null 2>&1; then
    echo "== 6. SASS: HGMMA in the WGMMA kernels the TF32 and fp32-accurate modes run, $(left) s left"
    # gemm__cuda_wgmma_kernel<float, float, false, false, BM>: TF32 and the accurate mode's product
    timeout "$(cap 40)" cuobjdump -sass "$B" 2>/dev/null | awk '/Function : /{ fn = $3 }
        /HGMMA/ && fn ~ /wgmma_kernelIffLb0ELb0E/ { match($0, /HGMMA\.[0-9x]+\.[A-Z0-9.]+/); c[substr(fn, 1, 48) " " substr($0, RSTART, RLENGTH)]++ }
        END { for (k in c) print "  " c[k], k }' | tee -a "$OUT/env.txt"
fi

echo
echo "================ summary ($(( $(date +%s) - T0 )) s) ================"
head -n 2 "$OUT/env.txt" | tail -n 1
for f in test_full test_memcheck; do
    [ -f "$OUT/$f.log" ] && printf '%-14s %s\n' "$f:" "$(tail -n 1 "$OUT/$f.log")"
done
[ -f "$OUT/test_memcheck.log" ] && grep -m1 'ERROR SUMMARY' "$OUT/test_memcheck.log"
if [ -f "$OUT/bench_acc.txt" ]; then
    echo "fp32-accurate: n, TFLOP/s ours / cublasSgemm / simt, ratio to cublasSgemm (bar 2.0 at n >= 4096), err ours vs cuBLAS ([-1,1]; spread)"
    awk -F'|' '$1 ~ /^ *[0-9]+ *$/ {
        split($2, a, " "); split($3, b, " "); split($4, c, " "); split($5, r, " "); split($6, e, " "); split($7, f, " ")
        printf "  %6d  %7s %7s %7s  x%-5s %s  err %s vs %s ; %s vs %s\n", $1, a[1], b[1], c[1], r[1],
               ($1 >= 4096 && r[1] < 2.0) ? "BELOW" : "ok   ", e[1], e[2], f[1], f[2] }' "$OUT/bench_acc.txt"
fi
if [ -f "$OUT/table.csv" ]; then
    echo "ratio to cublasGemmEx (bar 0.90 at n >= 2048 and the non-square shapes; * = below)"
    awk -F, 'NR > 1 && $1 == "cuda" {
        split($3, kk, " "); op = (kk[2] == "" ? "NN" : kk[2]); key = $4 "x" $5 "x" $6 " " op
        if (!(key in seen)) { seen[key] = 1; order[++n] = key }
        big = ($4 >= 2048 && $5 >= 2048 && $6 >= 2048) || !($4 == $5 && $5 == $6)
        if ($4 == 1000) big = 0
        r[key, $2] = sprintf("%.2f%s", $14, (big && $14 < 0.90) ? "*" : " ")
    }
    END {
        printf "  %-22s %7s %7s %7s\n", "shape (row-major)", "tf32", "f16", "bf16"
        for (i = 1; i <= n; i++) printf "  %-22s %7s %7s %7s\n", order[i], r[order[i], "tf32"], r[order[i], "f16"], r[order[i], "bf16"]
    }' "$OUT/table.csv"
fi
if [ -f "$OUT/sweep.csv" ]; then
    echo "sweep: best schedule per shape (ratio), and auto's"
    awk -F, 'NR > 1 && $1 == "cuda" {
        split($3, kk, " "); cfg = kk[1]; sub(/^wgmma\./, "", cfg); key = $2 " " $4 "x" $5 "x" $6
        if (!(key in best) || $14 > best[key]) { best[key] = $14; which[key] = cfg }
        if (cfg == "v0") auto[key] = $14
        if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    }
    END { for (i = 1; i <= n; i++) printf "  %-24s best %-14s %.2f   auto %.2f\n", order[i], which[order[i]], best[order[i]], auto[order[i]] }' \
        "$OUT/sweep.csv"
fi

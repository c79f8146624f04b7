#!/bin/bash
# tests/cuda_sweep.sh - one bounded tuning run of the CUDA kernels on a GPU
# machine (../shared/GPU.md): at most 150 s in all, everything under $OUT.
#
#   cd .wt/cuda && bash tests/cuda_sweep.sh        (OUT defaults to build/sweep)
#
# 1. builds bench/research/cuda_variants.cu (the research configurations of
#    the SIMT and DMMA kernels, bench/research/README.md) for sm_90 only,
#    twice in parallel: with -DRESEARCH_NN_ONLY for the sweep (only the
#    row-major NN layout compiled) and whole for the battery; the sweep
#    starts as soon as the first is built;
# 2. the sweep: every fp32 SIMT variant (1..8) and every kept fp64 DMMA
#    variant (1, 3, 4, 7) beside cuBLAS at n = 4096, 8192 and
#    (4096,4096,256), (256,4096,4096), (4096,256,4096), (1000,1000,1000),
#    row-major NN, each result checked on 64 sampled elements
#    ($OUT/sweep_f32.txt, sweep_f64.txt, sweep_*.csv), then the geometric
#    mean of ours/cuBLAS per variant ($OUT/summary.txt);
# 3. cuda_variants --test: the battery (random up to 300, edges, larger
#    aligned shapes, 8 layout cases, split-K auto/off) for every variant
#    ($OUT/test_quick.txt);
# 4. cuobjdump -sass statistics of the row-major-NN kernels: instructions by
#    kind, FFMA/DMMA share, local-memory traffic ($OUT/sass.txt).
# Variant 1 is the configuration gemm_cuda.cuh ships, for both precisions.
# the whole run is bounded: the script re-runs itself under `timeout 150`
if [ -z "$GEMM_SWEEP_INNER" ]; then GEMM_SWEEP_INNER=1 exec timeout -k 5 150 bash "$0" "$@"; fi
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-build/sweep}
mkdir -p "$OUT" build/sweep_bin
B=build/sweep_bin
T0=$(date +%s)
left() { echo $((150 - ($(date +%s) - T0))); }
NV=${NVCC:-nvcc}
FLAGS="-std=c++17 -O3 -gencode arch=compute_90,code=sm_90 -Xptxas -v"
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader 2>&1 | tee "$OUT/device.txt"
git log --oneline -1 2>/dev/null | tee -a "$OUT/device.txt"

# The benchmark only needs the row-major NN instances (RESEARCH_NN_ONLY: a quarter of
# the kernels); the test, built meanwhile, has every layout of every variant.
echo "== build (sm_90, bench/research/cuda_variants.cu)"
rm -f $B/bench.rc $B/test.rc
( timeout 100 $NV $FLAGS -DRESEARCH_NN_ONLY -split-compile=4 bench/research/cuda_variants.cu -o $B/variants_nn \
      -lcublas >"$OUT/build_bench.log" 2>&1; echo $? >$B/bench.rc ) &
( timeout 120 $NV $FLAGS -split-compile=8 bench/research/cuda_variants.cu -o $B/variants -lcublas \
      >"$OUT/build_test.log" 2>&1; echo $? >$B/test.rc ) &
while [ ! -f $B/bench.rc ]; do sleep 1; done
echo "bench build rc=$(cat $B/bench.rc), $(( $(date +%s) - T0 )) s (test still building)"
# registers and spills of every fast kernel (ptxas -v), one line each
awk '/Compiling entry function/ { fn = $7; gsub(/\047/, "", fn); keep = fn ~ /(gemm__cuda|research)_(simt|simt2|dmma|dmma_db)_kernel/ }
     keep && /spill stores/ { sp = $5 "/" $9 }
     keep && /Used [0-9]+ registers/ { for (i = 1; i <= NF; i++) if ($i == "Used") r = $(i + 1); print fn, "regs=" r, "spill_st/ld=" sp; keep = 0 }' \
    "$OUT/build_bench.log" | sed -E 's/_Z[0-9]+(gemm__cuda|research)_([a-z0-9_]+)_kernelI(.*)EEvii[^ ]* /\2<\3> /' | sort -u \
    >"$OUT/ptxas.txt"
echo "== ptxas (sm_90), the benchmark's kernels: template arguments, registers, spill bytes"
cat "$OUT/ptxas.txt"
[ "$(cat $B/bench.rc)" = 0 ] || { echo "bench build failed:"; tail -n 30 "$OUT/build_bench.log"; exit 1; }

SHAPES=4096:4096:4096,8192:8192:8192,4096:4096:256,256:4096:4096,4096:256:4096,1000:1000:1000
echo "== sweep fp32 (SIMT variants 1-8) vs cuBLAS, $(left) s left"
timeout $(( $(left) > 80 ? 40 : $(left) / 2 + 1 )) $B/variants_nn --prec f32 --variants 1,2,3,4,5,6,7,8 \
    --shapes $SHAPES --quick --csv "$OUT/sweep_f32.csv" 2>&1 | tee "$OUT/sweep_f32.txt"
echo "== sweep fp64 (DMMA variants 1, 3, 4, 7) vs cuBLAS, $(left) s left"
timeout $(( $(left) > 60 ? 40 : $(left) / 2 + 1 )) $B/variants_nn --prec f64 --variants 1,3,4,7 \
    --shapes $SHAPES --quick --csv "$OUT/sweep_f64.csv" 2>&1 | tee "$OUT/sweep_f64.txt"

# geometric mean of ours/cuBLAS per configuration, and per-shape ratios
echo "== summary: precision kernel.variant, geomean(ours/cuBLAS) over the shapes, min at n >= 4096,"
echo "   ratios per shape: 4096 8192 4096x4096x256 256x4096x4096 4096x256x4096 1000x1000x1000"
cat "$OUT"/sweep_f*.csv 2>/dev/null | awk -F, '$1 == "cuda" {
        key = $2 " " $3; n[key]++; lg[key] += log($14); r[key] = r[key] sprintf(" %5.2f", $14)
        if ($4 >= 4096 && $5 >= 4096 && $6 >= 4096) { nb[key]++; mb[key] = (mb[key] == "" || $14 < mb[key]) ? $14 : mb[key] }
    }
    END {
        for (k in n) printf "%-22s %6.3f  %6.3f  %s\n", k, exp(lg[k] / n[k]), mb[k], r[k]
    }' | sort | tee "$OUT/summary.txt"
awk '{ if ($3 > best[$1]) { best[$1] = $3; which[$1] = $2 } } END { for (p in best) printf "best %s: %s (geomean %.3f)\n", p, which[p], best[p] }' \
    "$OUT/summary.txt" | sort | tee -a "$OUT/summary.txt"

wait # the test build
echo "test build rc=$(cat $B/test.rc), $(( $(date +%s) - T0 )) s"
if [ "$(cat $B/test.rc)" = 0 ] && [ "$(left)" -gt 12 ]; then
    echo "== cuda_variants --test (every variant), $(left) s left"
    timeout $(( $(left) > 45 ? 35 : $(left) - 8 )) $B/variants --test 300 >"$OUT/test_quick.txt" 2>&1
    echo "test rc=$?"
    grep -E '^== |^FAIL|^-- ' "$OUT/test_quick.txt" | head -n 60
    tail -n 1 "$OUT/test_quick.txt"
else
    echo "cuda_variants --test not run: build rc=$(cat $B/test.rc), $(left) s left"; tail -n 20 "$OUT/build_test.log"
fi

if command -v cuobjdump >/dev/null 2>&1 && [ "$(left)" -gt 4 ]; then
    echo "== SASS of the row-major NN kernels (A' not k-major, B' k-major, 16-byte copies), $(left) s left"
    timeout $(( $(left) - 2 )) cuobjdump -sass $B/variants_nn 2>/dev/null | awk '
        /Function : / { fn = $3; keep = (fn ~ /(gemm__cuda|research)_(simt|simt2|dmma|dmma_db)_kernel/ && fn ~ /Lb0ELb1E(Li4E|Li2E|E)/) }
        keep && /^ +\/\*[0-9a-f]+\*\/ / {
            op = $2; if (op ~ /^@/) op = $3; sub(/\..*/, "", op); sub(/;/, "", op)
            total[fn]++; c[fn, op]++
        }
        END {
            for (f in total) {
                printf "%s total=%d FFMA=%d DMMA=%d LDS=%d LDGSTS=%d LDG=%d STS=%d BAR=%d LDL=%d STL=%d IMAD=%d IADD3=%d\n", f, total[f],
                    c[f, "FFMA"], c[f, "DMMA"], c[f, "LDS"], c[f, "LDGSTS"], c[f, "LDG"], c[f, "STS"], c[f, "BAR"],
                    c[f, "LDL"], c[f, "STL"], c[f, "IMAD"], c[f, "IADD3"]
            }
        }' | sort | tee "$OUT/sass.txt"
fi
echo "done in $(( $(date +%s) - T0 )) s; results in $OUT"

#!/bin/sh
# tests/test_plot.sh - `make test-plot`: the figures README shows.
#   - bench/results_cuda_gpus.csv is what bench/RESULTS.md's current CUDA
#     tables hold (tools/cuda_results_csv.py --check: no number of its own);
#   - make plot PLOT_DIR=build/plot draws cpu.png and cuda.png (PNG files
#     gnuplot wrote), and the same as SVG names on the image the machine,
#     date and commit: the CPU figure those of bench/results_cpu.csv's
#     "# ..." line, the GPU figure both GPUs with each table's date and
#     commits as RESULTS.md states them;
#   - README shows bench/cpu.png and bench/cuda.png, both tracked;
#   - make bench writes build/results_cpu.csv, and bench/results_cpu.csv only
#     with BENCH_UPDATE=1 (make -n).
# Last line: N passed, N failed[, N skipped].
cd "$(dirname "$0")/.." || exit 2
out=build/plot
rm -rf "$out" && mkdir -p "$out"
. tests/checks.sh

check "bench/results_cuda_gpus.csv holds bench/RESULTS.md's CUDA tables, nothing else" python3 tools/cuda_results_csv.py --check
if have gnuplot; then
    check "make plot PLOT_DIR=$out" ${MAKE:-make} --no-print-directory plot PLOT_DIR=$out
    for f in cpu cuda gpus; do
        check "... $out/$f.png is a PNG image" sh -c "head -c 8 $out/$f.png | od -An -c | grep -q 'P   N   G' && test \$(wc -c <$out/$f.png) -gt 20000"
    done
    check "bench/plot.sh $out svg" sh bench/plot.sh $out svg
    meta=$(sed -n 's/^# *//p' bench/results_cpu.csv | head -n 1)
    check "the CPU figure names its machine, date and commit ($meta)" test -n "$meta" -a -n "$(grep -F "$meta" $out/cpu.svg)"
    for text in "NVIDIA H100 80GB HBM3 and H200" \
        "H100: fp32/fp64 2026-11-24 commit 4f49a07, TF32/FP16/BF16 2026-11-24 commit 497c9f5" \
        "H200: fp32/fp64 2026-11-28 commit 5eba43c, TF32/FP16/BF16 2026-11-29 commit 389ef38"; do
        check "the GPU figure says \"$text\"" grep -qF "$text" $out/cuda.svg
    done
    check "... and RESULTS.md states those commits and the date" sh -c \
        "grep -q '4f49a07 (H100) and 5eba43c' bench/RESULTS.md && grep -q 'Commits\*\*: 497c9f5 (H100), 389ef38 (H200' bench/RESULTS.md &&
         grep -q 'Date\*\*: H100 2026-11-24 05:19 UTC, H200 2026-11-29' bench/RESULTS.md && grep -q 'Date\*\*: H100 2026-11-24 04:25 UTC, H200 2026-11-28' bench/RESULTS.md"
    meta=$(sed -n 's/^# *//p' bench/results_gpu_scaling.csv | head -n 1)
    check "the scaling figure names its machine, date and commit ($meta)" test -n "$meta" -a -n "$(grep -F "$meta" $out/gpus.svg)"
else skip "gnuplot not installed (sh tests/deps.sh plot)"; fi
check "bench/results_gpu_scaling.csv's speedups are RESULTS.md's (4 GPUs, n = 32768)" sh -c \
    "grep -q '^host call,f32,32768,4,.*,3.063\$' bench/results_gpu_scaling.csv && grep -q '| \*\*3.06x\*\* |' bench/RESULTS.md &&
     grep -q '^MPI root-held,f64,32768,4,.*,1.656\$' bench/results_gpu_scaling.csv && grep -q '| \*\*1.66x\*\* |' bench/RESULTS.md"
for f in cpu cuda gpus; do
    check "README shows bench/$f.png, which git tracks" sh -c \
        "grep -q '](bench/$f.png)' README.md && git ls-files --error-unmatch bench/$f.png"
done
check "make bench writes build/results_cpu.csv" sh -c \
    "${MAKE:-make} -n --no-print-directory bench | grep -q -- '--csv build/results_cpu.csv'"
check "make bench BENCH_UPDATE=1 writes bench/results_cpu.csv" sh -c \
    "${MAKE:-make} -n --no-print-directory bench BENCH_UPDATE=1 | grep -q -- '--csv bench/results_cpu.csv'"
summary

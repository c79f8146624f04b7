#!/bin/sh
# bench/research/exact/run_gpu.sh - the research sweep on a GPU machine, from
# the repository root, everything under $OUT (default build/sweep_exact_out):
#   sweep_exact.log   the whole output (device, per-candidate lines, tables)
#   sweep_exact.csv   one row per (precision, candidate, shape) and per check set
#   sweep_exact_rows.tsv  the raw rows (build/sweep_exact --summarize FILE reprints the tables)
#   gpu.txt           nvidia-smi's view of the GPU before the run
# Build it where nvcc is (make bench-cuda-research-exact) and carry
# build/sweep_exact; the GPU machine needs libcublas.so.13 only. Arguments
# go to sweep_exact (e.g. --prec f64, --cands d_ws_128x128,base, --big).
OUT=${OUT:-build/sweep_exact_out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv \
    >"$OUT/gpu.txt" 2>&1
timeout -k 5 175 ./build/sweep_exact --csv "$OUT/sweep_exact.csv" --rows "$OUT/sweep_exact_rows.tsv" "$@" \
    >"$OUT/sweep_exact.log" 2>&1
echo "sweep_exact exit status $?" >>"$OUT/sweep_exact.log"
cat "$OUT/gpu.txt"
tail -n 75 "$OUT/sweep_exact.log"

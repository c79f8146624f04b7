#!/bin/sh
# bench/plot.sh [OUTDIR] [png|svg] - `make plot`: the figures README shows,
# each naming its machine, date and commit.
#   cpu.png   from $CPU_CSV (default bench/results_cpu.csv; `make bench` writes
#             build/results_cpu.csv, BENCH_UPDATE=1 the tracked one), whose
#             "# machine, date, commit" line goes on the image
#   cuda.png  from bench/results_cuda_gpus.csv (RESULTS.md's CUDA tables,
#             tools/cuda_results_csv.py), with each GPU's dates and commits
#   gpus.png  from bench/results_gpu_scaling.csv (RESULTS.md's 4-GPU tables:
#             speedup against GPU count), whose "# machine, date, commit"
#             line goes on the image
# OUTDIR defaults to bench/. Needs gnuplot (tests/deps.sh bench or plot).
cd "$(dirname "$0")/.." || exit 2
outdir=${1:-bench} fmt=${2:-png}
cpu_csv=${CPU_CSV:-bench/results_cpu.csv}
cuda_csv=${CUDA_CSV:-bench/results_cuda_gpus.csv}
gpus_csv=bench/results_gpu_scaling.csv
mkdir -p "$outdir"
command -v gnuplot >/dev/null 2>&1 || { echo "plot.sh: gnuplot is not installed (sh tests/deps.sh plot)"; exit 1; }
clean() { tr -d "'\"\\\\"; } # nothing that could end a gnuplot string
status=0
if [ -e "$cpu_csv" ]; then
    meta=$(sed -n 's/^# *//p' "$cpu_csv" | head -n 1 | clean)
    [ -n "$meta" ] || meta="(no machine, date or commit recorded in $cpu_csv)"
    gnuplot -e "csv='$cpu_csv'; out='$outdir/cpu.$fmt'; fmt='$fmt'; meta='$meta'" bench/plot.gp &&
        echo "wrote $outdir/cpu.$fmt ($meta)" || status=1
else echo "plot.sh: $cpu_csv missing (make bench)"; status=1; fi
if [ -e "$cuda_csv" ]; then
    # per GPU: the exact kernels' (f32/f64) date and commit, then the tensor cores' (ratios)
    # one line per GPU: "H100 (NVIDIA H100 80GB HBM3): fp32/fp64 2026-11-24 commit ..., TF32/FP16/BF16 ..."
    meta=$(awk -F, 'NR > 1 { kind = ($2 == "f32" || $2 == "f64") ? "fp32/fp64" : "TF32/FP16/BF16";
                             key = $1 SUBSEP kind; if (!(key in seen)) { seen[key] = $10 " commit " $11; k[$1] = k[$1] (k[$1] == "" ? "" : ", ") kind " " seen[key] }
                             if (!($1 in g)) { g[$1] = 1; gpus[n++] = $1 } }
                    END { for (i = 0; i < n; i++) printf "%s%s: %s", i ? "\\n" : "", gpus[i], k[gpus[i]] }' "$cuda_csv" |
           tr -d "'\"")
    nn=$(mktemp)
    awk -F, 'NR > 1 && $3 == $4 && $4 == $5 && $6 == "NN"' "$cuda_csv" | sort -t, -k1,1 -k2,2 -k3,3n >"$nn"
    gnuplot -e "csv='$nn'; out='$outdir/cuda.$fmt'; fmt='$fmt'; meta=\"$meta\"" bench/plot_cuda.gp &&
        echo "wrote $outdir/cuda.$fmt" || status=1
    rm -f "$nn"
else echo "plot.sh: $cuda_csv missing (python3 tools/cuda_results_csv.py)"; status=1; fi
if [ -e "$gpus_csv" ]; then
    meta=$(sed -n 's/^# *//p' "$gpus_csv" | head -n 1 | clean)
    gnuplot -e "csv='$gpus_csv'; out='$outdir/gpus.$fmt'; fmt='$fmt'; meta='$meta'" bench/plot_gpus.gp &&
        echo "wrote $outdir/gpus.$fmt ($meta)" || status=1
else echo "plot.sh: $gpus_csv missing"; status=1; fi
exit $status

# bench/plot_cuda.gp - the GPU figure from bench/results_cuda_gpus.csv (made
# from bench/RESULTS.md's CUDA tables by tools/cuda_results_csv.py; columns
# gpu,precision,m,n,k,trans,ours_tflops,cublas_tflops,ratio,date,commit):
# row-major NN, square power-of-two n. Top: TFLOP/s of gemm and cuBLAS,
# fp32 and fp64, one panel per GPU. Bottom: gemm / cuBLAS for fp32, fp64,
# TF32, FP16 and BF16 (the tensor-core table gives ratios only). bench/plot.sh
# runs it with `meta` (where and when each GPU's numbers were measured), on
# the CSV's NN square rows sorted by GPU, precision and n (gnuplot breaks a
# line at each row it leaves out).
if (!exists("csv")) csv = 'bench/results_cuda_gpus.csv'
if (!exists("out")) out = 'bench/cuda.png'
if (!exists("meta")) meta = ''
if (!exists("fmt")) fmt = 'png'
if (fmt eq 'svg') set terminal svg size 1300,900 font ",11"; else set terminal pngcairo size 1300,900 font ",11"
set output out
set datafile separator ","
pow2(x) = (2**int(log(x)/log(2) + 0.5) == x)
sel(g, p) = (strcol(1) eq g && strcol(2) eq p && $3 == $4 && $4 == $5 && strcol(6) eq "NN" && pow2($3))
set multiplot layout 2,2 title sprintf("gemm beside cuBLAS 13.1 on NVIDIA H100 80GB HBM3 and H200 (CUDA 13.0), row-major NN, m = n = k; bench/RESULTS.md\n%s", meta) noenhanced
set logscale x 2
set xrange [768:21845]
set xlabel "n"
set grid
set key right bottom
do for [g in "H100 H200"] {
    set title sprintf("%s: TFLOP/s", g) noenhanced
    set ylabel "TFLOP/s"
    set yrange [0:*]
    plot csv using (sel(g, "f32") ? $3 : 1/0):7 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "gemm fp32 (SIMT)", \
         csv using (sel(g, "f32") ? $3 : 1/0):8 with linespoints lw 2 pt 6 dt 2 lc rgb "#1f77b4" title "cuBLAS sgemm", \
         csv using (sel(g, "f64") ? $3 : 1/0):7 with linespoints lw 2 pt 5 lc rgb "#d62728" title "gemm fp64 (DMMA)", \
         csv using (sel(g, "f64") ? $3 : 1/0):8 with linespoints lw 2 pt 4 dt 2 lc rgb "#d62728" title "cuBLAS dgemm"
}
do for [g in "H100 H200"] {
    set title sprintf("%s: gemm / cuBLAS (cublasGemmEx for TF32, FP16, BF16)", g) noenhanced
    set ylabel "ratio (above 1: gemm faster)"
    set yrange [0.5:1.4]
    plot 1 with lines lc rgb "#888888" notitle, \
         csv using (sel(g, "f32") ? $3 : 1/0):9 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "fp32", \
         csv using (sel(g, "f64") ? $3 : 1/0):9 with linespoints lw 2 pt 5 lc rgb "#d62728" title "fp64", \
         csv using (sel(g, "tf32") ? $3 : 1/0):9 with linespoints lw 2 pt 9 lc rgb "#2ca02c" title "TF32", \
         csv using (sel(g, "f16") ? $3 : 1/0):9 with linespoints lw 2 pt 11 lc rgb "#9467bd" title "FP16", \
         csv using (sel(g, "bf16") ? $3 : 1/0):9 with linespoints lw 2 pt 13 lc rgb "#ff7f0e" title "BF16"
}
unset multiplot

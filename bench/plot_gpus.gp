# bench/plot_gpus.gp - speedup against GPU count from
# bench/results_gpu_scaling.csv (columns form,prec,n,gpus,seconds,speedup;
# its first line, "# machine, date, commit ...", is `meta`): one panel per
# precision; colour for the form (the host call from pageable memory, the
# MPI plan on resident data, the MPI plan root-held), line style for n.
# Speedups are against one GPU: the host call on one GPU for the two
# host-memory forms, our own one-GPU multiply on device memory for resident.
if (!exists("csv")) csv = 'bench/results_gpu_scaling.csv'
if (!exists("out")) out = 'bench/gpus.png'
if (!exists("meta")) meta = ''
if (!exists("fmt")) fmt = 'png'
if (fmt eq 'svg') set terminal svg size 1300,560 font ",11"; else set terminal pngcairo size 1300,560 font ",11"
set output out
set datafile separator ","
set multiplot layout 1,2 title sprintf("Speedup over one GPU, row-major NN, n x n x n; bench/RESULTS.md\n%s", meta) noenhanced
set xrange [0.8:4.2]
set yrange [0:4.2]
set xtics ("1" 1, "2" 2, "4" 4)
set xlabel "GPUs"
set ylabel "speedup over one GPU"
set grid
set key left top
dts(n) = (n eq "32768" ? 1 : n eq "16384" ? 2 : 3)
sel(f, p, n) = (strcol(1) eq f && strcol(2) eq p && $3 == n)
do for [p in "f32 f64"] {
    set title (p eq "f32" ? "fp32" : "fp64")
    plot x with lines lc rgb "#999999" dt 3 title "ideal", \
         for [n in "32768 16384 10240"] csv using (sel("host call", p, n+0) ? $4 : 1/0):6 with linespoints lw 2 pt 7 \
             dt dts(n) lc rgb "#1f77b4" title sprintf("host call, n = %s", n), \
         for [n in "32768 16384 10240"] csv using (sel("MPI resident", p, n+0) ? $4 : 1/0):6 with linespoints lw 2 pt 5 \
             dt dts(n) lc rgb "#2ca02c" title sprintf("MPI resident, n = %s", n), \
         for [n in "32768 16384 10240"] csv using (sel("MPI root-held", p, n+0) ? $4 : 1/0):6 with linespoints lw 2 pt 9 \
             dt dts(n) lc rgb "#d62728" title sprintf("MPI root-held, n = %s", n)
}
unset multiplot

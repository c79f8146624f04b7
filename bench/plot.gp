# bench/plot.gp - the CPU figure: GFLOP/s against n, gemm beside its peer,
# from a bench CSV (columns: backend,precision,threads,m,n,k,ours_gflops,peer,
# peer_gflops,ratio,...; a line "# machine, date, commit" says where it was
# measured). bench/plot.sh runs it:
#   gnuplot -e "csv='bench/results_cpu.csv'; out='bench/cpu.png'; meta='...'" bench/plot.gp
# Square power-of-two shapes only (the sweep of n); `threads` picks the thread
# count (default: 2); fmt='svg' writes SVG instead of PNG.
if (!exists("csv")) csv = 'bench/results_cpu.csv'
if (!exists("out")) out = 'bench/cpu.png'
if (!exists("threads")) threads = 2
if (!exists("meta")) meta = ''
if (!exists("fmt")) fmt = 'png'
if (!exists("title")) title = 'gemm vs OpenBLAS, CPU'
if (fmt eq 'svg') set terminal svg size 900,580 font ",11"; else set terminal pngcairo size 900,580 font ",11"
set output out
set datafile separator ","
set title sprintf("%s (%d threads)\n%s", title, threads, meta) noenhanced
set xlabel "n (square, m = n = k)"
set ylabel "GFLOP/s"
set logscale x 2
set key left top
set grid
pow2(x) = (2**int(log(x)/log(2) + 0.5) == x)
sq(p) = (strcol(2) eq p && $3 == threads && $4 == $5 && $5 == $6 && pow2($4))
plot csv using (sq("f32") ? $4 : 1/0):7 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "gemm fp32", \
     csv using (sq("f32") ? $4 : 1/0):9 with linespoints lw 2 pt 6 dt 2 lc rgb "#1f77b4" title "OpenBLAS fp32", \
     csv using (sq("f64") ? $4 : 1/0):7 with linespoints lw 2 pt 5 lc rgb "#d62728" title "gemm fp64", \
     csv using (sq("f64") ? $4 : 1/0):9 with linespoints lw 2 pt 4 dt 2 lc rgb "#d62728" title "OpenBLAS fp64"

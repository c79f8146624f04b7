#!/bin/sh
# bench/bench_mpi.sh [gpu] [cpu] [quick] - strong scaling of gemm_mpi.h
# (`make bench-mpi`). Writes every measurement as CSV (bench_mpi.c's
# columns) to $BENCH_MPI_OUT/results_mpi.csv (default bench/) and prints
# the efficiency tables, T1 / (P * TP), T1 = our local multiply of the whole
# problem on one device (the "single" rows).
#   gpu    needs nvcc, gemm_cuda.cuh and GPUs: 1 GPU, 2 GPUs, and 4 ranks on
#          the GPUs (2x2 grid, two ranks per GPU when only two are there),
#          n = 8192, 16384, 32768 (BENCH_MPI_GPU_SIZES), fp32 and fp64
#   cpu    1, 4, 9, 16 ranks, one thread each, n = 16384 (BENCH_MPI_CPU_N),
#          fp32 (BENCH_MPI_CPU_PREC); T1 from one rank; ScaLAPACK PDGEMM /
#          PSGEMM beside ours (interleaved) when libscalapack-openmpi-dev is
#          installed (tests/deps.sh bench installs it); the local multiplies
#          alone and with every rank busy (bench_mpi.c's "busy")
#   (bench/gpu/mpi_host.sh is the series for the GPU machines' 16-core host)
#   quick  small sizes, for a try on a laptop
# Prebuilt binaries may be given: BENCH_MPI_BIN (mpicc), BENCH_MPI_CUDA_BIN.
# A quick look by hand, e.g. CPU ranks at P = 4:
#   mpirun --oversubscribe -np 4 build/bench_mpi --local cpu --sizes 2048 \
#          --prec f32 --what resident,e2e --reps 3   (options: bench/bench_mpi.c)
case "$1" in -h | --help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.." || exit 2
parts=${*:-cpu gpu}
out=${BENCH_MPI_OUT:-bench}
mkdir -p build "$out"
csv=$out/results_mpi.csv
log=$out/bench_mpi.log
echo "what,local,prec,n,P,grid,q,overlap,algo,path,median_s,min_s,max_s,tflops,distribute_s,h2d_s,compute_s,d2h_s,shift_s,gather_s,max_err_over_tol,check,threads,setup_s,create_s,first_setup_s,peer,peer_median_s,peer_min_s,peer_max_s,peer_err,limit_s,slabs" >"$csv"
MPIRUN="mpirun --oversubscribe --allow-run-as-root"
BIND="--bind-to none" # GPU ranks: the rank's thread plus CUDA's; CPU ranks: one core each (below)
export NCCL_NVLS_ENABLE=0 # never NVLink multicast on shared machines
quick=0
case " $parts " in *" quick "*) quick=1 ;; esac

run() { # run P binary args...: one mpirun, its CSV lines appended
    p=$1; shift
    echo "--- P=$p $*" | tee -a "$log"
    timeout -k 5 "${BENCH_MPI_TIMEOUT:-400}" $MPIRUN $BIND -np "$p" "$@" 2>&1 | tee -a "$log" | grep '^csv,' |
        sed 's/^csv,//' >>"$csv"
}

cpu_bin=${BENCH_MPI_BIN:-build/bench_mpi}
peer=""
if [ -z "$BENCH_MPI_BIN" ]; then
    scalapack=""
    if [ -e "/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/libscalapack-openmpi.so" ]; then
        scalapack="-DBENCH_HAVE_SCALAPACK -lscalapack-openmpi"; peer="--peer scalapack"
    fi
    # shellcheck disable=SC2086
    mpicc -std=c99 -O2 -march=native -Wall -Wextra -Wpedantic -Werror bench/bench_mpi.c -o "$cpu_bin" $scalapack -lm ||
        exit 1
fi
# OpenBLAS (under ScaLAPACK) on its best kernel, one thread per rank (docs/DESIGN.md, "Measuring")
if grep -q avx512f /proc/cpuinfo 2>/dev/null; then export OPENBLAS_CORETYPE=SkylakeX; fi
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}

case " $parts " in *" gpu "*)
    bin=${BENCH_MPI_CUDA_BIN:-build/bench_mpi_cuda}
    if [ -z "$BENCH_MPI_CUDA_BIN" ]; then
        nvcc -x cu -std=c++17 -O2 -DGEMM_MPI_CUDA -gencode=arch=compute_90,code=sm_90 \
            $(mpicc --showme:incdirs | sed 's/^/ /; s/ \([^ ]\)/ -I\1/g') bench/bench_mpi.c -o "$bin" \
            $(mpicc --showme:libdirs | sed 's/^/ /; s/ \([^ ]\)/ -L\1/g') -lmpi || exit 1
    fi
    ngpu=$(nvidia-smi -L 2>/dev/null | grep -c GPU)
    sizes=${BENCH_MPI_GPU_SIZES:-8192,16384,32768}
    [ "$quick" = 1 ] && sizes=2048
    g="$bin --local cuda --sizes $sizes --prec f32,f64"
    mid=${BENCH_MPI_GPU4_SIZES:-16384}
    [ "$quick" = 1 ] && mid=2048
    if [ "$ngpu" -ge 2 ]; then
        run 2 $g --what single,resident,e2e
        run 4 $g --what resident,e2e --sizes "$mid" --reps 2
        run 1 $g --what resident --sizes "$mid"
        run 2 $g --what resident --overlap 0 --sizes "$mid" --prec f32
        run 2 $g --what resident --path staged --sizes "$mid" --prec f32
        run 2 $g --what resident --path ipc --sizes "$mid" --prec f32
    else
        run 1 $g --what single,resident
    fi
    ;;
esac

case " $parts " in *" cpu "*)
    n=${BENCH_MPI_CPU_N:-16384}
    [ "$quick" = 1 ] && n=1024
    c="$cpu_bin --local cpu --sizes $n --prec ${BENCH_MPI_CPU_PREC:-f32} --reps 1 --warmup 0"
    if [ "$(nproc)" -ge 16 ]; then BIND="--bind-to core --map-by core"; else BIND="--bind-to none"; fi
    run 1 $c --what single
    for p in 4 9 16; do run "$p" $c --what busy,resident $peer; done
    ;;
esac

# Efficiency: T1 from the "single" row of the same size, precision and
# local multiply, over devices x TP (devices: ranks, or GPUs when ranks share them).
echo
echo "what,local,prec,n,P,grid,overlap,path,median_s,tflops,efficiency,distribute,h2d,compute,d2h,shift,gather,check,peer_s,peer/ours"
awk -F, -v ngpu="${ngpu:-0}" '
    $1 == "what" { next }
    $1 == "single" { t1[$2 "," $3 "," $4] = $11 }
    { rows[++nrows] = $0 }
    END {
        for (i = 1; i <= nrows; i++) {
            split(rows[i], f, ",")
            key = f[2] "," f[3] "," f[4]
            dev = (f[2] == "cuda" && ngpu > 0 && f[5] > ngpu) ? ngpu : f[5]
            eff = (key in t1 && f[1] != "single") ? sprintf("%.3f", t1[key] / (dev * f[11])) : "-"
            ratio = (f[27] == "scalapack" && f[11] > 0) ? sprintf("%.2f", f[28] / f[11]) : "-"
            printf "%s,%s,%s,%s,%s,%s,%s,%s,%.4f,%.2f,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%s,%s,%s\n",
                   f[1], f[2], f[3], f[4], f[5], f[6], f[8], f[10], f[11], f[14], eff,
                   f[15], f[16], f[17], f[18], f[19], f[20], f[22], (f[27] == "scalapack" ? f[28] : "-"), ratio
        }
    }' "$csv" | tee "$out/efficiency_mpi.csv"

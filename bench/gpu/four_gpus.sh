#!/bin/sh
# bench/gpu/four_gpus.sh - the several-GPU forms on a 4-GPU machine
# (nvidia-h200-x4 / nvidia-h100-x4), in steps that fit calls of at most
# 9.5 minutes (STEPS="tests host", then STEPS="mpi"):
#   tests   test_mpi_cuda at P = 1, 2 and 4 (one rank per GPU), P = 4 small
#           under compute-sanitizer memcheck, then test_cuda_host (the
#           several-devices battery on all 4 GPUs);
#   host    the host call on 4 and on 2 GPUs, each beside 1 GPU in the same
#           process (and cuBLASXt on as many), n = 10240, 16384, 32768, fp32
#           and fp64, median of 5 (REPS);
#   mpi     the MPI plan: T1, resident (distributed) and root-held on the 2 x 2
#           grid, Cannon with overlapped shifts; resident again with blocking
#           shifts and with Fox; resident on 2 GPUs (for the figure).
# Binaries: make gpu-bin-cuda-host (.gpu/host) and the nvcc build of
# tests/test_mpi.c and bench/bench_mpi.c with GEMM_MPI_CUDA (.gpu/mpi, see
# tests/test_mpi_cuda_build.sh); carry .gpu/host and .gpu/mpi. Logs and CSV
# lines go to $OUT.
cd "$(dirname "$0")/../.." || exit 2
OUT=${OUT:-build/gpu_out}
SIZES=${SIZES:-10240,16384,32768}
REPS=${REPS:-5}
STEPS=${STEPS:-tests host mpi}
RUN="mpirun --allow-run-as-root --oversubscribe --bind-to none"
step() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
mkdir -p "$OUT"
{ date -u; nvidia-smi --query-gpu=index,name --format=csv,noheader; nvidia-smi topo -m | head -n 6; echo "cores: $(nproc)";
  cat .gpu/host/commit.txt .gpu/mpi/commit.txt 2>/dev/null; } >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
if step tests; then
    echo "=== tests"
    for p in 1 2 4; do
        timeout -k 5 80 $RUN -np $p .gpu/mpi/test_mpi_cuda >"$OUT/test_mpi_p$p.log" 2>&1
        echo "test_mpi P = $p: exit $? $(tail -n 1 "$OUT/test_mpi_p$p.log")"; grep -E "FAIL|automatic path" "$OUT/test_mpi_p$p.log" | head -n 3
    done
    GEMM_MPI_TEST_CASES=1 GEMM_MPI_TEST_MAX_DIM=24 timeout -k 5 150 $RUN -np 4 \
        compute-sanitizer --tool memcheck --error-exitcode 9 .gpu/mpi/test_mpi_cuda >"$OUT/memcheck_p4.log" 2>&1
    echo "memcheck P = 4: exit $? $(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/memcheck_p4.log") ranks with 0 errors; $(tail -n 1 "$OUT/memcheck_p4.log")"
    timeout -k 5 90 .gpu/host/test_cuda_host >"$OUT/test_host.log" 2>&1
    echo "test_cuda_host: exit $? $(tail -n 1 "$OUT/test_host.log")"; grep FAIL "$OUT/test_host.log" | head -n 5
fi
if step host; then
    echo "=== host"
    for d in 4 2; do
        timeout -k 5 200 .gpu/host/bench_cuda_devices --devices $d --sizes "$SIZES" --prec f32,f64 --reps "$REPS" \
            --xt-blocks 8192 --csv "$OUT/host$d.csv" >"$OUT/host$d.log" 2>&1
        echo "devices $d: exit $?"; grep "^|\|pinned" "$OUT/host$d.log"
    done
fi
if step mpi; then
    echo "=== mpi"
    timeout -k 5 150 $RUN -np 4 .gpu/mpi/bench_mpi_cuda --local cuda --what single,resident,e2e --sizes "$SIZES" \
        --prec f32,f64 --reps "$REPS" >"$OUT/mpi4.log" 2>&1
    echo "exit $?"; grep "^csv" "$OUT/mpi4.log"
    timeout -k 5 80 $RUN -np 4 .gpu/mpi/bench_mpi_cuda --local cuda --what resident --overlap 0 --sizes "$SIZES" \
        --prec f32,f64 --reps "$REPS" >"$OUT/mpi4_blocking.log" 2>&1
    echo "exit $?"; grep "^csv" "$OUT/mpi4_blocking.log"
    timeout -k 5 80 $RUN -np 4 .gpu/mpi/bench_mpi_cuda --local cuda --what resident --algo fox --sizes "$SIZES" \
        --prec f32,f64 --reps "$REPS" >"$OUT/mpi4_fox.log" 2>&1
    echo "exit $?"; grep "^csv" "$OUT/mpi4_fox.log"
    timeout -k 5 80 $RUN -np 2 .gpu/mpi/bench_mpi_cuda --local cuda --what resident,e2e --sizes "$SIZES" \
        --prec f32,f64 --reps "$REPS" >"$OUT/mpi2.log" 2>&1
    echo "exit $?"; grep "^csv" "$OUT/mpi2.log"
fi

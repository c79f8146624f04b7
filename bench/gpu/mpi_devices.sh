#!/bin/sh
# bench/gpu/mpi_devices.sh - gemm_mpi.h with the CUDA multiply on a machine
# with two or more GPUs (nvidia-h200-x2 / -x4), one call of at most about
# 9 minutes, each step under its own timeout:
#   tests  test_mpi_cuda (nvcc, GEMM_MPI_CUDA) at P = 1, 2 (one rank per GPU)
#          and 4 (two per GPU), then P = 2 small under compute-sanitizer;
#   e2e    the root-held plan at n = SIZE (32768), fp32 and fp64: AUTO (on one
#          node: the root's host call on every rank's GPU) and, fp32, the
#          rounds through CUDA IPC (--path ipc) as before; beside it the
#          one-GPU host call in the same run (bench_cuda_devices);
#   res    the distributed plan on resident data at n = 16384 and 32768
#          against our own one-GPU multiply (single).
# Binaries, built where nvcc is (see the --build line): .gpu/mpi/test_mpi_cuda,
# .gpu/mpi/bench_mpi_cuda (nvcc with Open MPI's flags, sm_90a) and
# .gpu/host/bench_cuda_devices; carry .gpu/mpi and .gpu/host.
cd "$(dirname "$0")/../.." || exit 2
OUT=${OUT:-build/gpu_out}
BIN=${GPU_BIN:-.gpu/mpi}
SIZE=${SIZE:-32768}
STEPS=${STEPS:-tests e2e res}
NP=$(nvidia-smi -L | wc -l)
RUN="mpirun --allow-run-as-root --oversubscribe --bind-to none"
step() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
mkdir -p "$OUT"
{ date -u; nvidia-smi --query-gpu=index,name --format=csv,noheader; mpirun --version | head -n 1; echo "cores: $(nproc)"; } \
    >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
if step tests; then
    echo "=== tests"
    for p in 1 "$NP" $((NP * 2)); do
        timeout -k 5 90 $RUN -np "$p" "$BIN/test_mpi_cuda" >"$OUT/test_p$p.log" 2>&1
        echo "P = $p: exit $? $(tail -n 1 "$OUT/test_p$p.log")"
        grep -E "FAIL|automatic path" "$OUT/test_p$p.log" | head -n 5
    done
    GEMM_MPI_TEST_CASES=1 GEMM_MPI_TEST_MAX_DIM=24 timeout -k 5 120 $RUN -np 2 \
        compute-sanitizer --tool memcheck --error-exitcode 9 "$BIN/test_mpi_cuda" >"$OUT/memcheck.log" 2>&1
    echo "memcheck P = 2: exit $? $(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/memcheck.log") ranks with 0 errors; $(tail -n 1 "$OUT/memcheck.log")"
fi
if step e2e; then
    echo "=== e2e"
    timeout -k 5 150 $RUN -np "$NP" "$BIN/bench_mpi_cuda" --local cuda --what e2e --sizes "$SIZE" --prec f32,f64 --reps 5 \
        >"$OUT/e2e.log" 2>&1
    echo "exit $?"; grep "^csv" "$OUT/e2e.log"
    timeout -k 5 90 $RUN -np "$NP" "$BIN/bench_mpi_cuda" --local cuda --what e2e --sizes "$SIZE" --prec f32 --reps 3 \
        --path ipc >"$OUT/e2e_ipc.log" 2>&1
    echo "exit $?"; grep "^csv" "$OUT/e2e_ipc.log"
    timeout -k 5 120 .gpu/host/bench_cuda_devices --devices "$NP" --sizes "$SIZE" --prec f32,f64 --reps 5 --xt-blocks 8192 \
        >"$OUT/host.log" 2>&1
    echo "exit $?"; grep "^|" "$OUT/host.log"
fi
if step res; then
    echo "=== resident"
    timeout -k 5 120 $RUN -np "$NP" "$BIN/bench_mpi_cuda" --local cuda --what single,resident --sizes 16384,$SIZE \
        --prec f32,f64 --reps 5 >"$OUT/resident.log" 2>&1
    echo "exit $?"; grep "^csv" "$OUT/resident.log"
fi

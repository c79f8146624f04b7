#!/bin/sh
# bench/gpu/four_gpus.sh - the several-GPU forms on a 4-GPU machine
# (nvidia-h200-x4 / nvidia-h100-x4), one call of at most 9.5 minutes:
#   tests   test_mpi_cuda at P = 4 (a 2 x 2 grid, one rank per GPU), then
#           test_cuda_host (the several-devices battery on all 4 GPUs);
#   host    the host call on 4 GPUs beside 1 GPU and cuBLASXt on 4 (n = 10240,
#           16384, 32768, fp32 and fp64), then on 2 GPUs at 32768;
#   mpi     the MPI plan on 4 GPUs: T1, resident (distributed) and root-held,
#           same sizes.
# Binaries as for bench/gpu/cuda_devices.sh and mpi_devices.sh: carry
# .gpu/host and .gpu/mpi. Logs and CSV lines go to $OUT.
cd "$(dirname "$0")/../.." || exit 2
OUT=${OUT:-build/gpu_out}
SIZES=${SIZES:-10240,16384,32768}
RUN="mpirun --allow-run-as-root --oversubscribe --bind-to none"
mkdir -p "$OUT"
{ date -u; nvidia-smi --query-gpu=index,name --format=csv,noheader; nvidia-smi topo -m | head -n 6; echo "cores: $(nproc)"; } >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
echo "=== tests"
timeout -k 5 80 $RUN -np 4 .gpu/mpi/test_mpi_cuda >"$OUT/test_mpi_p4.log" 2>&1
echo "test_mpi P = 4: exit $? $(tail -n 1 "$OUT/test_mpi_p4.log")"; grep -E "FAIL|automatic path" "$OUT/test_mpi_p4.log" | head -n 5
timeout -k 5 90 .gpu/host/test_cuda_host >"$OUT/test_host.log" 2>&1
echo "test_cuda_host: exit $? $(tail -n 1 "$OUT/test_host.log")"; grep FAIL "$OUT/test_host.log" | head -n 5
echo "=== host"
timeout -k 5 200 .gpu/host/bench_cuda_devices --devices 4 --sizes "$SIZES" --prec f32,f64 --reps 3 --xt-blocks 8192 \
    --csv "$OUT/host4.csv" >"$OUT/host4.log" 2>&1
echo "exit $?"; grep "^|\|pinned" "$OUT/host4.log"
timeout -k 5 60 .gpu/host/bench_cuda_devices --devices 2 --sizes 32768 --prec f32,f64 --reps 3 --xt-blocks 8192 \
    >"$OUT/host2.log" 2>&1
echo "exit $?"; grep "^|" "$OUT/host2.log"
echo "=== mpi"
timeout -k 5 130 $RUN -np 4 .gpu/mpi/bench_mpi_cuda --local cuda --what single,resident,e2e --sizes "$SIZES" \
    --prec f32,f64 --reps 3 >"$OUT/mpi4.log" 2>&1
echo "exit $?"; grep "^csv" "$OUT/mpi4.log"

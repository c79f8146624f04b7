#!/bin/sh
# bench/gpu_cl.sh - one run on a GPU machine (see bench/RESULTS.md): build,
# tune on NVIDIA's OpenCL, benchmark against CLBlast with the tuned file,
# then the test suite on the same device. Logs and results go to $OUT.
# CLBlast travels as build/peer/libclblast.so.1 (Debian's 1.5.3 .so; it needs
# only libOpenCL, libstdc++ and libgcc_s, which the machine has).
OUT=${OUT:-build/gpu_out}
mkdir -p "$OUT"
export GEMM_CL_DEVICE=${GEMM_CL_DEVICE:-NVIDIA}
TUNE_S=${TUNE_S:-45}
{
    date -u
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv 2>&1
    git log -1 --format='commit %H' 2>/dev/null
} >"$OUT/env.txt"
make -B --no-print-directory build/test_cl build/tune_cl build/bench_cl >"$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }
timeout $((2 * TUNE_S + 60)) build/tune_cl --prec f32,f64 --budget "$TUNE_S" --output "$OUT/tuning_gpu.txt" \
    --verbose >"$OUT/tune.log" 2>&1
tail -n 6 "$OUT/tune.log"
[ -s "$OUT/tuning_gpu.txt" ] && export GEMM_CL_TUNING_FILE="$OUT/tuning_gpu.txt"
timeout 200 build/bench_cl --sizes "${SIZES:-256,512,1024,2048,4096,8192}" --trans-size "${TSIZE:-4096}" --csv "$OUT/bench_gpu.csv" \
    >"$OUT/bench.log" 2>&1
cat "$OUT/bench.log"
timeout 150 sh tests/test_cl.sh >"$OUT/test.log" 2>&1
grep -v '^ok ' "$OUT/test.log" | tail -n 25

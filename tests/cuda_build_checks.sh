#!/bin/sh
# tests/cuda_build_checks.sh - `make test-cuda-build`: what CI (nvcc, no GPU)
# can check of the CUDA backend: the tests and benchmarks compile
# warning-free for sm_90a (to unoptimised PTX), the example for compute_80
# (PTX) and sm_90a (machine code, every kernel through ptxas), the host
# path's plans and pipeline pass on a CPU stand-in (test_cuda_host --plans), the
# complex calls' plans and operand copies on the CPU (test_cuda_complex --model), the
# int8 emulation's arithmetic on the CPU (test_cuda_ozaki --model), the
# batches' host-side checks pass (test_cuda_batch --host), a second
# translation unit that includes gemm_cuda.cuh without the implementation
# links, gemm.h pulls the backend in under GEMM_ENABLE_CUDA, and the host
# model of the exact kernels' index maps (bench/research/exact/model.cu: the shipped
# TMA DMMA kernel's fragments and banks among them) passes. SKIPPED when nvcc is absent.
# Last line: N passed, N failed[, N skipped].
cd "$(dirname "$0")/.." || exit 2
NVCC=${NVCC:-nvcc}
out=build/cuda_checks
mkdir -p "$out"
if ! command -v "$NVCC" >/dev/null 2>&1; then
    echo "SKIPPED test-cuda-build: nvcc not installed (tests/deps.sh cuda installs it)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
. tests/checks.sh
# The tests and benchmarks (the largest units) go through the device front end
# for sm_90a only, as unoptimised PTX (their warnings; no ptxas, no device
# optimiser: those two on every unit's copy of the kernels were most of CI's
# time here, 78 s against 15 s for test_cuda_batch). The example goes through
# the sm_80 front end too and through ptxas for sm_90a, every kernel, from
# unoptimised PTX (36 s against 123 s optimised: the optimised sm_90a build
# is the GPU runs' own, bench/gpu/*.sh); test-docs' CUDA snippet takes every
# kernel through ptxas for sm_80 the same way.
# The host side at -O1 (its warnings, the flow-based ones too, at 0.7 of
# -O2's time: test_cuda_batch 15.7 s against 22.2) for the units that run
# here (RUN_FLAGS), the example and the two units: the library's host code
# is the same in every unit. The units only compiled take -O0 on the host
# (UNIT_FLAGS: the host compile at -O1 is 30 s of CPU of test_cuda_batch's
# 50, at -O0 14 s).
RUN_FLAGS="-std=c++17 -O1 -gencode arch=compute_90a,code=compute_90a -Xcicc -O0 -Xcompiler -Wall,-Wextra -Werror all-warnings"
UNIT_FLAGS="-std=c++17 -O0 -gencode arch=compute_90a,code=compute_90a -Xcicc -O0 -Xcompiler -Wall,-Wextra -Werror all-warnings"
# The example also to compute_90 PTX (the shipped build's third target; the
# whole library once, where test-parts took every part to it alone).
EXAMPLE_FLAGS="-std=c++17 -O1 -gencode arch=compute_80,code=compute_80 -gencode arch=compute_90,code=compute_90 -gencode arch=compute_90a,code=sm_90a -Xcicc -O0 -Xcompiler -Wall,-Wextra -Werror all-warnings"

# The compiles run in two lanes, one per core here, each one after another;
# results are collected below.
build() { # build NAME command...
    name=$1; shift
    "$@" >"$out/$name.log" 2>&1; echo $? >"$out/$name.rc"
}
(
    build cuda_basic $NVCC $EXAMPLE_FLAGS examples/cuda_basic.cu -o "$out/cuda_basic"
    build test_cuda_host $NVCC $RUN_FLAGS tests/test_cuda_host.cu -o "$out/test_cuda_host"
    build bench_cuda_host $NVCC $UNIT_FLAGS bench/bench_cuda_host.cu -o "$out/bench_cuda_host" -lcublas
    build bench_cuda_devices $NVCC $UNIT_FLAGS bench/bench_cuda_devices.cu -o "$out/bench_cuda_devices" -lcublas
    build test_cuda_complex $NVCC $RUN_FLAGS tests/test_cuda_complex.cu -o "$out/test_cuda_complex"
    build test_cuda_ozaki $NVCC $RUN_FLAGS tests/test_cuda_ozaki.cu -o "$out/test_cuda_ozaki"
    build bench_cuda_ozaki $NVCC $UNIT_FLAGS bench/bench_cuda_ozaki.cu -o "$out/bench_cuda_ozaki" -lcublas
    build exact_model sh -c "$NVCC -std=c++17 -O1 bench/research/exact/model.cu -o $out/exact_model && ./$out/exact_model | tail -n 3"
) &
(
    build test_cuda $NVCC $UNIT_FLAGS tests/test_cuda.cu -o "$out/test_cuda"
    build test_cuda_tc $NVCC $UNIT_FLAGS tests/test_cuda_tc.cu -o "$out/test_cuda_tc"
    build bench_cuda $NVCC $UNIT_FLAGS bench/bench_cuda.cu -o "$out/bench_cuda" -lcublas
    build test_cuda_batch $NVCC $RUN_FLAGS tests/test_cuda_batch.cu -o "$out/test_cuda_batch"
    build bench_cuda_batch $NVCC $UNIT_FLAGS bench/bench_cuda_batch.cu -o "$out/bench_cuda_batch" -lcublas
    build bench_cuda_complex $NVCC $UNIT_FLAGS bench/bench_cuda_complex.cu -o "$out/bench_cuda_complex" -lcublas
    build two_units sh -c "printf '#define GEMM_IMPLEMENTATION\n#include \"gemm_cuda.cuh\"\n' >$out/impl.cu &&
printf '#define GEMM_ENABLE_CUDA\n#include \"gemm.h\"\nint main(void) { return gemm_cuda_sgemm(0, GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, -1, 1, 1, 1, 0, 1, 0, 1, 0, 0, 1, 0) == GEMM_ERR_INVALID_ARG ? 0 : 1; }\n' >$out/user.cu &&
$NVCC $RUN_FLAGS -I. $out/impl.cu $out/user.cu -o $out/two_units && ./$out/two_units"
) &
wait
for name in test_cuda test_cuda_tc bench_cuda test_cuda_batch bench_cuda_batch test_cuda_complex bench_cuda_complex exact_model test_cuda_host bench_cuda_host bench_cuda_devices \
    test_cuda_ozaki bench_cuda_ozaki \
    cuda_basic two_units; do
    rc=$(cat "$out/$name.rc")
    # warning-free: -Werror covers the host compiler and nvcc; a remaining "warning" line fails too
    if [ "$rc" = 0 ] && ! grep -qi warning "$out/$name.log"; then
        passed=$((passed + 1)); echo "ok   nvcc: $name builds warning-free"
    else
        failed=$((failed + 1)); echo "FAIL nvcc: $name"; sed 's/^/     /' "$out/$name.log" | head -30
    fi
done
# The host path's plans and its pipeline on a CPU stand-in need no GPU.
if [ "$(cat "$out/test_cuda_host.rc")" = 0 ]; then
    check "test_cuda_host --plans: the host path's plans and pipeline on the CPU, C overlapping A or B refused" "$out/test_cuda_host" --plans
else
    failed=$((failed + 1)); echo "FAIL test_cuda_host --plans: it did not build"
fi
# The complex calls' plans and host-side copies with a plain real product need no GPU.
if [ "$(cat "$out/test_cuda_complex.rc")" = 0 ]; then
    check "test_cuda_complex --model: the complex plans and operand copies on the CPU" "$out/test_cuda_complex" --model
else
    failed=$((failed + 1)); echo "FAIL test_cuda_complex --model: it did not build"
fi
# The emulated products' arithmetic, and the whole scheme, on the CPU.
if [ "$(cat "$out/test_cuda_ozaki.rc")" = 0 ]; then
    check "test_cuda_ozaki --model: the int8 emulation's moduli, residues, reconstruction and error bound on the CPU" "$out/test_cuda_ozaki" --model
else
    failed=$((failed + 1)); echo "FAIL test_cuda_ozaki --model: it did not build"
fi
# The batches' checks that need no GPU (C over A or B among them).
if [ "$(cat "$out/test_cuda_batch.rc")" = 0 ]; then
    check "test_cuda_batch --host: the batches' host-side checks, C overlapping A or B refused" "$out/test_cuda_batch" --host
else
    failed=$((failed + 1)); echo "FAIL test_cuda_batch --host: it did not build"
fi
summary

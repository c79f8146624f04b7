#!/bin/bash
# bench/gpu/grouped.sh - grouped batches on one GPU (about 3 minutes):
# test_cuda_batch in full, its tiny-member and grouped tests (--tiny,
# GEMM_CUDA_TEST_SMALL=1) under compute-sanitizer memcheck, then
# bench_cuda_batch --grouped beside cublasGemmGroupedBatchedEx and a loop of
# cublas?gemm: moe (64 members, m 128..4096, n = k = 4096: group by group)
# once, median of 9; small (1000 members of 16..64) and tiny (1000 members of
# 8..32, k 16..64), each one launch of the grouped tiny kernel, in RUNS runs
# (default 8) of 15 calls each, and the median and range over the runs: on
# the GPU machines' hosts a call's host side runs 2-3x slower in some runs
# than in others, so one run's median says little. With GPU_BIN_BEFORE set,
# that directory's bench_cuda_batch runs alternately with ours, each run.
# Binaries (sm_90a), built on any machine with nvcc: make gpu-bin-cuda-batch
# CUDA_BATCH_BIN=.gpu/grouped; then, on the GPU machine (carry .gpu/grouped):
# bash bench/gpu/grouped.sh. Logs go to $OUT: test.log, memcheck.log,
# bench.log (every run), bench_moe.csv.
cd "$(dirname "$0")/../.." || exit 2
BIN=${GPU_BIN:-.gpu/grouped}
OUT=${OUT:-build/gpu_out}
RUNS=${RUNS:-8}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 120 "$BIN/test_cuda_batch" >"$OUT/test.log" 2>&1
echo "test_cuda_batch exit $?" >>"$OUT/test.log"
grep -v '^ok ' "$OUT/test.log" | tail -n 4
GEMM_CUDA_TEST_SMALL=1 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 "$BIN/test_cuda_batch" --tiny \
    >"$OUT/memcheck.log" 2>&1
echo "memcheck exit $? (124: ran past its 60 s)" >>"$OUT/memcheck.log"
grep -E 'ERROR SUMMARY|passed, |exit ' "$OUT/memcheck.log" | tail -n 3
timeout 100 "$BIN/bench_cuda_batch" --reps 9 --prec f32,f64 --grouped moe --csv "$OUT/bench_moe.csv" 2>&1 |
    grep -E '^f(32|64)' | sed 's/^/ours 0 /' >"$OUT/bench.log"
for r in $(seq 1 "$RUNS"); do
    for who in ours before; do
        B="$BIN"
        [ "$who" = before ] && { [ -n "$GPU_BIN_BEFORE" ] || continue; B="$GPU_BIN_BEFORE"; }
        timeout 60 "$B/bench_cuda_batch" --reps 15 --prec f32,f64 --grouped small,tiny 2>&1 |
            grep -E '^f(32|64)' | sed "s/^/$who $r /" >>"$OUT/bench.log"
    done
done
python3 - "$OUT/bench.log" <<'PY'
import re, statistics as st, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r'(\w+) (\d+) (f32|f64)\s+(\w+).*ours\s+([\d.]+) ms.*?([\d.]+) ms in the call.*'
                 r'cuBLAS grouped\s+([\d.]+) ms\s+loop\s+([\d.]+) ms', line)
    if m:
        who, run, prec, group, ours, host, grouped, loop = m.groups()
        rows.setdefault((prec, group, who), []).append([float(x) for x in (ours, host, grouped, loop)])
print('prec set    binary runs | ours ms  host ms  cuBLAS grouped ms  loop ms (medians over runs) | '
      'grouped/ours median [range] | loop/ours median')
for (prec, group, who), v in sorted(rows.items()):
    med = [st.median(x[i] for x in v) for i in range(4)]
    ratio = [x[2] / x[0] for x in v]
    print('%s %-6s %-6s %4d | %.4f  %.4f  %.4f  %.3f | %.3f [%.3f-%.3f] | %.1f' % (
        prec, group, who, len(v), med[0], med[1], med[2], med[3], st.median(ratio), min(ratio), max(ratio),
        st.median(x[3] / x[0] for x in v)))
PY

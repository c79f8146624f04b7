#!/bin/sh
# tests/cuda_run.sh BINARY - `make test-cuda` on a GPU machine: the whole
# battery, then a small battery under compute-sanitizer memcheck and
# racecheck. Prints each run's tail and the summed last line.
cd "$(dirname "$0")/.." || exit 2
bin=$1
P=0 F=0
tally() { # tally LOG: adds the log's "N passed, N failed" (none: one failure)
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
    if [ -z "$line" ]; then F=$((F + 1)); echo "FAIL $1: no summary line"; tail -n 20 "$1"; return; fi
    P=$((P + $(echo "$line" | cut -d' ' -f1))) F=$((F + $(echo "$line" | cut -d' ' -f3)))
    echo "$1: $line"
}
"$bin" >build/test_cuda.full.log 2>&1
grep -v '^ok ' build/test_cuda.full.log | tail -n 40
tally build/test_cuda.full.log
if command -v compute-sanitizer >/dev/null 2>&1; then
    for tool in memcheck racecheck; do
        GEMM_CUDA_TEST_SMALL=1 compute-sanitizer --tool $tool --error-exitcode 9 "$bin" >build/test_cuda.$tool.log 2>&1
        rc=$?
        grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|FAIL|Error' build/test_cuda.$tool.log | head -n 20
        tally build/test_cuda.$tool.log
        [ $rc -ne 0 ] && F=$((F + 1)) && echo "FAIL compute-sanitizer --tool $tool: exit $rc"
    done
else
    echo "FAIL compute-sanitizer not found"; F=$((F + 1))
fi
echo "$P passed, $F failed"
[ "$F" -eq 0 ]

#!/bin/sh
# tests/cuda_run.sh BINARY... - `make test-cuda` on a GPU machine (the
# Makefile lists build/test_cuda, build/test_cuda_tc, build/test_cuda_host): each test
# program in full, then each with GEMM_CUDA_TEST_SMALL=1 under
# compute-sanitizer memcheck and racecheck. Logs: build/NAME.full.log,
# build/NAME.memcheck.log, build/NAME.racecheck.log. Prints each run's tail
# and the summed last line (N passed, N failed[, N skipped]).
cd "$(dirname "$0")/.." || exit 2
P=0 F=0 S=0
tally() { # tally LOG: adds the log's "N passed, N failed[, N skipped]" (none: one failure)
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
    if [ -z "$line" ]; then F=$((F + 1)); echo "FAIL $1: no summary line"; tail -n 20 "$1"; return; fi
    P=$((P + $(echo "$line" | cut -d' ' -f1))) F=$((F + $(echo "$line" | cut -d' ' -f3)))
    S=$((S + $(echo "$line" | sed -n 's/.*, \([0-9]*\) skipped.*/\1/p') + 0))
    echo "$1: $line"
}
have_sanitizer=1
command -v compute-sanitizer >/dev/null 2>&1 || { echo "FAIL compute-sanitizer not found"; F=$((F + 1)); have_sanitizer=0; }
for bin in "$@"; do
    name=$(basename "$bin")
    "$bin" >"build/$name.full.log" 2>&1
    grep -v '^ok ' "build/$name.full.log" | tail -n 40
    tally "build/$name.full.log"
    [ $have_sanitizer -eq 1 ] || continue
    for tool in memcheck racecheck; do
        log=build/$name.$tool.log
        GEMM_CUDA_TEST_SMALL=1 compute-sanitizer --tool $tool --error-exitcode 9 "$bin" >"$log" 2>&1
        rc=$?
        grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|FAIL|Error' "$log" | head -n 20
        tally "$log"
        [ $rc -ne 0 ] && F=$((F + 1)) && echo "FAIL compute-sanitizer --tool $tool $name: exit $rc"
    done
done
if [ "$S" -gt 0 ]; then echo "$P passed, $F failed, $S skipped"; else echo "$P passed, $F failed"; fi
[ "$F" -eq 0 ]

#!/bin/sh
# tests/test_mpi.sh - builds tests/test_mpi.c with mpicc and runs it under
# mpirun at P = 1, 2, 3, 4, 6, 8, 9 (GEMM_MPI_TEST_RANKS overrides), and the
# complex calls' tests/test_mpi_complex.c at P = 1, 2, 4
# (GEMM_MPI_TEST_COMPLEX_RANKS), each run
# bounded by a timeout so a hang fails; and tests/test_mpi_init.c (calls
# before MPI_Init and after MPI_Finalize) at P = 1, 2. Prints one line per P and, last,
# the sum: "N passed, N failed" (or SKIPPED when MPI is not installed).
#   MPI_TEST_FLAGS   compiler flags (default: -O2 -g; the sanitizer suite
#                    passes its own)
#   MPI_TEST_INIT_FLAGS  tests/test_mpi_init.c's (default: MPI_TEST_FLAGS)
#   MPI_TEST_BIN     output binary (default build/test_mpi); the other files
#                    it writes are named after it (build/test_mpi_init.log ...)
#   MPI_TEST_NOBUILD run MPI_TEST_BIN as it is
#   GEMM_MPI_TEST_STAGE_BYTES          bytes per staged chunk, through the
#                    test hooks (default 200, so that blocks travel in many
#                    chunks; 0 = the library's own size)
#   GEMM_MPI_TEST_COPY_PARALLEL_BYTES  host copies this large go to several
#                    threads (default 0 = the library's own threshold)
#   GEMM_MPI_TEST_POLL_COLS  columns per panel of the CPU's overlapped
#                    products (default 3, so that products are cut; 0 = the
#                    library's own)
cd "$(dirname "$0")/.." || exit 2
mkdir -p build
bin=${MPI_TEST_BIN:-build/test_mpi}
if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
    echo "SKIPPED test-mpi: mpicc/mpirun not installed (tests/deps.sh mpi installs openmpi-bin libopenmpi-dev)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
# MPI_TEST_NOBUILD=1 runs $MPI_TEST_BIN as it is (the CUDA build, made by nvcc)
if [ -z "$MPI_TEST_NOBUILD" ]; then
    # shellcheck disable=SC2086
    mpicc -std=c99 ${MPI_TEST_FLAGS:--O2 -g} -Wall -Wextra -Wpedantic -Werror tests/test_mpi.c -o "$bin" -lm || {
        echo "test-mpi: build failed"; echo "0 passed, 1 failed"; exit 1; }
fi
export GEMM_MPI_TEST_STAGE_BYTES="${GEMM_MPI_TEST_STAGE_BYTES-200}"
export GEMM_MPI_TEST_POLL_COLS="${GEMM_MPI_TEST_POLL_COLS-3}"
# Ranks that wait for a message yield their core (Open MPI does so by itself
# only when the ranks outnumber the cores): the suites run two at a time.
export OMPI_MCA_mpi_yield_when_idle="${OMPI_MCA_mpi_yield_when_idle-1}"
passed=0 failed=0
# The header as C++ (mpicxx, -Werror), and only gemm_-prefixed global symbols:
# built without MPI_TEST_FLAGS, so the sanitizer run (make test-mpi-asan)
# leaves them to test-mpi.
if [ -z "$MPI_TEST_NOBUILD" ] && [ -z "${MPI_TEST_FLAGS:-}" ]; then
printf '#define GEMM_IMPLEMENTATION\n#include "gemm_mpi.h"\n' >"${bin}_impl.c"
if mpicxx -x c++ -std=c++11 -Wall -Wextra -Wpedantic -Werror -c tests/test_mpi.c -o "${bin}_cpp.o" \
    >"${bin}_cpp.log" 2>&1; then passed=$((passed + 1)); echo "ok   gemm_mpi.h and the test build as C++ (mpicxx -Werror)"
else failed=$((failed + 1)); echo "FAIL gemm_mpi.h as C++:"; head -20 "${bin}_cpp.log"; fi
rm -f "${bin}_impl.o"
bad=$(mpicc -std=c99 -Wall -Wextra -Wpedantic -Werror -I. -c "${bin}_impl.c" -o "${bin}_impl.o" 2>&1 &&
      nm -g --defined-only "${bin}_impl.o" | awk '{print $3}' | grep -v '^gemm_' || true)
if [ -f "${bin}_impl.o" ] && [ -z "$bad" ]; then passed=$((passed + 1)); echo "ok   every global symbol starts with gemm_"
else failed=$((failed + 1)); echo "FAIL global symbols without the gemm_ prefix: $bad"; fi
fi
if [ -z "$MPI_TEST_NOBUILD" ]; then
# Calls before MPI_Init and after MPI_Finalize return a status (tests/test_mpi_init.c).
# shellcheck disable=SC2086
if mpicc -std=c99 ${MPI_TEST_INIT_FLAGS:-${MPI_TEST_FLAGS:--O2 -g}} -Wall -Wextra -Wpedantic -Werror tests/test_mpi_init.c \
    -o "${bin}_init" -lm >"${bin}_init_build.log" 2>&1; then
    for p in 1 2; do
        timeout -k 5 60 mpirun --oversubscribe --allow-run-as-root -np "$p" "${bin}_init" >"${bin}_init.log" 2>&1
        rc=$?
        p_=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "${bin}_init.log" | awk '{s += $1} END {print s + 0}')
        f_=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "${bin}_init.log" | awk '{s += $3} END {print s + 0}')
        if [ "$rc" -ne 0 ] || [ "$p_" -ne $((11 * p)) ] || [ "$f_" -ne 0 ]; then
            failed=$((failed + 1)); echo "FAIL MPI_Init/MPI_Finalize at P=$p (exit $rc):"; grep -v '^ok' "${bin}_init.log" | head
        else passed=$((passed + p_)); echo "ok   P=$p: calls before MPI_Init and after MPI_Finalize return a status ($p_ checks)"; fi
    done
else failed=$((failed + 1)); echo "FAIL tests/test_mpi_init.c does not build:"; head -20 "${bin}_init_build.log"; fi
fi
# The complex calls (tests/test_mpi_complex.c) at P = 1, 2, 4, after the real battery.
cbin="${bin}_complex"
if [ -z "$MPI_TEST_NOBUILD" ]; then
    # shellcheck disable=SC2086
    mpicc -std=c99 ${MPI_TEST_FLAGS:--O2 -g} -Wall -Wextra -Wpedantic -Werror tests/test_mpi_complex.c -o "$cbin" -lm \
        >"${cbin}_build.log" 2>&1 || { echo "FAIL tests/test_mpi_complex.c does not build:";
        head -20 "${cbin}_build.log"; failed=$((failed + 1)); cbin=""; }
else cbin=""; fi
runs=""
for p in ${GEMM_MPI_TEST_RANKS:-1 2 3 4 6 8 9}; do runs="$runs $bin:$p"; done
if [ -n "$cbin" ]; then for p in ${GEMM_MPI_TEST_COMPLEX_RANKS:-1 2 4}; do runs="$runs $cbin:$p"; done; fi
# Then the batteries with options.verify and the injected faults
# (GEMM_TEST_VERIFY=1) at P = 1, 3, 4 (GEMM_MPI_TEST_VERIFY_RANKS overrides).
for p in ${GEMM_MPI_TEST_VERIFY_RANKS:-1 3 4}; do runs="$runs $bin:v$p"; done
for run in $runs; do
    b=${run%:*} pv=${run##*:}
    p=${pv#v}
    case $pv in v*) verify=1 ;; *) verify= ;; esac
    log=build/$(basename "$b")_P$pv.log
    GEMM_TEST_VERIFY=$verify timeout -k 5 "${GEMM_MPI_TEST_TIMEOUT:-300}" \
        mpirun --oversubscribe --allow-run-as-root -np "$p" "$b" >"$log" 2>&1
    rc=$?
    grep -E '^(FAIL|SKIPPED)' "$log" | head -n 20
    line=$(grep -E '^P=[0-9]+: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo "FAIL P=$p: timed out after ${GEMM_MPI_TEST_TIMEOUT:-300} s (a hang); log in $log"
        failed=$((failed + 1))
    elif [ -z "$line" ]; then
        echo "FAIL P=$p: no summary line (exit $rc); last lines of $log:"
        tail -n 15 "$log" | sed 's/^/     /'
        failed=$((failed + 1))
    else
        echo "$line ($(basename "$b")${verify:+, verify})"
        p_=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
        f_=$(echo "$line" | sed -E 's/.* ([0-9]+) failed$/\1/')
        passed=$((passed + p_)) failed=$((failed + f_))
        [ "$rc" -ne 0 ] && [ "$f_" -eq 0 ] && { echo "FAIL P=$p: exit $rc"; failed=$((failed + 1)); }
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

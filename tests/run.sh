#!/bin/sh
# tests/run.sh TARGET... - runs each suite (a make target whose output ends
# with "N passed, N failed[, N skipped]"), then prints every suite's line and
# the total as the last line. A suite that prints no such line, or exits
# non-zero, counts as one failure. Under CI (CI=true) a skip also fails the
# run: there everything is installed, so a skip means something broke.
# Each suite's output goes to build/<target>.log (RUN_LOG_DIR=... elsewhere);
# the summary gives each suite's seconds, since CI has a time budget.
# RUN_JOBS=2 runs the suites two at a time (for suites that are not
# already multi-threaded; the sanitizer suites are, and gained nothing).
cd "$(dirname "$0")/.." || exit 2
logs=${RUN_LOG_DIR:-build}
mkdir -p "$logs"
P=0 F=0 S=0 report=""
# RUN_JOBS=n: the suites in n lanes at once (dealt in turn; each lane one
# suite after another), for suites that compile on one core and share
# nothing but the build directory; their reports follow in the given order.
jobs=${RUN_JOBS:-1}
if [ "$jobs" -gt 1 ]; then
    lane=1
    while [ "$lane" -le "$jobs" ]; do
        (
            n=0
            for target in "$@"; do
                if [ $((n % jobs + 1)) -eq "$lane" ]; then
                    ${MAKE:-make} --no-print-directory "$target" >"$logs/$target.log" 2>&1
                    echo $? >"$logs/$target.rc"
                fi
                n=$((n + 1))
            done
        ) &
        lane=$((lane + 1))
    done
    wait
fi
for target in "$@"; do
    log="$logs/$target.log"
    echo "=== make $target"
    started=$(date +%s)
    if [ "$jobs" -gt 1 ]; then
        rc=$(cat "$logs/$target.rc" 2>/dev/null || echo 1)
    else
        ${MAKE:-make} --no-print-directory "$target" >"$log" 2>&1
        rc=$?
    fi
    took=$(($(date +%s) - started))
    grep -v '^ok ' "$log" | tail -n 40
    line=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        line="0 passed, 1 failed (no summary line, exit $rc)"
        p=0 f=1 s=0
    else
        p=$(echo "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
        f=$(echo "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
        s=$(echo "$line" | grep -oE '[0-9]+ skipped' | grep -oE '[0-9]+' || echo 0)
        [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1 && line="$line (but exit $rc)"
    fi
    P=$((P + p)) F=$((F + f)) S=$((S + ${s:-0}))
    report="$report
  $target: $line (${took} s)"
done
echo "=== summary$report"
if [ "$CI" = true ] && [ "$S" -gt 0 ]; then
    echo "CI: $S suite part(s) SKIPPED; in CI everything must run"
    F=$((F + S))
fi
if [ "$S" -gt 0 ]; then echo "$P passed, $F failed, $S skipped"; else echo "$P passed, $F failed"; fi
[ "$F" -eq 0 ]

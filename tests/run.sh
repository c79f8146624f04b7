#!/bin/sh
# tests/run.sh TARGET... - runs each suite (a make target whose output ends
# with "N passed, N failed[, N skipped]"), then prints every suite's line and
# the total as the last line. A suite that prints no such line, or exits
# non-zero, counts as one failure. Under CI (CI=true) a skip also fails the
# run: there everything is installed, so a skip means something broke.
# Each suite's output goes to build/<target>.log (RUN_LOG_DIR=... elsewhere);
# the summary gives each suite's seconds, since CI has a time budget.
cd "$(dirname "$0")/.." || exit 2
logs=${RUN_LOG_DIR:-build}
mkdir -p "$logs"
P=0 F=0 S=0 report=""
# RUN_JOBS=n: the suites in n lanes at once, each lane taking the next suite
# not yet started when it is free (a shared queue, so that the lanes end
# together); RUN_FIRST="target..." are started first, in that order (the
# longest ones: a long suite started last would run alone at the end), then
# the others in the given order. The reports follow in the given order. The
# suites share nothing but the build directory (binaries that several of
# them use are built before, by the caller: see `make ci`).
jobs=${RUN_JOBS:-1}
if [ "$jobs" -gt 1 ]; then
    queue=""
    for target in ${RUN_FIRST:-}; do
        case " $* " in *" $target "*) queue="$queue $target" ;; esac
    done
    for target in "$@"; do
        case " $queue " in *" $target "*) ;; *) queue="$queue $target" ;; esac
    done
    q=$logs/.run_queue
    rm -rf "$q" "$q.lock" && mkdir -p "$q"
    n=0
    for target in $queue; do n=$((n + 1)); echo "$target" >"$q/$n"; rm -f "$logs/$target.rc" "$logs/$target.secs"; done
    echo 1 >"$q/next"
    take() { # prints the next target, or nothing when the queue is empty
        until mkdir "$q.lock" 2>/dev/null; do sleep 0.1; done
        i=$(cat "$q/next")
        echo $((i + 1)) >"$q/next"
        rmdir "$q.lock"
        [ -f "$q/$i" ] && cat "$q/$i"
    }
    lane=1
    while [ "$lane" -le "$jobs" ]; do
        (
            while target=$(take) && [ -n "$target" ]; do
                started=$(date +%s)
                ${MAKE:-make} --no-print-directory "$target" >"$logs/$target.log" 2>&1
                echo $? >"$logs/$target.rc"
                echo $(($(date +%s) - started)) >"$logs/$target.secs"
            done
        ) &
        lane=$((lane + 1))
    done
    wait
    rm -rf "$q"
fi
for target in "$@"; do
    log="$logs/$target.log"
    echo "=== make $target"
    started=$(date +%s)
    if [ "$jobs" -gt 1 ]; then
        rc=$(cat "$logs/$target.rc" 2>/dev/null || echo 1)
        took=$(cat "$logs/$target.secs" 2>/dev/null || echo 0)
    else
        ${MAKE:-make} --no-print-directory "$target" >"$log" 2>&1
        rc=$?
        took=$(($(date +%s) - started))
    fi
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

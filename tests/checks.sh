# tests/checks.sh - sourced by the shell suites (`. tests/checks.sh` after
# setting $out, a folder for logs): the counters, check / check_fails / skip,
# check_bg / check_wait (independent checks two at a time: CI has two cores
# and most checks are a one-core compile), and the closing line
# `N passed, N failed[, N skipped]`.
passed=0 failed=0 skipped=0
have() { command -v "$1" >/dev/null 2>&1; }
skip() { skipped=$((skipped + 1)); echo "SKIPPED $1"; }
check() { # check "what" command...: the command must succeed
    what=$1; shift
    if "$@" >"$out/log" 2>&1; then passed=$((passed + 1)); echo "ok   $what"
    else failed=$((failed + 1)); echo "FAIL $what"; sed 's/^/     /' "$out/log" | head -30; fi
}
check_fails() { # check_fails "what" command...: the command must fail
    what=$1; shift
    if "$@" >"$out/log" 2>&1; then failed=$((failed + 1)); echo "FAIL $what (it succeeded)"
    else passed=$((passed + 1)); echo "ok   $what"; fi
}
bg_n=0 bg_done=0 bg_pids=""
check_bg() { # check_bg "what" command...: as check, in the background, CHECK_JOBS (2) at most at once;
    # check_wait reports them, in the order they were given. Each has its own log.
    bg_n=$((bg_n + 1))
    printf '%s\n' "$1" >"$out/bg_$bg_n.what"; shift
    ( "$@" >"$out/bg_$bg_n.log" 2>&1; echo $? >"$out/bg_$bg_n.rc" ) &
    bg_pids="$bg_pids $!"
    # shellcheck disable=SC2086
    set -- $bg_pids
    if [ $# -ge "${CHECK_JOBS:-2}" ]; then wait "$1"; shift; bg_pids="$*"; fi
}
check_wait() { # waits for the checks check_bg started, and reports each
    wait
    while [ "$bg_done" -lt "$bg_n" ]; do
        bg_done=$((bg_done + 1))
        what=$(cat "$out/bg_$bg_done.what")
        if [ "$(cat "$out/bg_$bg_done.rc" 2>/dev/null)" = 0 ]; then passed=$((passed + 1)); echo "ok   $what"
        else failed=$((failed + 1)); echo "FAIL $what"; sed 's/^/     /' "$out/bg_$bg_done.log" | head -30; fi
    done
    bg_pids=""
}
summary() { # the closing line; returns non-zero when something failed
    if [ "$skipped" -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"
    else echo "$passed passed, $failed failed"; fi
    [ "$failed" -eq 0 ]
}

# tests/checks.sh - sourced by the shell suites (`. tests/checks.sh` after
# setting $out, a folder for logs): the counters, check / check_fails / skip,
# and the closing line `N passed, N failed[, N skipped]`.
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
summary() { # the closing line; returns non-zero when something failed
    if [ "$skipped" -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"
    else echo "$passed passed, $failed failed"; fi
    [ "$failed" -eq 0 ]
}

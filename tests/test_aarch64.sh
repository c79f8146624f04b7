#!/bin/sh
# tests/test_aarch64.sh - the CPU backend as an aarch64 build sees it: built
# with aarch64-linux-gnu-gcc (-O2, warnings as errors, static) and run under
# qemu-aarch64, the quick battery for every kernel there (neon, scalar).
# Last line: N passed, N failed[, N skipped].
cd "$(dirname "$0")/.." || exit 2
mkdir -p build
for tool in aarch64-linux-gnu-gcc qemu-aarch64; do
    if ! command -v $tool >/dev/null 2>&1; then
        echo "SKIPPED aarch64: $tool is not installed (tests/deps.sh cpu installs it)"
        echo "0 passed, 0 failed, 1 skipped"
        exit 0
    fi
done
if ! aarch64-linux-gnu-gcc -std=c99 -O2 -Wall -Wextra -Wpedantic -Werror -static tests/test_cpu.c \
    -o build/test_cpu_aarch64 -lm -lpthread; then
    echo "0 passed, 1 failed (aarch64 build)"
    exit 1
fi
qemu-aarch64 build/test_cpu_aarch64 --quick --no-fork

#!/bin/sh
# tests/parts_checks.sh [FOLDER...] - every part under src/ compiles on its
# own, with its backend's compiler: core/, cpu/ and cblas/ with cc (C99),
# cl/ with cc and the OpenCL headers (cl/gemm.cl with clang's OpenCL C 1.2
# front end), mpi/ with mpicc, cuda/ with nvcc (every part as CUDA C++17,
# host code and unoptimised sm_90a PTX: the kernels a part instantiates
# are generated, not optimised; about a minute for the folder; -arch=compute_90a
# would take each part to compute_90 PTX too, a third more time: the whole
# library goes to compute_90 once in test-cuda-build's example). A part
# that compiles alone includes what it uses, so an editor, an indexer and
# the compiler all see its neighbours. Default: every folder. Last line:
# N passed, N failed[, N skipped].
cd "$(dirname "$0")/.." || exit 2
out=build/parts
mkdir -p "$out"
# Each part is compiled through a one-line file that includes it: a part's
# #pragma once warns in a main file, and warnings are errors.
. tests/checks.sh
# Unused static functions are the rule in a part compiled alone.
C_FLAGS="-std=c99 -D_DEFAULT_SOURCE -fsyntax-only -Wall -Wextra -Wpedantic -Werror -Wno-unused-function -Wno-unused-variable -Wno-unused-macros"
folders=${*:-core cpu cblas cl mpi cuda}
compiler_for() { # the compile command for one part, or nothing when its compiler is missing
    case $1 in
    src/cl/*.cl) have clang && echo "clang -x cl -cl-std=CL1.2 -fsyntax-only -Werror" ;;
    src/mpi/*) have mpicc && echo "mpicc -x c $C_FLAGS" ;;
    src/cl/*) [ -e /usr/include/CL/cl.h ] && echo "cc -x c $C_FLAGS" ;;
    src/cuda/*) have nvcc && echo "nvcc -x cu -std=c++17 -gencode arch=compute_90a,code=compute_90a -Xcicc -O0 --cuda -Xcompiler -Wall,-Wextra,-Wno-unused-function -Werror all-warnings -o /dev/null" ;;
    *) echo "cc -x c $C_FLAGS" ;;
    esac
}
for folder in $folders; do
    for part in $(find src/$folder -type f \( -name '*.h' -o -name '*.c' -o -name '*.cuh' -o -name '*.cl' \) | sort); do
        cmd=$(compiler_for "$part")
        if [ -z "$cmd" ]; then skip "$part: its compiler is not installed (tests/deps.sh)"; continue; fi
        wrap=$out/$(echo "$part" | tr '/.' '__').${part##*.}
        case $part in *.cl) wrap=$part ;; *) printf '#include "%s"\n' "$PWD/$part" >"$wrap" ;; esac
        # shellcheck disable=SC2086
        check_bg "$part compiles alone ($(echo $cmd | cut -d' ' -f1))" $cmd "$wrap"
    done
done
check_wait
summary

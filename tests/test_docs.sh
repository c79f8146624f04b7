#!/bin/sh
# tests/test_docs.sh - what the documentation promises, built as written:
# every ```c snippet of README.md is a whole program (the CPU and CBLAS ones
# are compiled warning-free and run; CUDA, OpenCL and MPI ones compiled and
# linked); examples/batched.c builds and runs; a CMake project takes
# gemm::gemm through add_subdirectory and through FetchContent; a program
# builds with pkg-config; the versions agree; `make help` lists every
# .PHONY target. Last line: N passed, N failed[, N skipped].
cd "$(dirname "$0")/.." || exit 2
out=build/docs
rm -rf "$out" && mkdir -p "$out"
WARN="-Wall -Wextra -Wpedantic -Werror"
NVCC=${NVCC:-$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null)}
. tests/checks.sh

# The snippets, one file each: build/docs/readme_N.c
awk -v out="$out" '/^```c$/ {n++; f=sprintf("%s/readme_%d.c", out, n); inside=1; next}
    /^```/ {inside=0; next} inside {print > f}' README.md
for f in "$out"/readme_*.c; do
    name=$(basename "$f" .c)
    first=$(grep -m1 '#include "gemm' "$f" | sed 's/.*"\(gemm[a-z_]*\.c*u*h\)".*/\1/')
    case $first in
    gemm_cuda.cuh)
        if [ -z "$NVCC" ]; then skip "$name (CUDA): nvcc not installed"; continue; fi
        cp "$f" "$out/$name.cu"
        check "README $name (CUDA) compiles and links with nvcc" "$NVCC" -std=c++17 -O0 -I. -arch=sm_80 \
            -Xcompiler -Wall,-Wextra -Werror all-warnings "$out/$name.cu" -o "$out/$name" ;;
    gemm_cl.h)
        if [ ! -e /usr/include/CL/cl.h ]; then skip "$name (OpenCL): no OpenCL headers"; continue; fi
        check "README $name (OpenCL) compiles and links" gcc -std=c99 -O0 -D_DEFAULT_SOURCE $WARN -I. "$f" \
            -o "$out/$name" -lOpenCL -lm -lpthread ;;
    gemm_mpi.h)
        if ! have mpicc; then skip "$name (MPI): mpicc not installed"; continue; fi
        check "README $name (MPI) compiles and links with mpicc" mpicc -std=c99 -O0 $WARN -I. "$f" -o "$out/$name" -lm ;;
    *)
        check "README $name ($first) compiles warning-free and runs" sh -c \
            "gcc -std=c99 -O1 $WARN -I. $f -o $out/$name -lm -lpthread && $out/$name" ;;
    esac
done
n=$(ls "$out"/readme_*.c | wc -l)
check "README has C snippets to check ($n)" test "$n" -ge 7

check "examples/batched.c builds warning-free and runs" sh -c \
    "gcc -std=c99 -O2 $WARN examples/batched.c -o $out/batched -lm -lpthread && $out/batched 8 2000"

version=$(sed -n 's/^#define GEMM_VERSION_STRING "\(.*\)"$/\1/p' gemm.h)
if have cmake; then
    check "CMake: a project takes gemm::gemm through add_subdirectory" sh -c \
        "cmake -S tests/cmake_consumer -B $out/cmake_sub -DGEMM_DIR=$PWD && cmake --build $out/cmake_sub && $out/cmake_sub/consumer"
    check "CMake: ... and through FetchContent" sh -c \
        "cmake -S tests/cmake_consumer -B $out/cmake_fetch -DGEMM_DIR=$PWD -DGEMM_FETCH=ON && cmake --build $out/cmake_fetch && $out/cmake_fetch/consumer"
else skip "cmake not installed"; fi
check "CMakeLists.txt's version is gemm.h's ($version)" grep -q "VERSION $version " CMakeLists.txt
if have pkg-config; then
    check "pkg-config: a program builds with --cflags --libs gemm and runs" sh -c \
        "gcc -std=c99 -O2 $WARN tests/cmake_consumer/main.c \$(PKG_CONFIG_PATH=$PWD pkg-config --cflags --libs gemm) -o $out/pc && $out/pc"
    check "gemm.pc's version is gemm.h's ($version)" test "$(PKG_CONFIG_PATH=$PWD pkg-config --modversion gemm)" = "$version"
else skip "pkg-config not installed"; fi

listed=$(${MAKE:-make} --no-print-directory help | awk '{print $1}' | sort)
phony=$(sed -n 's/^\.PHONY://p' Makefile | tr ' ' '\n' | grep . | sort -u)
unlisted=$(echo "$phony" | while read -r t; do echo "$listed" | grep -qx "$t" || echo "$t"; done | tr '\n' ' ')
check "make help lists every .PHONY target (missing: ${unlisted:-none})" test -z "$unlisted"
summary

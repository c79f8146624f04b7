#!/bin/sh
# tests/test_docs.sh - what the documentation promises, built as written:
# every ```c snippet of README.md is a whole program (the CPU and CBLAS ones
# are compiled warning-free and run; CUDA, OpenCL and MPI ones compiled and
# linked); examples/batched.c builds and runs; a CMake project takes
# gemm::gemm through add_subdirectory and through FetchContent; a program
# builds with pkg-config; `cmake --install` and `make install` put the
# headers, the CMake package and gemm.pc where README says, and projects
# build against the installed package (find_package(gemm 0.5 CONFIG):
# gemm::gemm run, gemm::opencl and gemm::mpi built where OpenCL and MPI are
# installed, gemm::cuda present where nvcc is; other versions and missing
# components refused) and against the installed gemm.pc; the versions
# agree; `make help` lists every .PHONY target.
# Last line: N passed, N failed[, N skipped].
cd "$(dirname "$0")/.." || exit 2
out=build/docs
rm -rf "$out" && mkdir -p "$out"
WARN="-Wall -Wextra -Wpedantic -Werror"
NVCC=${NVCC:-$(command -v nvcc || ls "${CUDA_BIN:-/usr/local/cuda/bin}/nvcc" 2>/dev/null)}
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
        # the first CUDA snippet takes every kernel through ptxas for sm_80
        # (from unoptimised PTX: a third of the time); the others stop at PTX
        cuda_snippets=$((${cuda_snippets:-0} + 1))
        if [ "$cuda_snippets" = 1 ]; then target="-arch=sm_80 -Xcicc -O0"; else target="-gencode arch=compute_80,code=compute_80 -Xcicc -O0"; fi
        # shellcheck disable=SC2086
        check_bg "README $name (CUDA) compiles and links with nvcc" "$NVCC" -std=c++17 -O0 -I. $target \
            -Xcompiler -Wall,-Wextra -Werror all-warnings "$out/$name.cu" -o "$out/$name" ;;
    gemm_cl.h)
        if [ ! -e /usr/include/CL/cl.h ]; then skip "$name (OpenCL): no OpenCL headers"; continue; fi
        check_bg "README $name (OpenCL) compiles and links" gcc -std=c99 -O0 -D_DEFAULT_SOURCE $WARN -I. "$f" \
            -o "$out/$name" -lOpenCL -lm -lpthread ;;
    gemm_mpi.h)
        if ! have mpicc; then skip "$name (MPI): mpicc not installed"; continue; fi
        check_bg "README $name (MPI) compiles and links with mpicc" mpicc -std=c99 -O0 $WARN -I. "$f" -o "$out/$name" -lm ;;
    *)
        check_bg "README $name ($first) compiles warning-free and runs" sh -c \
            "gcc -std=c99 -O1 $WARN -I. $f -o $out/$name -lm -lpthread && $out/$name" ;;
    esac
done
check_bg "examples/batched.c builds warning-free and runs" sh -c \
    "gcc -std=c99 -O1 $WARN examples/batched.c -o $out/batched -lm -lpthread && $out/batched 8 2000"
check_wait
n=$(ls "$out"/readme_*.c | wc -l)
check "README has C snippets to check ($n)" test "$n" -ge 7

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
        "gcc -std=c99 -O0 $WARN tests/cmake_consumer/main.c \$(PKG_CONFIG_PATH=$PWD pkg-config --cflags --libs gemm) -o $out/pc && $out/pc"
    check "gemm.pc's version is gemm.h's ($version)" test "$(PKG_CONFIG_PATH=$PWD pkg-config --modversion gemm)" = "$version"
else skip "pkg-config not installed"; fi

# Installed: cmake --install (into a prefix given at install time) and make install.
FILES="include/gemm.h include/gemm_cpu.h include/gemm_cuda.cuh include/gemm_cl.h include/gemm_mpi.h include/gemm_cblas.h
lib/cmake/gemm/gemmConfig.cmake lib/cmake/gemm/gemmConfigVersion.cmake lib/pkgconfig/gemm.pc"
installed() { # installed PREFIX: these files, nothing else
    for f in $FILES; do test -f "$1/$f" || { echo "missing $1/$f"; return 1; }; done
    test "$(cd "$1" && find . -type f | wc -l)" -eq "$(echo $FILES | wc -w)" || { (cd "$1" && find . -type f); return 1; }
}
consumer() { # consumer PREFIX DIR [cmake options]: configure and build tests/cmake_install_consumer
    p=$1 d=$2; shift 2
    rm -rf "$d" && cmake -S tests/cmake_install_consumer -B "$d" -DCMAKE_PREFIX_PATH="$p" "$@" && cmake --build "$d"
}
consumer_runs() { consumer "$@" && "$2/consumer"; }
refused() { # refused WHY PREFIX DIR [cmake options]: configuring fails, saying WHY
    why=$1; shift
    ! consumer "$@" >"$out/refused.log" 2>&1 && grep -q "$why" "$out/refused.log"
}
prefix_cmake=$PWD/$out/prefix_cmake prefix_make=$PWD/$out/prefix_make
if have cmake; then
    check "cmake --install --prefix P (configured for another prefix)" sh -c \
        "cmake -S . -B $out/cmake_inst -DCMAKE_INSTALL_PREFIX=/elsewhere && cmake --install $out/cmake_inst --prefix $prefix_cmake"
    check "... headers in P/include, gemmConfig*.cmake in P/lib/cmake/gemm, gemm.pc in P/lib/pkgconfig, nothing else" \
        installed "$prefix_cmake"
    check "find_package(gemm 0.5 CONFIG): a project builds on gemm::gemm and runs" \
        consumer_runs "$prefix_cmake" "$out/inst_consumer"
    targets=$(cat "$out/inst_consumer/targets.txt" 2>/dev/null)
    want="gemm::gemm"
    if [ -e /usr/include/CL/cl.h ]; then
        want="$want;gemm::opencl"
        check "... gemm::opencl: an OpenCL program built on it (OpenCL::OpenCL)" test -x "$out/inst_consumer/consumer_cl"
    else skip "gemm::opencl: no OpenCL headers"; fi
    [ -n "$NVCC" ] && want="$want;gemm::cuda"
    if have mpicc; then
        want="$want;gemm::mpi"
        check "... gemm::mpi: an MPI program built on it (MPI::MPI_C)" test -x "$out/inst_consumer/consumer_mpi"
    else skip "gemm::mpi: MPI not installed"; fi
    check "... the targets are those whose runtimes are installed here ($targets)" test "$targets" = "$want"
    check "... find_package(gemm 0.4 CONFIG) refuses 0.5" refused 'requested version "0.4"' \
        "$prefix_cmake" "$out/inst_v" -DGEMM_WANT=0.4
    check "... find_package(gemm 0.6 CONFIG) refuses 0.5" refused 'requested version "0.6"' \
        "$prefix_cmake" "$out/inst_v" -DGEMM_WANT=0.6
    check "... find_package(gemm 0.5...<1.0 CONFIG) takes 0.5" consumer "$prefix_cmake" "$out/inst_v" "-DGEMM_WANT=0.5...<1.0"
    check "... COMPONENTS nosuch: not found" refused "component nosuch unavailable" \
        "$prefix_cmake" "$out/inst_v" -DGEMM_COMPONENTS=nosuch
else skip "cmake not installed: cmake --install"; fi
check "make install PREFIX=P" ${MAKE:-make} --no-print-directory install PREFIX="$prefix_make"
check "... headers in P/include, gemmConfig*.cmake in P/lib/cmake/gemm, gemm.pc in P/lib/pkgconfig, nothing else" \
    installed "$prefix_make"
if have cmake; then
    check "... its CMake package is cmake --install's" diff -r "$prefix_make/lib/cmake" "$prefix_cmake/lib/cmake"
    check "... a project builds on its gemm::gemm and runs" consumer_runs "$prefix_make" "$out/make_consumer"
fi
if have pkg-config; then
    for p in "$prefix_cmake" "$prefix_make"; do
        [ -e "$p/lib/pkgconfig/gemm.pc" ] || continue
        check "installed gemm.pc ($p): its prefix, and --cflags --libs build a program that runs" sh -c \
            "test \"\$(PKG_CONFIG_PATH=$p/lib/pkgconfig pkg-config --variable=prefix gemm)\" = $p &&
             gcc -std=c99 -O0 $WARN tests/cmake_consumer/main.c \$(PKG_CONFIG_PATH=$p/lib/pkgconfig pkg-config --cflags --libs gemm) \
                 -o $out/pc_installed && $out/pc_installed"
    done
fi

listed=$(${MAKE:-make} --no-print-directory help | awk '{print $1}' | sort)
phony=$(sed -n 's/^\.PHONY://p' Makefile | tr ' ' '\n' | grep . | sort -u)
unlisted=$(echo "$phony" | while read -r t; do echo "$listed" | grep -qx "$t" || echo "$t"; done | tr '\n' ' ')
check "make help lists every .PHONY target (missing: ${unlisted:-none})" test -z "$unlisted"
summary

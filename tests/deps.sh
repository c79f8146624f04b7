#!/bin/sh
# tests/deps.sh GROUP... - make sure what a make target needs is installed.
# For each missing tool or library it installs the Debian package with
# apt-get (as root, or through password-less sudo); otherwise it prints the
# exact command, and the suite that needs it reports itself SKIPPED.
# Groups: test (everything `make test` runs), bench (the peers and gnuplot),
# mpi-bench (ScaLAPACK for bench/bench_mpi.c).
# Never fails: a missing toolchain is the test runner's to report.

missing=""
need() { # need PACKAGE CHECK...: PACKAGE is missing unless the check passes
    pkg=$1; shift
    "$@" >/dev/null 2>&1 || missing="$missing $pkg"
}
cmd() { command -v "$1"; }
file() { test -e "$1"; }
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)

for group in "$@"; do
    case $group in
    test)
        need clang cmd clang
        need g++ cmd g++
        need binutils cmd nm
        need python3 cmd python3
        need valgrind cmd valgrind
        need cmake cmd cmake
        need pkgconf cmd pkg-config
        ;;
    bench)
        need libopenblas-dev file "/usr/lib/$multiarch/libopenblas.so"
        need libxsmm-dev file /usr/lib/libxsmm.a
        need gnuplot-nox cmd gnuplot
        need libxsmm-dev file /usr/include/libxsmm.h
        ;;
    cuda)
        need nvidia-cuda-toolkit cmd nvcc
        ;;
    opencl)
        need ocl-icd-opencl-dev file "/usr/lib/$multiarch/libOpenCL.so"
        need opencl-headers file /usr/include/CL/cl.h
        need pocl-opencl-icd file /etc/OpenCL/vendors/pocl.icd
        ;;
    mpi)
        need openmpi-bin cmd mpirun
        need libopenmpi-dev cmd mpicc
        ;;
    blas) # make test-blas: Debian's numpy and reference LAPACK under the preload
        need python3-numpy file /usr/lib/python3/dist-packages/numpy/__init__.py
        need liblapack-dev file "/usr/lib/$multiarch/liblapack.so"
        need libblas-dev file "/usr/lib/$multiarch/libblas.so"
        ;;
    mpi-bench) # the distributed peer of bench/bench_mpi.c
        need libscalapack-openmpi-dev file "/usr/lib/$multiarch/libscalapack-openmpi.so"
        ;;
    cpu)
        need gcc-aarch64-linux-gnu cmd aarch64-linux-gnu-gcc
        need libc6-dev-arm64-cross file /usr/aarch64-linux-gnu/lib/libc.a
        need qemu-user cmd qemu-aarch64
        ;;
    *) echo "deps.sh: unknown group '$group'" >&2 ;;
    esac
done

[ -n "$missing" ] || exit 0
if [ "$(id -u)" = 0 ]; then sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"
else
    echo "deps.sh: missing:$missing. Install them with:"
    echo "    sudo apt-get install -y$missing"
    exit 0
fi
echo "deps.sh: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null 2>&1
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1 ||
    echo "deps.sh: apt-get could not install$missing"
exit 0

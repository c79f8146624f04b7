#!/bin/sh
# tests/deps.sh GROUP... - make sure what a make target needs is installed,
# on Debian (12 and later), group by group.
# Groups: test (everything `make test` runs), bench (the peers and gnuplot),
# plot (gnuplot), cuda (nvcc), opencl, mpi, mpi-bench (ScaLAPACK for
# bench/bench_mpi.c), cpu (the aarch64 cross build and qemu), blas (numpy and
# LAPACK for test-blas).
#
# For each group the packages whose check fails are missing. They are
# installed together only when every one of them has an install candidate
# (`apt-cache policy PKG`), so a group that cannot be installed (the CUDA
# toolkit: not in Debian's main component) never stops the others; such
# groups are named at the end, and the suites that need them report
# themselves SKIPPED (a failure under CI=true). apt-get runs as root, or
# through password-less sudo; otherwise the command is printed.
# DRY_RUN=1 only prints what it would install (no apt-get at all).
# Never fails: a missing toolchain is the test runner's to report.

groups="" # groups with missing packages, in order
need() { # need PACKAGE CHECK...: PACKAGE is missing from $group unless the check passes
    pkg=$1; shift
    "$@" >/dev/null 2>&1 && return
    var=missing_$(echo "$group" | tr -c 'a-z0-9\n' '_')
    eval "have_list=\$$var"
    case " $have_list " in *" $pkg "*) return ;; esac
    [ -n "$have_list" ] || groups="$groups $group"
    eval "$var=\"\$have_list \$pkg\""
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
        need gfortran cmd gfortran # netlib's CBLAS tester (make test-cblas)
        need libblas-dev file "/usr/lib/$multiarch/blas/libblas.a" # ... links Debian's reference BLAS
        ;;
    bench)
        need libopenblas-dev file "/usr/lib/$multiarch/libopenblas.so"
        need libxsmm-dev file /usr/lib/libxsmm.a
        need gnuplot-nox cmd gnuplot
        need libxsmm-dev file /usr/include/libxsmm.h
        need libclblast-dev file "/usr/lib/$multiarch/libclblast.so" # the OpenCL benchmarks' peer
        ;;
    plot) # make plot, make test-plot
        need gnuplot-nox cmd gnuplot
        ;;
    cuda) # the Makefile also finds nvcc in /usr/local/cuda/bin (NVIDIA's packages)
        need nvidia-cuda-toolkit sh -c 'command -v nvcc || test -x "${CUDA_BIN:-/usr/local/cuda/bin}/nvcc"'
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

[ -n "$groups" ] || exit 0
if [ -n "$DRY_RUN" ] && [ "$DRY_RUN" != 0 ]; then sudo="" mode=dry
elif [ "$(id -u)" = 0 ]; then sudo="" mode=install
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n" mode=install
else sudo="" mode=print
fi
export DEBIAN_FRONTEND=noninteractive
[ $mode = install ] && $sudo apt-get update -qq >/dev/null 2>&1

candidate() { # the version apt would install, or nothing
    apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" && $2 != "(none)" {print $2}'
}
not_installed=""
for group in $groups; do
    eval "pkgs=\$missing_$(echo "$group" | tr -c 'a-z0-9\n' '_')"
    none=""
    for pkg in $pkgs; do [ -n "$(candidate "$pkg")" ] || none="$none $pkg"; done
    if [ -n "$none" ]; then
        echo "deps.sh: group $group: no install candidate for$none; not installing$pkgs"
        not_installed="$not_installed $group"
        continue
    fi
    case $mode in
    dry) echo "deps.sh: group $group: would install$pkgs" ;;
    print)
        echo "deps.sh: group $group: missing$pkgs. Install them with:"
        echo "    sudo apt-get install -y$pkgs"
        not_installed="$not_installed $group" ;;
    install)
        echo "deps.sh: group $group: installing$pkgs"
        # shellcheck disable=SC2086
        $sudo apt-get install -y -qq --no-install-recommends $pkgs >/dev/null 2>&1 || {
            echo "deps.sh: group $group: apt-get could not install$pkgs"
            not_installed="$not_installed $group"
        } ;;
    esac
done
if [ -n "$not_installed" ]; then
    echo "deps.sh: groups not installed:$not_installed (the suites that need them report SKIPPED)"
    case " $not_installed " in *" cuda "*)
        echo "deps.sh: nvcc comes from NVIDIA's CUDA repository for Debian (package cuda-toolkit, in /usr/local/cuda/bin," \
            "which the Makefile finds) or Debian's nvidia-cuda-toolkit (component non-free in the apt sources)" ;;
    esac
fi
exit 0

#!/bin/sh
# tests/test_deps.sh - `make test-deps`: tests/deps.sh and the CUDA suites on
# a machine without nvcc (stock Debian 12: the CUDA toolkit is not in main),
# cheaply: nothing is installed or removed.
#   - deps.sh under DRY_RUN=1, with a stand-in apt-cache that gives no
#     candidate for nvidia-cuda-toolkit (and one for every other package)
#     and a PATH that lacks the tools of group test: group cuda is named as
#     not installable, group test is still installed (it would be, with its
#     packages named), apt-get is never run, and deps.sh exits 0;
#   - a PATH without nvcc (every PATH folder holding nvcc replaced by links to
#     the rest of it, /usr/local/cuda/bin left out, CUDA_BIN=/nowhere so that
#     the Makefile does not add it back): make test-cuda-build and make
#     test-mpi-cuda-build report SKIPPED ("0 passed, 0 failed, 1 skipped"),
#     and tests/run.sh over them passes when CI is not true and fails under
#     CI=true.
# Last line: N passed, N failed.
cd "$(dirname "$0")/.." || exit 2
out=build/deps
rm -rf "$out" && mkdir -p "$out"
. tests/checks.sh

# deps.sh with group cuda unavailable.
bin=$out/minbin
mkdir -p "$bin"
for c in sh awk tr id gcc; do
    p=$(command -v $c) && ln -s "$p" "$bin/$c"
done
cat >"$bin/apt-cache" <<'EOF'
#!/bin/sh
# stand-in for `apt-cache policy PKG`: stock Debian 12 has no nvidia-cuda-toolkit
if [ "$2" = nvidia-cuda-toolkit ]; then cand="(none)"; else cand=1.0; fi
printf '%s:\n  Installed: (none)\n  Candidate: %s\n' "$2" "$cand"
EOF
printf '#!/bin/sh\necho "$@" >>%s/apt-get.called\n' "$PWD/$out" >"$bin/apt-get"
chmod +x "$bin/apt-cache" "$bin/apt-get"
PATH=$PWD/$bin DRY_RUN=1 CUDA_BIN=/nowhere "$bin/sh" tests/deps.sh cuda test >"$out/dry.txt" 2>&1
rc=$?
sed 's/^/     /' "$out/dry.txt"
check "deps.sh DRY_RUN=1 cuda test exits 0" test $rc = 0
check "... names group cuda as not installable (no candidate for nvidia-cuda-toolkit)" \
    grep -q "group cuda: no install candidate for nvidia-cuda-toolkit" "$out/dry.txt"
check "... still installs group test after it (would install clang g++ binutils python3 valgrind cmake pkgconf gfortran)" \
    grep -qx "deps.sh: group test: would install clang g++ binutils python3 valgrind cmake pkgconf gfortran" "$out/dry.txt"
check "... lists the groups not installed at the end (cuda), with where nvcc comes from" sh -c \
    "grep -q 'groups not installed: cuda ' $out/dry.txt && grep -q \"NVIDIA's CUDA repository\" $out/dry.txt"
check "... never runs apt-get under DRY_RUN" test ! -e "$out/apt-get.called"

# A PATH without nvcc.
nopath="" i=0 old_ifs=$IFS
IFS=:
for d in $PATH; do
    IFS=$old_ifs
    case $d in "" | /usr/local/cuda*) continue ;; esac
    if [ -e "$d/nvcc" ]; then
        i=$((i + 1))
        mkdir -p "$out/path$i"
        for f in "$d"/* "$d"/.[!.]*; do
            [ -e "$f" ] && [ "${f##*/}" != nvcc ] && ln -s "$f" "$out/path$i/"
        done
        d=$PWD/$out/path$i
    fi
    nopath="${nopath:+$nopath:}$d"
done
IFS=$old_ifs
check "a PATH without nvcc" sh -c "! PATH='$nopath' command -v nvcc"
for suite in test-cuda-build test-mpi-cuda-build; do
    PATH=$nopath CUDA_BIN=/nowhere ${MAKE:-make} --no-print-directory $suite >"$out/$suite.log" 2>&1
    rc=$?
    check "make $suite without nvcc: SKIPPED, exit 0 ($(tail -n 1 "$out/$suite.log"))" sh -c \
        "test $rc = 0 && grep -q '^SKIPPED' $out/$suite.log && tail -n 1 $out/$suite.log | grep -qx '0 passed, 0 failed, 1 skipped'"
done
PATH=$nopath CUDA_BIN=/nowhere CI= RUN_LOG_DIR=$out/logs sh tests/run.sh test-cuda-build test-mpi-cuda-build \
    >"$out/run.log" 2>&1
rc=$?
check "tests/run.sh over them, CI not true: passes with the skips counted ($(tail -n 1 "$out/run.log"))" sh -c \
    "test $rc = 0 && tail -n 1 $out/run.log | grep -qx '0 passed, 0 failed, 2 skipped'"
PATH=$nopath CUDA_BIN=/nowhere CI=true RUN_LOG_DIR=$out/logs sh tests/run.sh test-cuda-build test-mpi-cuda-build \
    >"$out/run_ci.log" 2>&1
rc=$?
check "... under CI=true: fails, the skips counted as failures ($(tail -n 1 "$out/run_ci.log"))" sh -c \
    "test $rc != 0 && tail -n 1 $out/run_ci.log | grep -qx '0 passed, 2 failed, 2 skipped'"
summary

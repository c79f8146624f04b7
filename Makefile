# gemm - make demo, make test, make bench. Everything builds into build/.
# Each backend has its own section below, which appends its suites to
# TEST_SUITES / SANITIZE_SUITES and its Debian packages' group (tests/deps.sh)
# to DEPS_GROUPS; tests/run.sh runs the suites and prints the total.

CC       ?= cc
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Wpedantic -Werror
LDLIBS   := -lm -lpthread
B        := build
HEADERS  := gemm.h gemm_cpu.h gemm_cuda.cuh gemm_cl.h gemm_mpi.h gemm_cblas.h
SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

TEST_SUITES     := test-headers test-parts test-reinclude test-cpu test-build
SANITIZE_SUITES := test-cpu-asan test-cpu-clang-san
DEPS_GROUPS     := test

.PHONY: all demo test test-sanitize ci bench plot clean install headers test-headers test-parts test-reinclude test-cpu test-build test-cpu-asan help

all: $(B)/cpu_basic $(B)/test_cpu ## build the CPU example and the CPU tests

$(B):
	@mkdir -p $(B)

# Every target with a `## what it does` on its line, one per line.
help: ## this list
	@awk -F ':.*## ' '/^[a-z][a-z0-9-]*:.*## /{printf "  %-22s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# ---- demo -----------------------------------------------------------------
demo: $(B)/cpu_basic ## multiply two random 1024x1024 matrices on the CPU, check, print GFLOP/s
	./$(B)/cpu_basic

$(B)/cpu_basic: examples/cpu_basic.c $(HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@ $(LDLIBS)

# ---- the shipped headers ------------------------------------------------------
# gemm.h, gemm_cpu.h, gemm_cuda.cuh, gemm_cl.h, gemm_mpi.h and gemm_cblas.h are
# generated from src/ (src/<header>.in and the parts it includes, followed
# include by include); edit src/, and any target that builds or tests
# regenerates them first: no target ever tests stale code. `make headers
# LINES=1` also writes copies with #line directives into build/dev/, so that
# compiler errors, gdb and the sanitizers point at src/ (compile with
# -Ibuild/dev). test-headers fails when a committed header differs from what
# its committed sources generate; test-parts compiles every part alone.
GENERATED := gemm.h gemm_cpu.h gemm_cuda.cuh gemm_cl.h gemm_mpi.h gemm_cblas.h
SOURCES   := $(shell find src -type f) tuning/gemm_cl.txt tools/amalgamate.py
$(GENERATED) &: $(SOURCES)
	python3 tools/amalgamate.py
	@touch $(GENERATED)

headers: $(GENERATED) ## write the shipped headers from src/ (LINES=1: also build/dev/ with #line directives)
ifneq ($(LINES),)
	python3 tools/amalgamate.py --lines $(B)/dev
endif

test-headers: ## fail when a committed header differs from what src/ generates, or a part is in no header
	python3 tools/amalgamate.py --check

test-parts: ## compile every part under src/ on its own, with its backend's compiler
	sh tests/parts_checks.sh

test-reinclude: $(GENERATED) ## the stb habit (include, then GEMM_IMPLEMENTATION and include again) for every header
	sh tests/reinclude_checks.sh

# ---- tests ----------------------------------------------------------------
# tests/run.sh runs the suites RUN_JOBS (2) at a time, each lane taking the
# next suite when it is free, the longest ones (RUN_FIRST, by their time on
# CI's 2 cores) first; most suites compile one unit at a time, on one core.
# Binaries that several suites use (SHARED_BINS) are built before, so that
# no two suites build one at once. A build that fails there fails again,
# reported, in its suite.
RUN_JOBS    ?= 2
RUN_FIRST   := test-cuda-build test-parts test-cl test-docs test-mpi-asan test-cpu-asan test-cblas-asan \
               test-cpu-builds test-cl-asan test-aarch64 test-cpu-valgrind test-mpi test-cpu-clang-san
SHARED_BINS := $(B)/test_cpu
RUN_SUITES   = @mkdir -p $(B) && $(MAKE) --no-print-directory -j$(RUN_JOBS) -k $(SHARED_BINS) >$(B)/shared_builds.log 2>&1 || true; \
               RUN_JOBS=$(RUN_JOBS) RUN_FIRST="$(RUN_FIRST)" sh tests/run.sh

test: ## install what the tests need (Debian), then run every suite
	@sh tests/deps.sh $(DEPS_GROUPS)
	$(RUN_SUITES) $(TEST_SUITES)

test-sanitize: ## the suites again under AddressSanitizer and UBSan
	@sh tests/deps.sh $(DEPS_GROUPS)
	$(RUN_SUITES) $(SANITIZE_SUITES)

# What .ci/run runs after make demo: make test's and make test-sanitize's
# suites in one run (their lanes shared: neither waits for the other's
# last suite), one summary and total.
ci: ## make test and make test-sanitize in one run (what .ci/run runs): every suite, one total
	@sh tests/deps.sh $(DEPS_GROUPS)
	$(RUN_SUITES) $(TEST_SUITES) $(SANITIZE_SUITES)

test-cpu: $(B)/test_cpu ## the CPU battery for every micro-kernel, threads, memory, options
	./$(B)/test_cpu

test-build: ## the headers as C99 and C++, one or two units, GEMM_STATIC, symbols
	sh tests/build_checks.sh

test-cpu-asan: $(B)/test_cpu_asan ## the CPU battery under the sanitizers
	./$(B)/test_cpu_asan

$(B)/test_cpu: tests/test_cpu.c tests/cpu_edge_tests.h tests/cpu_small_tests.h tests/battery.h tests/battery_complex.h tests/cpu_sbgemm_tests.h $(HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@ $(LDLIBS)

$(B)/test_cpu_asan: tests/test_cpu.c tests/cpu_edge_tests.h tests/cpu_small_tests.h tests/battery.h tests/battery_complex.h tests/cpu_sbgemm_tests.h $(HEADERS) | $(B)
	$(CC) -std=c99 -O1 -g $(SANITIZE) $(WARN) $< -o $@ $(LDLIBS)

# clang's UBSan also checks pointer arithmetic (no pointer formed outside a
# matrix, even with a leading dimension of INT64_MAX); the quick battery.
test-cpu-clang-san: ## the quick CPU battery under clang's ASan and UBSan (pointer overflow too)
	@if command -v clang >/dev/null 2>&1; then \
	    clang -std=c99 -O1 -g $(SANITIZE) $(WARN) tests/test_cpu.c -o $(B)/test_cpu_clang_san $(LDLIBS) && \
	    ./$(B)/test_cpu_clang_san --quick; \
	else echo "SKIPPED clang is not installed"; echo "0 passed, 0 failed, 1 skipped"; fi

# ---- benchmarks -------------------------------------------------------------
# The peers are linked only here. OpenBLAS runs its best kernel for the CPU
# (Debian's 0.3.21 mistakes newer Xeons for Prescott): see bench/bench_cpu.c.
OPENBLAS_LIB := $(firstword $(wildcard /usr/lib/*/libopenblas.so /usr/lib/libopenblas.so /usr/local/lib/libopenblas.so))
ifneq ($(OPENBLAS_LIB),)
BENCH_CPU_PEER := -DBENCH_HAVE_OPENBLAS $(OPENBLAS_LIB)
endif

# Every benchmark writes its CSV into build/ (BENCH_OUT); BENCH_UPDATE=1
# writes the tracked ones in bench/ instead. `make bench` appends a line
# "# machine, CPUs, date, commit" that `make plot` puts on the figure.
BENCH_OUT  := $(if $(filter 1,$(BENCH_UPDATE)),bench,$(B))
BENCH_META  = printf '\043 %s, %s CPUs, %s, commit %s\n' "$$(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo | head -n 1)" \
              "$$(nproc)" "$$(date -u +%Y-%m-%d)" "$$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"

bench: ## gemm beside OpenBLAS on the CPU; writes build/results_cpu.csv (BENCH_UPDATE=1: bench/)
	@sh tests/deps.sh bench
	@$(MAKE) --no-print-directory -B $(B)/bench_cpu
	@mkdir -p $(BENCH_OUT)
	./$(B)/bench_cpu --csv $(BENCH_OUT)/results_cpu.csv $(BENCH_ARGS)
	@$(BENCH_META) >>$(BENCH_OUT)/results_cpu.csv

$(B)/bench_cpu: bench/bench_cpu.c tests/battery.h $(HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@ $(BENCH_CPU_PEER) $(LDLIBS)

# The figures README shows, each naming machine, date and commit:
# bench/cpu.png from bench/results_cpu.csv (CPU_CSV=build/results_cpu.csv
# plots `make bench`'s run; PLOT_DIR=build puts the images there) and
# bench/cuda.png from bench/results_cuda_gpus.csv, which
# tools/cuda_results_csv.py derives from bench/RESULTS.md's CUDA tables.
PLOT_DIR ?= bench
plot: ## bench/cpu.png, bench/cuda.png and bench/gpus.png from the CSVs in bench/ (gnuplot)
	@sh tests/deps.sh plot
	CPU_CSV=$(or $(CPU_CSV),bench/results_cpu.csv) sh bench/plot.sh $(PLOT_DIR)

# The headers, the CMake package and gemm.pc, as `cmake --install` puts them
# (from the same templates, cmake/*.in): PREFIX/include,
# PREFIX/lib/cmake/gemm, PREFIX/lib/pkgconfig. DESTDIR stages them.
PREFIX  ?= /usr/local
VERSION := $(shell sed -n 's/^\#define GEMM_VERSION_STRING "\(.*\)"$$/\1/p' src/core/api.h)
install: $(GENERATED) ## install the headers, the CMake package and gemm.pc under PREFIX (/usr/local)
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/cmake/gemm $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 $(GENERATED) $(DESTDIR)$(PREFIX)/include/
	sed -e 's|@GEMM_CONFIG_TO_INCLUDE@|../../../include|' cmake/gemmConfig.cmake.in >$(DESTDIR)$(PREFIX)/lib/cmake/gemm/gemmConfig.cmake
	sed -e 's|@GEMM_VERSION@|$(VERSION)|; s|@GEMM_VERSION_MAJOR@|$(word 1,$(subst ., ,$(VERSION)))|; s|@GEMM_VERSION_MINOR@|$(word 2,$(subst ., ,$(VERSION)))|' \
	    cmake/gemmConfigVersion.cmake.in >$(DESTDIR)$(PREFIX)/lib/cmake/gemm/gemmConfigVersion.cmake
	sed -e 's|@GEMM_PREFIX@|$(PREFIX)|; s|@GEMM_INCLUDEDIR@|include|; s|@GEMM_VERSION@|$(VERSION)|' cmake/gemm.pc.in \
	    >$(DESTDIR)$(PREFIX)/lib/pkgconfig/gemm.pc
	chmod 644 $(DESTDIR)$(PREFIX)/lib/cmake/gemm/*.cmake $(DESTDIR)$(PREFIX)/lib/pkgconfig/gemm.pc

clean: ## remove build/
	rm -rf $(B)

# ---- backends: each section below belongs to one backend --------------------

# ---- cpu --------------------------------------------------------------------
# The CPU backend's extra suites: the aarch64 build (NEON) under qemu, other
# builds and emulated x86 CPUs, valgrind's leak check of the thread pool;
# the CPU ladder from the textbook loops to ours (naive -> ours), `make bench-ladder`; the per-call
# cost of small products beside a plain loop, OpenBLAS and libxsmm,
# `make bench-tiny` (libxsmm: Debian's libxsmm-dev, a static library).
TEST_SUITES += test-aarch64 test-cpu-builds test-cpu-valgrind
DEPS_GROUPS += cpu
.PHONY: test-aarch64 test-cpu-builds test-cpu-valgrind bench-ladder bench-tiny bench-sbgemm cpu-host cpu-small-bin test-cpu-clang-san

LIBXSMM_LIB := $(firstword $(wildcard /usr/lib/libxsmm.a /usr/lib/*/libxsmm.a /usr/local/lib/libxsmm.a))
ifneq ($(LIBXSMM_LIB),)
BENCH_TINY_PEER := -DBENCH_HAVE_LIBXSMM $(LIBXSMM_LIB) -ldl
endif

bench-tiny: ## per-call time of tiny products beside a plain loop, OpenBLAS and libxsmm
	@sh tests/deps.sh bench
	@$(MAKE) --no-print-directory -B $(B)/bench_tiny
	./$(B)/bench_tiny $(BENCH_ARGS)

# libxsmm's BLAS fallback (transposed cases) links OpenBLAS's dgemm_.
$(B)/bench_tiny: bench/bench_tiny.c tests/battery.h $(HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@ $(BENCH_TINY_PEER) $(BENCH_CPU_PEER) $(LDLIBS)

# The peer: OpenBLAS built with BUILD_BFLOAT16=1 (Debian's 0.3.21 has no
# cblas_sbgemm), e.g. into .peers/openblas-bf16 as bench/RESULTS.md says.
SBGEMM_PEER ?= $(wildcard .peers/openblas-bf16/lib/libopenblas.so)
bench-sbgemm: ## gemm_cpu_sbgemm (bf16) beside OpenBLAS cblas_sbgemm (SBGEMM_PEER=path) and the widened sgemm
	@$(MAKE) --no-print-directory -B $(B)/bench_sbgemm
	./$(B)/bench_sbgemm $(if $(SBGEMM_PEER),--peer $(SBGEMM_PEER)) $(BENCH_ARGS)

$(B)/bench_sbgemm: bench/bench_sbgemm.c tests/battery.h $(HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@ -ldl $(LDLIBS)

$(B)/cpu_tune: bench/cpu_tune.c tests/battery.h $(HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@ $(BENCH_CPU_PEER) $(LDLIBS)

# The binaries bench/gpu/cpu_host.sh runs on the GPU machines' host CPU,
# in .gpu/cpu (ignored by git; carry it): plain -O2, no -march (that CPU is
# another one).
CPU_HOST_BIN := .gpu/cpu
cpu-host: ## build the binaries bench/gpu/cpu_host.sh carries to the GPU machines' host CPU (.gpu/cpu)
	@sh tests/deps.sh bench
	@mkdir -p $(CPU_HOST_BIN)
	$(CC) -std=c99 -O2 $(WARN) tests/test_cpu.c -o $(CPU_HOST_BIN)/test_cpu $(LDLIBS)
	$(CC) -std=c99 -O2 $(WARN) bench/bench_cpu.c -o $(CPU_HOST_BIN)/bench_cpu $(BENCH_CPU_PEER) $(LDLIBS)
	$(CC) -std=c99 -O2 $(WARN) bench/bench_tiny.c -o $(CPU_HOST_BIN)/bench_tiny $(BENCH_TINY_PEER) $(BENCH_CPU_PEER) $(LDLIBS)
	$(CC) -std=c99 -O2 $(WARN) bench/cpu_tune.c -o $(CPU_HOST_BIN)/cpu_tune $(BENCH_CPU_PEER) $(LDLIBS)
	@git rev-parse HEAD >$(CPU_HOST_BIN)/commit.txt 2>/dev/null || true
	@echo "carry $(CPU_HOST_BIN); on the device, from the repository root: sh bench/gpu/cpu_host.sh"

# The binaries bench/gpu/cpu_small.sh runs on the GPU machines' host CPU
# (small products and small batches at 1 thread), in .gpu/cpu_small
# (CPU_SMALL_BIN=... elsewhere): plain -O2, no -march, as cpu-host.
CPU_SMALL_BIN := .gpu/cpu_small
cpu-small-bin: ## build the binaries bench/gpu/cpu_small.sh carries to the GPU machines' host CPU (.gpu/cpu_small)
	@sh tests/deps.sh bench
	@mkdir -p $(CPU_SMALL_BIN)
	$(CC) -std=c99 -O2 $(WARN) tests/test_cpu.c -o $(CPU_SMALL_BIN)/test_cpu $(LDLIBS)
	$(CC) -std=c99 -O2 $(WARN) tests/test_batch.c -o $(CPU_SMALL_BIN)/test_batch $(LDLIBS)
	$(CC) -std=c99 -O2 $(WARN) bench/bench_tiny.c -o $(CPU_SMALL_BIN)/bench_tiny $(BENCH_TINY_PEER) $(BENCH_CPU_PEER) $(LDLIBS)
	$(CC) -std=c99 -O2 $(WARN) bench/bench_batch.c -o $(CPU_SMALL_BIN)/bench_batch -ldl $(LDLIBS)
	@git rev-parse HEAD >$(CPU_SMALL_BIN)/commit.txt 2>/dev/null || true
	@echo "carry $(CPU_SMALL_BIN); on the device, from the repository root: sh bench/gpu/cpu_small.sh"

test-aarch64: ## the CPU backend built for aarch64, run under qemu (NEON, scalar)
	sh tests/test_aarch64.sh

# gemm_config() field by field, and where the default thread count comes
# from (GEMM_NUM_THREADS, OMP_NUM_THREADS, the affinity mask; invalid values
# ignored and named), in child processes and several builds.
TEST_SUITES += test-cpu-config
.PHONY: test-cpu-config
test-cpu-config: ## gemm_config(): version, backends, kernel and why, threads and their source, blocks
	sh tests/test_config.sh

test-cpu-builds: $(B)/test_cpu ## the battery with GEMM_NO_SIMD, GEMM_NO_THREADS, clang, g++, nvcc, emulated CPUs
	sh tests/cpu_builds.sh

# --no-exit-test: under valgrind, which runs a process's threads one at a time,
# the exit-while-busy child does not finish exiting within minutes (it exits at
# once natively, on one core too); make test-cpu runs that test.
test-cpu-valgrind: $(B)/test_cpu ## the smoke battery (every path, few cases) under valgrind's leak check
	@if command -v valgrind >/dev/null 2>&1; then \
	    valgrind -q --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all \
	        --error-exitcode=3 ./$(B)/test_cpu --smoke --no-exit-test; \
	else echo "SKIPPED valgrind is not installed"; echo "0 passed, 0 failed, 1 skipped"; fi

bench-ladder: $(B)/ladder ## the CPU ladder: naive ijk ... gemm
	./$(B)/ladder $(LADDER_ARGS)

# -O3: the textbook rungs get the compiler's best auto-vectorisation.
$(B)/ladder: bench/ladder.c $(HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) -O3 $(WARN) $< -o $@ $(LDLIBS)

# ---- cuda -------------------------------------------------------------------
# test-cuda and bench-cuda need a GPU; test-cuda-build is
# what CI (nvcc, no GPU) runs: every CUDA program compiles warning-free.
NVCC       ?= nvcc
# The CUDA toolkit's usual home (NVIDIA's packages), for shells whose PATH
# lacks it (the MPI section's CUDA build finds nvcc the same way);
# CUDA_BIN=/nowhere keeps it out (tests/test_deps.sh hides nvcc so).
CUDA_BIN   ?= /usr/local/cuda/bin
ifneq ($(wildcard $(CUDA_BIN)/nvcc),)
export PATH := $(PATH):$(CUDA_BIN)
endif
CUDA_ARCH  := -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_90,code=compute_90
NVCC_FLAGS := -std=c++17 -O3 $(CUDA_ARCH) -Xcompiler -Wall,-Wextra -Werror all-warnings
CUDA_DEPS  := gemm_cuda.cuh $(HEADERS)
TEST_SUITES += test-cuda-build
DEPS_GROUPS += cuda
.PHONY: test-cuda test-cuda-build gpu-bin-verify bench-cuda-ozaki gpu-bin-ozaki bench-cuda demo-cuda bench-cuda-host bench-cuda-devices gpu-bin-cuda-host bench-cuda-batch gpu-bin-cuda-batch bench-cuda-complex gpu-bin-cuda-complex

test-cuda-build: ## every CUDA program compiles warning-free (nvcc, no GPU needed)
	NVCC=$(NVCC) sh tests/cuda_build_checks.sh

test-cuda: $(B)/test_cuda $(B)/test_cuda_tc $(B)/test_cuda_host $(B)/test_cuda_batch $(B)/test_cuda_complex $(B)/test_cuda_verify $(B)/test_cuda_ozaki ## on a GPU: the CUDA batteries, then under compute-sanitizer
	sh tests/cuda_run.sh $(B)/test_cuda $(B)/test_cuda_tc $(B)/test_cuda_host $(B)/test_cuda_batch $(B)/test_cuda_complex $(B)/test_cuda_verify $(B)/test_cuda_ozaki

bench-cuda: $(B)/bench_cuda ## on a GPU: gemm beside cuBLAS; writes build/results_cuda.csv (BENCH_UPDATE=1: bench/)
	./$(B)/bench_cuda --csv $(BENCH_OUT)/results_cuda.csv --prec f32,f64,tf32,f16,bf16,acc $(BENCH_ARGS)

demo-cuda: $(B)/cuda_basic ## on a GPU: the CUDA example
	./$(B)/cuda_basic

$(B)/test_cuda: tests/test_cuda.cu tests/battery.h $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@

$(B)/test_cuda_tc: tests/test_cuda_tc.cu tests/battery.h $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@

# Verified products on the GPU (options.verify): injected faults, the
# battery verified; `make gpu-bin-verify` builds it and bench_cuda_verify
# for sm_90a into .gpu/verify for bench/gpu/verify.sh.
# The int8 product and the emulated fp64 / fp32-accurate products
# (bench/gpu/ozaki.sh runs both binaries on a GPU machine).
$(B)/test_cuda_ozaki: tests/test_cuda_ozaki.cu tests/battery.h $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@

$(B)/bench_cuda_ozaki: bench/bench_cuda_ozaki.cu $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@ -lcublas

bench-cuda-ozaki: $(B)/bench_cuda_ozaki ## on a GPU: emulated fp64 / fp32 and int8 beside cublasDgemm, cublasSgemm, cublasGemmEx
	./$(B)/bench_cuda_ozaki $(BENCH_ARGS)

gpu-bin-ozaki: $(B)/test_cuda_ozaki $(B)/bench_cuda_ozaki ## build bench/gpu/ozaki.sh's binaries into .gpu/ozaki
	mkdir -p .gpu/ozaki && cp $(B)/test_cuda_ozaki $(B)/bench_cuda_ozaki .gpu/ozaki/

$(B)/test_cuda_verify: tests/test_cuda_verify.cu tests/verify_faults.h tests/battery.h $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@

$(B)/bench_cuda_verify: bench/bench_cuda_verify.cu $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@

gpu-bin-verify: $(B)/test_cuda_verify $(B)/bench_cuda_verify ## build bench/gpu/verify.sh's binaries into .gpu/verify
	mkdir -p .gpu/verify && cp $(B)/test_cuda_verify $(B)/bench_cuda_verify .gpu/verify/

# The batches (gemm_cuda_?gemm_strided_batched, _batched, the _mixed forms):
# their tests, their benchmark beside cublas?gemmStridedBatched, and
# `make gpu-bin-cuda-batch`, which builds both for sm_90a into .gpu/cbatch
# for bench/gpu/cuda_batch.sh on a GPU machine (carry .gpu/cbatch).
CUDA_BATCH_BIN := .gpu/cbatch
$(B)/test_cuda_batch: tests/test_cuda_batch.cu tests/battery_batch.h tests/battery.h $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@

$(B)/bench_cuda_batch: bench/bench_cuda_batch.cu $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@ -lcublas

bench-cuda-batch: $(B)/bench_cuda_batch ## on a GPU: the strided batches beside cuBLAS's; writes build/results_cuda_batch.csv (BENCH_UPDATE=1: bench/)
	./$(B)/bench_cuda_batch --csv $(BENCH_OUT)/results_cuda_batch.csv $(BENCH_ARGS)

gpu-bin-cuda-batch: tests/test_cuda_batch.cu bench/bench_cuda_batch.cu $(CUDA_DEPS) ## build bench/gpu/cuda_batch.sh's binaries (sm_90a) into .gpu/cbatch
	@mkdir -p $(CUDA_BATCH_BIN)
	$(NVCC) $(subst $(CUDA_ARCH),$(CUDA_HOST_ARCH),$(NVCC_FLAGS)) tests/test_cuda_batch.cu -o $(CUDA_BATCH_BIN)/test_cuda_batch
	$(NVCC) $(subst $(CUDA_ARCH),$(CUDA_HOST_ARCH),$(NVCC_FLAGS)) bench/bench_cuda_batch.cu -o $(CUDA_BATCH_BIN)/bench_cuda_batch -lcublas

# The complex calls (gemm_cuda_cgemm, _zgemm, _host, batches): their tests,
# their benchmark beside cublasCgemm / cublasZgemm and the strided batches,
# and `make gpu-bin-cuda-complex`, which builds both for sm_90a into
# .gpu/cucplx for bench/gpu/cuda_complex.sh on a GPU machine.
CUDA_COMPLEX_BIN := .gpu/cucplx
$(B)/test_cuda_complex: tests/test_cuda_complex.cu $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@

$(B)/bench_cuda_complex: bench/bench_cuda_complex.cu $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@ -lcublas

bench-cuda-complex: $(B)/bench_cuda_complex ## on a GPU: the complex calls beside cuBLAS's (every op pair, n = 2048..8192, strided batches)
	./$(B)/bench_cuda_complex --csv $(BENCH_OUT)/results_cuda_complex.csv $(BENCH_ARGS)

gpu-bin-cuda-complex: tests/test_cuda_complex.cu bench/bench_cuda_complex.cu $(CUDA_DEPS) ## build bench/gpu/cuda_complex.sh's binaries (sm_90a) into .gpu/cucplx
	@mkdir -p $(CUDA_COMPLEX_BIN)
	$(NVCC) $(subst -O3,-O2,$(subst $(CUDA_ARCH),$(CUDA_HOST_ARCH),$(NVCC_FLAGS))) tests/test_cuda_complex.cu -o $(CUDA_COMPLEX_BIN)/test_cuda_complex
	$(NVCC) $(subst -O3,-O2,$(subst $(CUDA_ARCH),$(CUDA_HOST_ARCH),$(NVCC_FLAGS))) bench/bench_cuda_complex.cu -o $(CUDA_COMPLEX_BIN)/bench_cuda_complex -lcublas

# The host-pointer path (pipeline, out of core): its tests (the plans and
# the pipeline on a CPU stand-in need no GPU: `build/test_cuda_host --plans`),
# its benchmark beside copy-then-cuBLAS and cuBLASXt, and the two binaries
# that bench/gpu/cuda_host.sh takes to a GPU machine: `make gpu-bin-cuda-host`
# builds them here for sm_90a (H100, H200) into .gpu/host; carry .gpu/host.
CUDA_HOST_BIN := .gpu/host
CUDA_HOST_ARCH := -gencode arch=compute_90a,code=sm_90a
$(B)/test_cuda_host: tests/test_cuda_host.cu tests/battery.h $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@

$(B)/bench_cuda_host: bench/bench_cuda_host.cu bench/host_matrices.h tests/battery.h $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@ -lcublas

$(CUDA_HOST_BIN)/test_cuda_host: tests/test_cuda_host.cu tests/battery.h $(CUDA_DEPS)
	@mkdir -p $(CUDA_HOST_BIN)
	$(NVCC) $(subst $(CUDA_ARCH),$(CUDA_HOST_ARCH),$(NVCC_FLAGS)) $< -o $@

$(CUDA_HOST_BIN)/bench_cuda_host: bench/bench_cuda_host.cu bench/host_matrices.h tests/battery.h $(CUDA_DEPS)
	@mkdir -p $(CUDA_HOST_BIN)
	$(NVCC) $(subst $(CUDA_ARCH),$(CUDA_HOST_ARCH),$(NVCC_FLAGS)) $< -o $@ -lcublas

# Several GPUs: bench/bench_cuda_devices.cu, the host call on D GPUs beside
# one GPU and cuBLASXt on the same D (make bench-cuda-devices on a machine
# with several GPUs; bench/gpu/cuda_devices.sh runs it from .gpu/host).
$(B)/bench_cuda_devices: bench/bench_cuda_devices.cu bench/host_matrices.h tests/battery.h $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@ -lcublas

$(CUDA_HOST_BIN)/bench_cuda_devices: bench/bench_cuda_devices.cu bench/host_matrices.h tests/battery.h $(CUDA_DEPS)
	@mkdir -p $(CUDA_HOST_BIN)
	$(NVCC) $(subst $(CUDA_ARCH),$(CUDA_HOST_ARCH),$(NVCC_FLAGS)) $< -o $@ -lcublas

bench-cuda-devices: $(B)/bench_cuda_devices ## on several GPUs: the host call on all of them beside one GPU and cuBLASXt
	./$(B)/bench_cuda_devices $(BENCH_ARGS)

gpu-bin-cuda-host: $(CUDA_HOST_BIN)/test_cuda_host $(CUDA_HOST_BIN)/bench_cuda_host $(CUDA_HOST_BIN)/bench_cuda_devices ## build bench/gpu/cuda_host.sh's binaries (sm_90a) into .gpu/host

bench-cuda-host: $(B)/bench_cuda_host ## on a GPU: the host-pointer path beside copy-then-cuBLAS and cuBLASXt; writes build/results_cuda_host.csv (BENCH_UPDATE=1: bench/)
	./$(B)/bench_cuda_host --small 32,64,128,256,512 --csv $(BENCH_OUT)/results_cuda_host.csv $(BENCH_ARGS)

$(B)/bench_cuda: bench/bench_cuda.cu tests/battery.h $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@ -lcublas

$(B)/cuda_basic: examples/cuda_basic.cu $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@

# Research (bench/research/exact/README.md): candidate exact
# fp32/fp64 kernels beside cuBLAS and the shipped ones (`base`: the automatic
# choice, `base.vN`: each shipped configuration). Builds here (no GPU
# needed) for sm_90a only; the binary carries cudart statically and needs
# libcublas.so.13 where it runs. ptxas's report per unit: build/rx/*.ptxas.txt.
# Not in CI (about 2.5 minutes of compiling); test-cuda-build runs its host
# model of the index maps, the shipped TMA DMMA kernel's included.
RX_DIR   := bench/research/exact
RX_UNITS := sweep cands_f32 cands_f64 baseline
RX_FLAGS := -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -Xcompiler -Wall,-Wextra -lineinfo
.PHONY: bench-cuda-research-exact
bench-cuda-research-exact: $(B)/rx/model.ok $(B)/sweep_exact ## build the research sweep of exact CUDA kernels (sm_90a)

# host-only checks of the fp64 kernels' index maps (model.cu), run at build time
$(B)/rx/model.ok: $(RX_DIR)/model.cu $(wildcard $(RX_DIR)/*.cuh) src/cuda/device/dmma_frag.cuh | $(B)
	@mkdir -p $(B)/rx
	$(NVCC) -std=c++17 -O1 $< -o $(B)/rx/model
	./$(B)/rx/model | tail -n 1
	@touch $@

$(B)/rx/%.o: $(RX_DIR)/%.cu $(wildcard $(RX_DIR)/*.cuh $(RX_DIR)/*.h) $(CUDA_DEPS) | $(B)
	@mkdir -p $(B)/rx
	$(NVCC) $(RX_FLAGS) -Xptxas -v -c $< -o $@ 2>$(B)/rx/$*.ptxas.txt || { cat $(B)/rx/$*.ptxas.txt; exit 1; }
	@grep -i -B1 "warning\|error" $(B)/rx/$*.ptxas.txt || true

$(B)/sweep_exact: $(RX_UNITS:%=$(B)/rx/%.o)
	$(NVCC) $(RX_FLAGS) $^ -o $@ -lcublas

# ---- opencl -------------------------------------------------------------------
# gemm_cl.h on PoCL (CI) or any OpenCL device (GEMM_CL_DEVICE=...). CLBlast,
# the peer, is linked only by the benchmark, and only where it is installed.
CL_HEADERS := gemm_cl.h $(HEADERS)
CL_LIBS    := -lOpenCL $(LDLIBS)
TEST_SUITES += test-cl
SANITIZE_SUITES += test-cl-asan
DEPS_GROUPS += opencl
CLBLAST_LIB := $(firstword $(wildcard build/peer/libclblast.so.1 /usr/lib/*/libclblast.so /usr/lib/libclblast.so))
ifneq ($(CLBLAST_LIB),)
BENCH_CL_PEER := -DBENCH_HAVE_CLBLAST $(CLBLAST_LIB) -Wl,-rpath,$(abspath $(dir $(CLBLAST_LIB)))
endif

.PHONY: test-cl test-cl-asan bench-cl bench-cl-complex bench-cl-batch tune-cl example-cl example-cl-batch gpu-bin-cl gpu-bin-cl-batch

test-cl: ## OpenCL (PoCL in CI): the battery, caches, events, the tuner
	sh tests/test_cl.sh

test-cl-asan: ## the OpenCL tests under the sanitizers
	sh tests/test_cl.sh asan

# (test_cl_safety_asan at -O0: its run is PoCL's time, 17 s of CPU at either
# level, and its build 21 s instead of 54; the batteries' runs need -O1)
$(B)/test_cl_asan $(B)/test_cl_safety_asan $(B)/test_cl_batch_asan: $(B)/%_asan: tests/%.c tests/battery.h tests/battery_batch.h $(CL_HEADERS) | $(B)
	$(CC) -std=c99 -D_DEFAULT_SOURCE $(if $(filter %safety_asan,$@),-O0,-O1) -g $(SANITIZE) $(WARN) $< -o $@ $(CL_LIBS)

$(B)/test_cl $(B)/test_cl_safety $(B)/test_cl_batch: $(B)/%: tests/%.c tests/battery.h tests/battery_batch.h tests/verify_faults.h $(CL_HEADERS) | $(B)
	$(CC) -std=c99 -D_DEFAULT_SOURCE $(CFLAGS) $(WARN) $< -o $@ $(CL_LIBS)

example-cl: $(B)/opencl_basic ## the OpenCL example: prints the device and kernel
	./$(B)/opencl_basic

$(B)/opencl_basic: examples/opencl_basic.c $(CL_HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@ $(CL_LIBS)

example-cl-batch: $(B)/opencl_batched ## the OpenCL batch example: 10,000 products of 16^3, both forms, timed
	./$(B)/opencl_batched

$(B)/opencl_batched: examples/opencl_batched.c $(CL_HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@ $(CL_LIBS)

bench-cl: ## gemm_cl beside CLBlast; writes build/results_cl.csv (BENCH_UPDATE=1: bench/)
	@sh tests/deps.sh opencl
	@$(MAKE) --no-print-directory -B $(B)/bench_cl
	./$(B)/bench_cl --csv $(BENCH_OUT)/results_cl.csv $(BENCH_ARGS)

$(B)/bench_cl: bench/bench_cl.c tests/battery.h $(CL_HEADERS) | $(B)
	$(CC) -std=c99 -D_DEFAULT_SOURCE $(CFLAGS) $(WARN) $< -o $@ $(BENCH_CL_PEER) $(CL_LIBS)

bench-cl-complex: ## gemm_cl_cgemm / zgemm beside CLBlast's Cgemm / Zgemm (BENCH_ARGS: --sizes, --ops, --reps)
	@sh tests/deps.sh opencl
	@$(MAKE) --no-print-directory -B $(B)/bench_cl_complex
	./$(B)/bench_cl_complex $(BENCH_ARGS)

$(B)/bench_cl_complex: bench/bench_cl_complex.c tests/battery.h $(CL_HEADERS) | $(B)
	$(CC) -std=c99 -D_DEFAULT_SOURCE $(CFLAGS) $(WARN) $< -o $@ $(BENCH_CL_PEER) $(CL_LIBS)

bench-cl-batch: ## gemm_cl's strided batches beside CLBlast's GemmStridedBatched; writes build/results_cl_batch.csv (BENCH_UPDATE=1: bench/)
	@sh tests/deps.sh opencl
	@$(MAKE) --no-print-directory -B $(B)/bench_cl_batch
	./$(B)/bench_cl_batch --csv $(BENCH_OUT)/results_cl_batch.csv $(BENCH_ARGS)

$(B)/bench_cl_batch: bench/bench_cl_batch.c tests/battery.h $(CL_HEADERS) | $(B)
	$(CC) -std=c99 -D_DEFAULT_SOURCE $(CFLAGS) $(WARN) $< -o $@ $(BENCH_CL_PEER) $(CL_LIBS)

# Searches the parameter space on the device and writes the winners to
# TUNE_OUT (build/gemm_cl_tuning.txt), never to the tracked tuning/gemm_cl.txt:
# use the file with GEMM_CL_TUNING_FILE, or paste its lines into
# tuning/gemm_cl.txt and `make headers` to build them into gemm_cl.h.
TUNE_OUT ?= $(B)/gemm_cl_tuning.txt
tune-cl: $(B)/tune_cl ## search the OpenCL parameters on this device; writes build/gemm_cl_tuning.txt (TUNE_OUT)
	./$(B)/tune_cl --output $(TUNE_OUT) $(TUNE_ARGS)

$(B)/tune_cl: bench/tune_cl.c $(CL_HEADERS) | $(B)
	$(CC) -std=c99 -D_DEFAULT_SOURCE $(CFLAGS) $(WARN) $< -o $@ $(CL_LIBS)

gpu-bin-cl: ## build bench/gpu/opencl.sh's binaries (and CLBlast from .peers/deb) into .gpu/cl
	bash bench/gpu/opencl.sh build

gpu-bin-cl-batch: ## build bench/gpu/opencl_batch.sh's binaries (and CLBlast from .peers/deb) into .gpu/cl
	bash bench/gpu/opencl_batch.sh build

# ---- mpi
# gemm_mpi.h: the battery under mpirun at P = 1, 2, 3, 4, 6, 8, 9 (tests/test_mpi.sh
# builds with mpicc and bounds each run with a timeout), the same under the
# sanitizers, and the CUDA build of gemm_mpi.h (nvcc + MPI flags, compile only).
TEST_SUITES     += test-mpi test-mpi-cuda-build
SANITIZE_SUITES += test-mpi-asan
DEPS_GROUPS     += mpi
.PHONY: test-mpi test-mpi-asan test-mpi-cuda-build bench-mpi mpi-demo mpi-gpu-bin

test-mpi: ## the MPI battery under mpirun at P = 1..9
	sh tests/test_mpi.sh

# (every host copy on 3 threads here, to cover the parallel packing; staging
# chunks of the library's own size)
test-mpi-asan: ## the MPI tests under the sanitizers
	ASAN_OPTIONS=detect_leaks=0 GEMM_MPI_TEST_RANKS="1 2" GEMM_MPI_TEST_COMPLEX_RANKS="1 2" \
	MPI_TEST_BIN=$(B)/test_mpi_asan GEMM_NUM_THREADS=3 MPI_TEST_INIT_FLAGS="-O0 -g $(SANITIZE)" \
	GEMM_MPI_TEST_COPY_PARALLEL_BYTES=1 GEMM_MPI_TEST_STAGE_BYTES=0 \
	MPI_TEST_FLAGS="-O1 -g $(SANITIZE)" sh tests/test_mpi.sh

test-mpi-cuda-build: ## the CUDA build of gemm_mpi.h compiles
	sh tests/test_mpi_cuda_build.sh

mpi-demo: ## Cannon on 4 MPI ranks
	@mkdir -p $(B)
	mpicc -std=c99 $(CFLAGS) $(WARN) examples/mpi_cannon.c -o $(B)/mpi_cannon -lm
	mpicc -std=c99 $(CFLAGS) $(WARN) examples/mpi_plan.c -o $(B)/mpi_plan -lm
	mpirun --oversubscribe --allow-run-as-root -np 4 $(B)/mpi_cannon
	mpirun --oversubscribe --allow-run-as-root -np 4 $(B)/mpi_plan

# Strong scaling (bench/bench_mpi.sh): CPU ranks here or on the GPU machine,
# GPUs when nvcc and a GPU are there. BENCH_MPI_ARGS are passed on.
bench-mpi: ## strong scaling of gemm_mpi.h beside ScaLAPACK; writes build/results_mpi.csv (BENCH_UPDATE=1: bench/)
	@sh tests/deps.sh mpi mpi-bench
	BENCH_MPI_OUT=$(BENCH_OUT) sh bench/bench_mpi.sh $(BENCH_MPI_ARGS)

# The binaries bench/gpu/mpi_host.sh runs on the GPU machines, built here
# (nvcc and libscalapack-openmpi-dev): carry .gpu/bin along.
mpi-gpu-bin: ## the binaries bench/gpu/mpi_host.sh carries to a GPU machine (.gpu/bin)
	@sh tests/deps.sh mpi mpi-bench
	bash bench/gpu/mpi_host.sh --build

# ---- batches and CBLAS names ---------------------------------------------------
# The CPU's strided and pointer-array batches (gemm_cpu_?gemm_strided_batched,
# gemm_cpu_?gemm_batched): the battery member by member (tests/battery_batch.h),
# thread-count identity, the batch's own refusals; `make bench-batch` beside a
# loop of OpenBLAS calls (and libxsmm's kernels where libxsmm-dev is installed).
# gemm_cblas.h (GEMM_CBLAS): the battery through the cblas_ names and netlib's
# error-exit table (tests/test_cblas.sh), and netlib's own CBLAS level-3
# tester (tests/netlib, gfortran and Debian's reference BLAS beside it).
# test-docs: README.md's C snippets, the examples, the CMake target and the
# pkg-config file, and `make help`, as a user meets them.
TEST_SUITES     += test-batch test-cblas test-docs
SANITIZE_SUITES += test-batch-asan test-cblas-asan
.PHONY: test-batch test-batch-asan test-cblas test-cblas-asan bench-batch test-docs gpu-bin-batch

test-docs: ## README's snippets and the examples compile (CPU ones run); CMake, pkg-config, make help
	sh tests/test_docs.sh

test-cblas: ## gemm_cblas.h: battery via cblas_ names, netlib's error-exit table, netlib's level-3 tester
	sh tests/test_cblas.sh

# (at -O0: the sanitizers' checks are the same, the battery's --quick run
# takes 3 s instead of 1, and each of the six builds 19 s of CPU instead of 54)
test-cblas-asan: ## the CBLAS tests under the sanitizers
	CBLAS_TEST_FLAGS="-O0 -g $(SANITIZE)" CBLAS_TEST_SMALL_FLAGS="-O0 -g $(SANITIZE)" CBLAS_TEST_ARGS=--quick \
	CBLAS_TEST_OUT=$(B)/cblas_asan sh tests/test_cblas.sh

test-batch: $(B)/test_batch ## the CPU's batches: battery per member, thread identity, refusals
	sh tests/test_batch.sh

test-batch-asan: $(B)/test_batch_asan ## the batch tests under the sanitizers
	./$(B)/test_batch_asan --quick

$(B)/test_batch: tests/test_batch.c tests/battery_batch.h tests/battery.h $(HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@ $(LDLIBS)

# (at -O0: its --quick run takes 14 s of CPU instead of 4, its build 19 instead of 54)
$(B)/test_batch_asan: tests/test_batch.c tests/battery_batch.h tests/battery.h $(HEADERS) | $(B)
	$(CC) -std=c99 -O0 -g $(SANITIZE) $(WARN) $< -o $@ $(LDLIBS)

# ---- verified products (the `verify` option) ----------------------------------
# test-verify: faults injected after the product (flipped bits of C, a dropped
# K slice) on every CPU path and in a batch member, each caught; then the
# battery, single and batched, with verify on: no false alarm.
TEST_SUITES     += test-verify
SANITIZE_SUITES += test-verify-asan
.PHONY: test-verify test-verify-asan bench-verify bench-cl-verify

test-verify: $(B)/test_verify ## verified products on the CPU: injected faults caught, no false alarm in the battery
	./$(B)/test_verify

test-verify-asan: $(B)/test_verify_asan ## the verified products' tests under the sanitizers
	./$(B)/test_verify_asan --quick

$(B)/test_verify: tests/test_verify.c tests/verify_faults.h tests/battery_batch.h tests/battery.h $(HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@ $(LDLIBS)

bench-verify: $(B)/bench_verify ## what options.verify costs on the CPU: n = 2048, 4096, fp32 and fp64, 1 and 2 threads
	./$(B)/bench_verify $(BENCH_ARGS)

$(B)/bench_verify: bench/bench_verify.c $(HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@ $(LDLIBS)

bench-cl-verify: $(B)/bench_cl_verify ## what gemm_cl_options.verify costs on the first OpenCL device (PoCL here)
	./$(B)/bench_cl_verify $(BENCH_ARGS)

$(B)/bench_cl_verify: bench/bench_cl_verify.c $(HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@ -lOpenCL $(LDLIBS)

$(B)/test_verify_asan: tests/test_verify.c tests/verify_faults.h tests/battery_batch.h tests/battery.h $(HEADERS) | $(B)
	$(CC) -std=c99 -O1 -g $(SANITIZE) $(WARN) $< -o $@ $(LDLIBS)

# OpenBLAS is loaded at run time (dlopen), so one binary runs with or without
# it; libxsmm (static) and OpenMP come in where libxsmm-dev is installed.
XSMM_LIB := $(firstword $(wildcard /usr/lib/libxsmm.a /usr/lib/*/libxsmm.a))
ifneq ($(XSMM_LIB),)
BENCH_BATCH_PEER := -fopenmp -DBENCH_HAVE_LIBXSMM $(XSMM_LIB) $(dir $(XSMM_LIB))libxsmmnoblas.a -lrt
endif

bench-batch: ## batches beside a loop of OpenBLAS calls (and libxsmm); writes build/results_batch.csv (BENCH_UPDATE=1: bench/)
	@sh tests/deps.sh bench
	@$(MAKE) --no-print-directory -B $(B)/bench_batch
	./$(B)/bench_batch --csv $(BENCH_OUT)/results_batch.csv $(BENCH_ARGS)

$(B)/bench_batch: bench/bench_batch.c tests/battery.h $(HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@ $(BENCH_BATCH_PEER) -ldl $(LDLIBS)

# The binaries bench/gpu/cpu_batch.sh runs on the GPU machine's host, built
# here (with libxsmm where it is installed) and put in .gpu/bin.
gpu-bin-batch: $(B)/test_batch $(B)/bench_batch ## build bench/gpu/cpu_batch.sh's binaries into .gpu/bin
	$(CC) -std=c99 $(CFLAGS) $(WARN) bench/bench_batch.c -o $(B)/bench_batch_plain -ldl $(LDLIBS)
	mkdir -p .gpu/bin && cp $(B)/test_batch $(B)/bench_batch $(B)/bench_batch_plain .gpu/bin/

# ---- complex (cgemm, zgemm) on the CPU ---------------------------------------------
# (test-cpu-asan runs a few complex cases per kernel under the sanitizers, so
# test-complex-asan, 30 s of compiling, is not in SANITIZE_SUITES)
TEST_SUITES     += test-complex
.PHONY: test-complex test-complex-asan bench-complex

test-complex: $(B)/test_complex ## the complex calls on the CPU: battery (every layout, op N/T/C, edges), kernels, panels, threads
	./$(B)/test_complex

test-complex-asan: $(B)/test_complex_asan ## the complex CPU tests under the sanitizers
	./$(B)/test_complex_asan --quick

bench-complex: ## gemm_cgemm/zgemm beside OpenBLAS's cblas_cgemm/zgemm; writes build/results_complex.csv (BENCH_UPDATE=1: bench/)
	@sh tests/deps.sh bench
	@$(MAKE) --no-print-directory -B $(B)/bench_complex
	./$(B)/bench_complex --csv $(BENCH_OUT)/results_complex.csv $(BENCH_ARGS)

$(B)/bench_complex: bench/bench_complex.c tests/battery.h $(HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@ $(BENCH_CPU_PEER) $(LDLIBS)

$(B)/test_complex: tests/test_complex.c tests/battery_complex.h tests/battery.h $(HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@ $(LDLIBS)

$(B)/test_complex_asan: tests/test_complex.c tests/battery_complex.h tests/battery.h $(HEADERS) | $(B)
	$(CC) -std=c99 -O1 -g $(SANITIZE) $(WARN) $< -o $@ $(LDLIBS)

# ---- a drop-in BLAS -------------------------------------------------------------
# build/libgemm_blas.so (blas/gemm_blas.c): the Fortran sgemm_/dgemm_, the
# cblas_ names and counters (gemm_blas_calls) on the CPU backend, every other
# symbol hidden; README's "A drop-in BLAS". test-blas links it directly and
# preloads it under Debian's numpy and reference LAPACK (tests/test_blas.sh).
TEST_SUITES += test-blas
DEPS_GROUPS += blas
.PHONY: blas test-blas

blas: $(B)/libgemm_blas.so ## build/libgemm_blas.so, gemm as a drop-in BLAS (sgemm_, dgemm_, cblas_?gemm)

$(B)/libgemm_blas.so: blas/gemm_blas.c $(HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) -fPIC -shared -fvisibility=hidden $(WARN) $< -o $@ -Wl,-soname,libgemm_blas.so $(LDLIBS)

test-blas: $(B)/libgemm_blas.so ## the drop-in BLAS: linked, preloaded under numpy and LAPACK, its symbols
	sh tests/test_blas.sh

# ---- every suite runs on fresh headers -----------------------------------------
# (test-headers itself compares the committed headers with their sources, so
# it must not regenerate them first.)
$(filter-out test-headers test-parts,$(TEST_SUITES) $(SANITIZE_SUITES)) test-cuda demo-cuda: $(GENERATED)

# test-readme: README.md's performance figures are bench/RESULTS.md's (the rule: tools/readme_numbers.py).
TEST_SUITES += test-readme
.PHONY: test-readme
test-readme: ## every performance figure of README.md is one bench/RESULTS.md measured; README's links stay in the repository
	sh tests/test_readme_numbers.sh

# test-deps: tests/deps.sh group by group on a machine without nvcc (a dry
# run with the CUDA toolkit unavailable), and the CUDA suites there report
# SKIPPED, which tests/run.sh counts as a failure only under CI=true.
TEST_SUITES += test-deps
.PHONY: test-deps
test-deps: ## deps.sh without the CUDA toolkit (dry run); the CUDA suites SKIPPED without nvcc, failed under CI=true
	sh tests/test_deps.sh

# test-plot: the figures (make plot) and the CSV behind the GPU one.
TEST_SUITES += test-plot
DEPS_GROUPS += plot
.PHONY: test-plot
test-plot: ## make plot draws both figures naming machine, date, commit; the GPU CSV is RESULTS.md's; make bench's output
	sh tests/test_plot.sh

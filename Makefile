# gemm - make demo, make test, make bench. Everything builds into build/.
# Each backend has its own section below, which appends its suites to
# TEST_SUITES / SANITIZE_SUITES and its Debian packages' group (tests/deps.sh)
# to DEPS_GROUPS; tests/run.sh runs the suites and prints the total.

CC       ?= cc
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Wpedantic -Werror
LDLIBS   := -lm -lpthread
B        := build
HEADERS  := gemm.h gemm_cpu.h
SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

TEST_SUITES     := test-headers test-cpu test-build
SANITIZE_SUITES := test-cpu-asan
DEPS_GROUPS     := test

.PHONY: all demo test test-sanitize bench plot clean headers test-headers test-cpu test-build test-cpu-asan

all: $(B)/cpu_basic $(B)/test_cpu

$(B):
	@mkdir -p $(B)

# ---- demo -----------------------------------------------------------------
demo: $(B)/cpu_basic
	./$(B)/cpu_basic

$(B)/cpu_basic: examples/cpu_basic.c $(HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@ $(LDLIBS)

# ---- the shipped headers ------------------------------------------------------
# gemm.h, gemm_cpu.h, gemm_cuda.cuh, gemm_cl.h and gemm_mpi.h are generated
# from src/ (src/<header>.in names the parts); edit src/, then `make headers`.
# test-headers fails when a committed header differs from a fresh generation.
headers:
	python3 tools/amalgamate.py

test-headers:
	python3 tools/amalgamate.py --check

# ---- tests ----------------------------------------------------------------
test:
	@sh tests/deps.sh $(DEPS_GROUPS)
	@sh tests/run.sh $(TEST_SUITES)

test-sanitize:
	@sh tests/deps.sh $(DEPS_GROUPS)
	@sh tests/run.sh $(SANITIZE_SUITES)

test-cpu: $(B)/test_cpu
	./$(B)/test_cpu

test-build:
	sh tests/build_checks.sh

test-cpu-asan: $(B)/test_cpu_asan
	./$(B)/test_cpu_asan

$(B)/test_cpu: tests/test_cpu.c tests/battery.h $(HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@ $(LDLIBS)

$(B)/test_cpu_asan: tests/test_cpu.c tests/battery.h $(HEADERS) | $(B)
	$(CC) -std=c99 -O1 -g $(SANITIZE) $(WARN) $< -o $@ $(LDLIBS)

# ---- benchmarks -------------------------------------------------------------
# The peers are linked only here. OpenBLAS runs its best kernel for the CPU
# (Debian's 0.3.21 mistakes newer Xeons for Prescott): see bench/bench_cpu.c.
OPENBLAS_LIB := $(firstword $(wildcard /usr/lib/*/libopenblas.so /usr/lib/libopenblas.so /usr/local/lib/libopenblas.so))
ifneq ($(OPENBLAS_LIB),)
BENCH_CPU_PEER := -DBENCH_HAVE_OPENBLAS $(OPENBLAS_LIB)
endif

bench:
	@sh tests/deps.sh bench
	@$(MAKE) --no-print-directory -B $(B)/bench_cpu
	./$(B)/bench_cpu --csv bench/results_cpu.csv $(BENCH_ARGS)

$(B)/bench_cpu: bench/bench_cpu.c tests/battery.h $(HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@ $(BENCH_CPU_PEER) $(LDLIBS)

plot: bench/results_cpu.csv
	gnuplot -e "csv='bench/results_cpu.csv'; png='bench/cpu.png'" bench/plot.gp
	@echo "wrote bench/cpu.png"

clean:
	rm -rf $(B)

# ---- backends: each section below belongs to one backend --------------------

# ---- cpu --------------------------------------------------------------------
# The CPU backend's extra suites: the aarch64 build (NEON) under qemu, other
# builds and emulated x86 CPUs, valgrind's leak check of the thread pool;
# and the seed-001 ladder (naive -> ours), `make bench-ladder`.
TEST_SUITES += test-aarch64 test-cpu-builds test-cpu-valgrind
DEPS_GROUPS += cpu
.PHONY: test-aarch64 test-cpu-builds test-cpu-valgrind bench-ladder

test-aarch64:
	sh tests/test_aarch64.sh

test-cpu-builds:
	sh tests/cpu_builds.sh

test-cpu-valgrind: $(B)/test_cpu
	@if command -v valgrind >/dev/null 2>&1; then \
	    valgrind -q --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all \
	        --error-exitcode=3 ./$(B)/test_cpu --quick --only-best; \
	else echo "SKIPPED valgrind is not installed"; echo "0 passed, 0 failed, 1 skipped"; fi

bench-ladder: $(B)/ladder
	./$(B)/ladder $(LADDER_ARGS)

# -O3: the textbook rungs get the compiler's best auto-vectorisation.
$(B)/ladder: bench/ladder.c $(HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) -O3 $(WARN) $< -o $@ $(LDLIBS)

# ---- cuda -------------------------------------------------------------------
# test-cuda and bench-cuda need a GPU (../shared/GPU.md); test-cuda-build is
# what CI (nvcc, no GPU) runs: every CUDA program compiles warning-free.
NVCC       ?= nvcc
# The CUDA toolkit's usual home, for shells whose PATH lacks it (the MPI
# section's CUDA build finds nvcc the same way).
ifneq ($(wildcard /usr/local/cuda/bin/nvcc),)
export PATH := $(PATH):/usr/local/cuda/bin
endif
CUDA_ARCH  := -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_90,code=compute_90
NVCC_FLAGS := -std=c++17 -O3 $(CUDA_ARCH) -Xcompiler -Wall,-Wextra -Werror all-warnings
CUDA_DEPS  := gemm_cuda.cuh $(HEADERS)
TEST_SUITES += test-cuda-build
DEPS_GROUPS += cuda
.PHONY: test-cuda test-cuda-build bench-cuda bench-cuda-research demo-cuda bench-cuda-host cuda-host-bins

test-cuda-build:
	NVCC_FLAGS="$(NVCC_FLAGS)" NVCC=$(NVCC) sh tests/cuda_build_checks.sh

test-cuda: $(B)/test_cuda $(B)/test_cuda_tc $(B)/test_cuda_host
	sh tests/cuda_run.sh $(B)/test_cuda $(B)/test_cuda_tc $(B)/test_cuda_host

bench-cuda: $(B)/bench_cuda
	./$(B)/bench_cuda --csv bench/results_cuda.csv --prec f32,f64,tf32,f16,bf16 $(BENCH_ARGS)

demo-cuda: $(B)/cuda_basic
	./$(B)/cuda_basic

# The SIMT and DMMA configurations that do not ship (bench/research/README.md),
# beside cuBLAS; `build/cuda_variants --test` runs each through the battery.
bench-cuda-research: $(B)/cuda_variants
	./$(B)/cuda_variants $(BENCH_ARGS)

$(B)/test_cuda: tests/test_cuda.cu tests/battery.h $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@

$(B)/test_cuda_tc: tests/test_cuda_tc.cu tests/battery.h $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@

# The host-pointer path (pipeline, out of core): its tests (the plans and
# the pipeline on a CPU stand-in need no GPU: `build/test_cuda_host --plans`),
# its benchmark beside copy-then-cuBLAS and cuBLASXt, and the two binaries
# that bench/gpu/cuda_host.sh takes to a GPU machine (`make cuda-host-bins`,
# then carry build/test_cuda_host and build/bench_cuda_host).
$(B)/test_cuda_host: tests/test_cuda_host.cu tests/battery.h $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@

$(B)/bench_cuda_host: bench/bench_cuda_host.cu tests/battery.h $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@ -lcublas

cuda-host-bins: $(B)/test_cuda_host $(B)/bench_cuda_host

bench-cuda-host: $(B)/bench_cuda_host
	./$(B)/bench_cuda_host --small 32,64,128,256,512 --csv bench/results_cuda_host.csv $(BENCH_ARGS)

$(B)/bench_cuda: bench/bench_cuda.cu tests/battery.h $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@ -lcublas

$(B)/cuda_basic: examples/cuda_basic.cu $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@

$(B)/cuda_variants: bench/research/cuda_variants.cu bench/research/cuda_kernels.cuh tests/battery.h $(CUDA_DEPS) | $(B)
	$(NVCC) $(NVCC_FLAGS) $< -o $@ -lcublas

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

.PHONY: test-cl test-cl-asan bench-cl tune-cl example-cl

test-cl:
	sh tests/test_cl.sh

test-cl-asan:
	sh tests/test_cl.sh asan

$(B)/test_cl_asan: tests/test_cl.c tests/battery.h $(CL_HEADERS) | $(B)
	$(CC) -std=c99 -D_DEFAULT_SOURCE -O1 -g $(SANITIZE) $(WARN) $< -o $@ $(CL_LIBS)

$(B)/test_cl: tests/test_cl.c tests/battery.h $(CL_HEADERS) | $(B)
	$(CC) -std=c99 -D_DEFAULT_SOURCE $(CFLAGS) $(WARN) $< -o $@ $(CL_LIBS)

example-cl: $(B)/opencl_basic
	./$(B)/opencl_basic

$(B)/opencl_basic: examples/opencl_basic.c $(CL_HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@ $(CL_LIBS)

bench-cl:
	@sh tests/deps.sh opencl
	@$(MAKE) --no-print-directory -B $(B)/bench_cl
	./$(B)/bench_cl --csv bench/results_cl.csv $(BENCH_ARGS)

$(B)/bench_cl: bench/bench_cl.c tests/battery.h $(CL_HEADERS) | $(B)
	$(CC) -std=c99 -D_DEFAULT_SOURCE $(CFLAGS) $(WARN) $< -o $@ $(BENCH_CL_PEER) $(CL_LIBS)

# Searches the parameter space on the device and updates tuning/gemm_cl.txt,
# whose lines are also gemm_cl.h's built-in table: `make headers` builds them in.
tune-cl: $(B)/tune_cl
	./$(B)/tune_cl --output tuning/gemm_cl.txt $(TUNE_ARGS)

$(B)/tune_cl: bench/tune_cl.c $(CL_HEADERS) | $(B)
	$(CC) -std=c99 -D_DEFAULT_SOURCE $(CFLAGS) $(WARN) $< -o $@ $(CL_LIBS)

# ---- mpi
# gemm_mpi.h: the battery under mpirun at P = 1, 2, 3, 4, 6, 8, 9 (tests/test_mpi.sh
# builds with mpicc and bounds each run with a timeout), the same under the
# sanitizers, and the CUDA build of gemm_mpi.h (nvcc + MPI flags, compile only).
TEST_SUITES     += test-mpi test-mpi-cuda-build
SANITIZE_SUITES += test-mpi-asan
DEPS_GROUPS     += mpi
.PHONY: test-mpi test-mpi-asan test-mpi-cuda-build bench-mpi mpi-demo

test-mpi:
	sh tests/test_mpi.sh

# (every host copy on 3 threads here, to cover the parallel packing; staging
# chunks of the library's own size)
test-mpi-asan:
	ASAN_OPTIONS=detect_leaks=0 GEMM_MPI_TEST_RANKS="1 2 4" MPI_TEST_BIN=$(B)/test_mpi_asan GEMM_NUM_THREADS=3 \
	GEMM_MPI_TEST_COPY_PARALLEL_BYTES=1 GEMM_MPI_TEST_STAGE_BYTES=0 \
	MPI_TEST_FLAGS="-O1 -g $(SANITIZE)" sh tests/test_mpi.sh

test-mpi-cuda-build:
	sh tests/test_mpi_cuda_build.sh

mpi-demo:
	@mkdir -p $(B)
	mpicc -std=c99 $(CFLAGS) $(WARN) examples/mpi_cannon.c -o $(B)/mpi_cannon -lm
	mpirun --oversubscribe --allow-run-as-root -np 4 $(B)/mpi_cannon

# Strong scaling (bench/bench_mpi.sh): CPU ranks here or on the GPU machine,
# GPUs when nvcc and a GPU are there. BENCH_MPI_ARGS are passed on.
bench-mpi:
	sh bench/bench_mpi.sh $(BENCH_MPI_ARGS)

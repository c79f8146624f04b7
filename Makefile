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

TEST_SUITES     := test-cpu test-build
SANITIZE_SUITES := test-cpu-asan
DEPS_GROUPS     := test

.PHONY: all demo test test-sanitize bench plot clean test-cpu test-build test-cpu-asan

all: $(B)/cpu_basic $(B)/test_cpu

$(B):
	@mkdir -p $(B)

# ---- demo -----------------------------------------------------------------
demo: $(B)/cpu_basic
	./$(B)/cpu_basic

$(B)/cpu_basic: examples/cpu_basic.c $(HEADERS) | $(B)
	$(CC) -std=c99 $(CFLAGS) $(WARN) $< -o $@ $(LDLIBS)

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

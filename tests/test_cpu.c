/* tests/test_cpu.c - the CPU backend (the front door gemm_sgemm/gemm_dgemm)
   and the reference itself. Last line: N passed, N failed.

   build/test_cpu            everything: the battery once per micro-kernel this
                             CPU can run (forced in turn through the test hook),
                             again on the packed path with tiny block sizes so
                             every block edge is crossed, and (best kernel) on
                             the direct path for every shape; bitwise identity
                             across thread counts, concurrent callers,
                             allocation failure, bounded workspace, the
                             thread-count settings, and the edges of
                             cpu_edge_tests.h (error names, affinity, alpha =
                             Inf, INT64_MAX leading dimensions, exit() while
                             a threaded call runs); the small path's kernels
                             at every size 1..70 against their size classes'
                             edges, and single calls on the same cases
                             (cpu_small_tests.h); gemm_cpu_sbgemm
                             (cpu_sbgemm_tests.h)
   build/test_cpu --quick    a smaller battery, for slow runs (valgrind, qemu)
   build/test_cpu --quick --only-best
                             ... and only the kernel this CPU picks by itself
   build/test_cpu --smoke    a tiny battery on the kernel picked by itself
                             (for emulated CPUs, where everything is slow)
   --no-fork                 skip the fork() test: qemu-user cannot start
                             threads in the forked child of a threaded process
   --no-exit-test            skip the exit-while-busy test (valgrind: its child
                             does not finish exiting there; it prints so)
   The kernel, the path and the block sizes are forced through the test
   hooks (GEMM__TEST_HOOKS: gemm__hooks.cpu_kernel, cpu_path, cpu_mc,
   cpu_kc, cpu_nc).
*/
#define _POSIX_C_SOURCE 200809L /* setenv */
#ifndef _DEFAULT_SOURCE /* nvcc's host pass defines it already */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE, usleep */
#endif
#ifndef _GNU_SOURCE /* g++ defines it already */
#define _GNU_SOURCE /* sched_setaffinity, CPU_COUNT */
#endif
#include <stddef.h>

/* Every allocation of the library goes through here, so a test can make it
   fail and can see how much workspace a call asks for. */
static int test_malloc_fail;
static size_t test_malloc_largest;
static void *test_malloc(size_t size);
#define GEMM_MALLOC(size) test_malloc(size)
#define GEMM_FREE(ptr) free(ptr)

#define GEMM__TEST_HOOKS
#define GEMM_IMPLEMENTATION
#include "../gemm.h"
#include "battery.h"
#include "battery_complex.h"

#if !defined(GEMM_NO_THREADS) && (defined(__unix__) || defined(__APPLE__))
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#define TEST_HAVE_PTHREADS 1
#endif
#if defined(__unix__) && UINTPTR_MAX > 0xffffffffu
#include <sys/mman.h>
#endif

static size_t test_malloc_calls;
static void *test_malloc(size_t size)
{
    test_malloc_calls++;
    if (test_malloc_fail) return NULL;
    if (size > test_malloc_largest) test_malloc_largest = size;
    return malloc(size);
}


static gemm_status cpu_sgemm(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                             int64_t n, int64_t k, float alpha, const float *A, int64_t lda, const float *B,
                             int64_t ldb, float beta, float *C, int64_t ldc)
{
    (void)ctx;
    return gemm_sgemm(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

static gemm_status cpu_dgemm(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                             int64_t n, int64_t k, double alpha, const double *A, int64_t lda, const double *B,
                             int64_t ldb, double beta, double *C, int64_t ldc)
{
    (void)ctx;
    return gemm_dgemm(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

static battery_backend cpu_backend; /* name set per kernel in main() */

/* The complex front door, a few cases per kernel (the whole complex battery
   is tests/test_complex.c's; this one runs it under the sanitizers too). */
static gemm_status cpu_cgemm(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                             int64_t k, const void *al, const void *A, int64_t lda, const void *B, int64_t ldb,
                             const void *be, void *C, int64_t ldc)
{
    (void)ctx;
    return gemm_cgemm(l, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc);
}
static gemm_status cpu_zgemm(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                             int64_t k, const void *al, const void *A, int64_t lda, const void *B, int64_t ldb,
                             const void *be, void *C, int64_t ldc)
{
    (void)ctx;
    return gemm_zgemm(l, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc);
}

/* Forces micro-kernel `name` for the calls that follow (NULL: the best). */
static void use_kernel(const char *name) { gemm__test_hooks()->cpu_kernel = name; }

/* Forces the block sizes (0: the cache-derived one). */
static void set_blocking(int mc, int kc, int nc)
{
    gemm__test_hooks()->cpu_mc = mc;
    gemm__test_hooks()->cpu_kc = kc;
    gemm__test_hooks()->cpu_nc = nc;
}

/* Where element (i, j) of op(X) lives: X[i*rs + j*cs]. */
static void op_strides(gemm_layout layout, gemm_transpose trans, int64_t ld, int64_t *rs, int64_t *cs)
{
    int contiguous_rows = (layout == GEMM_ROW_MAJOR) != (trans != GEMM_NO_TRANS);
    *rs = contiguous_rows ? ld : 1;
    *cs = contiguous_rows ? 1 : ld;
}

/* The oracle must itself be right: a product worked out by hand, read
   through every layout and transpose. */
static void test_reference_by_hand(void)
{
    /* op(A) = [1 2 3; 4 5 6] (2x3), op(B) = [1 0; 0 1; 1 1] (3x2),
       op(A) op(B) = [4 5; 10 11]; with alpha = 2, beta = -1, C0 = [1 1; 1 1]. */
    static const double opA[2][3] = {{1, 2, 3}, {4, 5, 6}}, opB[3][2] = {{1, 0}, {0, 1}, {1, 1}};
    static const double want[2][2] = {{7, 9}, {19, 21}};
    int li, ai, bi, i, j;
    for (li = 0; li < 2; li++)
        for (ai = 0; ai < 2; ai++)
            for (bi = 0; bi < 2; bi++) {
                gemm_layout lay = battery_layouts[li];
                gemm_transpose ta = battery_transposes[ai], tb = battery_transposes[bi];
                double A[6], B[6], C[4] = {1, 1, 1, 1};
                int64_t rs, cs, lda, ldb;
                int ok = 1;
                /* Store op(A) so that reading it back through (lay, ta) gives opA. */
                lda = (lay == GEMM_ROW_MAJOR) == (ta == GEMM_NO_TRANS) ? 3 : 2;
                ldb = (lay == GEMM_ROW_MAJOR) == (tb == GEMM_NO_TRANS) ? 2 : 3;
                op_strides(lay, ta, lda, &rs, &cs);
                for (i = 0; i < 2; i++)
                    for (j = 0; j < 3; j++) A[i * rs + j * cs] = opA[i][j];
                op_strides(lay, tb, ldb, &rs, &cs);
                for (i = 0; i < 3; i++)
                    for (j = 0; j < 2; j++) B[i * rs + j * cs] = opB[i][j];
                ok = gemm_ref_dgemm(lay, ta, tb, 2, 2, 3, 2.0, A, lda, B, ldb, -1.0, C, 2) == GEMM_OK;
                op_strides(lay, GEMM_NO_TRANS, 2, &rs, &cs);
                for (i = 0; i < 2; i++)
                    for (j = 0; j < 2; j++) ok = ok && C[i * rs + j * cs] == want[i][j];
                battery_check(ok, "reference by hand: %s %c%c", li == 0 ? "row" : "col", ai ? 'T' : 'N', bi ? 'T' : 'N');
            }
}

static void test_status_strings(void)
{
    int s, ok = 1;
    for (s = GEMM_OK; s < GEMM__STATUS_END; s++)
        ok = ok && gemm_strerror((gemm_status)s) && strcmp(gemm_strerror((gemm_status)s), "unknown gemm_status") != 0;
    battery_check(ok && strcmp(gemm_strerror((gemm_status)999), "unknown gemm_status") == 0,
                  "gemm_strerror has a sentence for every status");
}

static void test_thread_settings(void)
{
    int online;
    battery_check(gemm_cpu_set_threads(-1) == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "threads"),
                  "gemm_cpu_set_threads(-1) is rejected with a detail");
    battery_check(gemm_cpu_set_threads(0) == GEMM_OK && gemm_last_error_detail()[0] == '\0' && gemm_cpu_get_threads() >= 1,
                  "gemm_cpu_set_threads(0) = automatic, detail cleared");
#ifdef GEMM_NO_THREADS
    gemm_cpu_set_threads(5);
    battery_check(gemm_cpu_get_threads() == 1, "GEMM_NO_THREADS: always 1 thread");
#else
    unsetenv("GEMM_NUM_THREADS");
    online = gemm_cpu_get_threads();
    setenv("GEMM_NUM_THREADS", "3", 1);
    battery_check(gemm_cpu_get_threads() == 3, "GEMM_NUM_THREADS=3 is used when automatic (got %d)", gemm_cpu_get_threads());
    gemm_cpu_set_threads(5);
    battery_check(gemm_cpu_get_threads() == 5, "gemm_cpu_set_threads(5) wins over the environment");
    gemm_cpu_set_threads(100000);
    battery_check(gemm_cpu_get_threads() == 64, "thread count capped at 64 (got %d)", gemm_cpu_get_threads());
    gemm_cpu_set_threads(0);
    setenv("GEMM_NUM_THREADS", "junk", 1);
    battery_check(gemm_cpu_get_threads() == online, "a junk GEMM_NUM_THREADS means the online CPU count (%d)", online);
    unsetenv("GEMM_NUM_THREADS");
#endif
    (void)online;
}

/* A 2x2x2 call with C = 7s; returns its status, and whether C stayed 7s. */
static gemm_status tiny_call(int *c_untouched)
{
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4] = {7, 7, 7, 7};
    gemm_status s = gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
    *c_untouched = c[0] == 7 && c[1] == 7 && c[2] == 7 && c[3] == 7;
    return s;
}

static void test_kernel_hooks(int nkernels, const char **names)
{
    static const char *const every_kernel[] = {"avx512", "avx2", "neon", "scalar"};
    size_t e;
    int i, ok = nkernels >= 1 && strcmp(names[nkernels - 1], "scalar") == 0, untouched;
    battery_check(ok, "%d kernel(s) available, the last is scalar", nkernels);
    use_kernel("no-such-kernel");
    ok = gemm__cpu_kernel() == NULL && tiny_call(&untouched) == GEMM_ERR_UNAVAILABLE &&
         strstr(gemm_last_error_detail(), "no-such-kernel") != NULL && untouched;
    battery_check(ok, "forcing an unknown kernel fails with a detail");
    for (e = 0; e < sizeof every_kernel / sizeof every_kernel[0]; e++) {
        for (i = 0; i < nkernels && strcmp(names[i], every_kernel[e]) != 0; i++) {}
        if (i < nkernels) continue;
        use_kernel(every_kernel[e]);
        ok = tiny_call(&untouched) == GEMM_ERR_UNAVAILABLE && strstr(gemm_last_error_detail(), every_kernel[e]) && untouched;
        battery_check(ok, "forcing %s, which this CPU or build cannot run, fails with a detail", every_kernel[e]);
    }
    for (i = 0; i < nkernels; i++) {
        use_kernel(names[i]);
        battery_check(strcmp(gemm__cpu_kernel(), names[i]) == 0 && tiny_call(&untouched) == GEMM_OK,
                      "kernel %s can be forced", names[i]);
    }
    use_kernel(NULL);
    battery_check(strcmp(gemm__cpu_kernel(), names[0]) == 0, "automatic picks the best kernel, %s", names[0]);
#if defined(GEMM_NO_SIMD)
    battery_check(nkernels == 1, "GEMM_NO_SIMD leaves only the scalar kernel");
#endif
}

/* ---- bitwise identity across thread counts ---- */

typedef struct det_case { gemm_layout layout; gemm_transpose ta, tb; int64_t m, n, k; } det_case;

static const det_case det_cases[] = {
    {GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 300, 517, 263},
    {GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 517, 300, 263},
    {GEMM_ROW_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, 1000, 37, 500},
    {GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, 37, 1000, 500},
    {GEMM_ROW_MAJOR, GEMM_TRANS, GEMM_TRANS, 129, 130, 700},
    {GEMM_COL_MAJOR, GEMM_TRANS, GEMM_TRANS, 96, 96, 96}, /* the direct path, threaded */
    {GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, 2000, 24, 64}, /* packed: one narrow group, many row blocks */
};

/* Runs case c with `threads`, C starting from C0, into out (bytes). */
static void det_run(gemm_precision prec, const det_case *c, int threads, const battery_buf *A, const battery_buf *B,
                    const battery_buf *C0, battery_buf *out)
{
    battery_call call;
    call.layout = c->layout; call.ta = c->ta; call.tb = c->tb;
    call.m = c->m; call.n = c->n; call.k = c->k;
    call.alpha = 0.75; call.beta = -0.5;
    battery_min_lds(&call);
    memcpy(out->data, C0->data, battery_buf_bytes(C0));
    gemm_cpu_set_threads(threads);
    if (battery_invoke(&cpu_backend, prec, &call, A->data, B->data, out->data) != GEMM_OK)
        memset(out->data, 0xff, battery_buf_bytes(out)); /* can never match the 1-thread result */
}

static void test_thread_determinism(const char *kernel, int quick)
{
    static const int thread_counts[] = {2, 3, 4, 5, 8, 16};
    size_t ci, ti, step = quick ? 2 : 1; /* quick (valgrind, qemu): 3, 5, 16 threads */
    int p;
    for (p = 0; p < 2; p++) {
        gemm_precision prec = p ? GEMM_F64 : GEMM_F32;
        for (ci = 0; ci < sizeof det_cases / sizeof det_cases[0]; ci++) {
            const det_case *c = &det_cases[ci];
            uint64_t state = 1234 + ci;
            size_t big = (size_t)(c->m > c->n ? c->m : c->n) * (size_t)(c->k > c->n ? c->k : c->n);
            battery_buf A = battery_buf_new(prec, big), B = battery_buf_new(prec, big);
            battery_buf C0 = battery_buf_new(prec, (size_t)(c->m * c->n)), one = battery_buf_copy(&C0), many = battery_buf_copy(&C0);
            int ok = 1;
            battery_fill(&A, &state);
            battery_fill(&B, &state);
            battery_fill(&C0, &state);
            det_run(prec, c, 1, &A, &B, &C0, &one);
            for (ti = step - 1; ti < sizeof thread_counts / sizeof thread_counts[0]; ti += step) {
                det_run(prec, c, thread_counts[ti], &A, &B, &C0, &many);
                ok = ok && memcmp(one.data, many.data, battery_buf_bytes(&one)) == 0;
            }
            battery_check(ok, "%s %s %s %c%c %lldx%lldx%lld: bitwise identical with 1 and %s threads", kernel,
                          p ? "f64" : "f32", c->layout == GEMM_ROW_MAJOR ? "row" : "col", c->ta == GEMM_TRANS ? 'T' : 'N',
                          c->tb == GEMM_TRANS ? 'T' : 'N', (long long)c->m, (long long)c->n, (long long)c->k,
                          quick ? "3, 5, 16" : "2, 3, 4, 5, 8, 16");
            battery_buf_free(&A);
            battery_buf_free(&B);
            battery_buf_free(&C0);
            battery_buf_free(&one);
            battery_buf_free(&many);
        }
    }
    gemm_cpu_set_threads(0);
}

/* ---- several user threads calling at once ---- */

#ifdef TEST_HAVE_PTHREADS
typedef struct conc_arg {
    int64_t n;
    const float *A, *B;
    const float *want;
    int ok;
} conc_arg;

static void *conc_main(void *p)
{
    conc_arg *a = (conc_arg *)p;
    float *C = (float *)malloc(sizeof(float) * (size_t)(a->n * a->n));
    int r;
    a->ok = C != NULL;
    for (r = 0; r < 8 && a->ok; r++) {
        a->ok = gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, a->n, a->n, a->n, 1.0f, a->A, a->n, a->B,
                           a->n, 0.0f, C, a->n) == GEMM_OK &&
                memcmp(C, a->want, sizeof(float) * (size_t)(a->n * a->n)) == 0;
    }
    free(C);
    return NULL;
}

static void test_concurrent_callers(void)
{
    enum { NT = 4 };
    int64_t sizes[NT] = {200, 257, 64, 311}, i;
    float *A[NT], *B[NT], *want[NT];
    pthread_t th[NT];
    conc_arg arg[NT];
    uint64_t state = 77;
    int t, ok = 1, started[NT];
    gemm_cpu_set_threads(2);
    for (t = 0; t < NT; t++) {
        int64_t n = sizes[t];
        A[t] = (float *)malloc(sizeof(float) * (size_t)(n * n));
        B[t] = (float *)malloc(sizeof(float) * (size_t)(n * n));
        want[t] = (float *)malloc(sizeof(float) * (size_t)(n * n));
        for (i = 0; i < n * n; i++) { A[t][i] = (float)battery_uniform(&state); B[t][i] = (float)battery_uniform(&state); }
        /* the answer of a lone call: concurrent ones must match it bit for bit */
        gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, n, n, n, 1.0f, A[t], n, B[t], n, 0.0f, want[t], n);
        arg[t].n = n; arg[t].A = A[t]; arg[t].B = B[t]; arg[t].want = want[t]; arg[t].ok = 0;
    }
    for (t = 0; t < NT; t++) started[t] = pthread_create(&th[t], NULL, conc_main, &arg[t]) == 0;
    for (t = 0; t < NT; t++) {
        if (started[t]) pthread_join(th[t], NULL);
        ok = ok && started[t] && arg[t].ok == 1;
        free(A[t]); free(B[t]); free(want[t]);
    }
    battery_check(ok, "4 user threads calling gemm_sgemm at once (pool of 2) get the lone call's results bit for bit");
    gemm_cpu_set_threads(0);
}

/* A child forked after the pool started must not wait for workers it
   does not have: it runs a threaded call (killed by alarm() if it hangs). */
static void test_fork(void)
{
    enum { N = 300 };
    float *A = (float *)calloc(N * N, sizeof(float)), *B = (float *)calloc(N * N, sizeof(float));
    float *C = (float *)calloc(N * N, sizeof(float)), *R = (float *)calloc(N * N, sizeof(float));
    int i, status = -1;
    pid_t pid;
    for (i = 0; i < N * N; i++) { A[i] = (float)(i % 9) - 4.0f; B[i] = (float)(i % 7) - 3.0f; }
    gemm_cpu_set_threads(2);
    gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, N, N, N, 1.0f, A, N, B, N, 0.0f, R, N); /* pool up */
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        int ok;
        alarm(20);
        ok = gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, N, N, N, 1.0f, A, N, B, N, 0.0f, C, N) == GEMM_OK &&
             memcmp(C, R, sizeof(float) * N * N) == 0;
        free(A); free(B); free(C); free(R); /* valgrind checks the child's exit too */
        exit(ok ? 0 : 1);
    }
    if (pid > 0) waitpid(pid, &status, 0);
    battery_check(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "a forked child runs a threaded call after the parent's pool started (status %d)", status);
    gemm_cpu_set_threads(0);
    free(A); free(B); free(C); free(R);
}
#endif

/* ---- memory ---- */

static void test_out_of_memory(void)
{
    enum { N = 200, BIG = 600 };
    float *A = (float *)calloc(BIG * BIG, sizeof(float)), *B = (float *)calloc(BIG * BIG, sizeof(float));
    float *C = (float *)malloc(sizeof(float) * BIG * BIG), *C0 = (float *)malloc(sizeof(float) * BIG * BIG);
    float *R = (float *)malloc(sizeof(float) * N * N);
    gemm_cpu_options alone = {1, 0}, two = {2, 0};
    int i, ok;
    gemm_status s;
    for (i = 0; i < N * N; i++) { A[i] = (float)(i % 7); B[i] = (float)(i % 5); R[i] = (float)(i % 3); }
    for (i = 0; i < BIG * BIG; i++) C[i] = C0[i] = (float)(i % 3);
    /* A call alone allocates its packed path's workspace: it fails cleanly. */
    test_malloc_fail = 1;
    s = gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, N, N, N, 1.0f, A, N, B, N, 0.5f, C, N, &alone);
    test_malloc_fail = 0;
    ok = s == GEMM_ERR_OUT_OF_MEMORY && memcmp(C, C0, sizeof(float) * BIG * BIG) == 0 &&
         strstr(gemm_last_error_detail(), "memory");
    battery_check(ok, "allocation failure (n = %d, 1 thread): GEMM_ERR_OUT_OF_MEMORY, C untouched, detail \"%s\"", N,
                  gemm_last_error_detail());
    /* A threaded call whose workspace is larger than the pool keeps (the
       first such here: large blocks forced) fails the same way. */
    set_blocking(BIG, BIG, BIG);
    test_malloc_fail = 1;
    s = gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, BIG, BIG, BIG, 1.0f, A, BIG, B, BIG, 0.5f, C, BIG,
                       &two);
    test_malloc_fail = 0;
    set_blocking(0, 0, 0);
    ok = s == GEMM_ERR_OUT_OF_MEMORY && memcmp(C, C0, sizeof(float) * BIG * BIG) == 0;
#ifndef GEMM_NO_THREADS
    battery_check(ok, "allocation failure (n = %d, 2 threads): GEMM_ERR_OUT_OF_MEMORY, C untouched", BIG);
#endif
    battery_check(gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, N, N, N, 1.0f, A, N, B, N, 0.5f, C, N) ==
                      GEMM_OK,
                  "the next call, with memory, works");
    /* The direct path allocates nothing: a small call succeeds without memory. */
    memcpy(C0, R, sizeof(float) * 64 * 64);
    test_malloc_fail = 1;
    s = gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 64, 64, 64, 1.0f, A, 64, B, 64, 0.5f, C0, 64);
    test_malloc_fail = 0;
    gemm_ref_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 64, 64, 64, 1.0f, A, 64, B, 64, 0.5f, R, 64);
    for (i = 0, ok = s == GEMM_OK; i < 64 * 64; i++) ok = ok && C0[i] == R[i]; /* integers: exact */
    battery_check(ok, "a 64^3 call needs no allocation (direct path): it succeeds while malloc fails");
#ifndef GEMM_NO_THREADS
    /* The pool keeps its workspace: the same threaded call again allocates nothing. */
    gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, N, N, N, 1.0f, A, N, B, N, 0.0f, C, N, &two);
    test_malloc_calls = 0;
    s = gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, N, N, N, 1.0f, A, N, B, N, 0.0f, C, N, &two);
    battery_check(s == GEMM_OK && (test_malloc_calls == 0 || gemm__cpu_last_threads() < 2),
                  "a threaded call reuses the pool's workspace (%zu allocations, %d threads)", test_malloc_calls,
                  gemm__cpu_last_threads());
#endif
    free(A); free(B); free(C); free(C0); free(R);
}

/* Largest allocation of one row-major m x n x k call with these options. */
static size_t workspace_of(int64_t m, int64_t n, int64_t k, const gemm_cpu_options *options)
{
    float *A = (float *)calloc((size_t)(m * k), sizeof(float)), *B = (float *)calloc((size_t)(k * n), sizeof(float));
    float *C = (float *)calloc((size_t)(m * n), sizeof(float));
    gemm_status s;
    test_malloc_largest = 0;
    s = gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, 1.0f, A, k, B, n, 0.0f, C, n, options);
    free(A); free(B); free(C);
    return s == GEMM_OK ? test_malloc_largest : 0;
}

static void test_bounded_workspace(void)
{
    /* Past the block sizes (set to 64 here, so the test is cheap anywhere),
       doubling m, n or k must not grow the workspace, but for its counters
       (16 bytes per k block, 4 per row block: job.h), while the data grow
       by hundreds of KB. The packed path is forced: these are small. */
    gemm_cpu_options alone = {1, 0}; /* a threaded call reuses the pool's workspace: nothing to see */
    size_t base, tall, wide, deep;
    set_blocking(64, 64, 64);
    gemm__test_hooks()->cpu_path = 1;
    base = workspace_of(300, 300, 200, &alone);
    tall = workspace_of(600, 300, 200, &alone);
    wide = workspace_of(300, 600, 200, &alone);
    deep = workspace_of(300, 300, 400, &alone);
    gemm__test_hooks()->cpu_path = 0;
    set_blocking(0, 0, 0);
    battery_check(base > 0 && tall > 0 && wide > 0 && deep > 0 && tall <= base + 1024 && wide <= base + 1024 &&
                      deep <= base + 1024,
                  "workspace bounded by the blocks: %zu bytes for 300x300x200, %zu / %zu / %zu with m / n / k doubled",
                  base, tall, wide, deep);
}

/* gemm_cpu_options: threads < 0 refused after the CBLAS checks, zeros and
   NULL are the defaults, and options.threads wins over the global setting
   for its call (seen in the workspace, one per thread) without changing a bit. */
static void test_options(void)
{
    enum { M = 300, N = 517, K = 263 };
    gemm_cpu_options bad = {-1, 0}, zero = {0, 0}, three = {3, 0}, four = {4, 0};
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4] = {7, 7, 7, 7};
    double ad[4] = {1, 2, 3, 4}, bd[4] = {1, 0, 0, 1}, cd[4] = {7, 7, 7, 7};
    float *A = (float *)malloc(sizeof(float) * M * K), *B = (float *)malloc(sizeof(float) * K * N);
    float *C1 = (float *)calloc(M * N, sizeof(float)), *C4 = (float *)calloc(M * N, sizeof(float));
    size_t one, more;
    uint64_t state = 99;
    int i, ok;
    ok = gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2, &bad) ==
             GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "threads") && c[0] == 7 && c[3] == 7 &&
         gemm_cpu_dgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 2, 2, 2, 1.0, ad, 2, bd, 2, 0.0, cd, 2, &bad) ==
             GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "threads") && cd[0] == 7 && cd[3] == 7;
    battery_check(ok, "options.threads = -1 is rejected with a detail, C untouched (sgemm, dgemm)");
    ok = gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 2, 2, 2, 1.0f, a, 1, b, 2, 0.0f, c, 2, &bad) ==
             GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "lda") &&
         gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 0, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2, &bad) ==
             GEMM_ERR_INVALID_ARG;
    battery_check(ok, "a bad CBLAS argument is reported before bad options, which fail even when m = 0");
    ok = gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2, &zero) ==
             GEMM_OK && c[0] == 1 && c[1] == 2 && c[2] == 3 && c[3] == 4 &&
         gemm_cpu_dgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 2, 2, 2, 1.0, ad, 2, bd, 2, 0.0, cd, 2, NULL) ==
             GEMM_OK && cd[0] == 1 && cd[1] == 2 && cd[2] == 3 && cd[3] == 4;
    battery_check(ok, "zeroed and NULL options are the defaults");
    gemm_cpu_set_threads(1);
    workspace_of(200, 200, 200, NULL);
    one = (size_t)gemm__cpu_last_threads();
    workspace_of(200, 200, 200, &three);
    more = (size_t)gemm__cpu_last_threads();
#ifdef GEMM_NO_THREADS
    battery_check(one == 1 && more == 1, "GEMM_NO_THREADS: options.threads = 3 still runs one thread (%zu)", more);
#else
    battery_check(one == 1 && more == 3, "options.threads = 3 beats gemm_cpu_set_threads(1): %zu threads ran (1: %zu)",
                  more, one);
#endif
    for (i = 0; i < M * K; i++) A[i] = (float)battery_uniform(&state);
    for (i = 0; i < K * N; i++) B[i] = (float)battery_uniform(&state);
    ok = gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0f, A, K, B, N, 0.0f, C1, N, NULL) ==
             GEMM_OK &&
         gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0f, A, K, B, N, 0.0f, C4, N, &four) ==
             GEMM_OK &&
         memcmp(C1, C4, sizeof(float) * M * N) == 0;
    battery_check(ok, "options.threads = 4 gives the 1-thread result bit for bit");
    gemm_cpu_set_threads(0);
    free(A); free(B); free(C1); free(C4);
}

/* Offsets in 64 bits (DESIGN.md: a 50,000 x 50,000 matrix must work): leading
   dimensions past 2^31 elements, in address space reserved but never touched
   except where the matrices live, so the test needs a few pages of memory. */
static void test_64bit_offsets(void)
{
#if defined(MAP_NORESERVE) && defined(MAP_ANONYMOUS)
    const int64_t ld = 3000000000LL; /* element offsets overflow 32 bits */
    const int64_t m = 2, n = 48, k = 40;
    size_t bytes = (size_t)(ld * (m - 1) + 64) * sizeof(double);
    void *pa = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *pc = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    double B[40 * 48], err32 = 0, err64 = 0;
    int64_t i, j, p;
    uint64_t state = 5;
    if (pa == MAP_FAILED || pc == MAP_FAILED) {
        battery_skip("64-bit offsets", "mmap of a sparse 24 GB region failed");
        if (pa != MAP_FAILED) munmap(pa, bytes);
        if (pc != MAP_FAILED) munmap(pc, bytes);
        return;
    }
    for (i = 0; i < k * n; i++) B[i] = battery_uniform(&state);
    /* fp32: row-major, untransposed A (m x k) and C (m x n), each row ld apart. */
    {
        float *A = (float *)pa, *C = (float *)pc, Bf[40 * 48];
        for (i = 0; i < k * n; i++) Bf[i] = (float)B[i];
        for (i = 0; i < m; i++)
            for (p = 0; p < k; p++) A[i * ld + p] = (float)battery_uniform(&state);
        battery_check(gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, 1.0f, A, ld, Bf, n, 0.0f, C,
                                 ld) == GEMM_OK, "64-bit offsets: sgemm row-major NN with lda = ldc = %lld runs", (long long)ld);
        for (i = 0; i < m; i++)
            for (j = 0; j < n; j++) {
                double sum = 0;
                for (p = 0; p < k; p++) sum += (double)A[i * ld + p] * (double)Bf[p * n + j];
                double d = fabs(sum - C[i * ld + j]);
                if (!(d <= err32)) err32 = d; /* NaN sticks */
            }
    }
    /* fp64: column-major TN, the big leading dimension on the second operand:
       C (n x m) = B^T X with X (k x m) stored column by column, ld apart. */
    {
        double *A = (double *)pa, *C = (double *)pc;
        for (i = 0; i < m; i++)
            for (p = 0; p < k; p++) A[i * ld + p] = battery_uniform(&state);
        battery_check(gemm_dgemm(GEMM_COL_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, n, m, k, 1.0, B, k, A, ld, 0.0, C, n) ==
                          GEMM_OK, "64-bit offsets: dgemm column-major TN with ldb = %lld runs", (long long)ld);
        /* C[j + i*n] = sum_p B[p + j*k] X[p + i*ld] */
        for (i = 0; i < m; i++)
            for (j = 0; j < n; j++) {
                double sum = 0;
                for (p = 0; p < k; p++) sum += B[p + j * k] * A[i * ld + p];
                double d = fabs(sum - C[j + i * n]);
                if (!(d <= err64)) err64 = d;
            }
    }
    battery_check(err32 <= 2 * FLT_EPSILON * (double)k * 0.25 && err64 <= 2 * DBL_EPSILON * (double)k * 0.25,
                  "64-bit offsets: results right (max error fp32 %.3g, fp64 %.3g)", err32, err64);
    munmap(pa, bytes);
    munmap(pc, bytes);
#endif
}

#include "cpu_edge_tests.h"
#include "cpu_small_tests.h"
#include "cpu_sbgemm_tests.h"

int main(int argc, char **argv)
{
    int quick = 0, smoke = 0, no_fork = 0, no_exit_test = 0;
    battery_backend *cpu = &cpu_backend;
    const char *kernels[8];
    char name[64];
    int nkernels, i, only_best = 0, cases;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
        else if (strcmp(argv[i], "--only-best") == 0) only_best = 1;
        else if (strcmp(argv[i], "--smoke") == 0) smoke = quick = only_best = 1;
        else if (strcmp(argv[i], "--no-fork") == 0) no_fork = 1;
        else if (strcmp(argv[i], "--no-exit-test") == 0) no_exit_test = 1;
        else { fprintf(stderr, "usage: %s [--quick] [--only-best] [--smoke] [--no-fork] [--no-exit-test]\n", argv[0]); return 2; }
    }
    cpu->name = "cpu";
    cpu->sgemm = cpu_sgemm;
    cpu->dgemm = cpu_dgemm;
    if (quick) { cpu->cases = 12; cpu->max_dim = 160; }
    if (smoke) { cpu->cases = 2; cpu->max_dim = 100; }
    cases = cpu->cases ? cpu->cases : 200;
    battery_extreme_args = 1; /* the adapters pass sizes through */
    battery_small_dim = 4; /* every tiny product: the entry points' plain loops, the single tile */

    test_reference_by_hand();
    test_status_strings();
    test_thread_settings();
    nkernels = gemm__cpu_kernels(kernels, 8);
    test_kernel_hooks(nkernels, kernels);
    test_out_of_memory();
    if (!smoke) test_bounded_workspace();
    test_options();
    test_error_names();
    test_c_overlaps();
    if (!smoke) test_64bit_offsets();
    if (!smoke) test_huge_leading_dims();
    test_alpha_not_finite(quick);
    test_direct_strip_copy();
    test_small_path(smoke);
    test_single_small(smoke);
#if defined(TEST_HAVE_PTHREADS) && defined(__linux__)
    test_affinity();
#endif
#ifdef TEST_HAVE_PTHREADS
    if (!smoke) test_concurrent_callers();
    if (!no_fork) test_fork();
    if (!no_fork && !no_exit_test) test_exit_while_busy();
    else if (no_exit_test) printf("(--no-exit-test: exit() under load is tested by the native run, make test-cpu)\n");
#endif
    (void)no_fork;
    (void)no_exit_test;
    for (i = 0; i < nkernels; i++) {
        use_kernel(kernels[i]);
        printf("== kernel %s\n", kernels[i]);
        snprintf(name, sizeof name, "cpu/%s", kernels[i]);
        cpu->name = name;
        battery_run(cpu);
        if (!smoke) {
            cbattery_backend cb = {NULL, cpu_cgemm, cpu_zgemm, NULL, 40, 1, 1};
            char cname[80];
            snprintf(cname, sizeof cname, "cpu/%s/complex", kernels[i]);
            cb.name = cname;
            cbattery_run(&cb);
        }
        /* Tiny blocks on the packed path (forced, so small shapes take it
           too): every call crosses MC, KC and NC edges, on 3 threads. */
        set_blocking(1, 7, 1);
        gemm__test_hooks()->cpu_path = 1;
        gemm_cpu_set_threads(3);
        cpu->cases = cases / 3; /* every call crosses hundreds of steps: fewer cases */
        snprintf(name, sizeof name, "cpu/%s/packed/tiny-blocks/3-threads", kernels[i]);
        battery_run(cpu);
        set_blocking(0, 0, 0);
        if (i == 0) { /* the direct path on every shape, threaded, for the best kernel */
            gemm__test_hooks()->cpu_path = 2;
            snprintf(name, sizeof name, "cpu/%s/direct/3-threads", kernels[i]);
            battery_run(cpu);
        }
        cpu->cases = cases;
        gemm__test_hooks()->cpu_path = 0;
        gemm_cpu_set_threads(0);
        if (!smoke) test_thread_determinism(kernels[i], quick);
        if (only_best) break;
    }
    use_kernel(NULL);
    test_sbgemm(only_best ? 1 : nkernels, kernels, cpu->cases, cpu->max_dim > 0 ? cpu->max_dim : 300, quick);
    return battery_summary();
}

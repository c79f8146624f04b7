/* tests/test_complex.c - the CPU's complex calls (gemm_cgemm / gemm_zgemm,
   gemm_cpu_cgemm / gemm_cpu_zgemm) and the complex reference. Last line:
   N passed, N failed.

   The complex battery (battery_complex.h) on the front door, on one and
   two threads, on every micro-kernel this CPU can run and on tiny blocks
   and tiny panels (every edge of the real product crossed); then the
   reference against C99 complex arithmetic, bitwise identity across
   thread counts, GEMM_CONJ_TRANS as GEMM_TRANS for the real calls, a
   refused negative thread count, and a failed allocation that leaves C
   unchanged; the strided and pointer-array batches member by member; the
   3M calls (gemm_cpu_cgemm3m / zgemm3m) through the battery, and their
   larger error where imaginary parts are small (the Gauss formula's,
   which neither a wrong formula nor the 4M product would give).
   --quick: the battery on the front door and two threads only. */
#include <stddef.h>

static int test_malloc_fail;
static long test_malloc_fail_at; /* > 0: that call (counted in test_malloc_calls) and those after it fail */
static void *test_malloc(size_t size);
#define GEMM_MALLOC(size) test_malloc(size)
#define GEMM_FREE(ptr) free(ptr)

#define GEMM__TEST_HOOKS
#define GEMM_IMPLEMENTATION
#include "../gemm.h"
#include "battery_complex.h"

#include <complex.h>

static long test_malloc_calls;
static void *test_malloc(size_t size)
{
    test_malloc_calls++;
    return test_malloc_fail || (test_malloc_fail_at > 0 && test_malloc_calls >= test_malloc_fail_at) ? NULL
                                                                                                      : malloc(size);
}

static gemm_status front_c(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                           int64_t k, const void *al, const void *A, int64_t lda, const void *B, int64_t ldb,
                           const void *be, void *C, int64_t ldc)
{
    (void)ctx;
    return gemm_cgemm(l, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc);
}
static gemm_status front_z(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                           int64_t k, const void *al, const void *A, int64_t lda, const void *B, int64_t ldb,
                           const void *be, void *C, int64_t ldc)
{
    (void)ctx;
    return gemm_zgemm(l, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc);
}
static gemm_status opt_c(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                         int64_t k, const void *al, const void *A, int64_t lda, const void *B, int64_t ldb,
                         const void *be, void *C, int64_t ldc)
{
    return gemm_cpu_cgemm(l, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc, (const gemm_cpu_options *)ctx);
}
static gemm_status opt_z(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                         int64_t k, const void *al, const void *A, int64_t lda, const void *B, int64_t ldb,
                         const void *be, void *C, int64_t ldc)
{
    return gemm_cpu_zgemm(l, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc, (const gemm_cpu_options *)ctx);
}

static gemm_status m3_c(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                        int64_t k, const void *al, const void *A, int64_t lda, const void *B, int64_t ldb,
                        const void *be, void *C, int64_t ldc)
{
    return gemm_cpu_cgemm3m(l, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc, (const gemm_cpu_options *)ctx);
}
static gemm_status m3_z(void *ctx, gemm_layout l, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                        int64_t k, const void *al, const void *A, int64_t lda, const void *B, int64_t ldb,
                        const void *be, void *C, int64_t ldc)
{
    return gemm_cpu_zgemm3m(l, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc, (const gemm_cpu_options *)ctx);
}

/* The reference itself against C99's complex arithmetic (double _Complex
   sums, long double for the comparison's scale), every layout and op. */
static void test_reference(void)
{
    enum { M = 5, N = 4, K = 6, LD = 9 };
    double _Complex A[LD * LD], B[LD * LD], C[LD * LD], W[LD * LD];
    double _Complex alpha = 1.5 - 0.5 * I, beta = 0.25 + 2.0 * I;
    int li, ai, bi, i, j, l;
    for (i = 0; i < LD * LD; i++) {
        A[i] = 0.1 * i + I * (i % 7 - 3);
        B[i] = (i % 5) - 0.3 * i * I;
        C[i] = i - 2.0 * I;
    }
    for (li = 0; li < 2; li++)
        for (ai = 0; ai < 3; ai++)
            for (bi = 0; bi < 3; bi++) {
                gemm_layout lay = battery_layouts[li];
                gemm_transpose ta = cbattery_ops[ai], tb = cbattery_ops[bi];
                double err = 0;
                gemm_status s;
                memcpy(W, C, sizeof C);
                s = gemm_ref_zgemm(lay, ta, tb, M, N, K, &alpha, A, LD, B, LD, &beta, W, LD);
                for (i = 0; i < M; i++)
                    for (j = 0; j < N; j++) {
                        double _Complex sum = 0, want;
                        int at = lay == GEMM_ROW_MAJOR ? i * LD + j : i + j * LD;
                        for (l = 0; l < K; l++) {
                            /* op(A)[i][l], op(B)[l][j] from storage */
                            int ia = (lay == GEMM_ROW_MAJOR) == (ta == GEMM_NO_TRANS) ? i * LD + l : i + l * LD;
                            int ib = (lay == GEMM_ROW_MAJOR) == (tb == GEMM_NO_TRANS) ? l * LD + j : l + j * LD;
                            double _Complex a = A[ia], b = B[ib];
                            if (ta == GEMM_CONJ_TRANS) a = conj(a);
                            if (tb == GEMM_CONJ_TRANS) b = conj(b);
                            sum += a * b;
                        }
                        want = alpha * sum + beta * C[at];
                        if (cabs(want - W[at]) > err) err = cabs(want - W[at]);
                    }
                battery_check(s == GEMM_OK && err < 1e-12, "reference zgemm %s %c%c matches C99 complex: err %.3g",
                              li ? "col" : "row", "NTC"[ai], "NTC"[bi], err);
            }
}

/* A fixed product on 1 and 2 threads (and the front door): the same bits. */
static void test_threads_identical(void)
{
    enum { S = 300 };
    double *A = malloc(sizeof(double) * 2 * S * S), *B = malloc(sizeof(double) * 2 * S * S);
    double *C1 = malloc(sizeof(double) * 2 * S * S), *C2 = malloc(sizeof(double) * 2 * S * S);
    float *F = malloc(sizeof(float) * 2 * S * S), *F1 = malloc(sizeof(float) * 2 * S * S),
          *F2 = malloc(sizeof(float) * 2 * S * S);
    double alpha[2] = {0.5, -1}, beta[2] = {0, 0};
    float fa[2] = {0.5f, -1}, fb[2] = {0, 0};
    gemm_cpu_options one = {1, 0}, two = {2, 0};
    uint64_t st = 5;
    int i, s1, s2;
    for (i = 0; i < 2 * S * S; i++) {
        A[i] = battery_uniform(&st);
        B[i] = battery_uniform(&st);
        F[i] = (float)A[i];
    }
    s1 = gemm_cpu_zgemm(GEMM_ROW_MAJOR, GEMM_CONJ_TRANS, GEMM_NO_TRANS, S, S, S, alpha, A, S, B, S, beta, C1, S, &one);
    s2 = gemm_cpu_zgemm(GEMM_ROW_MAJOR, GEMM_CONJ_TRANS, GEMM_NO_TRANS, S, S, S, alpha, A, S, B, S, beta, C2, S, &two);
    battery_check(s1 == GEMM_OK && s2 == GEMM_OK && memcmp(C1, C2, sizeof(double) * 2 * S * S) == 0,
                  "zgemm 300^3: 1 and 2 threads give the same bits");
    s1 = gemm_cpu_cgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, S, S, S, fa, F, S, F, S, fb, F1, S, &one);
    s2 = gemm_cpu_cgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, S, S, S, fa, F, S, F, S, fb, F2, S, &two);
    battery_check(s1 == GEMM_OK && s2 == GEMM_OK && memcmp(F1, F2, sizeof(float) * 2 * S * S) == 0,
                  "cgemm 300^3: 1 and 2 threads give the same bits");
    free(A); free(B); free(C1); free(C2); free(F); free(F1); free(F2);
}

/* GEMM_CONJ_TRANS is GEMM_TRANS for the real calls (as in BLAS). */
static void test_conj_trans_real(void)
{
    enum { S = 40 };
    static double A[S * S], B[S * S], C1[S * S], C2[S * S];
    float fa[S * S], fc1[S * S], fc2[S * S];
    uint64_t st = 9;
    int i;
    gemm_status s1, s2;
    for (i = 0; i < S * S; i++) {
        A[i] = battery_uniform(&st);
        B[i] = battery_uniform(&st);
        fa[i] = (float)A[i];
    }
    s1 = gemm_dgemm(GEMM_COL_MAJOR, GEMM_CONJ_TRANS, GEMM_CONJ_TRANS, S, S, S, 1.0, A, S, B, S, 0.0, C1, S);
    s2 = gemm_dgemm(GEMM_COL_MAJOR, GEMM_TRANS, GEMM_TRANS, S, S, S, 1.0, A, S, B, S, 0.0, C2, S);
    battery_check(s1 == GEMM_OK && s2 == GEMM_OK && memcmp(C1, C2, sizeof C1) == 0,
                  "gemm_dgemm: GEMM_CONJ_TRANS is GEMM_TRANS");
    s1 = gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_CONJ_TRANS, S, S, S, 1.0f, fa, S, fa, S, 0.0f, fc1, S);
    s2 = gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, S, S, S, 1.0f, fa, S, fa, S, 0.0f, fc2, S);
    battery_check(s1 == GEMM_OK && s2 == GEMM_OK && memcmp(fc1, fc2, sizeof fc1) == 0,
                  "gemm_sgemm: GEMM_CONJ_TRANS is GEMM_TRANS");
}

/* Options and memory: a negative thread count and a failed allocation are
   refused with C unchanged. */
static void test_refusals(void)
{
    enum { S = 64 };
    static double A[2 * S * S], C[2 * S * S], before[2 * S * S];
    double alpha[2] = {1, 1}, beta[2] = {0.5, 0.5};
    gemm_cpu_options bad = {-1, 0};
    uint64_t st = 11;
    gemm_status s;
    int i;
    for (i = 0; i < 2 * S * S; i++) A[i] = C[i] = battery_uniform(&st);
    memcpy(before, C, sizeof C);
    s = gemm_cpu_zgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, alpha, A, S, A, S, beta, C, S, &bad);
    battery_check(s == GEMM_ERR_INVALID_ARG && memcmp(C, before, sizeof C) == 0 &&
                      strstr(gemm_last_error_detail(), "threads"),
                  "negative threads refused, C unchanged: \"%s\"", gemm_last_error_detail());
    test_malloc_fail = 1;
    s = gemm_zgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_CONJ_TRANS, S, S, S, alpha, A, S, A, S, beta, C, S);
    test_malloc_fail = 0;
    battery_check(s == GEMM_ERR_OUT_OF_MEMORY && memcmp(C, before, sizeof C) == 0,
                  "no memory: GEMM_ERR_OUT_OF_MEMORY, C unchanged (complex beta): status %d \"%s\"", (int)s,
                  gemm_last_error_detail());
    s = gemm_zgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, alpha, A, S, A, S, beta, C, S);
    battery_check(s == GEMM_OK, "after the failure the same call works: status %d", (int)s);
    {
        /* many panels on one thread: one allocation, before C is touched, so
           no later panel can fail for want of memory and leave C half done */
        gemm_cpu_options one = {1, 0};
        gemm__test_hooks()->cpu_complex_panel = 4096;
        gemm__test_hooks()->cpu_complex_kb = 5;
        gemm__test_hooks()->cpu_path = 1;
        test_malloc_calls = 0;
        s = gemm_cpu_zgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_CONJ_TRANS, S, S, S, alpha, A, S, A, S, beta, C, S, &one);
        battery_check(s == GEMM_OK && test_malloc_calls == 1,
                      "panels of 25 x 5 on the packed path, one thread: %ld allocation(s), want 1",
                      test_malloc_calls);
        gemm__test_hooks()->cpu_complex_panel = 0;
        gemm__test_hooks()->cpu_complex_kb = 0;
        gemm__test_hooks()->cpu_path = 0;
    }
}

/* The strided batches: every member bitwise the single call (each layout
   and op pair, a shared A through stride 0, padded strides, a complex
   beta), and the batch's refusals (members writing one C, a negative
   count, NULL alpha and beta by their strided positions, a C over another
   member's A) writing nothing; no member with NULL matrices is fine. */
static void test_strided(void)
{
    enum { M = 13, N = 9, K = 11, COUNT = 4, LD = 16 };
    static double A[COUNT * 2 * LD * LD], B[COUNT * 2 * LD * LD], C[COUNT * 2 * LD * LD], R[COUNT * 2 * LD * LD];
    static double before[COUNT * 2 * LD * LD];
    double alpha[2] = {0.5, -1.25}, beta[2] = {0.25, 0.75};
    float fa[2] = {0.5f, -1.25f}, fb[2] = {0.25f, 0.75f};
    const int64_t stride = LD * LD + 3;
    uint64_t st = 21;
    int li, ai, bi, i, same = 1, cases = 0;
    gemm_status s;
    for (i = 0; i < COUNT * 2 * LD * LD; i++) A[i] = battery_uniform(&st), B[i] = battery_uniform(&st);
    for (li = 0; li < 2; li++)
        for (ai = 0; ai < 3; ai++)
            for (bi = 0; bi < 3; bi++) {
                gemm_layout lay = battery_layouts[li];
                gemm_transpose ta = cbattery_ops[ai], tb = cbattery_ops[bi];
                int64_t sa = (ai + bi) % 3 == 0 ? 0 : stride; /* a shared A now and then */
                for (i = 0; i < COUNT * 2 * LD * LD; i++) C[i] = R[i] = battery_uniform(&st);
                s = gemm_zgemm_strided_batched(lay, ta, tb, M, N, K, alpha, A, LD, sa, B, LD, stride, beta, C, LD,
                                               stride, COUNT);
                same = same && s == GEMM_OK;
                for (i = 0; i < COUNT; i++) {
                    double *r = R + 2 * i * stride;
                    gemm_zgemm(lay, ta, tb, M, N, K, alpha, A + 2 * i * sa, LD, B + 2 * i * stride, LD, beta, r, LD);
                }
                same = same && memcmp(C, R, sizeof C) == 0;
                cases++;
            }
    battery_check(same, "zgemm strided batches: %d cases (every layout and op pair), each member the single call "
                  "bit for bit", cases);
    {
        static float FA[COUNT * 2 * LD * LD], FC[COUNT * 2 * LD * LD], FR[COUNT * 2 * LD * LD];
        gemm_cpu_options two = {2, 0};
        for (i = 0; i < COUNT * 2 * LD * LD; i++) FA[i] = (float)A[i], FC[i] = FR[i] = (float)B[i];
        s = gemm_cpu_cgemm_strided_batched(GEMM_ROW_MAJOR, GEMM_CONJ_TRANS, GEMM_TRANS, M, N, K, fa, FA, LD, stride,
                                           FA, LD, 0, fb, FC, LD, stride, COUNT, &two);
        for (i = 0; i < COUNT; i++)
            gemm_cgemm(GEMM_ROW_MAJOR, GEMM_CONJ_TRANS, GEMM_TRANS, M, N, K, fa, FA + 2 * i * stride, LD, FA, LD, fb,
                       FR + 2 * i * stride, LD);
        battery_check(s == GEMM_OK && memcmp(FC, FR, sizeof FC) == 0,
                      "cgemm strided batch on 2 threads, a shared B: each member the single call bit for bit");
    }
    memcpy(before, C, sizeof C);
    s = gemm_zgemm_strided_batched(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, alpha, A, LD, stride, B, LD,
                                   stride, beta, C, LD, 0, COUNT);
    battery_check(s == GEMM_ERR_INVALID_ARG && memcmp(C, before, sizeof C) == 0 &&
                      strstr(gemm_last_error_detail(), "stride_c"),
                  "stride_c = 0 with %d members refused, nothing written: \"%s\"", COUNT, gemm_last_error_detail());
    s = gemm_zgemm_strided_batched(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, alpha, A, LD, stride, B, LD,
                                   stride, beta, C, LD, stride, -1);
    battery_check(s == GEMM_ERR_INVALID_ARG && memcmp(C, before, sizeof C) == 0, "batch_count = -1 refused");
    s = gemm_zgemm_strided_batched(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, NULL, A, LD, stride, B, LD,
                                   stride, beta, C, LD, stride, COUNT);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "alpha is NULL") &&
                      memcmp(C, before, sizeof C) == 0, "NULL alpha refused: \"%s\"", gemm_last_error_detail());
    s = gemm_zgemm_strided_batched(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, alpha, A, LD, stride, B, LD,
                                   stride, NULL, C, LD, stride, COUNT);
    battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "beta is NULL") &&
                      memcmp(C, before, sizeof C) == 0, "NULL beta refused: \"%s\"", gemm_last_error_detail());
    /* member 1's C is member 0's A (A = C + stride): refused before any member runs */
    s = gemm_zgemm_strided_batched(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, alpha, C + 2 * stride, LD,
                                   stride, B, LD, stride, beta, C, LD, stride, 2);
    battery_check(s == GEMM_ERR_INVALID_ARG && memcmp(C, before, sizeof C) == 0 &&
                      strstr(gemm_last_error_detail(), "overlaps"),
                  "a member's C over another member's A refused, nothing written: \"%s\"", gemm_last_error_detail());
    s = gemm_zgemm_strided_batched(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, alpha, NULL, LD, stride,
                                   NULL, LD, stride, beta, NULL, LD, stride, 0);
    battery_check(s == GEMM_OK, "no member, NULL matrices: status %d", (int)s);
}

/* The pointer-array batches: both precisions, layouts and every op pair,
   members at scattered addresses (C's list not in address order), each
   member bitwise the single call and within the battery's bound of the
   reference; then the refusals (NULL alpha and beta, a NULL member, two
   members writing one C, a member's C over another's A, a negative
   count), each writing nothing; a batch that runs out of memory at member
   2 (members 0 and 1 written, 2 and 3 not); no member with NULL lists. */
static void test_pointers(void)
{
    enum { M = 11, N = 7, K = 9, COUNT = 4, LD = 13, SZ = 2 * LD * LD };
    /* A's, B's and C's members in three separate regions: their spans are
       apart, so the overlap checks allocate nothing */
    static double A[COUNT * SZ], B[COUNT * SZ], C[COUNT * SZ], R[COUNT * SZ], W[COUNT * SZ], before[COUNT * SZ];
    static const int order[COUNT] = {2, 0, 3, 1}; /* member i's slot */
    double alpha[2] = {0.75, -0.5}, beta[2] = {-0.25, 1.5};
    float fa[2] = {0.75f, -0.5f}, fb[2] = {-0.25f, 1.5f};
    const void *al, *be, *la[COUNT], *lb[COUNT];
    void *lc[COUNT];
    uint64_t st = 31;
    int pi, li, ai, bi, i, j, cases = 0, same = 1, close = 1;
    double worst = 0;
    gemm_status s;
    for (pi = 0; pi < 2; pi++) {
        gemm_precision prec = pi ? GEMM_F64 : GEMM_F32;
        size_t es = pi ? sizeof(double) : sizeof(float);
        double eps = pi ? DBL_EPSILON : FLT_EPSILON;
        al = pi ? (const void *)alpha : (const void *)fa;
        be = pi ? (const void *)beta : (const void *)fb;
        /* each precision's values where its members are: A, B, C in [-1, 1) */
        for (i = 0; i < COUNT * SZ; i++) {
            double a = battery_uniform(&st), b = battery_uniform(&st);
            if (pi) A[i] = a, B[i] = b;
            else ((float *)A)[i] = (float)a, ((float *)B)[i] = (float)b;
        }
        for (i = 0; i < COUNT; i++) {
            la[i] = (const char *)A + (size_t)order[i] * SZ * es;
            lb[i] = (const char *)B + (size_t)(COUNT - 1 - i) * SZ * es;
            lc[i] = (char *)C + (size_t)order[i] * SZ * es;
        }
        for (li = 0; li < 2; li++)
            for (ai = 0; ai < 3; ai++)
                for (bi = 0; bi < 3; bi++) {
                    gemm_layout lay = battery_layouts[li];
                    gemm_transpose ta = cbattery_ops[ai], tb = cbattery_ops[bi];
                    for (i = 0; i < COUNT * SZ; i++) {
                        double c = battery_uniform(&st);
                        if (pi) C[i] = R[i] = W[i] = c;
                        else ((float *)C)[i] = ((float *)R)[i] = ((float *)W)[i] = (float)c;
                    }
                    s = pi ? gemm_zgemm_batched(lay, ta, tb, M, N, K, al, la, LD, lb, LD, be, lc, LD, COUNT)
                           : gemm_cgemm_batched(lay, ta, tb, M, N, K, al, la, LD, lb, LD, be, lc, LD, COUNT);
                    same = same && s == GEMM_OK;
                    for (i = 0; i < COUNT; i++) {
                        size_t at = (size_t)order[i] * SZ * es;
                        (pi ? gemm_zgemm : gemm_cgemm)(lay, ta, tb, M, N, K, al, la[i], LD, lb[i], LD, be,
                                                       (char *)R + at, LD);
                        (pi ? gemm_ref_zgemm : gemm_ref_cgemm)(lay, ta, tb, M, N, K, al, la[i], LD, lb[i], LD, be,
                                                               (char *)W + at, LD);
                    }
                    same = same && memcmp(C, R, COUNT * SZ * es) == 0;
                    /* the battery's bound: |A|, |B|, |C| < 1, |alpha| < 1, |beta| < 1.6 */
                    for (j = 0; j < COUNT * SZ; j++) {
                        double d = pi ? fabs(C[j] - W[j]) : fabs((double)((float *)C)[j] - ((float *)W)[j]);
                        if (!(d <= 4 * eps * K * 2 * 1.6)) close = 0;
                        if (d > worst) worst = d;
                    }
                    cases++;
                    (void)prec;
                }
    }
    battery_check(same, "pointer-array batches: %d cases (c and z, both layouts, every op pair), each member the "
                  "single call bit for bit", cases);
    battery_check(close, "pointer-array batches against the complex reference: largest error %.3g", worst);

    /* the refusals, on zgemm with members as above (precision F64) */
    for (i = 0; i < COUNT * SZ; i++) A[i] = battery_uniform(&st), B[i] = battery_uniform(&st), C[i] = i;
    for (i = 0; i < COUNT; i++) {
        la[i] = A + order[i] * SZ;
        lb[i] = B + i * SZ;
        lc[i] = C + order[i] * SZ;
    }
    memcpy(before, C, sizeof C);
#define TEST_REFUSED(call, what, want)                                                                           \
    do {                                                                                                         \
        s = call;                                                                                                \
        battery_check(s == GEMM_ERR_INVALID_ARG && memcmp(C, before, sizeof C) == 0 &&                           \
                          strstr(gemm_last_error_detail(), want) != NULL,                                        \
                      "pointer-array batch: %s refused, nothing written: \"%s\"", what, gemm_last_error_detail()); \
    } while (0)
    TEST_REFUSED(gemm_zgemm_batched(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, NULL, la, LD, lb, LD, beta,
                                    lc, LD, COUNT), "NULL alpha", "alpha is NULL");
    TEST_REFUSED(gemm_zgemm_batched(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, alpha, la, LD, lb, LD, NULL,
                                    lc, LD, COUNT), "NULL beta", "beta is NULL");
    TEST_REFUSED(gemm_zgemm_batched(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, alpha, la, LD, lb, LD, beta,
                                    lc, LD, -1), "batch_count = -1", "batch_count");
    TEST_REFUSED(gemm_zgemm_batched(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, alpha, la, LD, NULL, LD,
                                    beta, lc, LD, COUNT), "a NULL list of B", "B (the list");
    {
        void *lc2[COUNT];
        const void *la2[COUNT];
        memcpy(lc2, lc, sizeof lc);
        lc2[2] = NULL;
        TEST_REFUSED(gemm_zgemm_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, alpha, la, LD, lb, LD,
                                        beta, lc2, LD, COUNT), "a NULL C[2]", "C[2] is NULL");
        memcpy(lc2, lc, sizeof lc);
        lc2[3] = (char *)lc2[1] + 2 * sizeof(double); /* member 3's C one element into member 1's */
        TEST_REFUSED(gemm_zgemm_batched(GEMM_ROW_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, M, N, K, alpha, la, LD, lb, LD,
                                        beta, lc2, LD, COUNT), "two members writing one C", "same elements");
        memcpy(la2, la, sizeof la);
        la2[3] = lc[0]; /* member 3 reads member 0's C */
        TEST_REFUSED(gemm_zgemm_batched(GEMM_COL_MAJOR, GEMM_CONJ_TRANS, GEMM_NO_TRANS, M, N, K, alpha, la2, LD, lb,
                                        LD, beta, lc, LD, COUNT), "a member's C over another member's A", "overlaps");
    }
#undef TEST_REFUSED
    s = gemm_zgemm_batched(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, alpha, NULL, LD, NULL, LD, beta,
                           NULL, LD, 0);
    battery_check(s == GEMM_OK, "no member, NULL lists: status %d", (int)s);
    {
        /* one thread: the check of C's list (not in address order) sorts
           a copy, one allocation, then each member allocates what its
           single call does (counted here), so the allocation after two
           members' fails and member 2 stops the batch */
        gemm_cpu_options one = {1, 0};
        long per;
        memcpy(R, C, sizeof C);
        test_malloc_calls = 0;
        for (i = 0; i < 2; i++)
            gemm_cpu_zgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_CONJ_TRANS, M, N, K, alpha, la[i], LD, lb[i], LD, beta,
                           R + order[i] * SZ, LD, &one);
        per = test_malloc_calls / 2;
        test_malloc_calls = 0;
        test_malloc_fail_at = 1 + 2 * per + 1;
        s = gemm_cpu_zgemm_batched(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_CONJ_TRANS, M, N, K, alpha, la, LD, lb, LD,
                                   beta, lc, LD, COUNT, &one);
        test_malloc_fail_at = 0;
        battery_check(s == GEMM_ERR_OUT_OF_MEMORY && memcmp(C, R, sizeof C) == 0 &&
                          strstr(gemm_last_error_detail(), "member 2 of 4 failed") &&
                          strstr(gemm_last_error_detail(), "it and those after it were not"),
                      "out of memory at member 2 (%ld allocation(s) a member): members 0 and 1 written, 2 and 3 "
                      "not: status %d \"%s\"", per, (int)s, gemm_last_error_detail());
    }
}

/* The 3M method's own error. A and B with real parts in [0.5, 1) and
   imaginary parts a thousand times smaller, cgemm3m and cgemm against the
   reference: Im by 3M comes out of T3 - T1 - T2, products of size
   (|Re| + |Im|)^2 k, so its error is bounded by a few eps * k *
   (max|Re A| + max|Im A|)(max|Re B| + max|Im B|) but is far above the
   4M product's, whose terms are a thousand times smaller. A wrong formula
   breaks the bound; the 4M product under the 3M name breaks the second
   check. Re is as accurate as 4M's (T1 - T2, no cancellation). */
static void test_3m_error(void)
{
    enum { S = 64 };
    static float A[2 * S * S], B[2 * S * S], C4[2 * S * S], C3[2 * S * S], R[2 * S * S];
    float alpha[2] = {1, 0}, beta[2] = {0, 0};
    gemm_cpu_options two = {2, 0};
    uint64_t st = 41;
    double e3 = 0, e4 = 0, re3 = 0, bound = 0;
    gemm_status s3, s4;
    int i;
    for (i = 0; i < S * S; i++) {
        A[2 * i] = (float)(0.75 + 0.25 * battery_uniform(&st));
        A[2 * i + 1] = (float)(1e-3 * battery_uniform(&st));
        B[2 * i] = (float)(0.75 + 0.25 * battery_uniform(&st));
        B[2 * i + 1] = (float)(1e-3 * battery_uniform(&st));
    }
    s3 = gemm_cpu_cgemm3m(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_CONJ_TRANS, S, S, S, alpha, A, S, B, S, beta, C3, S, &two);
    s4 = gemm_cpu_cgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_CONJ_TRANS, S, S, S, alpha, A, S, B, S, beta, C4, S, &two);
    gemm_ref_cgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_CONJ_TRANS, S, S, S, alpha, A, S, B, S, beta, R, S);
    for (i = 0; i < S * S; i++) {
        double d3 = fabs((double)C3[2 * i + 1] - R[2 * i + 1]), d4 = fabs((double)C4[2 * i + 1] - R[2 * i + 1]);
        double r3 = fabs((double)C3[2 * i] - R[2 * i]);
        if (!(d3 <= e3)) e3 = d3 != d3 ? INFINITY : d3;
        if (!(d4 <= e4)) e4 = d4 != d4 ? INFINITY : d4;
        if (!(r3 <= re3)) re3 = r3 != r3 ? INFINITY : r3;
    }
    bound = 8 * FLT_EPSILON * S * (1.0 + 1e-3) * (1.0 + 1e-3);
    battery_check(s3 == GEMM_OK && s4 == GEMM_OK && e3 <= bound && re3 <= bound,
                  "cgemm3m 64^3, Im A and Im B 1e-3 of Re: its error (Re %.3g, Im %.3g) within 8 eps k "
                  "(|Re|+|Im|)^2 = %.3g", re3, e3, bound);
    battery_check(e3 > 10 * e4, "cgemm3m's Im error %.3g is the Gauss formula's, above 10x cgemm's %.3g", e3, e4);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    gemm_cpu_options one = {1, 0}, two = {2, 0};
    cbattery_backend front = {"cpu/front-door", front_c, front_z, NULL, 0, 0, 1};
    cbattery_backend t1 = {"cpu/1-thread", opt_c, opt_z, &one, 0, 0, 1};
    cbattery_backend t2 = {"cpu/2-threads", opt_c, opt_z, &two, 0, 0, 1};
    const char *kernels[8];
    int nk = gemm__cpu_kernels(kernels, 8), i;
    char names[8][64];

    test_reference();
    test_conj_trans_real();
    cbattery_run(&front);
    cbattery_run(&t2);
    if (!quick) {
        cbattery_run(&t1);
        for (i = 0; i < nk; i++) {
            cbattery_backend kb = {NULL, opt_c, opt_z, &two, 70, 4, 1};
            snprintf(names[i], sizeof names[i], "cpu/%s", kernels[i]);
            kb.name = names[i];
            gemm__test_hooks()->cpu_kernel = kernels[i];
            cbattery_run(&kb);
        }
        gemm__test_hooks()->cpu_kernel = NULL;
        {
            /* tiny blocks, packed path: every block edge of the real product */
            cbattery_backend tb = {"cpu/packed/tiny-blocks", opt_c, opt_z, &two, 90, 4, 1};
            gemm__test_hooks()->cpu_path = 1;
            gemm__test_hooks()->cpu_mc = 8;
            gemm__test_hooks()->cpu_kc = 12;
            gemm__test_hooks()->cpu_nc = 16;
            cbattery_run(&tb);
            /* an odd KC: k blocks that cut a complex column of op(a) in two
               (the packer's scratch pair, its first and second halves) */
            tb.name = "cpu/packed/odd-k-blocks";
            gemm__test_hooks()->cpu_kc = 7;
            cbattery_run(&tb);
            gemm__test_hooks()->cpu_path = 0;
            gemm__test_hooks()->cpu_mc = gemm__test_hooks()->cpu_kc = gemm__test_hooks()->cpu_nc = 0;
        }
        {
            /* small panels of a (rows and k cut) and of b's copy: every panel edge */
            cbattery_backend pb = {"cpu/tiny-panels", opt_c, opt_z, &two, 90, 4, 1};
            gemm__test_hooks()->cpu_complex_panel = 20000;
            gemm__test_hooks()->cpu_complex_kb = 7;
            cbattery_run(&pb);
            gemm__test_hooks()->cpu_complex_panel = 0;
            gemm__test_hooks()->cpu_complex_kb = 0;
        }
    }
    test_threads_identical();
    test_refusals();
    test_strided();
    test_pointers();
    {
        /* the 3M calls: the battery's bound holds for its uniform values */
        cbattery_backend m3 = {"cpu/3m/2-threads", m3_c, m3_z, &two, 0, quick ? 4 : 0, 1};
        cbattery_backend m3n = {"cpu/3m/default-options", m3_c, m3_z, NULL, 90, 4, 1};
        cbattery_run(&m3);
        if (!quick) cbattery_run(&m3n);
    }
    test_3m_error();
    return battery_summary();
}

/* tests/test_batch.c - the CPU's batches (gemm_cpu_?gemm_strided_batched,
   gemm_cpu_?gemm_batched and the front door's gemm_?gemm_*batched).
   Last line: N passed, N failed.

   build/test_batch          the battery member by member through both forms
                             (tests/battery_batch.h); then for every kernel
                             this CPU runs (forced through the test hook), a
                             smaller battery, again with tiny blocks on 3
                             threads (big members cut over the threads), and
                             bitwise identity with the single call for any
                             thread count; the batch's own refusals (each
                             names the member or stride at fault and writes
                             nothing); counts of 0, shared operands,
                             interleaved and block-partitioned C; out of
                             memory; 10,000 tiny members
   build/test_batch --quick  a smaller battery (sanitizers, valgrind) */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>

static int test_malloc_fail;      /* the next allocations of the library fail */
static int test_malloc_countdown; /* > 0: the allocation this many from now fails (once) */
static void *test_malloc(size_t size);
#define GEMM_MALLOC(size) test_malloc(size)
#define GEMM_FREE(ptr) free(ptr)

#define GEMM__TEST_HOOKS
#define GEMM_IMPLEMENTATION
#include "../gemm.h"
#include "battery_batch.h"

static void *test_malloc(size_t size)
{
    /* atomic: a batch's threads may allocate at once */
    if (__atomic_load_n(&test_malloc_countdown, __ATOMIC_RELAXED) > 0 &&
        __atomic_sub_fetch(&test_malloc_countdown, 1, __ATOMIC_RELAXED) == 0)
        return NULL;
    return test_malloc_fail ? NULL : malloc(size);
}

/* ---- the calls under test, behind battery_batch's signatures ---- */

/* ctx: the options (NULL: the front door's calls, which take none). */
static gemm_status cpu_sstrided(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                                int64_t n, int64_t k, float alpha, const float *A, int64_t lda, int64_t sa,
                                const float *B, int64_t ldb, int64_t sb, float beta, float *C, int64_t ldc,
                                int64_t sc, int64_t count)
{
    if (!ctx) return gemm_sgemm_strided_batched(layout, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, count);
    return gemm_cpu_sgemm_strided_batched(layout, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc,
                                          count, (const gemm_cpu_options *)ctx);
}

static gemm_status cpu_dstrided(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                                int64_t n, int64_t k, double alpha, const double *A, int64_t lda, int64_t sa,
                                const double *B, int64_t ldb, int64_t sb, double beta, double *C, int64_t ldc,
                                int64_t sc, int64_t count)
{
    if (!ctx) return gemm_dgemm_strided_batched(layout, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, count);
    return gemm_cpu_dgemm_strided_batched(layout, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc,
                                          count, (const gemm_cpu_options *)ctx);
}

static gemm_status cpu_sbatched(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                                int64_t n, int64_t k, float alpha, const float *const A[], int64_t lda,
                                const float *const B[], int64_t ldb, float beta, float *const C[], int64_t ldc,
                                int64_t count)
{
    if (!ctx) return gemm_sgemm_batched(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, count);
    return gemm_cpu_sgemm_batched(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, count,
                                  (const gemm_cpu_options *)ctx);
}

static gemm_status cpu_dbatched(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                                int64_t n, int64_t k, double alpha, const double *const A[], int64_t lda,
                                const double *const B[], int64_t ldb, double beta, double *const C[], int64_t ldc,
                                int64_t count)
{
    if (!ctx) return gemm_dgemm_batched(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, count);
    return gemm_cpu_dgemm_batched(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, count,
                                  (const gemm_cpu_options *)ctx);
}

/* The single call: the oracle of the members the battery does not check. */
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

static battery_backend single = {"cpu", cpu_sgemm, cpu_dgemm, NULL, 0, 0, 0, 0};

/* Runs the battery through both forms with options `o` (NULL: the front door). */
static void battery_both_forms(gemm_cpu_options *o, const char *tag, int cases, int max_dim)
{
    battery_batch bb;
    battery_backend be;
    char name[96];
    memset(&bb, 0, sizeof bb);
    bb.sstrided = cpu_sstrided; bb.dstrided = cpu_dstrided; bb.sbatched = cpu_sbatched; bb.dbatched = cpu_dbatched;
    bb.ctx = o;
    bb.single = &single;
    snprintf(name, sizeof name, "cpu/strided%s", tag);
    be = battery_batch_backend(&bb, BATTERY_BATCH_STRIDED, name);
    be.cases = cases; be.max_dim = max_dim;
    battery_run(&be);
    snprintf(name, sizeof name, "cpu/pointers%s", tag);
    be = battery_batch_backend(&bb, BATTERY_BATCH_POINTERS, name);
    be.cases = cases; be.max_dim = max_dim;
    battery_run(&be);
}

/* ---- helpers ---- */

/* count members of m x n x k, row-major NN, dense, one after the other. */
typedef struct test_set {
    gemm_precision prec;
    int64_t m, n, k, count;
    battery_buf A, B, C;
} test_set;

static test_set set_new(gemm_precision prec, int64_t m, int64_t n, int64_t k, int64_t count, uint64_t seed)
{
    test_set t;
    uint64_t state = seed;
    t.prec = prec; t.m = m; t.n = n; t.k = k; t.count = count;
    t.A = battery_buf_new(prec, (size_t)(m * k * count));
    t.B = battery_buf_new(prec, (size_t)(k * n * count));
    t.C = battery_buf_new(prec, (size_t)(m * n * count));
    battery_fill(&t.A, &state);
    battery_fill(&t.B, &state);
    battery_fill(&t.C, &state);
    return t;
}

static void set_free(test_set *t)
{
    battery_buf_free(&t->A);
    battery_buf_free(&t->B);
    battery_buf_free(&t->C);
}

static void *elem(const battery_buf *b, int64_t i)
{
    return (char *)b->data + (size_t)i * (b->prec == GEMM_F32 ? sizeof(float) : sizeof(double));
}

/* The strided batch of t on C (a copy of t's C), alpha 0.75, beta -0.5. */
static gemm_status set_strided(const test_set *t, battery_buf *C, const gemm_cpu_options *o)
{
    int64_t m = t->m, n = t->n, k = t->k;
    if (t->prec == GEMM_F32)
        return gemm_cpu_sgemm_strided_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, 0.75f,
                                              (const float *)t->A.data, k, m * k, (const float *)t->B.data, n, k * n,
                                              -0.5f, (float *)C->data, n, m * n, t->count, o);
    return gemm_cpu_dgemm_strided_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, 0.75,
                                          (const double *)t->A.data, k, m * k, (const double *)t->B.data, n, k * n,
                                          -0.5, (double *)C->data, n, m * n, t->count, o);
}

/* The same members as single calls, one after the other. */
static void set_singles(const test_set *t, battery_buf *C)
{
    int64_t i, m = t->m, n = t->n, k = t->k;
    for (i = 0; i < t->count; i++) {
        if (t->prec == GEMM_F32)
            gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, 0.75f, (const float *)elem(&t->A, i * m * k),
                       k, (const float *)elem(&t->B, i * k * n), n, -0.5f, (float *)elem(C, i * m * n), n);
        else
            gemm_dgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k, 0.75, (const double *)elem(&t->A, i * m * k),
                       k, (const double *)elem(&t->B, i * k * n), n, -0.5, (double *)elem(C, i * m * n), n);
    }
}

/* ---- bitwise identity: any thread count, the single call ---- */

static void test_thread_counts(void)
{
    /* small members whole; 300^3 members cut (too few to go round); 5 of
       120^3: rounds of whole members, then the rest cut */
    static const int64_t shapes[][4] = {{8, 8, 8, 1000}, {33, 17, 9, 77}, {300, 300, 300, 1}, {300, 310, 290, 2},
                                        {120, 120, 120, 5}, {64, 64, 64, 7}};
    static const int threads[] = {1, 2, 3, 4, 5, 8};
    size_t si, ti;
    int p;
    for (p = 0; p < 2; p++)
        for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
            gemm_precision prec = p ? GEMM_F64 : GEMM_F32;
            const int64_t *s = shapes[si];
            test_set t = set_new(prec, s[0], s[1], s[2], s[3], 40 + si);
            battery_buf want = battery_buf_copy(&t.C), got = battery_buf_copy(&t.C);
            int ok = 1;
            set_singles(&t, &want);
            for (ti = 0; ti < sizeof threads / sizeof threads[0]; ti++) {
                gemm_cpu_options o = {0, 0};
                o.threads = threads[ti];
                memcpy(got.data, t.C.data, battery_buf_bytes(&t.C));
                ok = ok && set_strided(&t, &got, &o) == GEMM_OK && memcmp(got.data, want.data, battery_buf_bytes(&got)) == 0;
            }
            battery_check(ok, "%s %lld members of %lldx%lldx%lld: bitwise the single calls' with 1, 2, 3, 4, 5, 8 threads",
                          p ? "f64" : "f32", (long long)s[3], (long long)s[0], (long long)s[1], (long long)s[2]);
            battery_buf_free(&want);
            battery_buf_free(&got);
            set_free(&t);
        }
}

/* ---- the batch's own refusals ---- */

/* A strided call of 4 members of 3x5x7 (row-major NN, each member's
   operands dense), with one argument changed; all of A, B, C live in
   one buffer each with room for anything the cases ask for. */
typedef struct strided_case {
    const char *what, *detail; /* the change, and what the detail must contain */
    int64_t lda, sa, sb, sc, count;
    int null_c;
} strided_case;

static void test_strided_refusals(void)
{
    enum { M = 3, N = 5, K = 7, MEMBERS = 4 };
    static const strided_case cases[] = {
        {"batch_count < 0", "batch_count", K, M * K, K * N, M * N, -1, 0},
        {"stride_a < 0", "stride_a", K, -1, K * N, M * N, MEMBERS, 0},
        {"stride_b < 0", "stride_b", K, M * K, -K * N, M * N, MEMBERS, 0},
        {"stride_c < 0", "stride_c", K, M * K, K * N, -1, MEMBERS, 0},
        {"stride_c = 0 with 4 members", "stride_c = 0", K, M * K, K * N, 0, MEMBERS, 0},
        {"stride_c = 14 (< 15 elements of C)", "members 0 and 1", K, M * K, K * N, M * N - 1, MEMBERS, 0},
        {"stride_c = 1", "members 0 and 1", K, M * K, K * N, 1, MEMBERS, 0},
        {"lda too small, with batch_count 0", "lda", K - 1, M * K, K * N, M * N, 0, 0},
        {"a huge stride_a", "2^60", K, (int64_t)1 << 60, K * N, M * N, MEMBERS, 0},
        {"NULL C", "C is NULL", K, M * K, K * N, M * N, MEMBERS, 1},
    };
    size_t ci;
    for (ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const strided_case *c = &cases[ci];
        test_set t = set_new(GEMM_F64, M, N, K, MEMBERS, 7);
        battery_buf before = battery_buf_copy(&t.C);
        gemm_status s = gemm_dgemm_strided_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.0,
                                                   (const double *)t.A.data, c->lda, c->sa, (const double *)t.B.data,
                                                   N, c->sb, 0.5, c->null_c ? NULL : (double *)t.C.data, N, c->sc,
                                                   c->count);
        battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), c->detail) &&
                          memcmp(before.data, t.C.data, battery_buf_bytes(&t.C)) == 0,
                      "strided: %s refused, nothing written: status %d \"%s\"", c->what, (int)s, gemm_last_error_detail());
        battery_buf_free(&before);
        set_free(&t);
    }
}

/* Pointer arrays: 6 members of 4x4x4 column-major, each C its own 16
   elements of one buffer, then one thing broken. */
static void test_pointer_refusals(void)
{
    enum { S = 4, MEMBERS = 6 };
    float A[S * S], B[S * S], Cbuf[S * S * MEMBERS + 64], before[S * S * MEMBERS + 64];
    const float *a[MEMBERS], *b[MEMBERS];
    float *c[MEMBERS];
    int cs, i;
    for (i = 0; i < S * S; i++) A[i] = (float)i, B[i] = (float)(S * S - i);
    for (i = 0; i < S * S * MEMBERS + 64; i++) Cbuf[i] = (float)(i % 11);
    memcpy(before, Cbuf, sizeof Cbuf);
    for (cs = 0; cs < 11; cs++) {
        const char *what = "", *detail = "";
        gemm_status s;
        const float *const *la = a, *const *lb = b;
        float *const *lc = c;
        int64_t count = MEMBERS;
        for (i = 0; i < MEMBERS; i++) a[i] = A, b[i] = B, c[i] = Cbuf + S * S * (MEMBERS - 1 - i); /* reversed */
        switch (cs) {
        case 0: what = "NULL A[3]"; detail = "member 3: A[3] is NULL"; a[3] = NULL; break;
        case 1: what = "NULL B[0]"; detail = "member 0: B[0] is NULL"; b[0] = NULL; break;
        case 2: what = "NULL C[5]"; detail = "member 5: C[5] is NULL"; c[5] = NULL; break;
        case 3: what = "C[4] == C[1]"; detail = "members 1 and 4"; c[4] = c[1]; break;
        case 4: what = "C[2] one element into C[0]"; detail = "members 0 and 2"; c[2] = c[0] + 1; break;
        case 5: what = "a NULL list of Cs"; detail = "C (the list"; lc = NULL; break;
        case 6: what = "a NULL list of As"; detail = "A (the list"; la = NULL; break;
        case 7: what = "batch_count < 0"; detail = "batch_count"; count = -2; lb = NULL; break;
        /* several NULLs: the first member with one, and its first operand (A, B, C) */
        case 8: what = "NULL A[4], B[1], C[2]"; detail = "member 1: B[1] is NULL"; a[4] = b[1] = c[2] = NULL; break;
        case 9: what = "NULL C[2] and A[2]"; detail = "member 2: A[2] is NULL"; c[2] = NULL, a[2] = NULL; break;
        case 10: what = "NULL B[5] and C[4]"; detail = "member 4: C[4] is NULL"; b[5] = NULL, c[4] = NULL; break;
        }
        s = gemm_sgemm_batched(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_TRANS, S, S, S, 1.0f, la, S, lb, S, 2.0f, lc, S, count);
        battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), detail) &&
                          memcmp(before, Cbuf, sizeof Cbuf) == 0,
                      "pointer arrays: %s refused, nothing written: status %d \"%s\"", what, (int)s,
                      gemm_last_error_detail());
    }
}

/* ---- what a batch may do ---- */

/* Runs the strided or pointer-array batch described by the arrays and
   compares every member with the reference; `what` names the case. */
static void check_members(const char *what, gemm_status s, int64_t count, int64_t m, int64_t n, int64_t k,
                          const double *const a[], int64_t lda, const double *const b[], int64_t ldb,
                          const double *const c0[], double *const c[], int64_t ldc)
{
    int64_t i, j, p, r;
    double err = 0;
    for (i = 0; i < count && s == GEMM_OK; i++)
        for (r = 0; r < m; r++)
            for (j = 0; j < n; j++) {
                double sum = 0;
                for (p = 0; p < k; p++) sum += a[i][r + p * lda] * b[i][p + j * ldb];
                sum = 1.5 * sum - 1.0 * c0[i][r + j * ldc];
                if (!(fabs(sum - c[i][r + j * ldc]) <= err)) err = fabs(sum - c[i][r + j * ldc]);
            }
    battery_check(s == GEMM_OK && err <= 1e-12, "%s: status %d \"%s\", max error %.3g", what, (int)s,
                  gemm_last_error_detail(), err);
}

static void test_allowed_layouts(void)
{
    enum { M = 5, N = 4, K = 3, MEMBERS = 6, LDC = 40 };
    double A[M * K * MEMBERS], B[K * N], C[LDC * N * MEMBERS], C0[LDC * N * MEMBERS];
    const double *a[MEMBERS], *b[MEMBERS], *c0[MEMBERS];
    double *c[MEMBERS];
    uint64_t state = 3;
    int64_t i;
    gemm_status s;
    for (i = 0; i < M * K * MEMBERS; i++) A[i] = battery_uniform(&state);
    for (i = 0; i < K * N; i++) B[i] = battery_uniform(&state);
    for (i = 0; i < LDC * N * MEMBERS; i++) C0[i] = C[i] = battery_uniform(&state);
    /* one B for every member (stride_b = 0), the Cs side by side inside one
       column of ldc = 40 (stride_c = 6 >= m: interleaved, disjoint) */
    s = gemm_dgemm_strided_batched(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.5, A, M, M * K, B, K, 0,
                                   -1.0, C, LDC, 6, MEMBERS);
    for (i = 0; i < MEMBERS; i++) a[i] = A + i * M * K, b[i] = B, c[i] = C + 6 * i, c0[i] = C0 + 6 * i;
    check_members("strided: shared B (stride_b = 0), Cs interleaved in one column (stride_c = 6, ldc = 40)", s,
                  MEMBERS, M, N, K, a, M, b, K, c0, c, LDC);
    /* pointer arrays: the 5x4 blocks of a 40 x 24 matrix, in no order */
    memcpy(C, C0, sizeof C);
    for (i = 0; i < MEMBERS; i++) {
        int64_t blk = (i * 5) % MEMBERS, row = blk % 3, col = blk / 3; /* 3 block rows, 2 block columns */
        c[i] = C + row * 13 + col * LDC * 12;
        c0[i] = C0 + row * 13 + col * LDC * 12;
    }
    s = gemm_dgemm_batched(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, M, N, K, 1.5, a, M, b, K, -1.0, c, LDC, MEMBERS);
    check_members("pointer arrays: the blocks of one matrix as Cs, in no order", s, MEMBERS, M, N, K, a, M, b, K, c0,
                  c, LDC);
}

static void test_counts_and_scalars(void)
{
    float A[16], B[16], C[64], before[64];
    float *cs[4] = {C, C + 16, C + 32, C + 48};
    const float *as[4] = {NULL, NULL, NULL, NULL};
    int i, ok;
    for (i = 0; i < 16; i++) A[i] = (float)i, B[i] = 1.0f;
    for (i = 0; i < 64; i++) C[i] = before[i] = (float)i;
    ok = gemm_sgemm_strided_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1.0f, NULL, 4, 16, NULL, 4,
                                    16, 0.0f, NULL, 4, 16, 0) == GEMM_OK &&
         gemm_sgemm_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1.0f, NULL, 4, NULL, 4, 0.0f, NULL,
                            4, 0) == GEMM_OK;
    battery_check(ok, "batch_count = 0 with NULL everywhere is a no-op");
    ok = gemm_sgemm_strided_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1.0f, A, 4, 0, B, 4, 0,
                                    0.5f, C, 4, 0, 1) == GEMM_OK;
    battery_check(ok, "one member may have stride_c = 0");
    memcpy(C, before, sizeof C);
    ok = gemm_sgemm_strided_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 0.0f, NULL, 4, 0, NULL, 4,
                                    0, 1.0f, C, 4, 0, 4) == GEMM_OK && memcmp(C, before, sizeof C) == 0;
    battery_check(ok, "alpha = 0, beta = 1: C untouched, so 4 members may share it (stride_c = 0)");
    ok = gemm_sgemm_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 0.0f, as, 4, NULL, 4, -2.0f, cs, 4,
                            4) == GEMM_OK;
    for (i = 0; i < 64 && ok; i++) ok = C[i] == -2.0f * before[i];
    battery_check(ok, "alpha = 0: NULL A and B lists, every C = beta*C");
    for (i = 0; i < 64; i++) C[i] = i % 2 ? NAN : INFINITY;
    ok = gemm_sgemm_strided_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1.0f, A, 4, 0, B, 4, 0,
                                    0.0f, C, 4, 16, 4) == GEMM_OK;
    for (i = 0; i < 64 && ok; i++) ok = C[i] == (float)(4 * (i % 16 / 4) * 4 + 6); /* row r of A times ones */
    battery_check(ok, "beta = 0: NaN and Inf in every member's C do not survive (shared A and B)");
}

/* Out of memory: the workspace, and the overlap check of a list of Cs in
   no order; both refuse before writing (every member's workspace fails). */
static void test_out_of_memory(void)
{
    enum { S = 16, MEMBERS = 5 };
    test_set t = set_new(GEMM_F32, S, S, S, MEMBERS, 11);
    battery_buf before = battery_buf_copy(&t.C);
    const float *a[MEMBERS], *b[MEMBERS];
    float *c[MEMBERS];
    gemm_status s;
    int i;
    test_malloc_fail = 1;
    gemm__test_hooks()->cpu_path = 1; /* the packed path: its members need a workspace (16^3 alone needs none) */
    s = set_strided(&t, &t.C, NULL);
    gemm__test_hooks()->cpu_path = 0;
    battery_check(s == GEMM_ERR_OUT_OF_MEMORY && memcmp(before.data, t.C.data, battery_buf_bytes(&t.C)) == 0,
                  "no memory for the workspace: GEMM_ERR_OUT_OF_MEMORY, nothing written (\"%s\")", gemm_last_error_detail());
    for (i = 0; i < MEMBERS; i++) {
        a[i] = (const float *)t.A.data;
        b[i] = (const float *)t.B.data;
        c[i] = (float *)elem(&t.C, ((i * 3) % MEMBERS) * S * S); /* no order: the check sorts */
    }
    s = gemm_sgemm_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, 1.0f, a, S, b, S, 0.0f, c, S, MEMBERS);
    test_malloc_fail = 0;
    battery_check(s == GEMM_ERR_OUT_OF_MEMORY && memcmp(before.data, t.C.data, battery_buf_bytes(&t.C)) == 0,
                  "no memory for the overlap check: GEMM_ERR_OUT_OF_MEMORY, nothing written (\"%s\")",
                  gemm_last_error_detail());
    battery_check(gemm_sgemm_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, S, S, S, 1.0f, a, S, b, S, 0.0f, c,
                                     S, MEMBERS) == GEMM_OK, "the same batch with memory runs");
    battery_buf_free(&before);
    set_free(&t);
}

/* After a batch that ran out of memory part-way (or not at all): the
   detail names the failing member f and says which members were written,
   and they are: members before f as their single calls write them (want),
   f and those after it untouched (c0). A batch that succeeded is want. */
static void check_stopped(const char *what, gemm_status s, const battery_buf *c0, const battery_buf *want,
                          const battery_buf *got, int64_t count, int64_t member_elems)
{
    const char *d = gemm_last_error_detail(), *at = strstr(d, ": member ");
    size_t es = got->prec == GEMM_F32 ? sizeof(float) : sizeof(double), member = (size_t)member_elems * es;
    long long f = -1, n = -1;
    int ok, written;
    if (s == GEMM_OK) {
        battery_check(memcmp(got->data, want->data, member * (size_t)count) == 0, "%s: ran, every member written",
                      what);
        return;
    }
    if (strstr(d, "no member was written")) f = 0;
    if (at && sscanf(at, ": member %lld of %lld failed", &f, &n) != 2) f = -1;
    written = f > 0 ? strstr(d, "; members before it were written, it and those after it were not") != NULL
                    : strstr(d, "no member was written") != NULL;
    ok = s == GEMM_ERR_OUT_OF_MEMORY && f >= 0 && f < count && written &&
         memcmp(got->data, want->data, member * (size_t)f) == 0 &&
         memcmp((char *)got->data + member * (size_t)f, (char *)c0->data + member * (size_t)f,
                member * (size_t)(count - f)) == 0;
    battery_check(ok, "%s: stopped at member %lld: members before it written, it and those after it untouched "
                  "(status %d, \"%s\")", what, f, (int)s, d);
}

/* Batches that run out of memory at each allocation in turn stop at the
   failing member: 1 thread (whole members; their workspace is had before
   any runs, so either nothing is written or everything), 2 threads taking
   whole members, and 2 threads on members run one after the other (a
   direct path with a panel to allocate: one allocation per member). */
static void test_member_failures(void)
{
    enum { M = 24, N = 24, K = 1100, MEMBERS = 6 };
    gemm_cpu_options one = {1, 0}, two = {2, 0};
    battery_buf c0, want, got;
    test_set t;
    char what[128];
    int64_t i;
    int fail, sizes;
    uint64_t state = 13;
    for (sizes = 0; sizes < 2; sizes++) { /* whole members, 1 then 2 threads: packed 16^3 x 6, 64^3 x 12 */
        int64_t size = sizes ? 64 : 16, count = sizes ? 12 : MEMBERS;
        t = set_new(GEMM_F32, size, size, size, count, 12);
        gemm__test_hooks()->cpu_path = 1; /* the packed path: a workspace per member */
        want = battery_buf_copy(&t.C);
        set_singles(&t, &want);
        for (fail = 1; fail <= (int)count + 2; fail++) {
            gemm_status st;
            got = battery_buf_copy(&t.C);
            test_malloc_countdown = fail;
            st = set_strided(&t, &got, sizes ? &two : &one);
            test_malloc_countdown = 0;
            snprintf(what, sizeof what, "%s, %lld packed members, allocation %d fails", sizes ? "2 threads" : "1 thread",
                     (long long)count, fail);
            check_stopped(what, st, &t.C, &want, &got, count, t.m * t.n);
            battery_buf_free(&got);
        }
        gemm__test_hooks()->cpu_path = 0;
        battery_buf_free(&want);
        set_free(&t);
    }
#if !defined(GEMM_NO_THREADS)
    /* members cut over 2 threads one after the other: column-major, op(A)
       transposed and deep, so the direct path (forced) copies it into a
       panel it allocates */
    c0 = battery_buf_new(GEMM_F64, (size_t)(M * N * MEMBERS));
    t.A = battery_buf_new(GEMM_F64, (size_t)(K * M * MEMBERS));
    t.B = battery_buf_new(GEMM_F64, (size_t)(K * N * MEMBERS));
    battery_fill(&c0, &state); battery_fill(&t.A, &state); battery_fill(&t.B, &state);
    want = battery_buf_copy(&c0);
    gemm__test_hooks()->cpu_path = 2;
    for (i = 0; i < MEMBERS; i++)
        gemm_cpu_dgemm(GEMM_COL_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, M, N, K, 0.75, (const double *)elem(&t.A, i * K * M), K,
                       (const double *)elem(&t.B, i * K * N), K, -0.5, (double *)elem(&want, i * M * N), M, &two);
    for (fail = 1; fail <= MEMBERS + 2; fail++) {
        gemm_status st;
        got = battery_buf_copy(&c0);
        test_malloc_countdown = fail;
        st = gemm_cpu_dgemm_strided_batched(GEMM_COL_MAJOR, GEMM_TRANS, GEMM_NO_TRANS, M, N, K, 0.75,
                                            (const double *)t.A.data, K, K * M, (const double *)t.B.data, K, K * N,
                                            -0.5, (double *)got.data, M, M * N, MEMBERS, &two);
        test_malloc_countdown = 0;
        snprintf(what, sizeof what, "2 threads, %d members one after the other, allocation %d fails", MEMBERS, fail);
        check_stopped(what, st, &c0, &want, &got, MEMBERS, M * N);
        battery_buf_free(&got);
    }
    gemm__test_hooks()->cpu_path = 0;
    battery_buf_free(&want);
    battery_buf_free(&c0);
    battery_buf_free(&t.A);
    battery_buf_free(&t.B);
#else
    (void)c0; (void)i; (void)state; (void)two;
#endif
}

/* A member's C that shares elements with its own or another member's A or
   B is refused, naming both, with nothing written; members laid out A_i,
   B_i, C_i one after another in one buffer run. 4x4x4 members, col-major. */
static void batch_overlap_expect(const char *what, gemm_status s, const char *detail_has, const float *X,
                                 const float *want, size_t n)
{
    const char *d = gemm_last_error_detail();
    int ok = (detail_has ? s == GEMM_ERR_INVALID_ARG && strstr(d, detail_has) != NULL : s == GEMM_OK) &&
             memcmp(X, want, n * sizeof *X) == 0;
    battery_check(ok, "members' C and A/B: %s: status %d \"%s\"", what, (int)s, d);
}

static void test_batch_c_overlaps(void)
{
    enum { E = 16, N = 256 }; /* elements of one 4x4 matrix; of the buffer */
    float X[N], keep[N], want[N], Bs[3 * E];
    const float *a[3], *b[3];
    float *c[3];
    uint64_t state = 23;
    int i;
    for (i = 0; i < N; i++) X[i] = (float)battery_uniform(&state);
    for (i = 0; i < 3 * E; i++) Bs[i] = (float)battery_uniform(&state);
    memcpy(keep, X, sizeof X);
    batch_overlap_expect("strided, C == A", gemm_sgemm_strided_batched(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4,
                         4, 4, 1.0f, X, 4, E, Bs, 4, E, 0.0f, X, 4, E, 3), "batched: member 0: C overlaps A", X, keep, N);
    batch_overlap_expect("strided, member 0's C is member 2's A", gemm_sgemm_strided_batched(GEMM_COL_MAJOR,
                         GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1.0f, X, 4, E, Bs, 4, E, 0.0f, X + 2 * E, 4, 3 * E, 3),
                         "member 0's C overlaps member 2's A", X, keep, N);
    batch_overlap_expect("strided, one A for every member, member 2's C on it", gemm_sgemm_strided_batched(
                         GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1.0f, X + 2 * E, 4, 0, Bs, 4, E, 0.0f,
                         X, 4, E, 3), "member 2: C overlaps A, which every member reads", X, keep, N);
    batch_overlap_expect("strided row-major, C == B", gemm_sgemm_strided_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS,
                         GEMM_NO_TRANS, 4, 4, 4, 1.0f, Bs, 4, E, X, 4, E, 0.0f, X, 4, E, 3), "member 0: C overlaps B", X,
                         keep, N);
    for (i = 0; i < 3; i++) {
        a[i] = Bs + i * E;
        b[i] = X + (3 + i) * E;
        c[i] = X + (6 + i) * E;
    }
    c[1] = (float *)b[1];
    batch_overlap_expect("pointers, C[1] == B[1]", gemm_sgemm_batched(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4,
                         4, 4, 1.0f, a, 4, b, 4, 0.0f, c, 4, 3), "member 1: C overlaps B", X, keep, N);
    c[1] = X + 7 * E;
    c[2] = X + 3 * E + 1; /* inside member 0's B, one row down */
    batch_overlap_expect("pointers, C[2] inside B[0]", gemm_sgemm_batched(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS,
                         4, 4, 4, 1.0f, a, 4, b, 4, 0.0f, c, 4, 3), "member 2's C overlaps member 0's B", X, keep, N);
    /* A_i, B_i, C_i one after another, each member 3 matrices on: adjacent, apart */
    memcpy(want, X, sizeof X);
    for (i = 0; i < 3; i++)
        gemm_sgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 4, 4, 4, 1.5f, keep + 3 * i * E, 4,
                   keep + (3 * i + 1) * E, 4, 0.5f, want + (3 * i + 2) * E, 4);
    batch_overlap_expect("strided, A_i B_i C_i side by side", gemm_sgemm_strided_batched(GEMM_COL_MAJOR, GEMM_NO_TRANS,
                         GEMM_NO_TRANS, 4, 4, 4, 1.5f, X, 4, 3 * E, X + E, 4, 3 * E, 0.5f, X + 2 * E, 4, 3 * E, 3), NULL,
                         X, want, N);
}

/* Members of more than 16 KiB, each bringing the next into cache (forced
   through the hook: this batch fits in any cache), on the small path (the
   kernel's cursor through the next member's operands) and the direct path
   (forced): every layout and transpose, padded leading dimensions, both
   forms, 1 and 3 threads, bitwise the single calls'. */
static void test_prefetched_members(void)
{
    enum { M = 40, N = 33, K = 47, PAD = 3, MEMBERS = 12 };
    int p, lay, ta, tb, th, path, ok = 1;
    gemm__test_hooks()->cpu_batch_ahead = 1;
    for (path = 0; path <= 2; path += 2)
    for (p = 0; p < 2; p++)
        for (lay = 0; lay < 2; lay++)
            for (ta = 0; ta < 2; ta++)
                for (tb = 0; tb < 2; tb++) {
                    gemm_precision prec = p ? GEMM_F64 : GEMM_F32;
                    gemm_layout layout = lay ? GEMM_COL_MAJOR : GEMM_ROW_MAJOR;
                    gemm_transpose tra = ta ? GEMM_TRANS : GEMM_NO_TRANS, trb = tb ? GEMM_TRANS : GEMM_NO_TRANS;
                    /* stored rows x cols of A, B, C as the layout sees them */
                    int64_t ar = ta ? K : M, ac = ta ? M : K, br = tb ? N : K, bc = tb ? K : N;
                    int64_t lda = (lay ? ar : ac) + PAD, ldb = (lay ? br : bc) + PAD, ldc = (lay ? M : N) + PAD;
                    int64_t sa = lda * (lay ? ac : ar), sb = ldb * (lay ? bc : br), sc = ldc * (lay ? N : M), i;
                    uint64_t state = 77;
                    battery_buf A = battery_buf_new(prec, (size_t)(sa * MEMBERS)), B = battery_buf_new(prec, (size_t)(sb * MEMBERS));
                    battery_buf C0 = battery_buf_new(prec, (size_t)(sc * MEMBERS)), want, got;
                    battery_fill(&A, &state); battery_fill(&B, &state); battery_fill(&C0, &state);
                    want = battery_buf_copy(&C0);
                    got = battery_buf_copy(&C0);
                    gemm__test_hooks()->cpu_path = path;
                    for (i = 0; i < MEMBERS; i++)
                        ok = ok && (p ? gemm_dgemm(layout, tra, trb, M, N, K, 0.75, (const double *)elem(&A, i * sa), lda,
                                                   (const double *)elem(&B, i * sb), ldb, -0.5, (double *)elem(&want, i * sc), ldc)
                                      : gemm_sgemm(layout, tra, trb, M, N, K, 0.75f, (const float *)elem(&A, i * sa), lda,
                                                   (const float *)elem(&B, i * sb), ldb, -0.5f, (float *)elem(&want, i * sc), ldc)) == GEMM_OK;
                    for (th = 1; th <= 3; th += 2) {
                        gemm_cpu_options o = {0, 0};
                        const void *al[MEMBERS], *bl[MEMBERS];
                        void *cl[MEMBERS];
                        o.threads = th;
                        memcpy(got.data, C0.data, battery_buf_bytes(&C0));
                        ok = ok && (p ? gemm_cpu_dgemm_strided_batched(layout, tra, trb, M, N, K, 0.75, (const double *)A.data, lda, sa,
                                                                       (const double *)B.data, ldb, sb, -0.5, (double *)got.data, ldc, sc, MEMBERS, &o)
                                      : gemm_cpu_sgemm_strided_batched(layout, tra, trb, M, N, K, 0.75f, (const float *)A.data, lda, sa,
                                                                       (const float *)B.data, ldb, sb, -0.5f, (float *)got.data, ldc, sc, MEMBERS, &o)) == GEMM_OK &&
                             memcmp(got.data, want.data, battery_buf_bytes(&got)) == 0;
                        memcpy(got.data, C0.data, battery_buf_bytes(&C0));
                        for (i = 0; i < MEMBERS; i++) /* the members in reverse order of their memory */
                            al[i] = elem(&A, (MEMBERS - 1 - i) * sa), bl[i] = elem(&B, (MEMBERS - 1 - i) * sb), cl[i] = elem(&got, (MEMBERS - 1 - i) * sc);
                        ok = ok && (p ? gemm_cpu_dgemm_batched(layout, tra, trb, M, N, K, 0.75, (const double *const *)al, lda,
                                                               (const double *const *)bl, ldb, -0.5, (double *const *)cl, ldc, MEMBERS, &o)
                                      : gemm_cpu_sgemm_batched(layout, tra, trb, M, N, K, 0.75f, (const float *const *)al, lda,
                                                               (const float *const *)bl, ldb, -0.5f, (float *const *)cl, ldc, MEMBERS, &o)) == GEMM_OK &&
                             memcmp(got.data, want.data, battery_buf_bytes(&got)) == 0;
                    }
                    battery_buf_free(&A); battery_buf_free(&B); battery_buf_free(&C0);
                    battery_buf_free(&want); battery_buf_free(&got);
                }
    gemm__test_hooks()->cpu_path = 0;
    gemm__test_hooks()->cpu_batch_ahead = 0;
    battery_check(ok, "%d members of %dx%dx%d (over 16 KiB: the next one prefetched), small and direct paths, 8 layouts, "
                      "padded ld, both forms, 1 and 3 threads: bitwise the single calls'", MEMBERS, M, N, K);
}

/* The small path's members, several per kernel call: shapes across its
   size classes' edges (m, n, k each 1..65), every layout and transpose,
   beta = 0 on a C of NaN (not read) and beta = 1.25, strided, on 1
   thread: bitwise the single calls'. */
static void test_small_members(void)
{
    static const int64_t sizes[] = {1, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 49, 63, 64, 65};
    enum { NS = sizeof sizes / sizeof sizes[0], MEMBERS = 7 };
    int p, lay, ta, tb, si, ok = 1, cases = 0;
    gemm_cpu_options one = {1, 0};
    for (p = 0; p < 2; p++)
        for (lay = 0; lay < 2; lay++)
            for (ta = 0; ta < 2; ta++)
                for (tb = 0; tb < 2; tb++)
                    for (si = 0; si < NS; si++) {
                        gemm_precision prec = p ? GEMM_F64 : GEMM_F32;
                        gemm_layout layout = lay ? GEMM_COL_MAJOR : GEMM_ROW_MAJOR;
                        gemm_transpose tra = ta ? GEMM_TRANS : GEMM_NO_TRANS, trb = tb ? GEMM_TRANS : GEMM_NO_TRANS;
                        int64_t M = sizes[si], N = sizes[(si * 5 + 2 + lay) % NS], K = sizes[(si * 3 + 1 + ta + tb) % NS];
                        int64_t ar = ta ? K : M, ac = ta ? M : K, br = tb ? N : K, bc = tb ? K : N;
                        int64_t lda = lay ? ar : ac, ldb = lay ? br : bc, ldc = (lay ? M : N) + 1;
                        int64_t sa = lda * (lay ? ac : ar), sb = ldb * (lay ? bc : br), sc = ldc * (lay ? N : M), i;
                        double beta = si % 2 ? 1.25 : 0.0;
                        uint64_t state = 31 + (uint64_t)si;
                        battery_buf A = battery_buf_new(prec, (size_t)(sa * MEMBERS)), B = battery_buf_new(prec, (size_t)(sb * MEMBERS));
                        battery_buf C0 = battery_buf_new(prec, (size_t)(sc * MEMBERS)), want, got;
                        battery_fill(&A, &state); battery_fill(&B, &state);
                        if (beta == 0) battery_fill_value(&C0, NAN);
                        else battery_fill(&C0, &state);
                        want = battery_buf_copy(&C0);
                        got = battery_buf_copy(&C0);
                        for (i = 0; i < MEMBERS; i++)
                            ok = ok && (p ? gemm_dgemm(layout, tra, trb, M, N, K, 1.0, (const double *)elem(&A, i * sa), lda,
                                                       (const double *)elem(&B, i * sb), ldb, beta, (double *)elem(&want, i * sc), ldc)
                                          : gemm_sgemm(layout, tra, trb, M, N, K, 1.0f, (const float *)elem(&A, i * sa), lda,
                                                       (const float *)elem(&B, i * sb), ldb, (float)beta, (float *)elem(&want, i * sc), ldc)) == GEMM_OK;
                        ok = ok && (p ? gemm_cpu_dgemm_strided_batched(layout, tra, trb, M, N, K, 1.0, (const double *)A.data, lda, sa,
                                                                       (const double *)B.data, ldb, sb, beta, (double *)got.data, ldc, sc, MEMBERS, &one)
                                      : gemm_cpu_sgemm_strided_batched(layout, tra, trb, M, N, K, 1.0f, (const float *)A.data, lda, sa,
                                                                       (const float *)B.data, ldb, sb, (float)beta, (float *)got.data, ldc, sc, MEMBERS, &one)) == GEMM_OK &&
                             memcmp(got.data, want.data, battery_buf_bytes(&got)) == 0;
                        for (i = 0; ok && beta == 0 && i < (int64_t)got.count; i++) /* NaN only in the padding */
                            ok = (i % sc) % ldc == ldc - 1 || !isnan(battery_get(&got, (size_t)i));
                        cases++;
                        battery_buf_free(&A); battery_buf_free(&B); battery_buf_free(&C0);
                        battery_buf_free(&want); battery_buf_free(&got);
                    }
    battery_check(ok, "%d strided batches of %d members across the small path's size classes (1..65), 8 layouts, "
                      "beta 0 on NaN and 1.25, 1 thread: bitwise the single calls'", cases, MEMBERS);
}

static void test_options(void)
{
    gemm_cpu_options bad = {-1, 0};
    float a = 1, b = 2, c = 3;
    const float *as[1] = {&a}, *bs[1] = {&b};
    float *cs[1] = {&c};
    int ok = gemm_cpu_sgemm_strided_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 1, 1.0f, &a, 1, 1, &b,
                                            1, 1, 0.0f, &c, 1, 1, 1, &bad) == GEMM_ERR_INVALID_ARG &&
             strstr(gemm_last_error_detail(), "threads") && c == 3 &&
             gemm_cpu_sgemm_batched(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 1, 1, 1, 1.0f, as, 1, bs, 1, 0.0f,
                                    cs, 1, 0, &bad) == GEMM_ERR_INVALID_ARG && c == 3;
    battery_check(ok, "options.threads = -1 refused (even with batch_count = 0), nothing written");
}

/* The shape the speed goal is about: 10,000 tiny members. */
static void test_many_tiny(void)
{
    int p;
    for (p = 0; p < 2; p++) {
        test_set t = set_new(p ? GEMM_F64 : GEMM_F32, 8, 8, 8, 10000, 5);
        battery_buf want = battery_buf_copy(&t.C), got = battery_buf_copy(&t.C);
        set_singles(&t, &want);
        battery_check(set_strided(&t, &got, NULL) == GEMM_OK && memcmp(got.data, want.data, battery_buf_bytes(&got)) == 0,
                      "%s 10,000 members of 8x8x8: bitwise the single calls'", p ? "f64" : "f32");
        battery_buf_free(&want);
        battery_buf_free(&got);
        set_free(&t);
    }
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0, nkernels, i;
    gemm_cpu_options three = {3, 0};
    const char *kernels[8];
    char tag[64];
    if (argc > 1 && !quick) {
        fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
        return 2;
    }
    battery_extreme_args = 1; /* the adapters pass sizes through */
    battery_small_dim = 4; /* tiny members: the single call's plain loops, the single tile */
    test_counts_and_scalars();
    test_strided_refusals();
    test_pointer_refusals();
    test_allowed_layouts();
    test_out_of_memory();
    test_options();
    test_member_failures();
    test_batch_c_overlaps();
    test_prefetched_members();
    test_small_members();
    test_many_tiny();
    battery_both_forms(NULL, "", quick ? 6 : 100, quick ? 100 : 0); /* 0: up to 300 */
    /* every kernel this CPU runs (each has its own tiny kernels, or none),
       forced in turn; tiny blocks make members cross every block edge, and
       big ones are cut over 3 threads */
    nkernels = gemm__cpu_kernels(kernels, 8);
    for (i = 0; i < nkernels && i < 8; i++) {
        gemm__test_hooks()->cpu_kernel = kernels[i];
        printf("== kernel %s\n", kernels[i]);
        test_thread_counts();
        snprintf(tag, sizeof tag, "/%s", kernels[i]);
        battery_both_forms(&three, tag, quick ? 3 : 12, 100);
        gemm__test_hooks()->cpu_mc = 1;
        gemm__test_hooks()->cpu_kc = 7;
        gemm__test_hooks()->cpu_nc = 1;
        snprintf(tag, sizeof tag, "/%s/tiny-blocks/3-threads", kernels[i]);
        battery_both_forms(&three, tag, quick ? 3 : 20, quick ? 100 : 160);
        gemm__test_hooks()->cpu_mc = gemm__test_hooks()->cpu_kc = gemm__test_hooks()->cpu_nc = 0;
    }
    gemm__test_hooks()->cpu_kernel = NULL;
    return battery_summary();
}

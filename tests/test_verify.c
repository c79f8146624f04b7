/* tests/test_verify.c - the CPU's verified products (the `verify` option
   of gemm_cpu_options; core/verify.c, cpu/verify.c). Last line:
   N passed, N failed.

   build/test_verify          the host sums against long double sums; then
                              faults injected after the product (a flipped
                              exponent bit, a flipped mantissa bit above the
                              bound, a dropped K slice; tests/verify_faults.h)
                              on every path of a single call (tiny loops,
                              one tile, direct, packed, threaded, tiny blocks)
                              and in a batch member (the detail names it);
                              then the differential battery with verify on,
                              single calls and both batch forms: no false
                              alarm (any GEMM_ERR_VERIFY fails a case)
   build/test_verify --quick  a smaller battery (sanitizers) */
#define GEMM__TEST_HOOKS
#define GEMM_IMPLEMENTATION
#include "../gemm.h"
#include "battery_batch.h"
#include "verify_faults.h"

/* ctx: the options, verify on. */
static gemm_status v_sgemm(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                           int64_t k, float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                           float beta, float *C, int64_t ldc)
{
    return gemm_cpu_sgemm(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, (const gemm_cpu_options *)ctx);
}

static gemm_status v_dgemm(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                           int64_t k, double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                           double beta, double *C, int64_t ldc)
{
    return gemm_cpu_dgemm(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, (const gemm_cpu_options *)ctx);
}

static gemm_status v_sstrided(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                              int64_t k, float alpha, const float *A, int64_t lda, int64_t sa, const float *B,
                              int64_t ldb, int64_t sb, float beta, float *C, int64_t ldc, int64_t sc, int64_t count)
{
    return gemm_cpu_sgemm_strided_batched(layout, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc,
                                          count, (const gemm_cpu_options *)ctx);
}

static gemm_status v_dstrided(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                              int64_t k, double alpha, const double *A, int64_t lda, int64_t sa, const double *B,
                              int64_t ldb, int64_t sb, double beta, double *C, int64_t ldc, int64_t sc, int64_t count)
{
    return gemm_cpu_dgemm_strided_batched(layout, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc,
                                          count, (const gemm_cpu_options *)ctx);
}

static gemm_status v_sbatched(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                              int64_t k, float alpha, const float *const A[], int64_t lda, const float *const B[],
                              int64_t ldb, float beta, float *const C[], int64_t ldc, int64_t count)
{
    return gemm_cpu_sgemm_batched(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, count,
                                  (const gemm_cpu_options *)ctx);
}

static gemm_status v_dbatched(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                              int64_t k, double alpha, const double *const A[], int64_t lda, const double *const B[],
                              int64_t ldb, double beta, double *const C[], int64_t ldc, int64_t count)
{
    return gemm_cpu_dgemm_batched(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, count,
                                  (const gemm_cpu_options *)ctx);
}

/* A batch of 4 in which the battery's operands are member 2 (the others
   copies of them, so every member is the same product), one thread so the
   members run in order: with verify_fault_skip = 2 the fault hits member 2,
   which the detail must name; member 3 must be untouched. */
static gemm_status member2_sgemm(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                                 int64_t n, int64_t k, float alpha, const float *A, int64_t lda, const float *B,
                                 int64_t ldb, float beta, float *C, int64_t ldc)
{
    size_t ec = battery_extent(layout, m, n, ldc), i;
    float *Cs = (float *)malloc(sizeof(float) * 4 * ec);
    float *cl[4];
    const float *al[4], *bl[4];
    gemm_status s;
    int x, untouched = 1;
    for (x = 0; x < 4; x++) {
        memcpy(Cs + x * ec, C, sizeof(float) * ec);
        cl[x] = Cs + x * ec;
        al[x] = A;
        bl[x] = B;
    }
    s = gemm_cpu_sgemm_batched(layout, ta, tb, m, n, k, alpha, al, lda, bl, ldb, beta, cl, ldc, 4,
                               (const gemm_cpu_options *)ctx);
    for (i = 0; i < ec; i++) untouched &= Cs[3 * ec + i] == C[i];
    memcpy(C, Cs + 2 * ec, sizeof(float) * ec);
    if (s == GEMM_ERR_VERIFY)
        battery_check(strstr(gemm_last_error_detail(), "member 2 of 4 failed") != NULL && untouched,
                      "a batch names its failing member 2 and leaves member 3 untouched: %s", gemm_last_error_detail());
    free(Cs);
    return s;
}

static gemm_status member2_dgemm(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                                 int64_t n, int64_t k, double alpha, const double *A, int64_t lda, const double *B,
                                 int64_t ldb, double beta, double *C, int64_t ldc)
{
    size_t ec = battery_extent(layout, m, n, ldc), i;
    double *Cs = (double *)malloc(sizeof(double) * 4 * ec);
    int64_t stride = (int64_t)ec;
    gemm_status s;
    int x, untouched = 1;
    for (x = 0; x < 4; x++) memcpy(Cs + x * ec, C, sizeof(double) * ec);
    s = gemm_cpu_dgemm_strided_batched(layout, ta, tb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, Cs, ldc, stride, 4,
                                       (const gemm_cpu_options *)ctx);
    for (i = 0; i < ec; i++) untouched &= Cs[3 * ec + i] == C[i];
    memcpy(C, Cs + 2 * ec, sizeof(double) * ec);
    if (s == GEMM_ERR_VERIFY)
        battery_check(strstr(gemm_last_error_detail(), "member 2 of 4 failed") != NULL && untouched,
                      "a strided batch names its failing member 2 and leaves member 3 untouched: %s",
                      gemm_last_error_detail());
    free(Cs);
    return s;
}

/* Inf and NaN in the inputs: their rows and columns cannot be checked
   and are not; the others still are, and nothing false is reported. */
static void test_not_finite(void)
{
    enum { N = 40 };
    static double A[N * N], B[N * N], C[N * N];
    gemm_cpu_options v = {0, 1};
    gemm_status s1, s2;
    int i;
    for (i = 0; i < N * N; i++) {
        A[i] = (double)(i % 7) - 3;
        B[i] = (double)(i % 5) - 2;
        C[i] = 1;
    }
    A[3] = INFINITY;     /* row 3 of C, and so every column's sum */
    C[5 + 7 * N] = NAN;  /* row 5 and column 7 (beta != 0) */
    s1 = gemm_cpu_dgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, N, N, N, 1.0, A, N, B, N, 0.5, C, N, &v);
    gemm__test_hooks()->verify_flip_bit = 63; /* a fault where the inputs are finite is still caught */
    gemm__test_hooks()->verify_flip_row = 10;
    gemm__test_hooks()->verify_flip_col = 20;
    s2 = gemm_cpu_dgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, N, N, N, 1.0, A, N, B, N, 0.5, C, N, &v);
    verify_hooks_clear();
    battery_check(s1 == GEMM_OK && s2 == GEMM_ERR_VERIFY,
                  "Inf and NaN inputs: no false alarm (%d), a fault elsewhere caught (%d: %s)", (int)s1, (int)s2,
                  gemm_last_error_detail());
}

/* The host sums themselves (cpu/verify_sums.c) against plain long double
   sums: want, scale and got of every row and column, fp32 and fp64, every
   storage order of op(a) and op(b), sizes that leave the vector loops'
   tails (rows not a multiple of 8, columns not of 4), and shapes whose
   inputs are cut into k slices, on one thread and on two. A sum that is
   wrong by more than fp64's rounding fails, whatever the bound would
   have let through. */
static long double sums_ref(const double *x, int64_t i, int64_t rs, int64_t cs, int64_t len, const long double *w,
                            int absolute)
{
    long double t = 0;
    int64_t l;
    for (l = 0; l < len; l++) {
        long double e = x[i * rs + l * cs];
        t += (absolute && e < 0 ? -e : e) * (w ? w[l] : 1.0L);
    }
    return t;
}

static int sums_close(const double *got, const long double *want, const long double *scale, int64_t count)
{
    int64_t i;
    for (i = 0; i < count; i++) {
        long double d = (long double)got[i] - want[i];
        if ((d < 0 ? -d : d) > 1e-13L * scale[i] + 1e-300L) return 0;
    }
    return 1;
}

static void test_sums_case(gemm_precision prec, int64_t m, int64_t n, int64_t k, int ta, int tb, double beta,
                           int threads)
{
    double alpha = -1.5, *A = (double *)malloc(sizeof(double) * (size_t)(m * k)), *ws;
    double *B = (double *)malloc(sizeof(double) * (size_t)(k * n)), *C = (double *)malloc(sizeof(double) * (size_t)(m * n));
    void *a, *b, *c;
    long double *s = (long double *)calloc((size_t)(2 * k + 2 * m + 2 * n), sizeof(long double)), *sa = s + k;
    long double *wc = sa + k, *sc = wc + n, *wr = sc + n, *sr = wr + m, *r, *ra;
    long double *rowsum = (long double *)calloc((size_t)(2 * k + 2 * m + 2 * n), sizeof(long double));
    long double *colsum = rowsum + m, *one = colsum + n;
    gemm__problem p;
    gemm__verify_sums v;
    int64_t i, x;
    unsigned long long st = 99;
    int ok;
    memset(&p, 0, sizeof p);
    p.work = GEMM__WORK_FULL;
    p.m = m, p.n = n, p.k = k, p.ldc = m;
    p.ars = ta ? k : 1, p.acs = ta ? 1 : m; /* op(a) stored transposed: its rows contiguous */
    p.brs = tb ? n : 1, p.bcs = tb ? 1 : k;
    for (x = 0; x < m * k + k * n + m * n; x++) {
        double e;
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        e = (double)(st >> 11) / 9007199254740992.0 - 0.5;
        if (prec == GEMM_F32) e = (double)(float)e;
        if (x < m * k) A[x] = e;
        else if (x < m * k + k * n) B[x - m * k] = e;
        else C[x - m * k - k * n] = e;
    }
    a = A, b = B, c = C;
    if (prec == GEMM_F32) { /* the same values in fp32, in place */
        float *fa = (float *)A, *fb = (float *)B, *fc = (float *)C;
        for (x = 0; x < m * k; x++) fa[x] = (float)A[x];
        for (x = 0; x < k * n; x++) fb[x] = (float)B[x];
        for (x = 0; x < m * n; x++) fc[x] = (float)C[x];
        A = (double *)malloc(sizeof(double) * (size_t)(m * k + k * n + m * n)); /* and back in fp64 for the reference */
        for (x = 0; x < m * k; x++) A[x] = fa[x];
        B = A + m * k;
        for (x = 0; x < k * n; x++) B[x] = fb[x];
        C = B + k * n;
        for (x = 0; x < m * n; x++) C[x] = fc[x];
    }
    ws = (double *)malloc(sizeof(double) * gemm__verify_doubles(m, n, k));
    gemm__verify_host_before(&p, prec, alpha, a, b, beta, c, ws, &v, threads);
    gemm__verify_host_after(&p, prec, c, &v, threads);
    /* the reference: s = alpha e^T op(a), r = alpha op(b) e, then the lines */
    r = (long double *)calloc((size_t)(2 * k), sizeof(long double)), ra = r + k;
    for (x = 0; x < k; x++) {
        s[x] = alpha * sums_ref(A, x, p.acs, p.ars, m, NULL, 0);
        sa[x] = -alpha * sums_ref(A, x, p.acs, p.ars, m, NULL, 1);
        r[x] = alpha * sums_ref(B, x, p.brs, p.bcs, n, NULL, 0);
        ra[x] = -alpha * sums_ref(B, x, p.brs, p.bcs, n, NULL, 1);
    }
    for (x = 0; x < k + m + n; x++) one[x] = 1;
    for (i = 0; i < n; i++) {
        wc[i] = sums_ref(B, i, p.bcs, p.brs, k, s, 0) + beta * sums_ref(C, i, m, 1, m, NULL, 0);
        sc[i] = sums_ref(B, i, p.bcs, p.brs, k, sa, 1) + (beta < 0 ? -beta : beta) * sums_ref(C, i, m, 1, m, NULL, 1);
        colsum[i] = sums_ref(C, i, m, 1, m, NULL, 0);
    }
    for (i = 0; i < m; i++) {
        wr[i] = sums_ref(A, i, p.ars, p.acs, k, r, 0) + beta * sums_ref(C, i, 1, m, n, NULL, 0);
        sr[i] = sums_ref(A, i, p.ars, p.acs, k, ra, 1) + (beta < 0 ? -beta : beta) * sums_ref(C, i, 1, m, n, NULL, 1);
        rowsum[i] = sums_ref(C, i, 1, m, n, NULL, 0);
    }
    ok = sums_close(v.want_col, wc, sc, n) && sums_close(v.scale_col, sc, sc, n) &&
         sums_close(v.want_row, wr, sr, m) && sums_close(v.scale_row, sr, sr, m) &&
         sums_close(v.got_col, colsum, sc, n) && sums_close(v.got_row, rowsum, sr, m);
    battery_check(ok, "the host sums of %s %lldx%lldx%lld (op(a) %s, op(b) %s, beta %g, %d threads) match long double "
                  "sums", prec == GEMM_F32 ? "fp32" : "fp64", (long long)m, (long long)n, (long long)k,
                  ta ? "rows contiguous" : "columns contiguous", tb ? "rows contiguous" : "columns contiguous", beta,
                  threads);
    if (prec == GEMM_F32) free(a), free(b), free(c);
    free(A);
    if (prec != GEMM_F32) free(B), free(C);
    free(ws), free(s), free(r), free(rowsum);
}

static void test_sums(int quick)
{
    int ta, tb, prec;
    for (prec = 0; prec < 2; prec++)
        for (ta = 0; ta < 2; ta++)
            for (tb = 0; tb < 2; tb++) {
                gemm_precision p = prec ? GEMM_F64 : GEMM_F32;
                test_sums_case(p, 1, 1, 1, ta, tb, 0, 1);
                test_sums_case(p, 13, 7, 29, ta, tb, 0.5, 1);  /* tails of rows and columns */
                test_sums_case(p, 67, 45, 9, ta, tb, -2, 2);
                if (quick) continue;
                test_sums_case(p, 301, 299, 1800, ta, tb, 1, 2); /* k slices over two threads */
                test_sums_case(p, 4099, 5, 290, ta, tb, 0, 1);   /* op(a)'s slices of 128 (fp64) or 256 of k, alone */
            }
}

/* Zeroed options leave verification off: an injected fault goes unseen
   (and the hooks act on verified calls only, so C is right). */
static void test_default_off(void)
{
    float A[64], B[64], C[64];
    gemm_cpu_options zero = {0, 0};
    gemm_status s;
    int i;
    for (i = 0; i < 64; i++) A[i] = B[i] = C[i] = 1;
    gemm__test_hooks()->verify_drop_k = 1;
    s = gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 8, 8, 8, 1, A, 8, B, 8, 0, C, 8, &zero);
    verify_hooks_clear();
    battery_check(s == GEMM_OK && C[0] == 8 && C[63] == 8, "verify = 0 (zeroed options) computes as before: %d, %g",
                  (int)s, C[0]);
    battery_check(strcmp(gemm_strerror(GEMM_ERR_VERIFY), "the computed product failed its checksum verification") == 0 &&
                      GEMM_ERR_VERIFY == 8, "GEMM_ERR_VERIFY is 8, with its sentence");
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    gemm_cpu_options verify = {0, 1}, alone = {1, 1}, three = {3, 1};
    battery_backend single = {"cpu/verify", v_sgemm, v_dgemm, &verify, 0, 0, 0, 0};
    battery_backend member2 = {"cpu/verify/batch-member-2", member2_sgemm, member2_dgemm, &alone, 0, 0, 0, 0};
    battery_batch bb;
    battery_backend be;
    if (argc > 1 && !quick) {
        fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
        return 2;
    }
    test_default_off();
    test_not_finite();
    test_sums(quick);
    /* every path of a single call: tiny loops, one tile, direct, packed (threaded) */
    verify_faults(&single, 2, 2, 2, 0, 0xF);
    verify_faults(&single, 5, 4, 9, 0, 0xF);
    verify_faults(&single, 64, 48, 80, 0, 0xF);
    verify_faults(&single, 200, 150, quick ? 60 : 170, 0, 0xF);
    single.ctx = &three; /* the packed path with tiny blocks on 3 threads */
    gemm__test_hooks()->cpu_path = 1;
    gemm__test_hooks()->cpu_mc = 1;
    gemm__test_hooks()->cpu_kc = 7;
    gemm__test_hooks()->cpu_nc = 1;
    single.name = "cpu/verify/packed/tiny-blocks/3-threads";
    verify_faults(&single, 33, 29, 31, 0, 0xF);
    battery_run(&single); /* no false alarm on the packed path's edges */
    gemm__test_hooks()->cpu_path = 0;
    gemm__test_hooks()->cpu_mc = gemm__test_hooks()->cpu_kc = gemm__test_hooks()->cpu_nc = 0;
    single.ctx = &verify;
    single.name = "cpu/verify";
    /* a batch member */
    verify_faults(&member2, 30, 20, 25, 2, 0xF);
    /* the battery with verify on: no false alarm */
    if (quick) { single.cases = 12; single.max_dim = 160; }
    battery_run(&single);
    memset(&bb, 0, sizeof bb);
    bb.sstrided = v_sstrided; bb.dstrided = v_dstrided; bb.sbatched = v_sbatched; bb.dbatched = v_dbatched;
    bb.ctx = &verify;
    bb.single = &single;
    be = battery_batch_backend(&bb, BATTERY_BATCH_STRIDED, "cpu/verify/strided");
    be.cases = quick ? 6 : 60; be.max_dim = quick ? 100 : 200;
    battery_run(&be);
    be = battery_batch_backend(&bb, BATTERY_BATCH_POINTERS, "cpu/verify/pointers");
    be.cases = quick ? 6 : 60; be.max_dim = quick ? 100 : 200;
    battery_run(&be);
    return battery_summary();
}

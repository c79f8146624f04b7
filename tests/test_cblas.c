/* tests/test_cblas.c - the CBLAS names (GEMM_CBLAS, gemm_cblas.h), linked
   with tests/cblas_xerbla.c, whose cblas_xerbla records each call.
   Last line: N passed, N failed.

   - the battery through cblas_sgemm / cblas_dgemm, and member by member
     through cblas_?gemm_batch_strided and cblas_?gemm_batch (one group);
   - the error-exit table of netlib's CBLAS tests for cblas_?gemm
     (CBLAS/testing/c_s3chke.c, c_d3chke.c): each bad argument reaches
     cblas_xerbla once, with the number netlib's cblas_?gemm hands it (that
     of the column-major Fortran call it makes, plus one), which netlib's
     tester (c_xerbla.c) turns back into the argument's position for a
     row-major call and compares with the table's; C is not written; then
     gemm's own refusals (NULL matrices) and the batch forms' tables (their
     own positions: netlib remaps no batch routine's numbers);
   - groups: two groups of different shapes against the reference;
   - the complex names (cblas_cgemm / cblas_zgemm): the complex battery
     (battery_complex.h), netlib's table (c_c3chke.c and c_z3chke.c hold
     the same), CblasConjTrans and the refused CblasConjNoTrans; the
     complex battery through cblas_cgemm3m / zgemm3m (MKL's and OpenBLAS's
     3M names), its invalid arguments by netlib's positions. */
#define GEMM_CBLAS
#define GEMM_IMPLEMENTATION
#include "../gemm.h"
#include "battery_batch.h"
#include "battery_complex.h"

extern int test_xerbla_calls;
extern CBLAS_INT test_xerbla_p;
extern char test_xerbla_rout[64];

static void xerbla_clear(void)
{
    test_xerbla_calls = 0;
    test_xerbla_p = -1;
    test_xerbla_rout[0] = '\0';
}

/* gemm's transpose as CBLAS's: a value gemm refuses becomes one CBLAS
   refuses (gemm's 114, say, is CBLAS's valid CblasConjNoTrans). */
static CBLAS_TRANSPOSE cb_trans(gemm_transpose t)
{
    return t == GEMM_NO_TRANS ? CblasNoTrans : t == GEMM_TRANS ? CblasTrans
                                             : t == GEMM_CONJ_TRANS ? CblasConjTrans : (CBLAS_TRANSPOSE)0;
}

/* After a call: refused (GEMM_ERR_INVALID_ARG) when cblas_xerbla was called. */
static gemm_status xerbla_status(void) { return test_xerbla_calls ? GEMM_ERR_INVALID_ARG : GEMM_OK; }

/* ---- the battery, through the CBLAS names ---- */

/* A size or leading dimension as CBLAS_INT: one that does not fit becomes
   the nearest that does, so a negative one stays negative (INT64_MIN is
   INT32_MIN here) and a huge one huge. */
static CBLAS_INT cb_int(int64_t x)
{
    const CBLAS_INT lo = (CBLAS_INT)(sizeof(CBLAS_INT) < 8 ? -2147483647 - 1 : INT64_MIN);
    const CBLAS_INT hi = (CBLAS_INT)(sizeof(CBLAS_INT) < 8 ? 2147483647 : INT64_MAX);
    return x < (int64_t)lo ? lo : x > (int64_t)hi ? hi : (CBLAS_INT)x;
}

static gemm_status cb_sgemm(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                            int64_t k, float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                            float beta, float *C, int64_t ldc)
{
    (void)ctx;
    xerbla_clear();
    cblas_sgemm((CBLAS_LAYOUT)layout, cb_trans(ta), cb_trans(tb), cb_int(m), cb_int(n),
                cb_int(k), alpha, A, cb_int(lda), B, cb_int(ldb), beta, C, cb_int(ldc));
    return xerbla_status();
}

static gemm_status cb_dgemm(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                            int64_t k, double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                            double beta, double *C, int64_t ldc)
{
    (void)ctx;
    xerbla_clear();
    cblas_dgemm((CBLAS_LAYOUT)layout, cb_trans(ta), cb_trans(tb), cb_int(m), cb_int(n),
                cb_int(k), alpha, A, cb_int(lda), B, cb_int(ldb), beta, C, cb_int(ldc));
    return xerbla_status();
}

static gemm_status cb_sstrided(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                               int64_t n, int64_t k, float alpha, const float *A, int64_t lda, int64_t sa,
                               const float *B, int64_t ldb, int64_t sb, float beta, float *C, int64_t ldc, int64_t sc,
                               int64_t count)
{
    (void)ctx;
    xerbla_clear();
    cblas_sgemm_batch_strided((CBLAS_LAYOUT)layout, cb_trans(ta), cb_trans(tb), cb_int(m),
                              cb_int(n), cb_int(k), alpha, A, cb_int(lda), cb_int(sa), B, cb_int(ldb),
                              cb_int(sb), beta, C, cb_int(ldc), cb_int(sc), cb_int(count));
    return xerbla_status();
}

static gemm_status cb_dstrided(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                               int64_t n, int64_t k, double alpha, const double *A, int64_t lda, int64_t sa,
                               const double *B, int64_t ldb, int64_t sb, double beta, double *C, int64_t ldc,
                               int64_t sc, int64_t count)
{
    (void)ctx;
    xerbla_clear();
    cblas_dgemm_batch_strided((CBLAS_LAYOUT)layout, cb_trans(ta), cb_trans(tb), cb_int(m),
                              cb_int(n), cb_int(k), alpha, A, cb_int(lda), cb_int(sa), B, cb_int(ldb),
                              cb_int(sb), beta, C, cb_int(ldc), cb_int(sc), cb_int(count));
    return xerbla_status();
}

/* The pointer-array batch as one group of cblas_?gemm_batch. */
static gemm_status cb_sgroup(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                             int64_t k, float alpha, const float *const A[], int64_t lda, const float *const B[],
                             int64_t ldb, float beta, float *const C[], int64_t ldc, int64_t count)
{
    CBLAS_TRANSPOSE t[2];
    CBLAS_INT d[7];
    (void)ctx;
    t[0] = cb_trans(ta); t[1] = cb_trans(tb);
    d[0] = cb_int(m); d[1] = cb_int(n); d[2] = cb_int(k); d[3] = cb_int(lda); d[4] = cb_int(ldb);
    d[5] = cb_int(ldc); d[6] = cb_int(count);
    xerbla_clear();
    cblas_sgemm_batch((CBLAS_LAYOUT)layout, &t[0], &t[1], &d[0], &d[1], &d[2], &alpha, (const float **)A, &d[3],
                      (const float **)B, &d[4], &beta, (float **)C, &d[5], 1, &d[6]);
    return xerbla_status();
}

static gemm_status cb_dgroup(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                             int64_t k, double alpha, const double *const A[], int64_t lda, const double *const B[],
                             int64_t ldb, double beta, double *const C[], int64_t ldc, int64_t count)
{
    CBLAS_TRANSPOSE t[2];
    CBLAS_INT d[7];
    (void)ctx;
    t[0] = cb_trans(ta); t[1] = cb_trans(tb);
    d[0] = cb_int(m); d[1] = cb_int(n); d[2] = cb_int(k); d[3] = cb_int(lda); d[4] = cb_int(ldb);
    d[5] = cb_int(ldc); d[6] = cb_int(count);
    xerbla_clear();
    cblas_dgemm_batch((CBLAS_LAYOUT)layout, &t[0], &t[1], &d[0], &d[1], &d[2], &alpha, (const double **)A, &d[3],
                      (const double **)B, &d[4], &beta, (double **)C, &d[5], 1, &d[6]);
    return xerbla_status();
}

/* The oracle of the batch's other members: gemm's own single call. */
static gemm_status one_sgemm(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                             int64_t k, float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                             float beta, float *C, int64_t ldc)
{
    (void)ctx;
    return gemm_sgemm(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

static gemm_status one_dgemm(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                             int64_t k, double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                             double beta, double *C, int64_t ldc)
{
    (void)ctx;
    return gemm_dgemm(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

static gemm_status cb_cgemm(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                            int64_t k, const void *alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                            const void *beta, void *C, int64_t ldc)
{
    (void)ctx;
    xerbla_clear();
    cblas_cgemm((CBLAS_LAYOUT)layout, cb_trans(ta), cb_trans(tb), cb_int(m), cb_int(n), cb_int(k), alpha, A,
                cb_int(lda), B, cb_int(ldb), beta, C, cb_int(ldc));
    return xerbla_status();
}

static gemm_status cb_zgemm(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                            int64_t k, const void *alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                            const void *beta, void *C, int64_t ldc)
{
    (void)ctx;
    xerbla_clear();
    cblas_zgemm((CBLAS_LAYOUT)layout, cb_trans(ta), cb_trans(tb), cb_int(m), cb_int(n), cb_int(k), alpha, A,
                cb_int(lda), B, cb_int(ldb), beta, C, cb_int(ldc));
    return xerbla_status();
}

static gemm_status cb_cgemm3m(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                              int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda, const void *B,
                              int64_t ldb, const void *beta, void *C, int64_t ldc)
{
    (void)ctx;
    xerbla_clear();
    cblas_cgemm3m((CBLAS_LAYOUT)layout, cb_trans(ta), cb_trans(tb), cb_int(m), cb_int(n), cb_int(k), alpha, A,
                  cb_int(lda), B, cb_int(ldb), beta, C, cb_int(ldc));
    return xerbla_status();
}

static gemm_status cb_zgemm3m(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                              int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda, const void *B,
                              int64_t ldb, const void *beta, void *C, int64_t ldc)
{
    (void)ctx;
    xerbla_clear();
    cblas_zgemm3m((CBLAS_LAYOUT)layout, cb_trans(ta), cb_trans(tb), cb_int(m), cb_int(n), cb_int(k), alpha, A,
                  cb_int(lda), B, cb_int(ldb), beta, C, cb_int(ldc));
    return xerbla_status();
}

static void run_batteries(int quick)
{
    cbattery_backend cb = {"cblas", cb_cgemm, cb_zgemm, NULL, 0, 0, 1};
    cbattery_backend cb3 = {"cblas-3m", cb_cgemm3m, cb_zgemm3m, NULL, 60, 3, 1};
    static battery_backend single = {"gemm", one_sgemm, one_dgemm, NULL, 0, 0, 0, 0};
    battery_backend be = {"cblas", cb_sgemm, cb_dgemm, NULL, 0, 0, 0, 0};
    battery_batch bb;
    if (quick) { be.cases = 10; be.max_dim = 100; cb.cases = 3; cb.max_dim = 60; }
    battery_run(&be);
    cbattery_run(&cb);
    cbattery_run(&cb3);
    memset(&bb, 0, sizeof bb);
    bb.sstrided = cb_sstrided; bb.dstrided = cb_dstrided; bb.sbatched = cb_sgroup; bb.dbatched = cb_dgroup;
    bb.single = &single;
    be = battery_batch_backend(&bb, BATTERY_BATCH_STRIDED, "cblas_?gemm_batch_strided");
    be.cases = quick ? 6 : 40; be.max_dim = 100;
    battery_run(&be);
    be = battery_batch_backend(&bb, BATTERY_BATCH_POINTERS, "cblas_?gemm_batch (one group)");
    be.cases = quick ? 6 : 40; be.max_dim = 100;
    battery_run(&be);
}

/* ---- the error-exit tables ---- */

/* One call of netlib's table: layout, transposes, sizes, leading
   dimensions, and the parameter number cblas_xerbla must get. */
typedef struct xcase { int layout, ta, tb, m, n, k, lda, ldb, ldc, p; } xcase;

enum { COL = CblasColMajor, ROW = CblasRowMajor, NT = CblasNoTrans, TR = CblasTrans, BADL = 0, BADT = 0, BAD = -1 };

/* CBLAS/testing/c_s3chke.c (netlib LAPACK), the cblas_sgemm part, case by
   case: alpha = beta = 0 and 2-element arrays, as there; p is its
   cblas_info, the position of the CBLAS argument at fault. */
static const xcase netlib_gemm[] = {
    {BADL, NT, NT, 0, 0, 0, 1, 1, 1, 1}, {BADL, NT, TR, 0, 0, 0, 1, 1, 1, 1},
    {BADL, TR, NT, 0, 0, 0, 1, 1, 1, 1}, {BADL, TR, TR, 0, 0, 0, 1, 1, 1, 1},
    {COL, BADT, NT, 0, 0, 0, 1, 1, 1, 2}, {COL, BADT, TR, 0, 0, 0, 1, 1, 1, 2},
    {COL, NT, BADT, 0, 0, 0, 1, 1, 1, 3}, {COL, TR, BADT, 0, 0, 0, 1, 1, 1, 3},
    {COL, NT, NT, BAD, 0, 0, 1, 1, 1, 4}, {COL, NT, TR, BAD, 0, 0, 1, 1, 1, 4},
    {COL, TR, NT, BAD, 0, 0, 1, 1, 1, 4}, {COL, TR, TR, BAD, 0, 0, 1, 1, 1, 4},
    {COL, NT, NT, 0, BAD, 0, 1, 1, 1, 5}, {COL, NT, TR, 0, BAD, 0, 1, 1, 1, 5},
    {COL, TR, NT, 0, BAD, 0, 1, 1, 1, 5}, {COL, TR, TR, 0, BAD, 0, 1, 1, 1, 5},
    {COL, NT, NT, 0, 0, BAD, 1, 1, 1, 6}, {COL, NT, TR, 0, 0, BAD, 1, 1, 1, 6},
    {COL, TR, NT, 0, 0, BAD, 1, 1, 1, 6}, {COL, TR, TR, 0, 0, BAD, 1, 1, 1, 6},
    {COL, NT, NT, 2, 0, 0, 1, 1, 2, 9}, {COL, NT, TR, 2, 0, 0, 1, 1, 2, 9},
    {COL, TR, NT, 0, 0, 2, 1, 2, 1, 9}, {COL, TR, TR, 0, 0, 2, 1, 1, 1, 9},
    {COL, NT, NT, 0, 0, 2, 1, 1, 1, 11}, {COL, TR, NT, 0, 0, 2, 2, 1, 1, 11},
    {COL, NT, TR, 0, 2, 0, 1, 1, 1, 11}, {COL, TR, TR, 0, 2, 0, 1, 1, 1, 11},
    {COL, NT, NT, 2, 0, 0, 2, 1, 1, 14}, {COL, NT, TR, 2, 0, 0, 2, 1, 1, 14},
    {COL, TR, NT, 2, 0, 0, 1, 1, 1, 14}, {COL, TR, TR, 2, 0, 0, 1, 1, 1, 14},
    {ROW, BADT, NT, 0, 0, 0, 1, 1, 1, 2}, {ROW, BADT, TR, 0, 0, 0, 1, 1, 1, 2},
    {ROW, NT, BADT, 0, 0, 0, 1, 1, 1, 3}, {ROW, TR, BADT, 0, 0, 0, 1, 1, 1, 3},
    {ROW, NT, NT, BAD, 0, 0, 1, 1, 1, 4}, {ROW, NT, TR, BAD, 0, 0, 1, 1, 1, 4},
    {ROW, TR, NT, BAD, 0, 0, 1, 1, 1, 4}, {ROW, TR, TR, BAD, 0, 0, 1, 1, 1, 4},
    {ROW, NT, NT, 0, BAD, 0, 1, 1, 1, 5}, {ROW, NT, TR, 0, BAD, 0, 1, 1, 1, 5},
    {ROW, TR, NT, 0, BAD, 0, 1, 1, 1, 5}, {ROW, TR, TR, 0, BAD, 0, 1, 1, 1, 5},
    {ROW, NT, NT, 0, 0, BAD, 1, 1, 1, 6}, {ROW, NT, TR, 0, 0, BAD, 1, 1, 1, 6},
    {ROW, TR, NT, 0, 0, BAD, 1, 1, 1, 6}, {ROW, TR, TR, 0, 0, BAD, 1, 1, 1, 6},
    {ROW, NT, NT, 0, 0, 2, 1, 1, 2, 9}, {ROW, NT, TR, 0, 0, 2, 1, 2, 2, 9},
    {ROW, TR, NT, 2, 0, 0, 1, 2, 1, 9}, {ROW, TR, TR, 2, 0, 0, 1, 1, 1, 9},
    {ROW, NT, NT, 0, 2, 0, 1, 1, 1, 11}, {ROW, TR, NT, 0, 2, 0, 2, 1, 1, 11},
    {ROW, NT, TR, 0, 0, 2, 2, 1, 1, 11}, {ROW, TR, TR, 0, 0, 2, 1, 1, 1, 11},
    {ROW, NT, NT, 0, 2, 0, 1, 2, 1, 14}, {ROW, NT, TR, 0, 2, 0, 1, 1, 1, 14},
    {ROW, TR, NT, 0, 2, 0, 1, 2, 1, 14}, {ROW, TR, TR, 0, 2, 0, 1, 1, 1, 14},
};

/* netlib's tester (c_xerbla.c, cblas_xerbla_map_info for "gemm"): the
   number a row-major cblas_?gemm hands cblas_xerbla is that of its
   column-major Fortran call, which swaps M and N, A and B, plus one; this
   turns it into the CBLAS argument's position, and back (it is its own
   inverse). */
static int netlib_map_info(int info, int row_major)
{
    if (!row_major) return info;
    return info == 4 ? 5 : info == 5 ? 4 : info == 9 ? 11 : info == 11 ? 9 : info;
}

/* One refusal: cblas_xerbla called once, with p and rout; C unchanged. */
static void expect_refusal(const char *what, int p, const char *rout, int c_unchanged)
{
    battery_check(test_xerbla_calls == 1 && test_xerbla_p == p && strcmp(test_xerbla_rout, rout) == 0 && c_unchanged,
                  "%s: %s refused with parameter %d (got %d call(s), parameter %d, routine \"%s\"), C %s", rout, what, p,
                  test_xerbla_calls, (int)test_xerbla_p, test_xerbla_rout, c_unchanged ? "unchanged" : "WRITTEN");
}

static void test_netlib_table(void)
{
    size_t i;
    char what[160];
    for (i = 0; i < sizeof netlib_gemm / sizeof netlib_gemm[0]; i++) {
        const xcase *c = &netlib_gemm[i];
        float A[2] = {0, 0}, B[2] = {0, 0}, C[2] = {7, 7};
        double Ad[2] = {0, 0}, Bd[2] = {0, 0}, Cd[2] = {7, 7};
        int raw;
        snprintf(what, sizeof what, "netlib case %d (%s %d %d, m %d n %d k %d, lda %d ldb %d ldc %d)", (int)i + 1,
                 c->layout == ROW ? "row" : c->layout == COL ? "col" : "bad-layout", c->ta, c->tb, c->m, c->n, c->k,
                 c->lda, c->ldb, c->ldc);
        raw = netlib_map_info(c->p, c->layout == ROW); /* what netlib's cblas_?gemm hands cblas_xerbla */
        xerbla_clear();
        cblas_sgemm((CBLAS_LAYOUT)c->layout, (CBLAS_TRANSPOSE)c->ta, (CBLAS_TRANSPOSE)c->tb, c->m, c->n, c->k, 0.0f, A,
                    c->lda, B, c->ldb, 0.0f, C, c->ldc);
        expect_refusal(what, raw, "cblas_sgemm", C[0] == 7 && C[1] == 7);
        battery_check(netlib_map_info((int)test_xerbla_p, c->layout == ROW) == c->p,
                      "cblas_sgemm: %s: netlib's tester reads INFO = %d (cblas_info %d)", what,
                      netlib_map_info((int)test_xerbla_p, c->layout == ROW), c->p);
        xerbla_clear();
        cblas_dgemm((CBLAS_LAYOUT)c->layout, (CBLAS_TRANSPOSE)c->ta, (CBLAS_TRANSPOSE)c->tb, c->m, c->n, c->k, 0.0, Ad,
                    c->lda, Bd, c->ldb, 0.0, Cd, c->ldc);
        expect_refusal(what, raw, "cblas_dgemm", Cd[0] == 7 && Cd[1] == 7);
        battery_check(netlib_map_info((int)test_xerbla_p, c->layout == ROW) == c->p,
                      "cblas_dgemm: %s: netlib's tester reads INFO = %d (cblas_info %d)", what,
                      netlib_map_info((int)test_xerbla_p, c->layout == ROW), c->p);
        /* netlib's c_c3chke.c / c_z3chke.c hold the same table for cblas_cgemm / zgemm */
        {
            float Az[4] = {0, 0, 0, 0}, Bz[4] = {0, 0, 0, 0}, Cz[4] = {7, 7, 7, 7}, z0[2] = {0, 0};
            double Ay[4] = {0, 0, 0, 0}, By[4] = {0, 0, 0, 0}, Cy[4] = {7, 7, 7, 7}, y0[2] = {0, 0};
            xerbla_clear();
            cblas_cgemm((CBLAS_LAYOUT)c->layout, (CBLAS_TRANSPOSE)c->ta, (CBLAS_TRANSPOSE)c->tb, c->m, c->n, c->k, z0,
                        Az, c->lda, Bz, c->ldb, z0, Cz, c->ldc);
            expect_refusal(what, raw, "cblas_cgemm", Cz[0] == 7 && Cz[3] == 7);
            xerbla_clear();
            cblas_zgemm((CBLAS_LAYOUT)c->layout, (CBLAS_TRANSPOSE)c->ta, (CBLAS_TRANSPOSE)c->tb, c->m, c->n, c->k, y0,
                        Ay, c->lda, By, c->ldb, y0, Cy, c->ldc);
            expect_refusal(what, raw, "cblas_zgemm", Cy[0] == 7 && Cy[3] == 7);
        }
    }
}

/* The complex names' own: CblasConjTrans is X^H (against the reference),
   CblasConjNoTrans refused as TransA 2 / TransB 3, a NULL alpha 7 and
   beta 12 (row-major: netlib's numbers, the same for these). */
static void test_complex_trans(void)
{
    double A[8] = {1, 2, 3, -1, 0.5, 0.25, -2, 1}, B[8] = {2, -1, 1, 1, 0, 3, 1, -0.5}, C[8], R[8];
    double alpha[2] = {1, 0.5}, beta[2] = {0, 0};
    int i, same = 1;
    xerbla_clear();
    cblas_zgemm(CblasColMajor, CblasConjTrans, CblasNoTrans, 2, 2, 2, alpha, A, 2, B, 2, beta, C, 2);
    gemm_ref_zgemm(GEMM_COL_MAJOR, GEMM_CONJ_TRANS, GEMM_NO_TRANS, 2, 2, 2, alpha, A, 2, B, 2, beta, R, 2);
    for (i = 0; i < 8; i++) same = same && fabs(C[i] - R[i]) < 1e-14;
    battery_check(test_xerbla_calls == 0 && same, "cblas_zgemm: CblasConjTrans is the conjugate transpose");
    for (i = 0; i < 8; i++) C[i] = 7;
    xerbla_clear();
    cblas_zgemm(CblasColMajor, CblasConjNoTrans, CblasNoTrans, 2, 2, 2, alpha, A, 2, B, 2, beta, C, 2);
    expect_refusal("CblasConjNoTrans as TransA", 2, "cblas_zgemm", C[0] == 7);
    xerbla_clear();
    cblas_cgemm(CblasRowMajor, CblasNoTrans, CblasConjNoTrans, 2, 2, 2, alpha, A, 2, B, 2, beta, C, 2);
    expect_refusal("CblasConjNoTrans as TransB", 3, "cblas_cgemm", C[0] == 7);
    xerbla_clear();
    cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, NULL, A, 2, B, 2, beta, C, 2);
    expect_refusal("NULL alpha", 7, "cblas_zgemm", C[0] == 7);
    xerbla_clear();
    cblas_zgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, alpha, A, 2, B, 2, NULL, C, 2);
    expect_refusal("NULL beta", 12, "cblas_zgemm", C[0] == 7);
}

/* gemm's own refusals, which netlib does not make: NULL where a matrix is
   read or written (netlib would crash), a C that shares memory with A or B
   (C 13; 15 in the strided list); and CblasConjTrans works as CblasTrans. */
static void test_gemm_refusals(void)
{
    float A[4] = {1, 2, 3, 4}, B[4] = {1, 0, 0, 1}, C[4] = {7, 7, 7, 7}, R[4] = {7, 7, 7, 7};
    int unchanged;
    xerbla_clear();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0f, NULL, 2, B, 2, 0.0f, C, 2);
    unchanged = C[0] == 7 && C[3] == 7;
    expect_refusal("NULL A", 8, "cblas_sgemm", unchanged);
    xerbla_clear();
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0f, A, 2, NULL, 2, 0.0f, C, 2);
    expect_refusal("NULL B", 10, "cblas_sgemm", C[0] == 7 && C[3] == 7);
    xerbla_clear();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0f, A, 2, B, 2, 0.0f, NULL, 2);
    expect_refusal("NULL C", 13, "cblas_sgemm", 1);
    xerbla_clear();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0f, A, 2, B, 2, 0.0f, A, 2);
    expect_refusal("C == A (row-major)", 13, "cblas_sgemm", A[0] == 1 && A[1] == 2 && A[2] == 3 && A[3] == 4);
    xerbla_clear();
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0f, A, 2, B, 2, 0.0f, B, 2);
    expect_refusal("C == B (column-major)", 13, "cblas_sgemm", B[0] == 1 && B[1] == 0 && B[2] == 0 && B[3] == 1);
    xerbla_clear();
    cblas_sgemm_batch_strided(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0f, A, 2, 4, B, 2, 4, 0.0f, A, 2,
                              4, 1);
    expect_refusal("C == A", 15, "cblas_sgemm_batch_strided", A[0] == 1 && A[3] == 4);
    xerbla_clear();
    cblas_sgemm(CblasRowMajor, CblasConjTrans, CblasNoTrans, 2, 2, 2, 1.0f, A, 2, B, 2, 0.0f, C, 2);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasConjNoTrans, 2, 2, 2, 1.0f, A, 2, B, 2, 0.0f, R, 2);
    battery_check(test_xerbla_calls == 0 && C[0] == 1 && C[1] == 3 && C[2] == 2 && C[3] == 4 &&
                      memcmp(C, R, sizeof C) == 0,
                  "CblasConjTrans is CblasTrans and CblasConjNoTrans is CblasNoTrans for real matrices");
}

/* cblas_sgemm_batch_strided: 3 members of row-major 2x3x4, one argument
   broken at a time; positions as in MKL's list. */
typedef struct scase {
    const char *what;
    int layout, ta, tb, m, n, k, lda, sa, ldb, sb, ldc, sc, count, null_a, null_b, null_c, p;
} scase;

static const scase strided_cases[] = {
    {"layout", BADL, NT, NT, 2, 3, 4, 4, 8, 3, 12, 3, 6, 3, 0, 0, 0, 1},
    {"transa", ROW, BADT, NT, 2, 3, 4, 4, 8, 3, 12, 3, 6, 3, 0, 0, 0, 2},
    {"transb", ROW, NT, BADT, 2, 3, 4, 4, 8, 3, 12, 3, 6, 3, 0, 0, 0, 3},
    {"m < 0", ROW, NT, NT, BAD, 3, 4, 4, 8, 3, 12, 3, 6, 3, 0, 0, 0, 4},
    {"n < 0", ROW, NT, NT, 2, BAD, 4, 4, 8, 3, 12, 3, 6, 3, 0, 0, 0, 5},
    {"k < 0", ROW, NT, NT, 2, 3, BAD, 4, 8, 3, 12, 3, 6, 3, 0, 0, 0, 6},
    {"NULL a", ROW, NT, NT, 2, 3, 4, 4, 8, 3, 12, 3, 6, 3, 1, 0, 0, 8},
    {"lda too small", ROW, NT, NT, 2, 3, 4, 3, 8, 3, 12, 3, 6, 3, 0, 0, 0, 9},
    {"stridea < 0", ROW, NT, NT, 2, 3, 4, 4, BAD, 3, 12, 3, 6, 3, 0, 0, 0, 10},
    {"NULL b", ROW, NT, NT, 2, 3, 4, 4, 8, 3, 12, 3, 6, 3, 0, 1, 0, 11},
    {"ldb too small", ROW, NT, NT, 2, 3, 4, 4, 8, 2, 12, 3, 6, 3, 0, 0, 0, 12},
    {"strideb < 0", ROW, NT, NT, 2, 3, 4, 4, 8, 3, BAD, 3, 6, 3, 0, 0, 0, 13},
    {"NULL c", ROW, NT, NT, 2, 3, 4, 4, 8, 3, 12, 3, 6, 3, 0, 0, 1, 15},
    {"ldc too small (col-major)", COL, NT, NT, 2, 3, 4, 2, 8, 4, 12, 1, 6, 3, 0, 0, 0, 16},
    {"stridec < 0", ROW, NT, NT, 2, 3, 4, 4, 8, 3, 12, 3, BAD, 3, 0, 0, 0, 17},
    {"stridec = 0: one C for 3 members", ROW, NT, NT, 2, 3, 4, 4, 8, 3, 12, 3, 0, 3, 0, 0, 0, 17},
    {"stridec = 5: members' Cs overlap", ROW, NT, NT, 2, 3, 4, 4, 8, 3, 12, 3, 5, 3, 0, 0, 0, 17},
    {"batch_size < 0", ROW, NT, NT, 2, 3, 4, 4, 8, 3, 12, 3, 6, BAD, 0, 0, 0, 18},
};

static void test_strided_table(void)
{
    size_t i;
    for (i = 0; i < sizeof strided_cases / sizeof strided_cases[0]; i++) {
        const scase *c = &strided_cases[i];
        float A[64], B[64], C[64], C0[64];
        int j;
        for (j = 0; j < 64; j++) A[j] = (float)j, B[j] = (float)(64 - j), C[j] = C0[j] = (float)(j % 5);
        xerbla_clear();
        cblas_sgemm_batch_strided((CBLAS_LAYOUT)c->layout, (CBLAS_TRANSPOSE)c->ta, (CBLAS_TRANSPOSE)c->tb, c->m, c->n,
                                  c->k, 1.0f, c->null_a ? NULL : A, c->lda, c->sa, c->null_b ? NULL : B, c->ldb, c->sb,
                                  0.5f, c->null_c ? NULL : C, c->ldc, c->sc, c->count);
        expect_refusal(c->what, c->p, "cblas_sgemm_batch_strided", memcmp(C, C0, sizeof C) == 0);
    }
}

/* cblas_sgemm_batch: group 0, 2 members of row-major NN 2x3x4; group 1,
   3 members of row-major TN 3x2x2; every member's matrices its own. */
typedef struct groups {
    CBLAS_TRANSPOSE ta[2], tb[2];
    CBLAS_INT m[2], n[2], k[2], lda[2], ldb[2], ldc[2], size[2], count;
    float alpha[2], beta[2];
    const float *a[5], *b[5];
    float *c[5];
    float A[5][16], B[5][16], C[5][16], C0[5][16];
} groups;

static void groups_init(groups *g)
{
    int i, j;
    uint64_t state = 5;
    g->ta[0] = CblasNoTrans; g->tb[0] = CblasNoTrans; g->m[0] = 2; g->n[0] = 3; g->k[0] = 4;
    g->lda[0] = 4; g->ldb[0] = 3; g->ldc[0] = 3; g->size[0] = 2; g->alpha[0] = 1.5f; g->beta[0] = 0.5f;
    g->ta[1] = CblasTrans; g->tb[1] = CblasNoTrans; g->m[1] = 3; g->n[1] = 2; g->k[1] = 2;
    g->lda[1] = 3; g->ldb[1] = 2; g->ldc[1] = 2; g->size[1] = 3; g->alpha[1] = -1.0f; g->beta[1] = 0.0f;
    g->count = 2;
    for (i = 0; i < 5; i++) {
        for (j = 0; j < 16; j++) {
            g->A[i][j] = (float)battery_uniform(&state);
            g->B[i][j] = (float)battery_uniform(&state);
            g->C[i][j] = g->C0[i][j] = (float)battery_uniform(&state);
        }
        g->a[i] = g->A[i]; g->b[i] = g->B[i]; g->c[i] = g->C[i];
    }
}

static void groups_call(groups *g)
{
    xerbla_clear();
    cblas_sgemm_batch(CblasRowMajor, g->ta, g->tb, g->m, g->n, g->k, g->alpha, g->a, g->lda, g->b, g->ldb, g->beta,
                      g->c, g->ldc, g->count, g->size);
}

/* The valid call's members against the reference. */
static void test_groups_right(void)
{
    groups g;
    int i, ok;
    groups_init(&g);
    groups_call(&g);
    ok = test_xerbla_calls == 0;
    for (i = 0; i < 5 && ok; i++) {
        int gi = i < 2 ? 0 : 1, j;
        float R[16];
        memcpy(R, g.C0[i], sizeof R);
        gemm_ref_sgemm(GEMM_ROW_MAJOR, (gemm_transpose)g.ta[gi], (gemm_transpose)g.tb[gi], g.m[gi], g.n[gi], g.k[gi],
                       g.alpha[gi], g.A[i], g.lda[gi], g.B[i], g.ldb[gi], g.beta[gi], R, g.ldc[gi]);
        for (j = 0; j < 16 && ok; j++) ok = fabsf(R[j] - g.C[i][j]) <= 1e-5f;
    }
    battery_check(ok, "cblas_sgemm_batch: two groups of different shapes, every member right (%d xerbla calls)",
                  test_xerbla_calls);
}

static void test_groups_table(void)
{
    int cs;
    for (cs = 0; cs < 20; cs++) {
        groups g;
        const char *what = "";
        int p = 0;
        groups_init(&g);
        switch (cs) {
        case 0: what = "transa_array[1] invalid"; p = 2; g.ta[1] = (CBLAS_TRANSPOSE)0; break;
        case 1: what = "transb_array[1] invalid"; p = 3; g.tb[1] = (CBLAS_TRANSPOSE)0; break;
        case 2: what = "m_array[1] < 0"; p = 4; g.m[1] = -1; break;
        case 3: what = "n_array[0] < 0"; p = 5; g.n[0] = -1; break;
        case 4: what = "k_array[1] < 0"; p = 6; g.k[1] = -1; break;
        case 5: what = "a_array[3] (group 1, member 1) NULL"; p = 8; g.a[3] = NULL; break;
        case 6: what = "lda_array[1] too small"; p = 9; g.lda[1] = 2; break;
        case 7: what = "b_array[0] NULL"; p = 10; g.b[0] = NULL; break;
        case 8: what = "ldb_array[0] too small"; p = 11; g.ldb[0] = 2; break;
        case 9: what = "c_array[4] NULL"; p = 13; g.c[4] = NULL; break;
        case 10: what = "ldc_array[1] too small"; p = 14; g.ldc[1] = 1; break;
        case 11: what = "group_count < 0"; p = 15; g.count = -1; break;
        case 12: what = "group_size[1] < 0"; p = 16; g.size[1] = -1; break;
        case 13: what = "c_array[1] == c_array[0] (one group)"; p = 13; g.c[1] = g.c[0]; break;
        case 14: what = "c_array[3] == c_array[0] (two groups)"; p = 13; g.c[3] = g.c[0]; break;
        case 15: what = "c_array[2] one element into c_array[1] (two groups)"; p = 13; g.c[2] = g.c[1] + 1; break;
        default: what = NULL; break;
        }
        if (!what) break;
        groups_call(&g);
        expect_refusal(what, p, "cblas_sgemm_batch", memcmp(g.C, g.C0, sizeof g.C) == 0);
    }
    {
        groups g;
        groups_init(&g);
        xerbla_clear();
        cblas_sgemm_batch(CblasRowMajor, NULL, g.tb, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, g.c,
                          g.ldc, g.count, g.size);
        expect_refusal("NULL transa_array", 2, "cblas_sgemm_batch", memcmp(g.C, g.C0, sizeof g.C) == 0);
        xerbla_clear();
        cblas_sgemm_batch((CBLAS_LAYOUT)0, g.ta, g.tb, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, g.c,
                          g.ldc, g.count, NULL);
        expect_refusal("NULL group_size", 16, "cblas_sgemm_batch", memcmp(g.C, g.C0, sizeof g.C) == 0);
        xerbla_clear();
        cblas_sgemm_batch((CBLAS_LAYOUT)0, g.ta, g.tb, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, g.c,
                          g.ldc, g.count, g.size);
        expect_refusal("layout", 1, "cblas_sgemm_batch", memcmp(g.C, g.C0, sizeof g.C) == 0);
        xerbla_clear();
        cblas_sgemm_batch(CblasRowMajor, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                          0, NULL);
        battery_check(test_xerbla_calls == 0, "cblas_sgemm_batch: group_count = 0 with NULL everywhere is a no-op");
    }
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    battery_extreme_args = 1; /* the adapters saturate sizes to CBLAS_INT (cb_int) */
    test_netlib_table();
    test_complex_trans();
    test_gemm_refusals();
    test_strided_table();
    test_groups_right();
    test_groups_table();
    run_batteries(quick);
    return battery_summary();
}

/* tests/test_verify.c - the CPU's verified products (the `verify` option
   of gemm_cpu_options; core/verify.c, cpu/verify.c). Last line:
   N passed, N failed.

   build/test_verify          faults injected after the product (a flipped
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

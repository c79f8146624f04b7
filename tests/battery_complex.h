/* tests/battery_complex.h - the differential battery of the complex calls
   (cgemm, zgemm), for every backend that has them.

   A test program fills in a cbattery_backend (its cgemm and zgemm behind
   one CBLAS-shaped signature with a context pointer; the scalars by
   pointer) and calls cbattery_run(); battery.h's battery_summary() prints
   the closing line. What it checks, each case against gemm_ref_cgemm /
   gemm_ref_zgemm (long double sums):
     - random cases: both precisions, both layouts, every op pair of
       {N, T, C} (9), awkward and random sizes, padded leading dimensions,
       alpha and beta from {0, 1, -1, i, real, complex}; C's padding must
       stay bit for bit;
     - edges: beta == 0 with NaN in C (not read), alpha == 0 and k == 0 with
       NaN in A and B (not read, C = beta*C), m or n == 0 and beta == 1 with
       alpha == 0 (C untouched, NULL A, B, C allowed where unread), a
       complex beta with alpha == 0;
     - invalid arguments by position (layout, transa, transb, m, n, k, a
       NULL alpha, A, lda, B, ldb, a NULL beta, C, ldc): each refused with
       GEMM_ERR_INVALID_ARG and a detail, C unchanged; and (host backends)
       C overlapping A refused.

   A result passes when, per component,
       |C - C_ref| <= c * eps * max(k, 1) * max(|alpha|*max|A|*max|B|, |beta|*max|C0|)
   with c = 4 (a complex product is two real sums of 2k terms), eps of the
   precision; NaN never passes. */

#ifndef GEMM_TESTS_BATTERY_COMPLEX_H
#define GEMM_TESTS_BATTERY_COMPLEX_H

#include "battery.h"

typedef gemm_status (*cbattery_fn)(void *ctx, gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                                   int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda,
                                   const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc);

typedef struct cbattery_backend {
    const char *name;
    cbattery_fn cgemm, zgemm; /* NULL: that precision reported as skipped */
    void *ctx;
    int max_dim;              /* largest random m, n, k; 0 = 150 */
    int cases;                /* random cases per precision, layout and op pair; 0 = 12 */
    int host_memory;          /* A, B, C are host addresses: an overlapping C must be refused */
} cbattery_backend;

BATTERY_STATIC const gemm_transpose cbattery_ops[3] = {GEMM_NO_TRANS, GEMM_TRANS, GEMM_CONJ_TRANS};

BATTERY_STATIC gemm_status cbattery_invoke(const cbattery_backend *be, gemm_precision prec, const battery_call *c,
                                           const double alpha[2], const void *A, const void *B,
                                           const double beta[2], void *C)
{
    float af[2], bf[2];
    const void *al = alpha, *bt = beta;
    if (prec == GEMM_F32) {
        if (alpha) { af[0] = (float)alpha[0]; af[1] = (float)alpha[1]; al = af; }
        if (beta) { bf[0] = (float)beta[0]; bf[1] = (float)beta[1]; bt = bf; }
    }
    if (!be) return (prec == GEMM_F32 ? gemm_ref_cgemm : gemm_ref_zgemm)(c->layout, c->ta, c->tb, c->m, c->n, c->k,
                                                                        al, A, c->lda, B, c->ldb, bt, C, c->ldc);
    return (prec == GEMM_F32 ? be->cgemm : be->zgemm)(be->ctx, c->layout, c->ta, c->tb, c->m, c->n, c->k, al, A,
                                                      c->lda, B, c->ldb, bt, C, c->ldc);
}

BATTERY_STATIC const char *cbattery_str(const battery_call *c, const double alpha[2], const double beta[2], char *out,
                                        size_t size)
{
    static const char op[] = "NTC?";
    snprintf(out, size, "%s %c%c m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld alpha=(%g,%g) beta=(%g,%g)",
             c->layout == GEMM_ROW_MAJOR ? "row" : "col", op[c->ta == GEMM_NO_TRANS ? 0 : c->ta == GEMM_TRANS ? 1 : c->ta == GEMM_CONJ_TRANS ? 2 : 3],
             op[c->tb == GEMM_NO_TRANS ? 0 : c->tb == GEMM_TRANS ? 1 : c->tb == GEMM_CONJ_TRANS ? 2 : 3],
             (long long)c->m, (long long)c->n, (long long)c->k, (long long)c->lda, (long long)c->ldb,
             (long long)c->ldc, alpha ? alpha[0] : 0, alpha ? alpha[1] : 0, beta ? beta[0] : 0, beta ? beta[1] : 0);
    return out;
}

/* Interleaved buffers: battery_buf of 2 reals per element. */
BATTERY_STATIC battery_buf cbattery_buf(gemm_precision prec, gemm_layout layout, int64_t rows, int64_t cols,
                                        int64_t ld)
{
    return battery_buf_new(prec, 2 * battery_extent(layout, rows, cols, ld));
}

/* |got - want| over C's m x n window (per component), INFINITY on NaN or
   on any change in C's padding. */
BATTERY_STATIC double cbattery_compare(const battery_call *c, const battery_buf *got, const battery_buf *want)
{
    size_t i, elem = got->prec == GEMM_F32 ? sizeof(float) : sizeof(double);
    double err = 0;
    for (i = 0; i < got->count; i++) {
        int64_t e = (int64_t)(i / 2), r = e / c->ldc, col = e % c->ldc;
        int inside = c->layout == GEMM_ROW_MAJOR ? (r < c->m && col < c->n) : (r < c->n && col < c->m);
        if (inside) {
            double d = fabs(battery_get(got, i) - battery_get(want, i));
            if (d != d) return INFINITY;
            if (d > err) err = d;
        } else if (memcmp((const char *)got->data + i * elem, (const char *)want->data + i * elem, elem) != 0) {
            return INFINITY;
        }
    }
    return err;
}

BATTERY_STATIC int cbattery_case(const cbattery_backend *be, gemm_precision prec, const battery_call *c,
                                 const double alpha[2], const double beta[2], uint64_t seed)
{
    int64_t ar = c->ta == GEMM_NO_TRANS ? c->m : c->k, ac = c->ta == GEMM_NO_TRANS ? c->k : c->m;
    int64_t br = c->tb == GEMM_NO_TRANS ? c->k : c->n, bc = c->tb == GEMM_NO_TRANS ? c->n : c->k;
    uint64_t state = seed;
    battery_buf A = cbattery_buf(prec, c->layout, ar, ac, c->lda), B = cbattery_buf(prec, c->layout, br, bc, c->ldb);
    battery_buf C = cbattery_buf(prec, c->layout, c->m, c->n, c->ldc), R;
    double err, bound, eps = prec == GEMM_F32 ? FLT_EPSILON : DBL_EPSILON, ab, cb;
    gemm_status s_got, s_want;
    char desc[300];
    int ok;
    battery_fill(&A, &state);
    battery_fill(&B, &state);
    battery_fill(&C, &state);
    R = battery_buf_copy(&C);
    ab = hypot(alpha[0], alpha[1]) * battery_max_abs(&A) * battery_max_abs(&B) * 2;
    cb = hypot(beta[0], beta[1]) * battery_max_abs(&C) * 2;
    bound = 4 * eps * (double)(c->k > 1 ? c->k : 1) * (ab > cb ? ab : cb);
    s_got = cbattery_invoke(be, prec, c, alpha, A.data, B.data, beta, C.data);
    s_want = cbattery_invoke(NULL, prec, c, alpha, A.data, B.data, beta, R.data);
    err = s_got == GEMM_OK ? cbattery_compare(c, &C, &R) : INFINITY;
    ok = s_got == GEMM_OK && s_want == GEMM_OK && err <= bound;
    battery_check(ok, "%s %s %s seed=%llu: status %d (%s) err %.3g bound %.3g", be->name,
                  prec == GEMM_F32 ? "c" : "z", cbattery_str(c, alpha, beta, desc, sizeof desc),
                  (unsigned long long)seed, (int)s_got, s_got == GEMM_OK ? "ok" : gemm_last_error_detail(), err,
                  bound);
    battery_buf_free(&A);
    battery_buf_free(&B);
    battery_buf_free(&C);
    battery_buf_free(&R);
    return ok;
}

BATTERY_STATIC void cbattery_scalar(uint64_t *state, double z[2])
{
    switch (battery_below(state, 7)) {
    case 0: z[0] = 0; z[1] = 0; break;
    case 1: z[0] = 1; z[1] = 0; break;
    case 2: z[0] = -1; z[1] = 0; break;
    case 3: z[0] = 0; z[1] = 1; break;
    case 4: z[0] = 2 * battery_uniform(state) + 0.25; z[1] = 0; break;
    default: z[0] = 2 * battery_uniform(state); z[1] = 2 * battery_uniform(state) - 0.5; break;
    }
}

BATTERY_STATIC void cbattery_random(const cbattery_backend *be, gemm_precision prec)
{
    int64_t max = be->max_dim > 0 ? be->max_dim : 150;
    int cases = be->cases > 0 ? be->cases : 12, li, ai, bi, i;
    uint64_t seed0 = battery_base_seed() * 1000033ull + (uint64_t)prec * 104729ull;
    for (li = 0; li < 2; li++)
        for (ai = 0; ai < 3; ai++)
            for (bi = 0; bi < 3; bi++)
                for (i = 0; i < cases; i++) {
                    uint64_t seed = seed0 + (uint64_t)((((li * 3 + ai) * 3 + bi) * cases) + i), state = seed;
                    battery_call c;
                    double alpha[2], beta[2];
                    c.layout = battery_layouts[li];
                    c.ta = cbattery_ops[ai];
                    c.tb = cbattery_ops[bi];
                    c.m = battery_random_dim(&state, max);
                    c.n = battery_random_dim(&state, max);
                    c.k = battery_random_dim(&state, max);
                    if (i == 0) { c.m = max; c.n = max; c.k = max; } /* one large: the blocked path */
                    cbattery_scalar(&state, alpha);
                    cbattery_scalar(&state, beta);
                    if (i == 1) { alpha[0] = 0.75; alpha[1] = -1.25; beta[0] = 0.5; beta[1] = 0.5; }
                    battery_min_lds(&c);
                    if (battery_below(&state, 3) == 0) {
                        c.lda += 1 + battery_below(&state, 9);
                        c.ldb += 1 + battery_below(&state, 9);
                        c.ldc += 1 + battery_below(&state, 9);
                    }
                    cbattery_case(be, prec, &c, alpha, beta, seed);
                }
}

/* Fills a buffer with NaN. */
BATTERY_STATIC void cbattery_nan(battery_buf *b) { battery_fill_value(b, NAN); }

BATTERY_STATIC void cbattery_edges(const cbattery_backend *be, gemm_precision prec)
{
    const char *pn = prec == GEMM_F32 ? "c" : "z";
    static const double zero[2] = {0, 0}, one[2] = {1, 0}, cplx[2] = {0.5, -2}, real[2] = {-1.5, 0};
    int li, ai, bi;
    char desc[300];
    for (li = 0; li < 2; li++)
        for (ai = 0; ai < 3; ai++)
            for (bi = 0; bi < 3; bi++) {
                battery_call c;
                battery_buf A, B, C, R;
                uint64_t state = battery_base_seed() + 31u * (uint64_t)(li * 9 + ai * 3 + bi);
                gemm_status s;
                size_t i;
                int ok;
                c.layout = battery_layouts[li];
                c.ta = cbattery_ops[ai];
                c.tb = cbattery_ops[bi];
                c.m = 23; c.n = 19; c.k = 11;
                battery_min_lds(&c);
                A = cbattery_buf(prec, c.layout, 23, 23, c.lda);
                B = cbattery_buf(prec, c.layout, 23, 23, c.ldb);
                C = cbattery_buf(prec, c.layout, c.m, c.n, c.ldc);
                battery_fill(&A, &state);
                battery_fill(&B, &state);

                /* beta == 0: C is not read, its NaN must not survive */
                cbattery_nan(&C);
                R = battery_buf_copy(&C);
                s = cbattery_invoke(be, prec, &c, cplx, A.data, B.data, zero, C.data);
                cbattery_invoke(NULL, prec, &c, cplx, A.data, B.data, zero, R.data);
                battery_check(s == GEMM_OK && cbattery_compare(&c, &C, &R) < 1e-3,
                              "%s %s beta = 0 ignores NaN in C: %s", be->name, pn,
                              cbattery_str(&c, cplx, zero, desc, sizeof desc));
                battery_buf_free(&R);

                /* alpha == 0: A and B not read (NaN there), C = beta*C with a complex beta */
                battery_fill(&C, &state);
                R = battery_buf_copy(&C);
                cbattery_nan(&A);
                cbattery_nan(&B);
                s = cbattery_invoke(be, prec, &c, zero, A.data, B.data, cplx, C.data);
                cbattery_invoke(NULL, prec, &c, zero, NULL, NULL, cplx, R.data);
                ok = s == GEMM_OK && cbattery_compare(&c, &C, &R) <= 4 * (prec == GEMM_F32 ? FLT_EPSILON : DBL_EPSILON) * 4;
                battery_check(ok, "%s %s alpha = 0 reads neither A nor B, C = beta*C: %s", be->name, pn,
                              cbattery_str(&c, zero, cplx, desc, sizeof desc));

                /* k == 0 with NULL A and B: C = beta*C (real beta) */
                memcpy(R.data, C.data, battery_buf_bytes(&C));
                {
                    battery_call k0 = c;
                    k0.k = 0;
                    s = cbattery_invoke(be, prec, &k0, cplx, NULL, NULL, real, C.data);
                    cbattery_invoke(NULL, prec, &k0, cplx, NULL, NULL, real, R.data);
                    battery_check(s == GEMM_OK && cbattery_compare(&k0, &C, &R) <= 1e-5,
                                  "%s %s k = 0 with NULL A and B scales C: %s", be->name, pn,
                                  cbattery_str(&k0, cplx, real, desc, sizeof desc));
                }

                /* beta == 1 and alpha == 0: C untouched, even NULL pointers */
                memcpy(R.data, C.data, battery_buf_bytes(&C));
                s = cbattery_invoke(be, prec, &c, zero, NULL, NULL, one, C.data);
                battery_check(s == GEMM_OK && memcmp(C.data, R.data, battery_buf_bytes(&C)) == 0,
                              "%s %s alpha = 0, beta = 1 leaves C alone: %s", be->name, pn,
                              cbattery_str(&c, zero, one, desc, sizeof desc));
                {
                    battery_call e = c;
                    e.m = 0;
                    s = cbattery_invoke(be, prec, &e, cplx, NULL, NULL, cplx, NULL);
                    battery_check(s == GEMM_OK, "%s %s m = 0 with NULL matrices: status %d", be->name, pn, (int)s);
                    e = c;
                    e.n = 0;
                    s = cbattery_invoke(be, prec, &e, cplx, NULL, NULL, cplx, NULL);
                    battery_check(s == GEMM_OK, "%s %s n = 0 with NULL matrices: status %d", be->name, pn, (int)s);
                }
                for (i = 0; i < 2; i++) { /* m, n, k of 1 */
                    battery_call e = c;
                    if (i == 0) { e.m = 1; e.n = 1; e.k = 1; }
                    else { e.m = 1; e.n = 7; e.k = 1; }
                    battery_min_lds(&e);
                    cbattery_case(be, prec, &e, cplx, real, state + i);
                }
                battery_buf_free(&A);
                battery_buf_free(&B);
                battery_buf_free(&C);
                battery_buf_free(&R);
            }
}

/* One invalid call: refused with a detail, C unchanged. which: 1 NULL A,
   2 NULL B, 3 NULL C, 4 NULL alpha, 5 NULL beta. */
BATTERY_STATIC void cbattery_invalid_one(const cbattery_backend *be, gemm_precision prec, const battery_call *c,
                                         int which, const char *what)
{
    static const double alpha[2] = {1, 0.5}, beta[2] = {0.25, 0};
    battery_buf A = battery_buf_new(prec, 2 * 64 * 64), B = battery_buf_new(prec, 2 * 64 * 64);
    battery_buf C = battery_buf_new(prec, 2 * 64 * 64), before;
    uint64_t state = 7;
    gemm_status s;
    char desc[300];
    battery_fill(&A, &state);
    battery_fill(&B, &state);
    battery_fill(&C, &state);
    before = battery_buf_copy(&C);
    s = cbattery_invoke(be, prec, c, which == 4 ? NULL : alpha, which == 1 ? NULL : A.data, which == 2 ? NULL : B.data,
                        which == 5 ? NULL : beta, which == 3 ? NULL : C.data);
    battery_check(s == GEMM_ERR_INVALID_ARG && memcmp(C.data, before.data, battery_buf_bytes(&C)) == 0 &&
                      gemm_last_error_detail()[0] != '\0',
                  "%s %s invalid %s refused, C unchanged: %s -> status %d \"%s\"", be->name,
                  prec == GEMM_F32 ? "c" : "z", what, cbattery_str(c, alpha, beta, desc, sizeof desc), (int)s,
                  gemm_last_error_detail());
    battery_buf_free(&A);
    battery_buf_free(&B);
    battery_buf_free(&C);
    battery_buf_free(&before);
}

BATTERY_STATIC void cbattery_invalid(const cbattery_backend *be, gemm_precision prec)
{
    int li, ai;
    for (li = 0; li < 2; li++)
        for (ai = 0; ai < 3; ai++) {
            battery_call c, v;
            c.layout = battery_layouts[li];
            c.ta = cbattery_ops[ai];
            c.tb = cbattery_ops[2 - ai];
            c.m = 5; c.n = 6; c.k = 7;
            c.alpha = c.beta = 0;
            battery_min_lds(&c);
            v = c; v.layout = (gemm_layout)103; cbattery_invalid_one(be, prec, &v, 0, "layout");
            v = c; v.ta = (gemm_transpose)114; cbattery_invalid_one(be, prec, &v, 0, "transa");
            v = c; v.tb = (gemm_transpose)110; cbattery_invalid_one(be, prec, &v, 0, "transb");
            v = c; v.m = -1; cbattery_invalid_one(be, prec, &v, 0, "m < 0");
            v = c; v.n = -1; cbattery_invalid_one(be, prec, &v, 0, "n < 0");
            v = c; v.k = -1; cbattery_invalid_one(be, prec, &v, 0, "k < 0");
            v = c; cbattery_invalid_one(be, prec, &v, 4, "NULL alpha");
            v = c; cbattery_invalid_one(be, prec, &v, 1, "NULL A");
            v = c; v.lda -= 1; cbattery_invalid_one(be, prec, &v, 0, "lda too small");
            v = c; cbattery_invalid_one(be, prec, &v, 2, "NULL B");
            v = c; v.ldb -= 1; cbattery_invalid_one(be, prec, &v, 0, "ldb too small");
            v = c; cbattery_invalid_one(be, prec, &v, 5, "NULL beta");
            v = c; cbattery_invalid_one(be, prec, &v, 3, "NULL C");
            v = c; v.ldc -= 1; cbattery_invalid_one(be, prec, &v, 0, "ldc too small");
        }
    if (be->host_memory) { /* C over A, both read and written */
        battery_call c;
        static const double alpha[2] = {1, 0}, beta[2] = {0, 0};
        battery_buf X = battery_buf_new(prec, 2 * 16 * 16), Y = battery_buf_new(prec, 2 * 16 * 16), before;
        uint64_t state = 3;
        gemm_status s;
        battery_fill(&X, &state);
        battery_fill(&Y, &state);
        before = battery_buf_copy(&X);
        c.layout = GEMM_COL_MAJOR; c.ta = GEMM_CONJ_TRANS; c.tb = GEMM_NO_TRANS;
        c.m = c.n = c.k = 16;
        battery_min_lds(&c);
        s = cbattery_invoke(be, prec, &c, alpha, X.data, Y.data, beta, X.data);
        battery_check(s == GEMM_ERR_INVALID_ARG && strstr(gemm_last_error_detail(), "overlap") &&
                          memcmp(X.data, before.data, battery_buf_bytes(&X)) == 0,
                      "%s %s C == A refused, C unchanged: status %d \"%s\"", be->name, prec == GEMM_F32 ? "c" : "z",
                      (int)s, gemm_last_error_detail());
        battery_buf_free(&X);
        battery_buf_free(&Y);
        battery_buf_free(&before);
    }
}

BATTERY_STATIC void cbattery_run(const cbattery_backend *be)
{
    int before = battery_failed;
    gemm_precision prec;
    printf("== %s (complex): seed %llu\n", be->name, (unsigned long long)battery_base_seed());
    fflush(stdout);
    for (prec = GEMM_F32; prec <= GEMM_F64; prec = (gemm_precision)(prec + 1)) {
        if (prec == GEMM_F32 ? !be->cgemm : !be->zgemm) {
            battery_skip(be->name, prec == GEMM_F32 ? "no cgemm" : "no zgemm");
            continue;
        }
        cbattery_random(be, prec);
        cbattery_edges(be, prec);
        cbattery_invalid(be, prec);
    }
    printf("== %s (complex): %s\n", be->name, battery_failed == before ? "all passed" : "FAILURES above");
    fflush(stdout);
}

#endif

/* tests/verify_faults.h - faults injected into verified products (the
   `verify` option), for any backend whose calls sit behind a
   battery_backend that passes verify = 1.

   verify_faults(be, m, n, k, name) runs, for fp32 and fp64, both layouts,
   NN and TT, beta 0 and 0.5, one clean call (GEMM_OK, the reference's
   result) and one call per fault the test hooks inject after the product
   (gemm__hooks, GEMM__TEST_HOOKS):
     - a bit flip in the top exponent bit of one element of C;
     - a bit flip, in C's largest element, of the lowest mantissa bit whose
       change exceeds twice the verification's documented bound
       (core/verify.c's formula, worked out here from the operands) for
       that element's row and column;
     - a dropped slice of K (the product skips its last k/8 elements of k,
       at least one: one alone can sit under the bound of a long k).
   Each faulty call must return GEMM_ERR_VERIFY with a detail, and its C
   must really be wrong (further from the reference than the battery's
   tolerance), so a detection is never of a fault that did not happen. A
   flip's detail must name its row and column in the caller's terms.
   skip: products (batch members, ranks' blocks) that run clean before the
   faulty one (gemm__hooks.verify_fault_skip); the caller's adapter picks
   which product of its call the battery's operands are. */

#ifndef GEMM_TESTS_VERIFY_FAULTS_H
#define GEMM_TESTS_VERIFY_FAULTS_H

#include "battery.h"

/* Element (i, j) of a stored rows x cols matrix. */
static size_t verify_at(gemm_layout layout, int64_t ld, int64_t i, int64_t j)
{
    return (size_t)(layout == GEMM_ROW_MAJOR ? i * ld + j : i + j * ld);
}

/* op(X)(i, p) of a stored matrix, as double. */
static double verify_op(const battery_buf *x, gemm_layout layout, gemm_transpose t, int64_t ld, int64_t i, int64_t p)
{
    return battery_get(x, t == GEMM_NO_TRANS ? verify_at(layout, ld, i, p) : verify_at(layout, ld, p, i));
}

/* The bound core/verify.c gives row i and column j of this call: the
   larger of the two. */
static double verify_bound(gemm_precision prec, const battery_call *c, const battery_buf *A, const battery_buf *B,
                           const battery_buf *C0, int64_t i, int64_t j)
{
    double u = prec == GEMM_F32 ? ldexp(1.0, -24) : ldexp(1.0, -53), ud = ldexp(1.0, -53);
    double tiny = prec == GEMM_F32 ? ldexp(1.0, -149) : ldexp(1.0, -1074);
    double factor = 2.0 * (u * ((double)c->k + 2) + ud * ((double)(c->m + c->n + c->k) + 4));
    double floor_ = ((double)c->k + 2) * (double)(c->m + c->n) * tiny, row = 0, col = 0;
    int64_t x, p;
    for (x = 0; x < c->m; x++) { /* column j */
        for (p = 0; p < c->k; p++)
            col += fabs(c->alpha) * fabs(verify_op(A, c->layout, c->ta, c->lda, x, p) *
                                         verify_op(B, c->layout, c->tb, c->ldb, p, j));
        if (c->beta != 0) col += fabs(c->beta) * fabs(battery_get(C0, verify_at(c->layout, c->ldc, x, j)));
    }
    for (x = 0; x < c->n; x++) { /* row i */
        for (p = 0; p < c->k; p++)
            row += fabs(c->alpha) * fabs(verify_op(A, c->layout, c->ta, c->lda, i, p) *
                                         verify_op(B, c->layout, c->tb, c->ldb, p, x));
        if (c->beta != 0) row += fabs(c->beta) * fabs(battery_get(C0, verify_at(c->layout, c->ldc, i, x)));
    }
    return factor * (row > col ? row : col) + floor_;
}

static void verify_hooks_clear(void)
{
    gemm__hooks *h = gemm__test_hooks();
    h->verify_flip_bit = 0;
    h->verify_flip_row = h->verify_flip_col = 0;
    h->verify_drop_k = 0;
    h->verify_fault_skip = 0;
}

/* One call with the fault `kind` (0 none, 1 exponent flip, 2 mantissa flip,
   3 dropped K slice) at element (i, j); checks what the header says. */
static void verify_one(const battery_backend *be, gemm_precision prec, const battery_call *c, int kind, int64_t i,
                       int64_t j, int skip, uint64_t seed)
{
    static const char *kinds[] = {"clean", "exponent bit flip", "mantissa bit flip", "dropped K slice"};
    uint64_t st = seed;
    size_t ea = battery_extent(c->layout, c->ta == GEMM_NO_TRANS ? c->m : c->k, c->ta == GEMM_NO_TRANS ? c->k : c->m, c->lda);
    size_t eb = battery_extent(c->layout, c->tb == GEMM_NO_TRANS ? c->k : c->n, c->tb == GEMM_NO_TRANS ? c->n : c->k, c->ldb);
    size_t ec = battery_extent(c->layout, c->m, c->n, c->ldc);
    battery_buf A = battery_buf_new(prec, ea), B = battery_buf_new(prec, eb), C0 = battery_buf_new(prec, ec), C, R;
    gemm__hooks *h = gemm__test_hooks();
    int mant = prec == GEMM_F32 ? 23 : 52, bit = 0, e;
    double tol, err, want, bound;
    gemm_status s;
    char call[200];
    battery_fill(&A, &st);
    battery_fill(&B, &st);
    battery_fill(&C0, &st);
    C = battery_buf_copy(&C0);
    R = battery_buf_copy(&C0);
    battery_invoke(NULL, prec, c, A.data, B.data, R.data);
    tol = battery_bound(be, prec, c, battery_max_abs(&A), battery_max_abs(&B), battery_max_abs(&C0));
    verify_hooks_clear();
    h->verify_fault_skip = skip;
    if (kind == 1 || kind == 2) { /* the hook's coordinates are the canonical (column-major) C's */
        h->verify_flip_row = c->layout == GEMM_ROW_MAJOR ? j : i;
        h->verify_flip_col = c->layout == GEMM_ROW_MAJOR ? i : j;
    }
    if (kind == 1) h->verify_flip_bit = (prec == GEMM_F32 ? 30 : 62) + 1;
    if (kind == 2) { /* at C's largest element, the lowest mantissa bit that moves it by more than 2 bounds */
        int64_t x, y;
        for (x = 0; x < c->m; x++)
            for (y = 0; y < c->n; y++)
                if (fabs(battery_get(&R, verify_at(c->layout, c->ldc, x, y))) >
                    fabs(battery_get(&R, verify_at(c->layout, c->ldc, i, j))))
                    i = x, j = y;
        h->verify_flip_row = c->layout == GEMM_ROW_MAJOR ? j : i;
        h->verify_flip_col = c->layout == GEMM_ROW_MAJOR ? i : j;
        want = battery_get(&R, verify_at(c->layout, c->ldc, i, j));
        bound = verify_bound(prec, c, &A, &B, &C0, i, j);
        frexp(want, &e); /* |want| in [2^(e-1), 2^e): flipping mantissa bit b moves it by 2^(e-1-mant+b) */
        while (bit < mant && ldexp(1.0, e - 1 - mant + bit) <= 2 * bound) bit++;
        battery_check(bit < mant, "%s: %s %s: a mantissa bit of C(%lld,%lld) = %g exceeds the bound %g", be->name,
                      gemm_precision_name(prec), battery_call_str(c, call, sizeof call), (long long)i, (long long)j,
                      want, bound);
        h->verify_flip_bit = bit + 1;
    }
    if (kind == 3) h->verify_drop_k = c->k / 8 > 1 ? c->k / 8 : 1;
    s = battery_invoke(be, prec, c, A.data, B.data, C.data);
    err = battery_compare(c, &C, &R);
    verify_hooks_clear();
    battery_call_str(c, call, sizeof call);
    if (kind == 0) {
        battery_check(s == GEMM_OK && err <= tol, "%s: %s %s verified, no fault: status %d (%s), error %g (tol %g)",
                      be->name, gemm_precision_name(prec), call, (int)s, gemm_last_error_detail(), err, tol);
    } else {
        char at_row[48], at_col[48];
        const char *d = gemm_last_error_detail();
        int named = 1;
        snprintf(at_row, sizeof at_row, "row %lld's", (long long)i);
        snprintf(at_col, sizeof at_col, "column %lld's", (long long)j);
        if (kind != 3) named = strstr(d, at_row) != NULL && strstr(d, at_col) != NULL;
        battery_check(s == GEMM_ERR_VERIFY && named && err > tol,
                      "%s: %s %s, %s (bit %d) at (%lld,%lld): status %d, C off by %g (tol %g), detail: %s",
                      be->name, gemm_precision_name(prec), call, kinds[kind],
                      kind == 1 ? (prec == GEMM_F32 ? 30 : 62) : bit, (long long)i, (long long)j, (int)s, err, tol, d);
    }
    battery_buf_free(&A);
    battery_buf_free(&B);
    battery_buf_free(&C0);
    battery_buf_free(&C);
    battery_buf_free(&R);
}

/* The faults `kinds` (bit 0 none, bit 1 the exponent flip, bit 2 the
   mantissa flip, bit 3 the dropped K slice: 0xF every one) on an m x n x k
   product, both precisions, layouts, NN and TT, beta 0 and 0.5 (alpha
   1.5); the faulty element somewhere inside. */
static void verify_faults(const battery_backend *be, int64_t m, int64_t n, int64_t k, int skip, unsigned kinds)
{
    int pi, li, ti, bi, kind;
    for (pi = 0; pi < 2; pi++)
        for (li = 0; li < 2; li++)
            for (ti = 0; ti < 2; ti++)
                for (bi = 0; bi < 2; bi++) {
                    gemm_precision prec = pi ? GEMM_F64 : GEMM_F32;
                    battery_call c;
                    if ((pi == 0 && !be->sgemm) || (pi == 1 && !be->dgemm)) continue;
                    c.layout = li ? GEMM_ROW_MAJOR : GEMM_COL_MAJOR;
                    c.ta = c.tb = ti ? GEMM_TRANS : GEMM_NO_TRANS;
                    c.m = m;
                    c.n = n;
                    c.k = k;
                    c.lda = (c.layout == GEMM_ROW_MAJOR) == (c.ta == GEMM_NO_TRANS) ? k + 1 : m + 1;
                    c.ldb = (c.layout == GEMM_ROW_MAJOR) == (c.tb == GEMM_NO_TRANS) ? n + 2 : k + 2;
                    c.ldc = c.layout == GEMM_ROW_MAJOR ? n + 3 : m + 3;
                    c.alpha = 1.5;
                    c.beta = bi ? 0.5 : 0.0;
                    for (kind = 0; kind < 4; kind++)
                        if (kinds & (1u << kind))
                            verify_one(be, prec, &c, kind, (m * (2 + kind)) / 7, (n * (5 - kind)) / 7, skip,
                                   battery_base_seed() + (uint64_t)(pi * 8 + li * 4 + ti * 2 + bi));
                }
}

#endif

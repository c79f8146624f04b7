/* The complex reference, gemm_ref_cgemm / gemm_ref_zgemm: plain loops over
   the canonical problem, each sum in long double (x86's 64-bit mantissa:
   beyond fp64 for zgemm, far beyond for cgemm), rounded once to C's type.
   The oracle of the complex tests. */
#pragma once

#include <stdint.h>   /* uintptr_t */
#include "complex.c"  /* gemm__prepare_complex */
#include "internal.h" /* gemm__problem */
#include "overlap.c"  /* gemm__check_overlap */

/* Element i of an interleaved complex array (float or double parts). */
static void gemm__ref_zload(gemm_precision precision, const void *x, int64_t i, long double *re, long double *im)
{
    if (precision == GEMM_F32) {
        *re = ((const float *)x)[2 * i];
        *im = ((const float *)x)[2 * i + 1];
    } else {
        *re = ((const double *)x)[2 * i];
        *im = ((const double *)x)[2 * i + 1];
    }
}

static void gemm__ref_complex(const gemm__problem *p, gemm_precision precision, const double alpha[2], const void *a,
                              const void *b, const double beta[2], void *c)
{
    int64_t i, j, q;
    long double sa = p->a_conj ? -1 : 1, sb = p->b_conj ? -1 : 1;
    int beta_zero = beta[0] == 0 && beta[1] == 0;
    for (j = 0; j < p->n; j++)
        for (i = 0; i < p->m; i++) {
            int64_t at = i + j * p->ldc;
            long double sr = 0, si = 0, ar, ai, br, bi, cr = 0, ci = 0, rr, ri;
            if (p->work == GEMM__WORK_FULL)
                for (q = 0; q < p->k; q++) {
                    gemm__ref_zload(precision, a, i * p->ars + q * p->acs, &ar, &ai);
                    gemm__ref_zload(precision, b, q * p->brs + j * p->bcs, &br, &bi);
                    ai *= sa;
                    bi *= sb;
                    sr += ar * br - ai * bi;
                    si += ar * bi + ai * br;
                }
            if (!beta_zero) gemm__ref_zload(precision, c, at, &cr, &ci);
            rr = alpha[0] * sr - alpha[1] * si;
            ri = alpha[0] * si + alpha[1] * sr;
            if (!beta_zero) {
                rr += beta[0] * cr - beta[1] * ci;
                ri += beta[0] * ci + beta[1] * cr;
            }
            if (precision == GEMM_F32) {
                ((float *)c)[2 * at] = (float)rr;
                ((float *)c)[2 * at + 1] = (float)ri;
            } else {
                ((double *)c)[2 * at] = (double)rr;
                ((double *)c)[2 * at + 1] = (double)ri;
            }
        }
}

static gemm_status gemm__ref_complex_entry(const char *func, gemm_precision precision, gemm_layout layout,
                                           gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n,
                                           int64_t k, const void *alpha, const void *A, int64_t lda, const void *B,
                                           int64_t ldb, const void *beta, void *C, int64_t ldc)
{
    gemm__problem p;
    gemm_status s;
    double az[2], bz[2];
    size_t es = 2 * gemm_precision_size(precision);
    gemm__clear_error();
    s = gemm__prepare_complex(func, precision, layout, transa, transb, m, n, k, alpha, A != NULL, lda, B != NULL, ldb,
                              beta, C != NULL, ldc, &p, az, bz);
    if (s == GEMM_OK) s = gemm__check_overlap(func, &p, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, es);
    if (s == GEMM_OK && p.work != GEMM__WORK_NONE)
        gemm__ref_complex(&p, precision, az, p.swapped ? B : A, p.swapped ? A : B, bz, C);
    return s;
}

GEMM_DEF gemm_status gemm_ref_cgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb, int64_t m,
                                    int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda,
                                    const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc)
{
    return gemm__ref_complex_entry("gemm_ref_cgemm", GEMM_F32, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb,
                                   beta, C, ldc);
}

GEMM_DEF gemm_status gemm_ref_zgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb, int64_t m,
                                    int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda,
                                    const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc)
{
    return gemm__ref_complex_entry("gemm_ref_zgemm", GEMM_F64, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb,
                                   beta, C, ldc);
}

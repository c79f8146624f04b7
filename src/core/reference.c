/* The reference, gemm_ref_sgemm / gemm_ref_dgemm: plain loops over the
   canonical problem, each sum in double, the oracle of the tests. */
#pragma once

#include <stdint.h>   /* uintptr_t */
#include "internal.h" /* gemm__prepare, gemm__problem */
#include "overlap.c"  /* gemm__check_overlap */

/* Element i of a float or double array, as a double. */
static double gemm__ref_load(gemm_precision precision, const void *x, int64_t i)
{
    return precision == GEMM_F32 ? (double)((const float *)x)[i] : ((const double *)x)[i];
}

/* The reference for both precisions: C = alpha*op(a)*op(b) + beta*C in the
   canonical form, each sum in double, rounded once to C's type. */
static void gemm__ref(const gemm__problem *p, gemm_precision precision, double alpha, const void *a,
                      const void *b, double beta, void *c)
{
    int64_t i, j, q;
    for (j = 0; j < p->n; j++)
        for (i = 0; i < p->m; i++) {
            int64_t at = i + j * p->ldc;
            double ab = 0, sum = 0, old = beta == 0 ? 0.0 : gemm__ref_load(precision, c, at);
            if (p->work == GEMM__WORK_FULL) {
                for (q = 0; q < p->k; q++)
                    sum += gemm__ref_load(precision, a, i * p->ars + q * p->acs) *
                           gemm__ref_load(precision, b, q * p->brs + j * p->bcs);
                ab = alpha * sum;
            }
            if (precision == GEMM_F32) ((float *)c)[at] = (float)(ab + beta * old);
            else ((double *)c)[at] = ab + beta * old;
        }
}

GEMM_DEF gemm_status gemm_ref_sgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                                    const float *B, int64_t ldb, float beta, float *C, int64_t ldc)
{
    gemm__problem p;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare("gemm_ref_sgemm", layout, transa, transb, m, n, k, alpha == 0, A != NULL, lda, B != NULL,
                      ldb, beta == 1, C != NULL, ldc, &p);
    if (s == GEMM_OK) s = gemm__check_overlap("gemm_ref_sgemm", &p, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, sizeof *C);
    if (s == GEMM_OK && p.work != GEMM__WORK_NONE)
        gemm__ref(&p, GEMM_F32, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C);
    return s;
}

GEMM_DEF gemm_status gemm_ref_dgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                                    const double *B, int64_t ldb, double beta, double *C, int64_t ldc)
{
    gemm__problem p;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare("gemm_ref_dgemm", layout, transa, transb, m, n, k, alpha == 0, A != NULL, lda, B != NULL,
                      ldb, beta == 1, C != NULL, ldc, &p);
    if (s == GEMM_OK) s = gemm__check_overlap("gemm_ref_dgemm", &p, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, sizeof *C);
    if (s == GEMM_OK && p.work != GEMM__WORK_NONE)
        gemm__ref(&p, GEMM_F64, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C);
    return s;
}

/* The complex calls' checks (gemm__prepare_complex): the scalars come by
   pointer, as cblas_cgemm / cblas_zgemm take them, and an element is two
   reals, so the real calls' checks (gemm__prepare) are made with what the
   scalars say, then the pointers to them and the twice-as-large byte spans
   are checked. */
#pragma once

#include "internal.h" /* gemm__problem, gemm__prepare, gemm__fail */
#include "problem.c"  /* GEMM__MAX_EXTENT */

/* Reads a complex scalar (two floats for GEMM_F32, two doubles for
   GEMM_F64) into z; zero when x is NULL. */
static void gemm__complex_load(gemm_precision precision, const void *x, double z[2])
{
    z[0] = z[1] = 0;
    if (!x) return;
    if (precision == GEMM_F32) {
        z[0] = ((const float *)x)[0];
        z[1] = ((const float *)x)[1];
    } else {
        z[0] = ((const double *)x)[0];
        z[1] = ((const double *)x)[1];
    }
}

GEMM_DEF gemm_status gemm__prepare_complex(const char *func, gemm_precision precision, gemm_layout layout,
                                           gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n,
                                           int64_t k, const void *alpha, int have_A, int64_t lda, int have_B,
                                           int64_t ldb, const void *beta, int have_C, int64_t ldc,
                                           gemm__problem *p, double alpha_z[2], double beta_z[2])
{
    gemm_status s;
    int alpha_zero, beta_one;
    gemm__complex_load(precision, alpha, alpha_z);
    gemm__complex_load(precision, beta, beta_z);
    alpha_zero = alpha && alpha_z[0] == 0 && alpha_z[1] == 0;
    beta_one = beta && beta_z[0] == 1 && beta_z[1] == 0;
    s = gemm__prepare(func, layout, transa, transb, m, n, k, alpha_zero, have_A, lda, have_B, ldb, beta_one,
                      have_C, ldc, p);
    /* alpha is argument 7 and beta 12: a NULL one is reported where it
       stands in the list, before any later argument's fault */
    if (!alpha && (s == GEMM_OK || p->bad_arg > 7)) {
        p->bad_arg = 7;
        p->work = GEMM__WORK_NONE;
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: alpha is NULL", func);
    }
    if (!beta && (s == GEMM_OK || p->bad_arg > 12)) {
        p->bad_arg = 12;
        p->work = GEMM__WORK_NONE;
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: beta is NULL", func);
    }
    if (s != GEMM_OK) return s;
    /* an element is 16 bytes at most, twice the real calls' 8: each span
       must stay below half their limit so every byte offset fits */
    if (p->a_extent > GEMM__MAX_EXTENT / 2 || p->b_extent > GEMM__MAX_EXTENT / 2 ||
        p->c_extent > GEMM__MAX_EXTENT / 2) {
        int which = p->c_extent > GEMM__MAX_EXTENT / 2 ? 2 : p->b_extent > GEMM__MAX_EXTENT / 2 ? 1 : 0;
        int caller_a = (which == 0) != p->swapped; /* the canonical a is the caller's B when swapped */
        p->bad_arg = which == 2 ? 14 : caller_a ? 9 : 11;
        p->work = GEMM__WORK_NONE;
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s spans more than 2^59 complex elements", func,
                          which == 2 ? "C" : caller_a ? "A" : "B");
    }
    return GEMM_OK;
}

/* The 3M (Gauss) method, opt-in: gemm_cpu_cgemm3m / gemm_cpu_zgemm3m.

   With alpha*op(a) = Ar + i*Ai (alpha and the conjugation folded in) and
   op(b) = Br + i*Bi split into planes of reals, and the sums As = Ar + Ai,
   Bs = Br + Bi, three real products

       T1 = Ar * Br,   T2 = Ai * Bi,   T3 = As * Bs

   give Re = T1 - T2 and Im = T3 - T1 - T2: 6mnk real flops, three
   quarters of the complex calls' 8mnk. The price is Im's error: it comes
   out of T3 - T1 - T2, each as large as (|Ar| + |Ai|)(|Br| + |Bi|), so
   its error scales with that rather than with |Ar||Bi| + |Ai||Br|, the
   size of the terms the complex calls sum. Where the imaginary parts are
   much smaller than the real ones, Im loses digits the complex calls
   keep; that is why it is opt-in, as cuBLAS's Cgemm3m and MKL's
   cgemm3m are. The three products are the real calls (gemm_cpu_sgemm /
   _dgemm, on the options' threads), so the bits never depend on the
   thread count. Memory: the six planes (3mk + 3kn reals) and the three
   products (3mn reals), one allocation had before C is touched; C is
   written once, at the end. */
#pragma once

#include <stdint.h>           /* uintptr_t */
#include <stdio.h>            /* snprintf */
#include "../core/complex.c"  /* gemm__prepare_complex */
#include "../core/config.h"   /* GEMM_MALLOC, GEMM_FREE */
#include "../core/overlap.c"  /* gemm__check_overlap */
#include "api.h"
#include "complex.c"          /* gemm__cpu_complex_scale */
#include "entry_points.c"     /* gemm_cpu_sgemm, gemm_cpu_dgemm */

/* The planes: Ar, Ai, As (m x k, leading dimension m) from alpha*op(a),
   Br, Bi, Bs (k x n, leading dimension k) from op(b); and C = beta*C +
   (T1 - T2) + i(T3 - T1 - T2) from the products (m x n, leading
   dimension m), beta = 0 reading nothing of C. */
#define GEMM__CPU_3M(T)                                                                                        \
    static void gemm__cpu_3m_split_##T(const gemm__problem *p, const T *a, const T *b, const double az[2],     \
                                       T *ar, T *ai, T *as, T *br, T *bi, T *bs)                              \
    {                                                                                                          \
        T sa = p->a_conj ? (T)-1 : (T)1, sb = p->b_conj ? (T)-1 : (T)1, alr = (T)az[0], ali = (T)az[1];        \
        int64_t i, l, j;                                                                                       \
        for (l = 0; l < p->k; l++)                                                                             \
            for (i = 0; i < p->m; i++) {                                                                       \
                const T *x = a + 2 * (i * p->ars + l * p->acs);                                                \
                T vr = x[0], vi = sa * x[1], re = alr * vr - ali * vi, im = alr * vi + ali * vr;               \
                ar[i + l * p->m] = re;                                                                         \
                ai[i + l * p->m] = im;                                                                         \
                as[i + l * p->m] = re + im;                                                                    \
            }                                                                                                  \
        for (j = 0; j < p->n; j++)                                                                             \
            for (l = 0; l < p->k; l++) {                                                                       \
                const T *x = b + 2 * (l * p->brs + j * p->bcs);                                                \
                T re = x[0], im = sb * x[1];                                                                   \
                br[l + j * p->k] = re;                                                                         \
                bi[l + j * p->k] = im;                                                                         \
                bs[l + j * p->k] = re + im;                                                                    \
            }                                                                                                  \
    }                                                                                                          \
    static void gemm__cpu_3m_join_##T(const gemm__problem *p, const T *t1, const T *t2, const T *t3,          \
                                      const double bz[2], T *C)                                                \
    {                                                                                                          \
        T btr = (T)bz[0], bti = (T)bz[1];                                                                      \
        int zero = bz[0] == 0 && bz[1] == 0;                                                                   \
        int64_t i, j;                                                                                          \
        for (j = 0; j < p->n; j++)                                                                             \
            for (i = 0; i < p->m; i++) {                                                                       \
                T *c = C + 2 * (i + j * p->ldc);                                                               \
                T x1 = t1[i + j * p->m], x2 = t2[i + j * p->m], re = x1 - x2, im = t3[i + j * p->m] - x1 - x2; \
                T cr = zero ? (T)0 : btr * c[0] - bti * c[1], ci = zero ? (T)0 : btr * c[1] + bti * c[0];      \
                c[0] = cr + re;                                                                                \
                c[1] = ci + im;                                                                                \
            }                                                                                                  \
    }
GEMM__CPU_3M(float)
GEMM__CPU_3M(double)

/* One of the three real products, m x n x k, column-major, into t. */
static gemm_status gemm__cpu_3m_product(gemm_precision precision, const gemm__problem *p, const void *x,
                                        const void *y, void *t, const gemm_cpu_options *o)
{
    if (precision == GEMM_F32)
        return gemm_cpu_sgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, p->m, p->n, p->k, 1.0f, (const float *)x,
                              p->m, (const float *)y, p->k, 0.0f, (float *)t, p->m, o);
    return gemm_cpu_dgemm(GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, p->m, p->n, p->k, 1.0, (const double *)x,
                          p->m, (const double *)y, p->k, 0.0, (double *)t, p->m, o);
}

/* The 3M call behind every public name (the CBLAS ones too): bad_arg (may
   be NULL) receives the position of the argument at fault after a refusal
   (cblas_cgemm's list), else 0. */
static gemm_status gemm__cpu_3m_entry(const char *func, gemm_precision precision, gemm_layout layout,
                                      gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                      const void *alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                                      const void *beta, void *C, int64_t ldc, const gemm_cpu_options *options,
                                      int *bad_arg)
{
    gemm__problem p;
    gemm_status s;
    gemm_cpu_options o = {0, 0};
    double az[2], bz[2];
    size_t es = gemm_precision_size(precision), mk, kn, mn, total;
    char *ws, *a3, *b3, *t3;
    int x;
    gemm__clear_error();
    s = gemm__prepare_complex(func, precision, layout, transa, transb, m, n, k, alpha, A != NULL, lda, B != NULL,
                              ldb, beta, C != NULL, ldc, &p, az, bz);
    if (s == GEMM_OK) s = gemm__check_overlap(func, &p, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, 2 * es);
    if (bad_arg) *bad_arg = s == GEMM_OK ? 0 : p.bad_arg;
    if (s != GEMM_OK) return s;
    if (options && options->threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options->threads = %d is negative", func, options->threads);
    if (options && options->verify) /* the checksums are the real products' (gemm_cpu.h, "Verified products") */
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options->verify is not offered for complex products", func);
    if (p.work == GEMM__WORK_NONE) return GEMM_OK;
    if (p.work == GEMM__WORK_SCALE) {
        gemm__cpu_complex_scale(&p, precision, bz, C);
        return GEMM_OK;
    }
    if (options) o.threads = options->threads;
    /* the planes and products (each under 2^59 reals: gemm__prepare_complex
       bounds the spans, and so every product of two sizes here) */
    mk = (size_t)(p.m * p.k);
    kn = (size_t)(p.k * p.n);
    mn = (size_t)(p.m * p.n);
    if ((double)mk + (double)kn + (double)mn > (double)((size_t)-1 / 3 / es))
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: the 3M planes do not fit in size_t", func);
    total = (3 * mk + 3 * kn + 3 * mn) * es;
    if (!(ws = (char *)GEMM_MALLOC(total ? total : 1)))
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for the 3M planes and products, %zu bytes", func,
                          total);
    a3 = ws;                 /* Ar, Ai, As */
    b3 = a3 + 3 * mk * es;   /* Br, Bi, Bs */
    t3 = b3 + 3 * kn * es;   /* T1, T2, T3 */
    if (precision == GEMM_F32)
        gemm__cpu_3m_split_float(&p, (const float *)(p.swapped ? B : A), (const float *)(p.swapped ? A : B), az,
                                 (float *)a3, (float *)a3 + mk, (float *)a3 + 2 * mk, (float *)b3,
                                 (float *)b3 + kn, (float *)b3 + 2 * kn);
    else
        gemm__cpu_3m_split_double(&p, (const double *)(p.swapped ? B : A), (const double *)(p.swapped ? A : B), az,
                                  (double *)a3, (double *)a3 + mk, (double *)a3 + 2 * mk, (double *)b3,
                                  (double *)b3 + kn, (double *)b3 + 2 * kn);
    for (x = 0; x < 3 && s == GEMM_OK; x++) /* T1 = Ar*Br, T2 = Ai*Bi, T3 = As*Bs */
        s = gemm__cpu_3m_product(precision, &p, a3 + x * mk * es, b3 + x * kn * es, t3 + x * mn * es, &o);
    if (s == GEMM_OK) {
        if (precision == GEMM_F32)
            gemm__cpu_3m_join_float(&p, (float *)t3, (float *)t3 + mn, (float *)t3 + 2 * mn, bz, (float *)C);
        else
            gemm__cpu_3m_join_double(&p, (double *)t3, (double *)t3 + mn, (double *)t3 + 2 * mn, bz, (double *)C);
    } else { /* a real product's refusal (no memory for its workspace), under this call's name */
        char detail[1024];
        snprintf(detail, sizeof detail, "%s", gemm_last_error_detail());
        s = gemm__fail(s, "%s: a real product failed, C unchanged: %s", func, detail);
    }
    GEMM_FREE(ws);
    return s;
}

GEMM_DEF gemm_status gemm_cpu_cgemm3m(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                      int64_t m, int64_t n, int64_t k,
                                      const void *alpha, const void *A, int64_t lda,
                                      const void *B, int64_t ldb,
                                      const void *beta, void *C, int64_t ldc, const gemm_cpu_options *options)
{
    return gemm__cpu_3m_entry("gemm_cpu_cgemm3m", GEMM_F32, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb,
                              beta, C, ldc, options, NULL);
}

GEMM_DEF gemm_status gemm_cpu_zgemm3m(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                      int64_t m, int64_t n, int64_t k,
                                      const void *alpha, const void *A, int64_t lda,
                                      const void *B, int64_t ldb,
                                      const void *beta, void *C, int64_t ldc, const gemm_cpu_options *options)
{
    return gemm__cpu_3m_entry("gemm_cpu_zgemm3m", GEMM_F64, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb,
                              beta, C, ldc, options, NULL);
}

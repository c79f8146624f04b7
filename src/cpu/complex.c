/* Complex products on the real kernels: gemm_cpu_cgemm / gemm_cpu_zgemm
   and the front door gemm_cgemm / gemm_zgemm.

   In the column-major view (gemm__problem) an interleaved complex C, m x n
   with leading dimension ldc, is a real 2m x n matrix with leading
   dimension 2*ldc (rows 2i and 2i+1 hold Re and Im of row i), and so is an
   untransposed b (2k x n). Then

       C (2m x 2k . 2k x n) = X * b,   X[2i][2l]   = Re x, X[2i][2l+1]   = -Im x,
                                       X[2i+1][2l] = Im x, X[2i+1][2l+1] =  Re x,

   x = (alpha * op(a))[i][l]: column 2l of X is column l of alpha*op(a) as
   interleaved complex, column 2l+1 is i times it. The real product does
   8mnk real flops, the complex count, so nothing is lost; C and b are used
   where they are and only a is expanded (alpha and the conjugation folded
   in), a panel of k at a time so the copy stays a few MiB. A transposed or
   conjugated b is copied panel by panel into the untransposed form first.
   beta: a real one goes to the real product as it is (0 never reads C); a
   complex one scales C first and the product adds with beta = 1. */
#pragma once

#include <stdint.h>              /* uintptr_t */
#include "../core/complex.c"     /* gemm__prepare_complex */
#include "../core/config.h"      /* GEMM_MALLOC, GEMM_FREE */
#include "../core/overlap.c"     /* gemm__check_overlap */
#include "api.h"
#include "driver.c"              /* gemm__cpu_gemm */

/* Bytes of the expanded panel of a (and of b's copy) a call aims for. */
#define GEMM__CPU_COMPLEX_PANEL_BYTES ((int64_t)16 << 20)

/* C = beta*C over the m x n complex C (column-major view); beta == 0
   writes zeros without reading C. */
static void gemm__cpu_complex_scale(const gemm__problem *p, gemm_precision precision, const double beta[2], void *C)
{
    int64_t i, j;
    int zero = beta[0] == 0 && beta[1] == 0;
    for (j = 0; j < p->n; j++) {
        if (precision == GEMM_F32) {
            float *c = (float *)C + 2 * j * p->ldc, br = (float)beta[0], bi = (float)beta[1];
            for (i = 0; i < p->m; i++) {
                float re = zero ? 0.0f : br * c[2 * i] - bi * c[2 * i + 1];
                float im = zero ? 0.0f : br * c[2 * i + 1] + bi * c[2 * i];
                c[2 * i] = re;
                c[2 * i + 1] = im;
            }
        } else {
            double *c = (double *)C + 2 * j * p->ldc, br = beta[0], bi = beta[1];
            for (i = 0; i < p->m; i++) {
                double re = zero ? 0.0 : br * c[2 * i] - bi * c[2 * i + 1];
                double im = zero ? 0.0 : br * c[2 * i + 1] + bi * c[2 * i];
                c[2 * i] = re;
                c[2 * i + 1] = im;
            }
        }
    }
}

/* The expansion X of rows [i0, i0+mb) and columns [l0, l0+kb) of
   alpha*op(a) (see the top of this file), column-major with leading
   dimension 2*mb. One body per type: the arithmetic is the element's. */
#define GEMM__CPU_EXPAND_A(T)                                                                                  \
    static void gemm__cpu_expand_a_##T(const gemm__problem *p, const T *a, const double alpha[2], int64_t i0,  \
                                       int64_t mb, int64_t l0, int64_t kb, T *x)                               \
    {                                                                                                          \
        T ar = (T)alpha[0], ai = (T)alpha[1], s = p->a_conj ? (T)-1 : (T)1;                                    \
        int64_t i, l, ld = 2 * mb;                                                                             \
        for (l = 0; l < kb; l++) {                                                                             \
            const T *src = a + 2 * ((i0)*p->ars + (l0 + l) * p->acs);                                          \
            T *x0 = x + 2 * l * ld, *x1 = x0 + ld;                                                             \
            int64_t step = 2 * p->ars;                                                                         \
            for (i = 0; i < mb; i++) {                                                                         \
                T vr = src[i * step], vi = s * src[i * step + 1];                                              \
                T re = ar * vr - ai * vi, im = ar * vi + ai * vr;                                              \
                x0[2 * i] = re;                                                                                \
                x0[2 * i + 1] = im;                                                                            \
                x1[2 * i] = -im;                                                                               \
                x1[2 * i + 1] = re;                                                                            \
            }                                                                                                  \
        }                                                                                                      \
    }
GEMM__CPU_EXPAND_A(float)
GEMM__CPU_EXPAND_A(double)

/* Rows [l0, l0+kb) of op(b) (transposed, maybe conjugated) copied as an
   untransposed interleaved kb x n matrix, leading dimension kb. */
#define GEMM__CPU_COPY_B(T)                                                                                    \
    static void gemm__cpu_copy_b_##T(const gemm__problem *p, const T *b, int64_t l0, int64_t kb, T *y)         \
    {                                                                                                          \
        T s = p->b_conj ? (T)-1 : (T)1;                                                                        \
        int64_t l, j;                                                                                          \
        for (l = 0; l < kb; l++) {                                                                             \
            const T *src = b + 2 * (l0 + l) * p->brs;                                                          \
            for (j = 0; j < p->n; j++) {                                                                       \
                y[2 * (l + j * kb)] = src[2 * j * p->bcs];                                                     \
                y[2 * (l + j * kb) + 1] = s * src[2 * j * p->bcs + 1];                                         \
            }                                                                                                  \
        }                                                                                                      \
    }
GEMM__CPU_COPY_B(float)
GEMM__CPU_COPY_B(double)

/* The real problem of one panel: X (2mb x 2kb) times the panel of b (2kb
   x n, leading dimension ldb_real) into rows [2*i0, 2*(i0+mb)) of C. */
static void gemm__cpu_complex_panel(const gemm__problem *p, int64_t mb, int64_t kb, int64_t ldb_real,
                                    gemm__problem *r)
{
    memset(r, 0, sizeof *r);
    r->work = GEMM__WORK_FULL;
    r->m = 2 * mb;
    r->n = p->n;
    r->k = 2 * kb;
    r->lda = 2 * mb;
    r->ldb = ldb_real;
    r->ldc = 2 * p->ldc;
    r->ars = 1;
    r->acs = r->lda;
    r->brs = 1;
    r->bcs = r->ldb;
    r->a_extent = (r->k - 1) * r->lda + r->m;
    r->b_extent = (r->n - 1) * r->ldb + r->k;
    r->c_extent = (r->n - 1) * r->ldc + r->m;
}

/* The complex call behind every public name (the CBLAS ones too): checks,
   then the panels. bad_arg (may be NULL) receives the position of the
   argument at fault after a refusal (cblas_cgemm's list), else 0. */
static gemm_status gemm__cpu_complex_entry(const char *func, gemm_precision precision, gemm_layout layout,
                                           gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n,
                                           int64_t k, const void *alpha, const void *A, int64_t lda, const void *B,
                                           int64_t ldb, const void *beta, void *C, int64_t ldc,
                                           const gemm_cpu_options *options, int *bad_arg)
{
    gemm__problem p, r;
    gemm_status s = GEMM_OK;
    double az[2], bz[2], rbeta;
    int64_t es = precision == GEMM_F32 ? (int64_t)sizeof(float) : (int64_t)sizeof(double);
    int64_t mb, kb, i0, l0, xbytes, ybytes;
    const char *a, *b;
    char *ws, *x, *y;
    int copy_b;
    int64_t budget = GEMM__HOOK(cpu_complex_panel, GEMM__CPU_COMPLEX_PANEL_BYTES);

    gemm__clear_error();
    s = gemm__prepare_complex(func, precision, layout, transa, transb, m, n, k, alpha, A != NULL, lda, B != NULL,
                              ldb, beta, C != NULL, ldc, &p, az, bz);
    if (s == GEMM_OK) s = gemm__check_overlap(func, &p, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, (size_t)(2 * es));
    if (bad_arg) *bad_arg = s == GEMM_OK ? 0 : p.bad_arg;
    if (s != GEMM_OK) return s;
    if (options && options->threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options->threads = %d is negative", func, options->threads);
    if (p.work == GEMM__WORK_NONE) return GEMM_OK;
    if (p.work == GEMM__WORK_SCALE) {
        gemm__cpu_complex_scale(&p, precision, bz, C);
        return GEMM_OK;
    }
    a = (const char *)(p.swapped ? B : A);
    b = (const char *)(p.swapped ? A : B);
    copy_b = p.b_trans; /* (b_conj implies b_trans) */

    /* panels: all of m when 64 columns of k fit the budget, else fewer rows */
    mb = p.m;
    if (4 * mb * 64 * es > budget) mb = gemm__cpu_max(1, budget / (4 * 64 * es));
    kb = gemm__cpu_max(1, budget / (4 * mb * es));
    if (copy_b) kb = gemm__cpu_min(kb, gemm__cpu_max(1, budget / (2 * p.n * es)));
    kb = gemm__cpu_min(kb, p.k);
    xbytes = 4 * mb * kb * es;
    ybytes = copy_b ? 2 * kb * p.n * es : 0;
    /* the workspace is had before C is touched */
    if (!(ws = (char *)GEMM_MALLOC((size_t)(xbytes + ybytes + 64))))
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for the complex panels, %lld bytes", func,
                          (long long)(xbytes + ybytes + 64));
    x = ws + (64 - (uintptr_t)ws % 64);
    y = x + xbytes;

    rbeta = bz[0];
    if (bz[1] != 0) { /* complex beta: C *= beta once, then the products add */
        gemm__cpu_complex_scale(&p, precision, bz, C);
        rbeta = 1;
    }
    for (l0 = 0; l0 < p.k && s == GEMM_OK; l0 += kb) {
        int64_t kk = gemm__cpu_min(kb, p.k - l0);
        const char *bp = b + 2 * l0 * es;
        int64_t ldb_real = 2 * p.ldb;
        if (copy_b) {
            if (precision == GEMM_F32) gemm__cpu_copy_b_float(&p, (const float *)b, l0, kk, (float *)y);
            else gemm__cpu_copy_b_double(&p, (const double *)b, l0, kk, (double *)y);
            bp = y;
            ldb_real = 2 * kk;
        }
        for (i0 = 0; i0 < p.m && s == GEMM_OK; i0 += mb) {
            int64_t mm = gemm__cpu_min(mb, p.m - i0);
            if (precision == GEMM_F32) gemm__cpu_expand_a_float(&p, (const float *)a, az, i0, mm, l0, kk, (float *)x);
            else gemm__cpu_expand_a_double(&p, (const double *)a, az, i0, mm, l0, kk, (double *)x);
            gemm__cpu_complex_panel(&p, mm, kk, ldb_real, &r);
            s = gemm__cpu_gemm(func, &r, precision, 1.0, x, bp, l0 == 0 ? rbeta : 1.0, (char *)C + 2 * i0 * es,
                               options);
        }
    }
    GEMM_FREE(ws);
    return s;
}

GEMM_DEF gemm_status gemm_cpu_cgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    const void *alpha, const void *A, int64_t lda,
                                    const void *B, int64_t ldb,
                                    const void *beta, void *C, int64_t ldc, const gemm_cpu_options *options)
{
    return gemm__cpu_complex_entry("gemm_cpu_cgemm", GEMM_F32, layout, transa, transb, m, n, k, alpha, A, lda, B,
                                   ldb, beta, C, ldc, options, NULL);
}

GEMM_DEF gemm_status gemm_cpu_zgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    const void *alpha, const void *A, int64_t lda,
                                    const void *B, int64_t ldb,
                                    const void *beta, void *C, int64_t ldc, const gemm_cpu_options *options)
{
    return gemm__cpu_complex_entry("gemm_cpu_zgemm", GEMM_F64, layout, transa, transb, m, n, k, alpha, A, lda, B,
                                   ldb, beta, C, ldc, options, NULL);
}

/* The front door, declared in gemm.h: the CPU with default options. */
GEMM_DEF gemm_status gemm_cgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                int64_t m, int64_t n, int64_t k,
                                const void *alpha, const void *A, int64_t lda,
                                const void *B, int64_t ldb,
                                const void *beta, void *C, int64_t ldc)
{
    return gemm__cpu_complex_entry("gemm_cgemm", GEMM_F32, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb,
                                   beta, C, ldc, NULL, NULL);
}

GEMM_DEF gemm_status gemm_zgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                int64_t m, int64_t n, int64_t k,
                                const void *alpha, const void *A, int64_t lda,
                                const void *B, int64_t ldb,
                                const void *beta, void *C, int64_t ldc)
{
    return gemm__cpu_complex_entry("gemm_zgemm", GEMM_F64, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb,
                                   beta, C, ldc, NULL, NULL);
}

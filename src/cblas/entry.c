/* The CBLAS calls: gemm's checks (a refusal reaches cblas_xerbla with the
   number netlib hands it, xerbla.c), then the CPU backend with default
   options. */
#pragma once

#include <stdint.h>            /* uintptr_t */
#include "../core/internal.h" /* gemm__prepare, gemm__prepare_strided */
#include "../core/overlap.c"  /* gemm__check_overlap, gemm__check_batch_overlap */
#include "../cpu/batch.c"     /* gemm__cpu_batch_gemm */
#include "../cpu/complex.c"   /* gemm__cpu_complex_entry */
#include "../cpu/complex_3m.c" /* gemm__cpu_3m_entry */
#include "../cpu/driver.c"    /* gemm__cpu_gemm */
#include "api.h"
#include "xerbla.c"           /* gemm__cblas_fail, gemm__cblas_trans */

static void gemm__cblas_gemm(const char *rout, gemm_precision prec, CBLAS_LAYOUT layout, CBLAS_TRANSPOSE ta,
                             CBLAS_TRANSPOSE tb, CBLAS_INT m, CBLAS_INT n, CBLAS_INT k, double alpha, const void *A,
                             CBLAS_INT lda, const void *B, CBLAS_INT ldb, double beta, void *C, CBLAS_INT ldc)
{
    gemm__problem p;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare(rout, (gemm_layout)layout, gemm__cblas_trans(ta), gemm__cblas_trans(tb), m, n, k, alpha == 0,
                      A != NULL, lda, B != NULL, ldb, beta == 1, C != NULL, ldc, &p);
    if (s == GEMM_OK) s = gemm__check_overlap(rout, &p, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, gemm_precision_size(prec));
    if (s == GEMM_OK) s = gemm__cpu_gemm(rout, &p, prec, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C, NULL);
    if (s == GEMM_OK) return;
    /* netlib's number: row-major M, N, lda, ldb as its Fortran call has them */
    gemm__cblas_row_major = layout == CblasRowMajor;
    gemm__cblas_fail(rout, s, gemm__cblas_row_major ? (int)gemm__cblas_netlib_swap(p.bad_arg) : p.bad_arg);
    gemm__cblas_row_major = 0;
}

GEMM_DEF void cblas_sgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB, const CBLAS_INT M,
                          const CBLAS_INT N, const CBLAS_INT K, const float alpha, const float *A, const CBLAS_INT lda,
                          const float *B, const CBLAS_INT ldb, const float beta, float *C, const CBLAS_INT ldc)
{
    gemm__cblas_gemm("cblas_sgemm", GEMM_F32, layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

GEMM_DEF void cblas_dgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB, const CBLAS_INT M,
                          const CBLAS_INT N, const CBLAS_INT K, const double alpha, const double *A,
                          const CBLAS_INT lda, const double *B, const CBLAS_INT ldb, const double beta, double *C,
                          const CBLAS_INT ldc)
{
    gemm__cblas_gemm("cblas_dgemm", GEMM_F64, layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

/* The complex calls: CblasConjTrans is the conjugate transpose here;
   OpenBLAS's CblasConjNoTrans (conj(X) untransposed) is not offered and is
   refused as a bad TransA / TransB. */
static gemm_transpose gemm__cblas_complex_trans(CBLAS_TRANSPOSE t)
{
    return t == CblasConjTrans ? GEMM_CONJ_TRANS : (gemm_transpose)t;
}

/* m3: the 3M method (cblas_cgemm3m / zgemm3m, MKL's and OpenBLAS's names). */
static void gemm__cblas_complex(const char *rout, gemm_precision prec, CBLAS_LAYOUT layout, CBLAS_TRANSPOSE ta,
                                CBLAS_TRANSPOSE tb, CBLAS_INT m, CBLAS_INT n, CBLAS_INT k, const void *alpha,
                                const void *A, CBLAS_INT lda, const void *B, CBLAS_INT ldb, const void *beta, void *C,
                                CBLAS_INT ldc, int m3)
{
    int bad = 0;
    gemm_status s = (m3 ? gemm__cpu_3m_entry : gemm__cpu_complex_entry)(
        rout, prec, (gemm_layout)layout, gemm__cblas_complex_trans(ta), gemm__cblas_complex_trans(tb), m, n, k, alpha,
        A, lda, B, ldb, beta, C, ldc, NULL, &bad);
    if (s == GEMM_OK) return;
    gemm__cblas_row_major = layout == CblasRowMajor;
    gemm__cblas_fail(rout, s, gemm__cblas_row_major ? (int)gemm__cblas_netlib_swap(bad) : bad);
    gemm__cblas_row_major = 0;
}

GEMM_DEF void cblas_cgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB, const CBLAS_INT M,
                          const CBLAS_INT N, const CBLAS_INT K, const void *alpha, const void *A, const CBLAS_INT lda,
                          const void *B, const CBLAS_INT ldb, const void *beta, void *C, const CBLAS_INT ldc)
{
    gemm__cblas_complex("cblas_cgemm", GEMM_F32, layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                        0);
}

GEMM_DEF void cblas_zgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB, const CBLAS_INT M,
                          const CBLAS_INT N, const CBLAS_INT K, const void *alpha, const void *A, const CBLAS_INT lda,
                          const void *B, const CBLAS_INT ldb, const void *beta, void *C, const CBLAS_INT ldc)
{
    gemm__cblas_complex("cblas_zgemm", GEMM_F64, layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                        0);
}

GEMM_DEF void cblas_cgemm3m(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB, const CBLAS_INT M,
                            const CBLAS_INT N, const CBLAS_INT K, const void *alpha, const void *A, const CBLAS_INT lda,
                            const void *B, const CBLAS_INT ldb, const void *beta, void *C, const CBLAS_INT ldc)
{
    gemm__cblas_complex("cblas_cgemm3m", GEMM_F32, layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C,
                        ldc, 1);
}

GEMM_DEF void cblas_zgemm3m(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB, const CBLAS_INT M,
                            const CBLAS_INT N, const CBLAS_INT K, const void *alpha, const void *A, const CBLAS_INT lda,
                            const void *B, const CBLAS_INT ldb, const void *beta, void *C, const CBLAS_INT ldc)
{
    gemm__cblas_complex("cblas_zgemm3m", GEMM_F64, layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C,
                        ldc, 1);
}

/* Strided: gemm's strided batch, whose argument positions are MKL's
   (stridea = 10, strideb = 13, stridec = 17, batch_size = 18). */
static void gemm__cblas_strided(const char *rout, gemm_precision prec, CBLAS_LAYOUT layout, CBLAS_TRANSPOSE ta,
                                CBLAS_TRANSPOSE tb, CBLAS_INT m, CBLAS_INT n, CBLAS_INT k, double alpha, const void *A,
                                CBLAS_INT lda, CBLAS_INT sa, const void *B, CBLAS_INT ldb, CBLAS_INT sb, double beta,
                                void *C, CBLAS_INT ldc, CBLAS_INT sc, CBLAS_INT count)
{
    gemm__problem p;
    gemm__batch bt;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare_strided(rout, (gemm_layout)layout, gemm__cblas_trans(ta), gemm__cblas_trans(tb), m, n, k,
                              alpha == 0, A != NULL, lda, sa, B != NULL, ldb, sb, beta == 1, C != NULL, ldc, sc, count,
                              &p, &bt);
    if (s == GEMM_OK)
        s = gemm__check_batch_overlap(rout, &p, &bt, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, gemm_precision_size(prec));
    if (s == GEMM_OK)
        s = gemm__cpu_batch_gemm(rout, &p, &bt, prec, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C, NULL);
    if (s != GEMM_OK) gemm__cblas_fail(rout, s, p.bad_arg);
}

GEMM_DEF void cblas_sgemm_batch_strided(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE transa,
                                        const CBLAS_TRANSPOSE transb, const CBLAS_INT m, const CBLAS_INT n,
                                        const CBLAS_INT k, const float alpha, const float *a, const CBLAS_INT lda,
                                        const CBLAS_INT stridea, const float *b, const CBLAS_INT ldb,
                                        const CBLAS_INT strideb, const float beta, float *c, const CBLAS_INT ldc,
                                        const CBLAS_INT stridec, const CBLAS_INT batch_size)
{
    gemm__cblas_strided("cblas_sgemm_batch_strided", GEMM_F32, layout, transa, transb, m, n, k, alpha, a, lda, stridea,
                        b, ldb, strideb, beta, c, ldc, stridec, batch_size);
}

GEMM_DEF void cblas_dgemm_batch_strided(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE transa,
                                        const CBLAS_TRANSPOSE transb, const CBLAS_INT m, const CBLAS_INT n,
                                        const CBLAS_INT k, const double alpha, const double *a, const CBLAS_INT lda,
                                        const CBLAS_INT stridea, const double *b, const CBLAS_INT ldb,
                                        const CBLAS_INT strideb, const double beta, double *c, const CBLAS_INT ldc,
                                        const CBLAS_INT stridec, const CBLAS_INT batch_size)
{
    gemm__cblas_strided("cblas_dgemm_batch_strided", GEMM_F64, layout, transa, transb, m, n, k, alpha, a, lda, stridea,
                        b, ldb, strideb, beta, c, ldc, stridec, batch_size);
}

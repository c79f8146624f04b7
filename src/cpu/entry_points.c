/* The public calls: thin typed wrappers over one function that makes
   gemm__prepare's checks and canonical problem (its inlined common case
   first, gemm__prepare_plain) and calls the driver; func is the name the
   user called, for the error detail. A tiny product never reaches it: each
   public function first tries its typed plain loops, and a small one the
   direct kernels without the driver's layers (small_call.c). */
#pragma once

#include <stdint.h>           /* uintptr_t */
#include "../core/overlap.c" /* gemm__overlap_apart, gemm__check_overlap */
#include "../core/problem.c" /* gemm__prepare_plain, gemm__prepare */
#include "api.h"
#include "driver.c"          /* gemm__cpu_gemm */
#include "verify.c"          /* gemm__cpu_verified */
#include "small_call.c"      /* gemm__cpu_tiny_call_f32, gemm__cpu_tiny_call_f64, gemm__cpu_small_call */

static gemm_status gemm__cpu_entry(const char *func, gemm_precision precision, gemm_layout layout,
                                   gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                   double alpha, const void *A, int64_t lda, const void *B, int64_t ldb, double beta,
                                   void *C, int64_t ldc, const gemm_cpu_options *options)
{
    gemm__problem p;
    gemm_status s;
    size_t es = precision == GEMM_F32 ? sizeof(float) : sizeof(double);
    gemm__clear_error();
    if (!gemm__prepare_plain(layout, transa, transb, m, n, k, alpha == 0, A != NULL, lda, B != NULL, ldb, C != NULL,
                             ldc, &p)) { /* the rest: gemm__prepare's full checks (same problem when valid) */
        s = gemm__prepare(func, layout, transa, transb, m, n, k, alpha == 0, A != NULL, lda, B != NULL, ldb,
                          beta == 1, C != NULL, ldc, &p);
        if (s != GEMM_OK) return s;
    }
    if (!gemm__overlap_apart(&p, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, es) &&
        (s = gemm__check_overlap(func, &p, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, es)) != GEMM_OK)
        return s;
    if (options && options->verify)
        return gemm__cpu_verified(func, &p, precision, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C, options,
                                  NULL, 0, NULL, -1);
    return gemm__cpu_gemm(func, &p, precision, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C, options);
}

GEMM_DEF gemm_status gemm_cpu_sgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    float alpha, const float *A, int64_t lda,
                                    const float *B, int64_t ldb,
                                    float beta, float *C, int64_t ldc, const gemm_cpu_options *options)
{
    if (gemm__cpu_tiny_call_f32(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, options))
        return GEMM_OK;
    if (GEMM__CPU_IS_SMALL(m, n, k) && gemm__cpu_small_call(GEMM_F32, layout, transa, transb, m, n, k, alpha, A, lda, B,
                                                        ldb, beta, C, ldc, options))
        return GEMM_OK;
    return gemm__cpu_entry("gemm_cpu_sgemm", GEMM_F32, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta,
                           C, ldc, options);
}

GEMM_DEF gemm_status gemm_cpu_dgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    double alpha, const double *A, int64_t lda,
                                    const double *B, int64_t ldb,
                                    double beta, double *C, int64_t ldc, const gemm_cpu_options *options)
{
    if (gemm__cpu_tiny_call_f64(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, options))
        return GEMM_OK;
    if (GEMM__CPU_IS_SMALL(m, n, k) && gemm__cpu_small_call(GEMM_F64, layout, transa, transb, m, n, k, alpha, A, lda, B,
                                                        ldb, beta, C, ldc, options))
        return GEMM_OK;
    return gemm__cpu_entry("gemm_cpu_dgemm", GEMM_F64, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta,
                           C, ldc, options);
}

/* The front door, declared in gemm.h: the CPU with default options. */
GEMM_DEF gemm_status gemm_sgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                int64_t m, int64_t n, int64_t k,
                                float alpha, const float *A, int64_t lda,
                                const float *B, int64_t ldb,
                                float beta, float *C, int64_t ldc)
{
    if (gemm__cpu_tiny_call_f32(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, NULL))
        return GEMM_OK;
    if (GEMM__CPU_IS_SMALL(m, n, k) && gemm__cpu_small_call(GEMM_F32, layout, transa, transb, m, n, k, alpha, A, lda, B,
                                                        ldb, beta, C, ldc, NULL))
        return GEMM_OK;
    return gemm__cpu_entry("gemm_sgemm", GEMM_F32, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
                           ldc, NULL);
}

GEMM_DEF gemm_status gemm_dgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                int64_t m, int64_t n, int64_t k,
                                double alpha, const double *A, int64_t lda,
                                const double *B, int64_t ldb,
                                double beta, double *C, int64_t ldc)
{
    if (gemm__cpu_tiny_call_f64(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, NULL))
        return GEMM_OK;
    if (GEMM__CPU_IS_SMALL(m, n, k) && gemm__cpu_small_call(GEMM_F64, layout, transa, transb, m, n, k, alpha, A, lda, B,
                                                        ldb, beta, C, ldc, NULL))
        return GEMM_OK;
    return gemm__cpu_entry("gemm_dgemm", GEMM_F64, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
                           ldc, NULL);
}

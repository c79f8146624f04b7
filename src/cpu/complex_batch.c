/* The complex strided batches: gemm_cpu_cgemm_strided_batched /
   gemm_cpu_zgemm_strided_batched and the front door's. Every member is
   checked first, as the real batches check theirs (core/batch.c), then the
   members run one after another, each as the single complex call (its
   panels, on the call's threads), so each member's bits are the single
   call's. */
#pragma once

#include <stdint.h>          /* uintptr_t */
#include "../core/batch.c"   /* gemm__prepare_strided */
#include "../core/complex.c" /* gemm__complex_load */
#include "../core/overlap.c" /* gemm__check_batch_overlap */
#include "batch_api.h"
#include "complex.c"         /* gemm__cpu_complex_run */

/* count members `stride` complex elements apart, each `extent` long, stay
   below half the real calls' limit: an element is twice their bytes. */
static int gemm__cpu_complex_strided_fits(int64_t count, int64_t stride, int64_t extent)
{
    return count <= 1 || extent == 0 || stride == 0 ||
           (extent <= GEMM__MAX_EXTENT / 2 && (count - 1) <= (GEMM__MAX_EXTENT / 2 - extent) / stride);
}

static gemm_status gemm__cpu_complex_strided(const char *func, gemm_precision precision, gemm_layout layout,
                                             gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n,
                                             int64_t k, const void *alpha, const void *A, int64_t lda,
                                             int64_t stride_a, const void *B, int64_t ldb, int64_t stride_b,
                                             const void *beta, void *C, int64_t ldc, int64_t stride_c,
                                             int64_t batch_count, const gemm_cpu_options *options)
{
    gemm__problem p;
    gemm__batch bt;
    gemm_status s;
    double az[2], bz[2];
    int64_t es = 2 * (int64_t)gemm_precision_size(precision), i, ea, eb;
    gemm__clear_error();
    gemm__complex_load(precision, alpha, az);
    gemm__complex_load(precision, beta, bz);
    s = gemm__prepare_strided(func, layout, transa, transb, m, n, k, alpha && az[0] == 0 && az[1] == 0, A != NULL,
                              lda, stride_a, B != NULL, ldb, stride_b, beta && bz[0] == 1 && bz[1] == 0, C != NULL,
                              ldc, stride_c, batch_count, &p, &bt);
    /* alpha is argument 7 and beta 14 of the strided list */
    if (!alpha && (s == GEMM_OK || p.bad_arg > 7)) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: alpha is NULL", func);
    if (!beta && (s == GEMM_OK || p.bad_arg > 14)) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: beta is NULL", func);
    if (s != GEMM_OK) return s;
    ea = p.swapped ? p.b_extent : p.a_extent; /* the caller's A and B */
    eb = p.swapped ? p.a_extent : p.b_extent;
    if (!gemm__cpu_complex_strided_fits(batch_count, stride_a, ea) ||
        !gemm__cpu_complex_strided_fits(batch_count, stride_b, eb) ||
        !gemm__cpu_complex_strided_fits(batch_count, stride_c, p.c_extent))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %lld members span more than 2^59 complex elements", func,
                          (long long)batch_count);
    s = gemm__check_batch_overlap(func, &p, &bt, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, (size_t)es);
    if (s != GEMM_OK) return s;
    if (options && options->threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options->threads = %d is negative", func, options->threads);
    if (options && options->verify) /* the checksums are the real products' (gemm_cpu.h, "Verified products") */
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options->verify is not offered for complex products", func);
    for (i = 0; i < batch_count && s == GEMM_OK; i++) {
        const char *a = (const char *)(p.swapped ? B : A), *b = (const char *)(p.swapped ? A : B);
        s = gemm__cpu_complex_run(func, precision, &p, az, bz, a ? a + i * bt.stride_a * es : NULL,
                                  b ? b + i * bt.stride_b * es : NULL, (char *)C + i * stride_c * es, options);
        if (s != GEMM_OK) {
            char detail[1024];
            snprintf(detail, sizeof detail, "%s", gemm_last_error_detail());
            s = gemm__fail(s, "member %lld (members 0..%lld are written, it and those after it are not): %s",
                           (long long)i, (long long)i - 1, detail);
        }
    }
    return s;
}

GEMM_DEF gemm_status gemm_cpu_cgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                    int64_t m, int64_t n, int64_t k,
                                                    const void *alpha, const void *A, int64_t lda, int64_t stride_a,
                                                    const void *B, int64_t ldb, int64_t stride_b,
                                                    const void *beta, void *C, int64_t ldc, int64_t stride_c,
                                                    int64_t batch_count, const gemm_cpu_options *options)
{
    return gemm__cpu_complex_strided("gemm_cpu_cgemm_strided_batched", GEMM_F32, layout, transa, transb, m, n, k,
                                     alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc, stride_c, batch_count,
                                     options);
}

GEMM_DEF gemm_status gemm_cpu_zgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                    int64_t m, int64_t n, int64_t k,
                                                    const void *alpha, const void *A, int64_t lda, int64_t stride_a,
                                                    const void *B, int64_t ldb, int64_t stride_b,
                                                    const void *beta, void *C, int64_t ldc, int64_t stride_c,
                                                    int64_t batch_count, const gemm_cpu_options *options)
{
    return gemm__cpu_complex_strided("gemm_cpu_zgemm_strided_batched", GEMM_F64, layout, transa, transb, m, n, k,
                                     alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc, stride_c, batch_count,
                                     options);
}

/* The front door's, declared in gemm.h: the CPU with default options. */
GEMM_DEF gemm_status gemm_cgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                int64_t m, int64_t n, int64_t k,
                                                const void *alpha, const void *A, int64_t lda, int64_t stride_a,
                                                const void *B, int64_t ldb, int64_t stride_b,
                                                const void *beta, void *C, int64_t ldc, int64_t stride_c,
                                                int64_t batch_count)
{
    return gemm__cpu_complex_strided("gemm_cgemm_strided_batched", GEMM_F32, layout, transa, transb, m, n, k, alpha,
                                     A, lda, stride_a, B, ldb, stride_b, beta, C, ldc, stride_c, batch_count, NULL);
}

GEMM_DEF gemm_status gemm_zgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                int64_t m, int64_t n, int64_t k,
                                                const void *alpha, const void *A, int64_t lda, int64_t stride_a,
                                                const void *B, int64_t ldb, int64_t stride_b,
                                                const void *beta, void *C, int64_t ldc, int64_t stride_c,
                                                int64_t batch_count)
{
    return gemm__cpu_complex_strided("gemm_zgemm_strided_batched", GEMM_F64, layout, transa, transb, m, n, k, alpha,
                                     A, lda, stride_a, B, ldb, stride_b, beta, C, ldc, stride_c, batch_count, NULL);
}

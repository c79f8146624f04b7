/* Complex products on host pointers: gemm_cl_cgemm_host / gemm_cl_zgemm_host.

   They run on the real kernels through the real host path: in the
   column-major view an interleaved complex C (m x n) is a real 2m x n
   matrix, an untransposed b a real 2k x n one, and C = X * b with X the
   2m x 2k real expansion of alpha*op(a), made on the host (cpu/complex.c
   tells how; a transposed b is copied untransposed there too). The device
   then runs one real product of 2m x n x 2k, 8mnk flops, the complex
   count. A complex beta scales a host copy of C, which the product adds to
   (beta = 1) and which goes back into C only when the call succeeded. */
#pragma once

#include <string.h>

#include "../core/complex.c" /* gemm__prepare_complex */
#include "../core/overlap.c" /* gemm__check_overlap */
#include "../cpu/api.h"      /* gemm__complex_expand, _copy_b, _scale_c */
#include "entry.c"           /* gemm__cl_host_call, gemm__cl_device_checks */

static gemm_status gemm__cl_complex_host(gemm_cl_context *ctx, gemm_precision prec, const char *func,
                                         gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                                         int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda,
                                         const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
                                         const gemm_cl_options *options)
{
    int64_t es = (int64_t)gemm_precision_size(prec);
    double az[2], bz[2];
    gemm__problem p;
    gemm_status s;
    void *x = NULL, *y = NULL, *ct = NULL;
    const void *a, *b;
    size_t xb, yb, cb;
    int64_t j;
    gemm__clear_error();
    if (options && options->timing) memset(options->timing, 0, sizeof *options->timing);
    if (!ctx) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: ctx is NULL", func);
    s = gemm__prepare_complex(func, prec, layout, ta, tb, m, n, k, alpha, A != NULL, lda, B != NULL, ldb, beta,
                              C != NULL, ldc, &p, az, bz);
    if (s == GEMM_OK) s = gemm__check_overlap(func, &p, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, (size_t)(2 * es));
    if (s != GEMM_OK || p.work == GEMM__WORK_NONE) return s;
    if ((s = gemm__cl_device_checks(ctx, prec, func, 2 * p.m, p.n, 2 * p.k)) != GEMM_OK) return s;
    if (p.work == GEMM__WORK_SCALE) {
        gemm__complex_scale_c(&p, prec, bz, C);
        return GEMM_OK;
    }
    a = p.swapped ? B : A;
    b = p.swapped ? A : B;
    xb = (size_t)(4 * p.m * p.k * es);
    yb = p.b_trans ? (size_t)(2 * p.k * p.n * es) : 0;
    cb = bz[1] != 0 ? (size_t)(2 * p.m * p.n * es) : 0;
    x = GEMM_MALLOC(xb);
    y = yb ? GEMM_MALLOC(yb) : NULL;
    ct = cb ? GEMM_MALLOC(cb) : NULL;
    if (!x || (yb && !y) || (cb && !ct)) {
        s = gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for the expanded operands, %zu bytes", func,
                       xb + yb + cb);
    } else {
        gemm__complex_expand(&p, prec, a, az, x);
        if (yb) gemm__complex_copy_b(&p, prec, b, y);
        if (cb) {
            gemm__problem q = p;
            for (j = 0; j < p.n; j++)
                memcpy((char *)ct + (size_t)(2 * j * p.m * es), (const char *)C + (size_t)(2 * j * p.ldc * es),
                       (size_t)(2 * p.m * es));
            q.ldc = p.m;
            gemm__complex_scale_c(&q, prec, bz, ct);
        }
        s = gemm__cl_host_call(ctx, prec, func, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 2 * p.m, p.n, 2 * p.k,
                               1.0, x, 2 * p.m, yb ? y : b, yb ? 2 * p.k : 2 * p.ldb, cb ? 1.0 : bz[0], cb ? ct : C,
                               cb ? 2 * p.m : 2 * p.ldc, options);
        if (s == GEMM_OK && cb)
            for (j = 0; j < p.n; j++)
                memcpy((char *)C + (size_t)(2 * j * p.ldc * es), (const char *)ct + (size_t)(2 * j * p.m * es),
                       (size_t)(2 * p.m * es));
    }
    GEMM_FREE(x);
    GEMM_FREE(y);
    GEMM_FREE(ct);
    return s;
}

GEMM_DEF gemm_status gemm_cl_cgemm_host(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                        gemm_transpose transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                        const void *A, int64_t lda, const void *B, int64_t ldb, const void *beta,
                                        void *C, int64_t ldc, const gemm_cl_options *options)
{
    return gemm__cl_complex_host(ctx, GEMM_F32, "gemm_cl_cgemm_host", layout, transa, transb, m, n, k, alpha, A, lda,
                                 B, ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cl_zgemm_host(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                        gemm_transpose transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                        const void *A, int64_t lda, const void *B, int64_t ldb, const void *beta,
                                        void *C, int64_t ldc, const gemm_cl_options *options)
{
    return gemm__cl_complex_host(ctx, GEMM_F64, "gemm_cl_zgemm_host", layout, transa, transb, m, n, k, alpha, A, lda,
                                 B, ldb, beta, C, ldc, options);
}

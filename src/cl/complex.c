/* Complex products: gemm_cl_cgemm / gemm_cl_zgemm on cl_mem buffers and
   gemm_cl_cgemm_host / gemm_cl_zgemm_host on host pointers.

   They run on the real kernels through the real host path: in the
   column-major view an interleaved complex C (m x n) is a real 2m x n
   matrix, an untransposed b a real 2k x n one, and C = X * b with X the
   2m x 2k real expansion of alpha*op(a), made on the host (cpu/complex.c
   tells how; a transposed b is copied untransposed there too). The device
   then runs one real product of 2m x n x 2k, 8mnk flops, the complex
   count. A complex beta scales a host copy of C, which the product adds to
   (beta = 1) and which goes back into C only when the call succeeded.

   On buffers the same is done on the device, enqueued on the caller's
   queue behind its wait list: gemm_cl_cx_expand makes X in a buffer of
   its own, gemm_cl_cx_copy copies a transposed b untransposed and, for a
   complex beta, beta*C into a buffer the real product adds to and that is
   copied back into C last; C = beta*C alone (alpha = 0 or k = 0) is
   gemm_cl_cx_copy in place. The buffers are released as soon as they are
   enqueued: OpenCL frees them when the commands that use them are done. */
#pragma once

#include <string.h>

#include "../core/complex.c" /* gemm__prepare_complex */
#include "../core/overlap.c" /* gemm__check_overlap */
#include "../cpu/api.h"      /* gemm__complex_expand, _copy_b, _scale_c */
#include "entry.c"           /* gemm__cl_host_call, gemm__cl_device_checks, gemm__cl_buffers_fit */
#include "run.c"             /* gemm__cl_enqueue, gemm__cl_args */

/* A work-item per element of an R x K grid, in fixed 8 x 8 groups (PoCL
   compiles a kernel anew for each work-group shape it meets). */
static gemm_status gemm__cl_cx_launch(gemm_cl_context *ctx, cl_kernel kernel, gemm__cl_args *a, int64_t R,
                                      int64_t K, cl_uint nw, const cl_event *wait, cl_event *event, const char *what)
{
    size_t local[2], global[2];
    cl_int e;
    if (a->err != CL_SUCCESS) return gemm__cl_fail(a->err, what);
    local[0] = local[1] = ctx->max_wg >= 64 ? 8 : 1;
    global[0] = (size_t)gemm__cl_roundup(R, (int64_t)local[0]);
    global[1] = (size_t)gemm__cl_roundup(K, (int64_t)local[1]);
    e = clEnqueueNDRangeKernel(ctx->queue, kernel, 2, NULL, global, local, nw, nw ? wait : NULL, event);
    return e == CL_SUCCESS ? GEMM_OK : gemm__cl_fail(e, what);
}

/* D (at element offd, leading dimension ldd; complex elements) = s*op(S),
   R x K, op(S)(i, j) at S[offs + i*rs + j*cs]. */
static gemm_status gemm__cl_cx_copy(gemm_cl_context *ctx, const gemm__cl_program *g, gemm_precision prec, int64_t R,
                                    int64_t K, cl_mem S, int64_t offs, int64_t rs, int64_t cs, int conj,
                                    const double sc[2], cl_mem D, int64_t offd, int64_t ldd, cl_uint nw,
                                    const cl_event *wait, cl_event *event)
{
    gemm__cl_args a = gemm__cl_args_of(g->cx_copy);
    gemm__cl_arg_int(&a, R);
    gemm__cl_arg_int(&a, K);
    gemm__cl_arg_mem(&a, S);
    gemm__cl_arg_long(&a, offs);
    gemm__cl_arg_long(&a, rs);
    gemm__cl_arg_long(&a, cs);
    gemm__cl_arg_int(&a, conj);
    gemm__cl_arg_real(&a, prec, sc[0]);
    gemm__cl_arg_real(&a, prec, sc[1]);
    gemm__cl_arg_mem(&a, D);
    gemm__cl_arg_long(&a, offd);
    gemm__cl_arg_long(&a, ldd);
    return gemm__cl_cx_launch(ctx, g->cx_copy, &a, R, K, nw, wait, event, "gemm_cl_cx_copy");
}

/* A device buffer of `bytes` for one call's operand; released by the caller
   once the commands that use it are enqueued. */
static gemm_status gemm__cl_cx_buffer(gemm_cl_context *ctx, size_t bytes, const char *func, cl_mem *out)
{
    cl_int e;
    *out = gemm__cl_buffer(ctx->context, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &e);
    if (e == CL_SUCCESS) return GEMM_OK;
    *out = NULL;
    return gemm__fail(e == CL_MEM_OBJECT_ALLOCATION_FAILURE || e == CL_OUT_OF_HOST_MEMORY || e == CL_OUT_OF_RESOURCES
                          ? GEMM_ERR_OUT_OF_MEMORY : GEMM_ERR_DEVICE,
                      "%s: clCreateBuffer of %zu bytes for the complex operands failed (%s)", func, bytes,
                      gemm__cl_errname(e));
}

/* The product of a checked call with work FULL, lock held: X (and Y, T)
   made, the real product, T back into C; the last command gives *event. */
static gemm_status gemm__cl_cx_product(gemm_cl_context *ctx, const gemm__cl_program *g, gemm_precision prec,
                                       const char *func, const gemm__problem *p, const gemm__cl_operands *o,
                                       const double az[2], const double bz[2], cl_uint nw, const cl_event *wait,
                                       cl_event *event)
{
    static const double one[2] = {1, 0};
    size_t es = gemm_precision_size(prec);
    cl_mem x = NULL, y = NULL, t = NULL;
    gemm__problem r;
    gemm__cl_operands ro;
    gemm__cl_args a;
    gemm_status s;
    int copy_b = p->b_trans, copy_c = bz[1] != 0;
    s = gemm__cl_cx_buffer(ctx, (size_t)(4 * p->m * p->k) * es, func, &x);
    if (s == GEMM_OK && copy_b) s = gemm__cl_cx_buffer(ctx, (size_t)(2 * p->k * p->n) * es, func, &y);
    if (s == GEMM_OK && copy_c) s = gemm__cl_cx_buffer(ctx, (size_t)(2 * p->m * p->n) * es, func, &t);
    if (s == GEMM_OK) {
        a = gemm__cl_args_of(g->cx_expand);
        gemm__cl_arg_int(&a, p->m);
        gemm__cl_arg_int(&a, p->k);
        gemm__cl_arg_mem(&a, o->a);
        gemm__cl_arg_long(&a, (int64_t)o->offa);
        gemm__cl_arg_long(&a, p->ars);
        gemm__cl_arg_long(&a, p->acs);
        gemm__cl_arg_int(&a, p->a_conj);
        gemm__cl_arg_real(&a, prec, az[0]);
        gemm__cl_arg_real(&a, prec, az[1]);
        gemm__cl_arg_mem(&a, x);
        s = gemm__cl_cx_launch(ctx, g->cx_expand, &a, p->m, p->k, nw, wait, NULL, "gemm_cl_cx_expand");
    }
    if (s == GEMM_OK && copy_b) /* op(b), k x n, untransposed */
        s = gemm__cl_cx_copy(ctx, g, prec, p->k, p->n, o->b, (int64_t)o->offb, p->brs, p->bcs, p->b_conj, one, y, 0,
                             p->k, 0, NULL, NULL);
    if (s == GEMM_OK && copy_c) /* beta*C, m x n, leading dimension m */
        s = gemm__cl_cx_copy(ctx, g, prec, p->m, p->n, o->c, (int64_t)o->offc, 1, p->ldc, 0, bz, t, 0, p->m, 0,
                             NULL, NULL);
    if (s == GEMM_OK) { /* the real product: X (2m x 2k) times b (2k x n) into C (2m x n) */
        memset(&r, 0, sizeof r);
        r.work = GEMM__WORK_FULL;
        r.m = 2 * p->m;
        r.n = p->n;
        r.k = 2 * p->k;
        r.lda = r.m;
        r.ldb = copy_b ? 2 * p->k : 2 * p->ldb;
        r.ldc = copy_c ? 2 * p->m : 2 * p->ldc;
        r.ars = 1;
        r.acs = r.lda;
        r.brs = 1;
        r.bcs = r.ldb;
        r.a_extent = (r.k - 1) * r.lda + r.m;
        r.b_extent = (r.n - 1) * r.ldb + r.k;
        r.c_extent = (r.n - 1) * r.ldc + r.m;
        ro.a = x;
        ro.offa = 0;
        ro.b = copy_b ? y : o->b;
        ro.offb = copy_b ? 0 : 2 * o->offb;
        ro.c = copy_c ? t : o->c;
        ro.offc = copy_c ? 0 : 2 * o->offc;
        s = gemm__cl_enqueue(ctx, &ctx->lane[0], g, &r, &ro, 1.0, copy_c ? 1.0 : bz[0], GEMM__CL_BY_SIZE, 0, NULL,
                             copy_c ? NULL : event);
    }
    if (s == GEMM_OK && copy_c) /* the sum back into C */
        s = gemm__cl_cx_copy(ctx, g, prec, p->m, p->n, t, 0, 1, p->m, 0, one, o->c, (int64_t)o->offc, p->ldc, 0,
                             NULL, event);
    if (x) clReleaseMemObject(x);
    if (y) clReleaseMemObject(y);
    if (t) clReleaseMemObject(t);
    return s;
}

/* One complex call on cl_mem buffers (offsets, leading dimensions in
   complex elements), enqueued on the caller's queue. */
static gemm_status gemm__cl_complex_buffer(gemm_cl_context *ctx, gemm_precision prec, const char *func,
                                           gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                                           int64_t n, int64_t k, const void *alpha, cl_mem A, size_t offa,
                                           int64_t lda, cl_mem B, size_t offb, int64_t ldb, const void *beta,
                                           cl_mem C, size_t offc, int64_t ldc, const gemm_cl_options *options)
{
    cl_uint nw = options ? options->num_wait : 0;
    const cl_event *wait = options ? options->wait : NULL;
    cl_event *event = options ? options->event : NULL;
    double az[2], bz[2];
    gemm__cl_operands o;
    gemm__cl_program *g = NULL;
    gemm__problem p;
    gemm_status s;
    gemm__clear_error();
    if (event) *event = NULL;
    if (!ctx) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: ctx is NULL", func);
    s = gemm__prepare_complex(func, prec, layout, ta, tb, m, n, k, alpha, A != NULL, lda, B != NULL, ldb, beta,
                              C != NULL, ldc, &p, az, bz);
    if (s == GEMM_OK) s = gemm__cl_device_checks(ctx, prec, func, 2 * p.m, p.n, 2 * p.k);
    if (s != GEMM_OK) return s;
    if (nw > 0 && !wait) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: num_wait > 0 but wait is NULL", func);
    if (options && options->verify) /* the checksums are the real products' */
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options->verify is not offered for complex products", func);
    gemm__cl_operands_set(&o, &p, A, offa, B, offb, C, offc);
    if ((s = gemm__cl_buffers_fit(ctx, &p, &o, 2 * gemm_precision_size(prec), func)) != GEMM_OK) return s;
    gemm__cl_lock_take(&ctx->lock);
    if (p.work == GEMM__WORK_NONE) {
        cl_int e = event || nw ? clEnqueueMarkerWithWaitList(ctx->queue, nw, nw ? wait : NULL, event) : CL_SUCCESS;
        if (e != CL_SUCCESS) s = gemm__cl_fail(e, "clEnqueueMarkerWithWaitList");
    } else if ((s = gemm__cl_select(ctx, prec, &g)) == GEMM_OK) {
        if (p.work == GEMM__WORK_SCALE) /* C = beta*C in place */
            s = gemm__cl_cx_copy(ctx, g, prec, p.m, p.n, C, (int64_t)offc, 1, p.ldc, 0, bz, C, (int64_t)offc, p.ldc,
                                 nw, wait, event);
        else
            s = gemm__cl_cx_product(ctx, g, prec, func, &p, &o, az, bz, nw, wait, event);
    }
    gemm__cl_lock_give(&ctx->lock);
    if (s != GEMM_OK && event && *event) {
        clReleaseEvent(*event);
        *event = NULL;
    }
    return s;
}

GEMM_DEF gemm_status gemm_cl_cgemm(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                   cl_mem A, size_t offa, int64_t lda, cl_mem B, size_t offb, int64_t ldb,
                                   const void *beta, cl_mem C, size_t offc, int64_t ldc,
                                   const gemm_cl_options *options)
{
    return gemm__cl_complex_buffer(ctx, GEMM_F32, "gemm_cl_cgemm", layout, transa, transb, m, n, k, alpha, A, offa,
                                   lda, B, offb, ldb, beta, C, offc, ldc, options);
}

GEMM_DEF gemm_status gemm_cl_zgemm(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                   cl_mem A, size_t offa, int64_t lda, cl_mem B, size_t offb, int64_t ldb,
                                   const void *beta, cl_mem C, size_t offc, int64_t ldc,
                                   const gemm_cl_options *options)
{
    return gemm__cl_complex_buffer(ctx, GEMM_F64, "gemm_cl_zgemm", layout, transa, transb, m, n, k, alpha, A, offa,
                                   lda, B, offb, ldb, beta, C, offc, ldc, options);
}

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

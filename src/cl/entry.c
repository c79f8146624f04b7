/* The entry points: thin typed wrappers over one internal function per
   memory space, each of which checks once (gemm__prepare) and hands the
   canonical problem inward. */
#pragma once

#include <string.h>

#include "internal.h" /* gemm__prepare */
#include "choice.c" /* gemm__cl_usable, gemm__cl_select */
#include "host.c"
#include "run.c"
#include "verify.c" /* gemm__cl_verified, gemm__cl_host_verified */

/* OpenCL's own checks after gemm__prepare's: the precision, and the sizes
   the kernels index with int. */
static gemm_status gemm__cl_device_checks(gemm_cl_context *ctx, gemm_precision prec, const char *func, int64_t m,
                                          int64_t n, int64_t k)
{
    const int64_t limit = 2147483647 - 4096;
    gemm_status s = gemm__cl_usable(ctx, prec, func);
    if (s == GEMM_OK && (m > limit || n > limit || k > limit))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: m, n and k must be below %lld on OpenCL", func, (long long)limit);
    return s;
}

/* The context first (it is the first argument), then gemm__prepare's
   checks and canonical form, then OpenCL's own. */
static gemm_status gemm__cl_prepare(gemm_cl_context *ctx, gemm_precision prec, const char *func, gemm_layout layout,
                                    gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n, int64_t k,
                                    double alpha, int have_a, int64_t lda, int have_b, int64_t ldb, double beta,
                                    int have_c, int64_t ldc, gemm__problem *p)
{
    gemm_status s;
    p->work = GEMM__WORK_NONE;
    if (!ctx) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: ctx is NULL", func);
    s = gemm__prepare(func, layout, ta, tb, m, n, k, alpha == 0, have_a, lda, have_b, ldb, beta == 1, have_c, ldc, p);
    return s == GEMM_OK ? gemm__cl_device_checks(ctx, prec, func, m, n, k) : s;
}

/* *cap: how many elements buffer X, which must belong to ctx, holds. */
static gemm_status gemm__cl_capacity(const gemm_cl_context *ctx, cl_mem X, size_t elem, const char *func,
                                     const char *name, size_t *cap)
{
    size_t size = 0;
    cl_context owner = NULL;
    cl_int e = clGetMemObjectInfo(X, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (e == CL_SUCCESS) e = clGetMemObjectInfo(X, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
    if (e != CL_SUCCESS)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s is not a valid cl_mem (%s)", func, name, gemm__cl_errname(e));
    if (owner != ctx->context)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s belongs to another OpenCL context than ctx's", func, name);
    *cap = size / elem;
    return GEMM_OK;
}

/* Is [off, off + count) inside buffer X, which belongs to ctx? Counted in
   whole elements, so no product can overflow: an offset near 2^64 / elem
   must not wrap around to a small byte count. */
static gemm_status gemm__cl_fits(const gemm_cl_context *ctx, cl_mem X, size_t off, int64_t count, size_t elem,
                                 const char *func, const char *name)
{
    size_t cap = 0;
    gemm_status s = gemm__cl_capacity(ctx, X, elem, func, name, &cap);
    if (s != GEMM_OK) return s;
    if (count > 0 && (off > cap || (uint64_t)count > (uint64_t)(cap - off)))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s holds %llu elements; offset %llu + extent %lld do not fit", func,
                          name, (unsigned long long)cap, (unsigned long long)off, (long long)count);
    return GEMM_OK;
}

/* The buffers hold what the call touches, at their offsets. */
static gemm_status gemm__cl_buffers_fit(const gemm_cl_context *ctx, const gemm__problem *p, const gemm__cl_operands *o,
                                        size_t elem, const char *func)
{
    gemm_status s = GEMM_OK;
    if (p->work == GEMM__WORK_FULL) {
        s = gemm__cl_fits(ctx, o->a, o->offa, p->a_extent, elem, func, p->swapped ? "B" : "A");
        if (s == GEMM_OK) s = gemm__cl_fits(ctx, o->b, o->offb, p->b_extent, elem, func, p->swapped ? "A" : "B");
    }
    if (s == GEMM_OK && p->work != GEMM__WORK_NONE) s = gemm__cl_fits(ctx, o->c, o->offc, p->c_extent, elem, func, "C");
    return s;
}

/* Host matrices span less than half the address space in bytes: then every
   byte count and pitch of their copies fits in size_t. */
static gemm_status gemm__cl_host_fits(const gemm__problem *p, size_t elem, const char *func)
{
    size_t bytes;
    if (!gemm__cl_bytes(p->a_extent, 2, elem, &bytes) || !gemm__cl_bytes(p->b_extent, 2, elem, &bytes) ||
        !gemm__cl_bytes(p->c_extent, 2, elem, &bytes))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: a matrix spans more bytes than this address space holds", func);
    return GEMM_OK;
}

/* Enqueues a checked batch (a single call: one member) on the caller's
   queue: a marker when there is nothing to compute (for the event and the
   wait list), else the kernels. */
static gemm_status gemm__cl_launch(gemm_cl_context *ctx, gemm_precision prec, const gemm__problem *p,
                                   const gemm__cl_operands *o, const gemm__cl_members *mb, double alpha, double beta,
                                   cl_uint nw, const cl_event *wait, cl_event *event, const char *verify_func)
{
    gemm__cl_program *g;
    gemm_status s = GEMM_OK;
    gemm__cl_lock_take(&ctx->lock);
    if (p->work == GEMM__WORK_NONE || mb->count == 0) {
        cl_int e = event || nw ? clEnqueueMarkerWithWaitList(ctx->queue, nw, nw ? wait : NULL, event) : CL_SUCCESS;
        if (e != CL_SUCCESS) s = gemm__cl_fail(e, "clEnqueueMarkerWithWaitList");
    } else {
        s = gemm__cl_select(ctx, prec, &g);
        if (s == GEMM_OK && verify_func)
            s = gemm__cl_verified(ctx, &ctx->lane[0], g, prec, verify_func, p, o, alpha, beta, nw, wait, event);
        else if (s == GEMM_OK)
            s = gemm__cl_enqueue_batch(ctx, &ctx->lane[0], g, p, o, mb, alpha, beta, GEMM__CL_BY_SIZE, nw, wait, event);
    }
    gemm__cl_lock_give(&ctx->lock);
    return s;
}

/* One call on cl_mem buffers, enqueued on the caller's queue. */
static gemm_status gemm__cl_buffer_call(gemm_cl_context *ctx, gemm_precision prec, const char *func,
                                        gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m,
                                        int64_t n, int64_t k, double alpha, cl_mem A, size_t offa, int64_t lda,
                                        cl_mem B, size_t offb, int64_t ldb, double beta, cl_mem C, size_t offc,
                                        int64_t ldc, const gemm_cl_options *options)
{
    cl_uint nw = options ? options->num_wait : 0;
    const cl_event *wait = options ? options->wait : NULL;
    cl_event *event = options ? options->event : NULL;
    gemm__cl_operands o;
    gemm__cl_members one;
    gemm__problem p;
    gemm_status s;
    gemm__clear_error();
    if (event) *event = NULL;
    s = gemm__cl_prepare(ctx, prec, func, layout, ta, tb, m, n, k, alpha, A != NULL, lda, B != NULL, ldb, beta,
                         C != NULL, ldc, &p);
    if (s != GEMM_OK) return s;
    if (nw > 0 && !wait) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: num_wait > 0 but wait is NULL", func);
    gemm__cl_operands_set(&o, &p, A, offa, B, offb, C, offc);
    if ((s = gemm__cl_buffers_fit(ctx, &p, &o, gemm_precision_size(prec), func)) != GEMM_OK) return s;
    memset(&one, 0, sizeof one);
    one.count = 1;
    return gemm__cl_launch(ctx, prec, &p, &o, &one, alpha, beta, nw, wait, event,
                           options && options->verify ? func : NULL);
}

/* One blocking call on host pointers, on the caller's queue. */
static gemm_status gemm__cl_host_call(gemm_cl_context *ctx, gemm_precision prec, const char *func,
                                      gemm_layout layout, gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n,
                                      int64_t k, double alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                                      double beta, void *C, int64_t ldc, const gemm_cl_options *options)
{
    gemm_timing *timing = options ? options->timing : NULL;
    gemm__problem p;
    gemm_status s;
    gemm__clear_error();
    if (timing) memset(timing, 0, sizeof *timing);
    s = gemm__cl_prepare(ctx, prec, func, layout, ta, tb, m, n, k, alpha, A != NULL, lda, B != NULL, ldb, beta,
                         C != NULL, ldc, &p);
    if (s != GEMM_OK || p.work == GEMM__WORK_NONE) return s;
    if ((s = gemm__cl_host_fits(&p, gemm_precision_size(prec), func)) != GEMM_OK) return s;
    if (options && options->verify)
        return gemm__cl_host_verified(ctx, prec, func, &p, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C,
                                      timing);
    return gemm__cl_host(ctx, &ctx->lane[0], prec, NULL, gemm__cl_select, GEMM__CL_BY_SIZE, &p, alpha,
                         p.swapped ? B : A, p.swapped ? A : B, beta, C, timing);
}

GEMM_DEF gemm_status gemm_cl_sgemm(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                   cl_mem A, size_t offa, int64_t lda, cl_mem B, size_t offb, int64_t ldb,
                                   float beta, cl_mem C, size_t offc, int64_t ldc, const gemm_cl_options *options)
{
    return gemm__cl_buffer_call(ctx, GEMM_F32, "gemm_cl_sgemm", layout, transa, transb, m, n, k, alpha, A, offa, lda,
                                B, offb, ldb, beta, C, offc, ldc, options);
}

GEMM_DEF gemm_status gemm_cl_dgemm(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                   cl_mem A, size_t offa, int64_t lda, cl_mem B, size_t offb, int64_t ldb,
                                   double beta, cl_mem C, size_t offc, int64_t ldc, const gemm_cl_options *options)
{
    return gemm__cl_buffer_call(ctx, GEMM_F64, "gemm_cl_dgemm", layout, transa, transb, m, n, k, alpha, A, offa, lda,
                                B, offb, ldb, beta, C, offc, ldc, options);
}

GEMM_DEF gemm_status gemm_cl_sgemm_host(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                        gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                        const float *A, int64_t lda, const float *B, int64_t ldb, float beta,
                                        float *C, int64_t ldc, const gemm_cl_options *options)
{
    return gemm__cl_host_call(ctx, GEMM_F32, "gemm_cl_sgemm_host", layout, transa, transb, m, n, k, alpha, A, lda, B,
                              ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cl_dgemm_host(gemm_cl_context *ctx, gemm_layout layout, gemm_transpose transa,
                                        gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                        const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                                        double *C, int64_t ldc, const gemm_cl_options *options)
{
    return gemm__cl_host_call(ctx, GEMM_F64, "gemm_cl_dgemm_host", layout, transa, transb, m, n, k, alpha, A, lda, B,
                              ldb, beta, C, ldc, options);
}

/* The host-pointer path: copy the operands to device buffers, run, copy C
   back, blocking; on the caller's queue for calls, on the private one for
   the self-check. */
#pragma once

#include <string.h>

#include "internal.h"
#include "context.c"
#include "errors.c"
#include "memory.c"
#include "platform.c" /* gemm__cl_now, the lock */
#include "run.c" /* gemm__cl_enqueue */

/* How a call without a program of its own gets one: the context's choice
   for the precision, picked under the lock (gemm__cl_select, choice.c;
   choice.c's self-check runs through this file, so it is handed in). */
typedef gemm_status (*gemm__cl_select_fn)(gemm_cl_context *ctx, gemm_precision prec, gemm__cl_program **out);

/* One matrix a host call moves: rows x cols in gemm__problem's column-major
   view, with leading dimension ld on the host and dense (ld = rows) on the
   device, so its buffer holds what the call touches and no padding crosses
   the bus. */
typedef struct gemm__cl_matrix {
    int64_t rows, cols, ld;
} gemm__cl_matrix;

/* The device copies of one host call, and the call as it runs on them. */
typedef struct gemm__cl_staged {
    gemm__cl_operands dev;
    gemm__problem dense;
    gemm__cl_matrix mat[3]; /* a, b, c */
} gemm__cl_staged;

static gemm__cl_matrix gemm__cl_matrix_of(int64_t rows, int64_t cols, int64_t ld)
{
    gemm__cl_matrix x;
    x.rows = rows;
    x.cols = cols;
    x.ld = ld;
    return x;
}

/* The problem on dense copies: the same call with leading dimensions equal
   to the stored rows, and the three matrices to move. */
static void gemm__cl_densify(const gemm__problem *p, gemm__cl_staged *st)
{
    gemm__problem *d = &st->dense;
    *d = *p;
    st->mat[0] = gemm__cl_matrix_of(p->a_trans ? p->k : p->m, p->a_trans ? p->m : p->k, p->lda);
    st->mat[1] = gemm__cl_matrix_of(p->b_trans ? p->n : p->k, p->b_trans ? p->k : p->n, p->ldb);
    st->mat[2] = gemm__cl_matrix_of(p->m, p->n, p->ldc);
    d->lda = st->mat[0].rows > 0 ? st->mat[0].rows : 1;
    d->ldb = st->mat[1].rows > 0 ? st->mat[1].rows : 1;
    d->ldc = st->mat[2].rows > 0 ? st->mat[2].rows : 1;
    d->ars = d->a_trans ? d->lda : 1;
    d->acs = d->a_trans ? 1 : d->lda;
    d->brs = d->b_trans ? d->ldb : 1;
    d->bcs = d->b_trans ? 1 : d->ldb;
    d->a_extent = p->a_extent ? st->mat[0].rows * st->mat[0].cols : 0;
    d->b_extent = p->b_extent ? st->mat[1].rows * st->mat[1].cols : 0;
    d->c_extent = p->c_extent ? st->mat[2].rows * st->mat[2].cols : 0;
}

static void gemm__cl_staged_free(gemm__cl_staged *st)
{
    if (st->dev.a) clReleaseMemObject(st->dev.a);
    if (st->dev.b) clReleaseMemObject(st->dev.b);
    if (st->dev.c) clReleaseMemObject(st->dev.c);
}

/* Enqueues the copy of host matrix x into its dense buffer (to_device) or
   back; the copy back blocks. */
static cl_int gemm__cl_move(cl_command_queue q, cl_mem buf, void *host, gemm__cl_matrix x, size_t elem, int to_device)
{
    size_t origin[3] = {0, 0, 0}, region[3];
    region[0] = (size_t)x.rows * elem;
    region[1] = (size_t)x.cols;
    region[2] = 1;
    if (x.ld == x.rows || x.cols == 1)
        return to_device ? clEnqueueWriteBuffer(q, buf, CL_FALSE, 0, region[0] * region[1], host, 0, NULL, NULL)
                         : clEnqueueReadBuffer(q, buf, CL_TRUE, 0, region[0] * region[1], host, 0, NULL, NULL);
    /* host_row_pitch ld*elem fits: entry.c checked that the host matrix spans
       less than half the address space */
    return to_device ? clEnqueueWriteBufferRect(q, buf, CL_FALSE, origin, origin, region, region[0], 0,
                                                (size_t)x.ld * elem, 0, host, 0, NULL, NULL)
                     : clEnqueueReadBufferRect(q, buf, CL_TRUE, origin, origin, region, region[0], 0,
                                               (size_t)x.ld * elem, 0, host, 0, NULL, NULL);
}

/* Allocates the buffers and enqueues the copies in (not waited for). */
static gemm_status gemm__cl_upload(gemm_cl_context *ctx, gemm__cl_lane *lane, gemm_precision prec,
                                   const gemm__problem *p, const void *a, const void *b, double beta, const void *c,
                                   gemm__cl_staged *st)
{
    size_t elem = gemm_precision_size(prec), bytes;
    const void *host[3];
    cl_mem *buf[3];
    cl_int e = CL_SUCCESS;
    int i;
    memset(st, 0, sizeof *st);
    gemm__cl_densify(p, st);
    host[0] = a; host[1] = b; host[2] = c;
    buf[0] = &st->dev.a; buf[1] = &st->dev.b; buf[2] = &st->dev.c;
    for (i = p->work == GEMM__WORK_FULL ? 0 : 2; i < 3 && e == CL_SUCCESS; i++) {
        if (!gemm__cl_bytes(st->mat[i].rows, st->mat[i].cols, elem, &bytes))
            return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_cl: a %lld x %lld matrix exceeds the address space",
                              (long long)st->mat[i].rows, (long long)st->mat[i].cols);
        *buf[i] = gemm__cl_buffer(ctx->context, i < 2 ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE, bytes, NULL, &e);
        if (e == CL_SUCCESS && (i < 2 || beta != 0)) /* beta == 0: C is not read */
            e = gemm__cl_move(lane->queue, *buf[i], (void *)host[i], st->mat[i], elem, 1);
    }
    return e == CL_SUCCESS ? GEMM_OK : gemm__cl_fail(e, "allocating device memory for, or copying, the operands");
}

/* Enqueues the multiplication with g, or (g == NULL) with prec's choice,
   picked by select under the lock; *picked_at is when the kernel was ready. */
static gemm_status gemm__cl_host_run(gemm_cl_context *ctx, gemm__cl_lane *lane, gemm_precision prec,
                                     gemm__cl_program *g, gemm__cl_select_fn select, gemm__cl_path path,
                                     const gemm__problem *p, const gemm__cl_operands *dev, double alpha, double beta,
                                     double *picked_at)
{
    gemm_status s = GEMM_OK;
    if (g) {
        *picked_at = gemm__cl_now();
        return gemm__cl_enqueue(ctx, lane, g, p, dev, alpha, beta, path, 0, NULL, NULL);
    }
    gemm__cl_lock_take(&ctx->lock);
    s = select(ctx, prec, &g);
    *picked_at = gemm__cl_now();
    if (s == GEMM_OK) s = gemm__cl_enqueue(ctx, lane, g, p, dev, alpha, beta, path, 0, NULL, NULL);
    gemm__cl_lock_give(&ctx->lock);
    return s;
}

/* One blocking call on host pointers a, b, c (gemm__problem's names;
   p->work is SCALE or FULL). g == NULL: the context's kernel for prec,
   which select picks. */
static gemm_status gemm__cl_host(gemm_cl_context *ctx, gemm__cl_lane *lane, gemm_precision prec, gemm__cl_program *g,
                                 gemm__cl_select_fn select, gemm__cl_path path, const gemm__problem *p, double alpha,
                                 const void *a, const void *b, double beta, void *c, gemm_timing *timing)
{
    double t0 = gemm__cl_now(), t_alloc, t_in, t_pick, t_run;
    gemm__cl_staged st;
    cl_int e;
    gemm_status s = gemm__cl_upload(ctx, lane, prec, p, a, b, beta, c, &st);
    t_alloc = gemm__cl_now();
    /* waited for after a failed upload too: the copies it enqueued still read the caller's arrays */
    if ((e = clFinish(lane->queue)) != CL_SUCCESS && s == GEMM_OK) s = gemm__cl_fail(e, "copying the operands");
    t_in = gemm__cl_now();
    if (s == GEMM_OK && (s = gemm__cl_host_run(ctx, lane, prec, g, select, path, &st.dense, &st.dev, alpha, beta,
                                               &t_pick)) == GEMM_OK) {
        if ((e = clFinish(lane->queue)) != CL_SUCCESS) s = gemm__cl_fail(e, "running the kernels");
        t_run = gemm__cl_now();
        if (s == GEMM_OK && (e = gemm__cl_move(lane->queue, st.dev.c, c, st.mat[2], gemm_precision_size(prec), 0)) !=
                                CL_SUCCESS)
            s = gemm__cl_fail(e, "copying C back");
        if (s == GEMM_OK && timing) {
            /* clCreateBuffer allocates lazily on most drivers: the first copy pays for it */
            timing->setup_s = (t_alloc - t0) + (t_pick - t_in);
            timing->to_device_s = t_in - t_alloc;
            timing->compute_s = t_run - t_pick;
            timing->from_device_s = gemm__cl_now() - t_run;
            timing->total_s = gemm__cl_now() - t0;
        }
    }
    gemm__cl_staged_free(&st);
    return s;
}

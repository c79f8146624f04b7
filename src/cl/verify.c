/* Verified products on OpenCL (gemm_cl_options.verify; core/verify.h).
   On a CPU device (PoCL) buffer calls map the buffers and sum them with
   the CPU backend's passes. On other devices they sum on the device,
   where the matrices are: two kernels
   (gemm.cl's gemm_cl_verify_group, fp64, a work-group per contiguous row
   or column, and gemm_cl_verify_lines, a work-item per strided one)
   run over C0 (beta != 0), op(a) and op(b) before the product and over C
   after it, into one buffer of sums that is read back (3m + 3n doubles)
   for the shared comparison; the call then blocks. Host calls sum on the
   host, before the upload and after C comes back (cpu/verify_sums.c). */
#pragma once

#include <float.h>               /* FLT_MAX, DBL_MAX */
#include <string.h>
#include "../core/verify.c"      /* gemm__verify_compare */
#include "../cpu/verify_sums.c"  /* gemm__verify_host_before, gemm__verify_host_after */
#include "context.c"
#include "errors.c"              /* gemm__cl_fail */
#include "choice.c"              /* gemm__cl_select */
#include "host.c"                /* gemm__cl_host */
#include "run.c"                 /* gemm__cl_enqueue, gemm__cl_args */

#ifdef GEMM__TEST_HOOKS
/* The tests' faults (gemm__hooks): the product skips the last
   verify_drop_k of k; one bit of one element of the canonical C flipped
   after it (on the host: *host; on the device: read, flipped, written). */
/* Whether this verified product gets the faults: verify_fault_skip
   products (batch members) run clean first. */
static int gemm__cl_verify_faulty(void)
{
    gemm__hooks *h = gemm__test_hooks();
    if (!h->verify_flip_bit && !h->verify_drop_k) return 0;
    if (h->verify_fault_skip > 0) {
        h->verify_fault_skip--;
        return 0;
    }
    return 1;
}

static void gemm__cl_verify_drop(gemm__problem *q, int faulty)
{
    if (faulty && gemm__test_hooks()->verify_drop_k > 0 && q->work == GEMM__WORK_FULL) {
        q->k -= gemm__test_hooks()->verify_drop_k < q->k ? gemm__test_hooks()->verify_drop_k : q->k;
        if (q->k == 0) q->work = GEMM__WORK_SCALE;
    }
}

static cl_int gemm__cl_verify_flip(cl_command_queue queue, const gemm__problem *p, gemm_precision prec, void *host,
                                   cl_mem C, size_t offc, int faulty)
{
    const gemm__hooks *h = gemm__test_hooks();
    int64_t i = h->verify_flip_row, j = h->verify_flip_col;
    size_t at = offc + (size_t)(i + j * p->ldc), es = gemm_precision_size(prec);
    unsigned char e[8];
    cl_int err = CL_SUCCESS;
    if (!faulty || !h->verify_flip_bit || i < 0 || i >= p->m || j < 0 || j >= p->n) return CL_SUCCESS;
    if (host) memcpy(e, (char *)host + (at - offc) * es, es);
    else err = clEnqueueReadBuffer(queue, C, CL_TRUE, at * es, es, e, 0, NULL, NULL);
    e[(h->verify_flip_bit - 1) / 8] ^= (unsigned char)(1u << ((h->verify_flip_bit - 1) % 8)); /* little-endian */
    if (host) memcpy((char *)host + (at - offc) * es, e, es);
    else if (err == CL_SUCCESS) err = clEnqueueWriteBuffer(queue, C, CL_TRUE, at * es, es, e, 0, NULL, NULL);
    return err;
}
#endif

/* One enqueue of the line sums: `lines` lines of `len` elements of x. */
static gemm_status gemm__cl_verify_lines(cl_command_queue queue, const gemm__cl_program *g, cl_mem x, size_t off,
                                         int64_t lines, int64_t len, int64_t line_stride, int64_t elem_stride,
                                         cl_mem ws, int64_t w, int64_t wa, int64_t out, int64_t outa, double f)
{
    /* contiguous lines: a work-group each; else a work-item each. One
       work-group size for every launch: PoCL compiles a kernel again for
       each new one (the runtime's own choice follows the line count) */
    int grouped = elem_stride == 1 && g->verify_group;
    cl_kernel kernel = grouped ? g->verify_group : g->verify;
    gemm__cl_args a = gemm__cl_args_of(kernel);
    size_t local = 64, global = grouped ? (size_t)lines * 64 : (size_t)((lines + 63) / 64 * 64);
    cl_int e;
    if (lines == 0) return GEMM_OK;
    gemm__cl_arg_mem(&a, x);
    gemm__cl_arg_long(&a, (int64_t)off);
    gemm__cl_arg_int(&a, lines);
    gemm__cl_arg_int(&a, len);
    gemm__cl_arg_long(&a, line_stride);
    gemm__cl_arg_long(&a, elem_stride);
    gemm__cl_arg_mem(&a, ws);
    gemm__cl_arg_long(&a, w);
    gemm__cl_arg_long(&a, wa);
    gemm__cl_arg_long(&a, out);
    gemm__cl_arg_long(&a, outa);
    gemm__cl_arg(&a, sizeof f, &f);
    if (a.err != CL_SUCCESS) return gemm__cl_fail(a.err, "clSetKernelArg (verify)");
    e = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
    return e == CL_SUCCESS ? GEMM_OK : gemm__cl_fail(e, "clEnqueueNDRangeKernel (verify)");
}

/* On a CPU device (PoCL) the buffers are the host's memory: mapped, they
   are summed by the CPU backend's passes (vectorised, threaded), far
   faster there than the kernels. Maps matrix x (extent elements from off)
   for reading; NULL when it failed (*e says why). */
static const void *gemm__cl_verify_map(cl_command_queue q, cl_mem x, size_t off, int64_t extent, size_t es,
                                       cl_int *e)
{
    return clEnqueueMapBuffer(q, x, CL_TRUE, CL_MAP_READ, off * es, (size_t)extent * es, 0, NULL, NULL, e);
}

/* Before (after = 0) or after the product on a CPU device: the host's
   sums over the mapped operands, the maps released before returning. */
static gemm_status gemm__cl_verify_mapped(cl_command_queue q, gemm_precision prec, const gemm__problem *p,
                                          const gemm__cl_operands *o, double alpha, double beta, double *host,
                                          gemm__verify_sums *v, int after)
{
    size_t es = gemm_precision_size(prec);
    const void *a = NULL, *b = NULL, *c = NULL;
    int full = p->work == GEMM__WORK_FULL && !after;
    cl_int e = CL_SUCCESS;
    if (after || beta != 0) c = gemm__cl_verify_map(q, o->c, o->offc, p->c_extent, es, &e);
    if (e == CL_SUCCESS && full) a = gemm__cl_verify_map(q, o->a, o->offa, p->a_extent, es, &e);
    if (e == CL_SUCCESS && full) b = gemm__cl_verify_map(q, o->b, o->offb, p->b_extent, es, &e);
    if (e == CL_SUCCESS) {
        if (after) gemm__verify_host_after(p, prec, c, v, gemm_cpu_get_threads());
        else gemm__verify_host_before(p, prec, alpha, a, b, beta, c, host, v, gemm_cpu_get_threads());
    }
    if (c) clEnqueueUnmapMemObject(q, o->c, (void *)(uintptr_t)c, 0, NULL, NULL);
    if (a) clEnqueueUnmapMemObject(q, o->a, (void *)(uintptr_t)a, 0, NULL, NULL);
    if (b) clEnqueueUnmapMemObject(q, o->b, (void *)(uintptr_t)b, 0, NULL, NULL);
    return e == CL_SUCCESS ? GEMM_OK : gemm__cl_fail(e, "clEnqueueMapBuffer (the verification's sums)");
}

/* A buffer call, verified (the lock held, g the precision's program): the
   wait list before anything, the sums, the product, the sums of C, their
   comparison; *event (when asked) completes with the call, which blocks;
   a call that fails (GEMM_ERR_VERIFY too) sets it to NULL. */
static gemm_status gemm__cl_verified(gemm_cl_context *ctx, gemm__cl_lane *lane, const gemm__cl_program *g,
                                     gemm_precision prec, const char *func, const gemm__problem *p,
                                     const gemm__cl_operands *o, double alpha, double beta, cl_uint nw,
                                     const cl_event *wait, cl_event *event)
{
    cl_command_queue q = lane->queue;
    size_t doubles = gemm__verify_doubles(p->m, p->n, p->k), head;
    double *host = NULL, *scratch;
    gemm__verify_sums v;
    gemm__problem pq = *p;
    int64_t m = p->m, n = p->n, k = p->k, ldc = p->ldc, s_, sa, r, ra;
    cl_mem ws = NULL;
    cl_int e = CL_SUCCESS;
    const double zero = 0;
    gemm_status s = GEMM_OK;
    int mapped = (ctx->type & CL_DEVICE_TYPE_CPU) != 0 && !GEMM__HOOK(cl_verify_kernels, 0);
#ifdef GEMM__TEST_HOOKS
    int faulty;
#endif
    if (!g->verify && !mapped)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: options.verify needs a device with fp64 (cl_khr_fp64) for its "
                          "sums", func);
    if (!(host = (double *)GEMM_MALLOC(doubles * sizeof(double))))
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for the verification's sums", func);
    scratch = gemm__verify_layout(&v, host, m, n, k);
    head = (size_t)(scratch - host);
    s_ = scratch - host;
    sa = gemm__verify_scratch(scratch, k, 1) - host;
    r = gemm__verify_scratch(scratch, k, 2) - host;
    ra = gemm__verify_scratch(scratch, k, 3) - host;
    if (mapped) { /* the wait list, then the host's sums over the mapped buffers */
        if (nw && (e = clEnqueueMarkerWithWaitList(q, nw, wait, NULL)) != CL_SUCCESS)
            s = gemm__cl_fail(e, "clEnqueueMarkerWithWaitList");
        if (s == GEMM_OK) s = gemm__cl_verify_mapped(q, prec, p, o, alpha, beta, host, &v, 0);
        nw = 0;
    } else {
        ws = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, doubles * sizeof(double), NULL, &e);
        if (e != CL_SUCCESS) s = gemm__cl_fail(e, "clCreateBuffer (the verification's sums)");
    }
    if (s == GEMM_OK && !mapped && (e = clEnqueueFillBuffer(q, ws, &zero, sizeof zero, 0, doubles * sizeof(double), nw,
                                                 nw ? wait : NULL, NULL)) != CL_SUCCESS)
        s = gemm__cl_fail(e, "clEnqueueFillBuffer (the verification's sums)");
    if (s == GEMM_OK && !mapped && beta != 0) { /* beta*C0: its columns, then its rows */
        s = gemm__cl_verify_lines(q, g, o->c, o->offc, n, m, ldc, 1, ws, -1, -1, v.want_col - host,
                                  v.scale_col - host, beta);
        if (s == GEMM_OK)
            s = gemm__cl_verify_lines(q, g, o->c, o->offc, m, n, 1, ldc, ws, -1, -1, v.want_row - host,
                                      v.scale_row - host, beta);
    }
    if (s == GEMM_OK && !mapped && p->work == GEMM__WORK_FULL) {
        /* alpha * e^T op(a) and alpha * op(b) e, then want and scale weighted by them */
        s = gemm__cl_verify_lines(q, g, o->a, o->offa, k, m, p->acs, p->ars, ws, -1, -1, s_, sa, alpha);
        if (s == GEMM_OK) s = gemm__cl_verify_lines(q, g, o->b, o->offb, k, n, p->brs, p->bcs, ws, -1, -1, r, ra, alpha);
        if (s == GEMM_OK)
            s = gemm__cl_verify_lines(q, g, o->b, o->offb, n, k, p->bcs, p->brs, ws, s_, sa, v.want_col - host,
                                      v.scale_col - host, 1.0);
        if (s == GEMM_OK)
            s = gemm__cl_verify_lines(q, g, o->a, o->offa, m, k, p->ars, p->acs, ws, r, ra, v.want_row - host,
                                      v.scale_row - host, 1.0);
    }
#ifdef GEMM__TEST_HOOKS
    faulty = gemm__cl_verify_faulty();
    gemm__cl_verify_drop(&pq, faulty);
#endif
    if (s == GEMM_OK) s = gemm__cl_enqueue(ctx, lane, g, &pq, o, alpha, beta, GEMM__CL_BY_SIZE, 0, NULL, NULL);
#ifdef GEMM__TEST_HOOKS
    if (s == GEMM_OK && (e = gemm__cl_verify_flip(q, p, prec, NULL, o->c, o->offc, faulty)) != CL_SUCCESS)
        s = gemm__cl_fail(e, "the test hook's flip");
#endif
    if (s == GEMM_OK && mapped) s = gemm__cl_verify_mapped(q, prec, p, o, alpha, beta, host, &v, 1);
    if (s == GEMM_OK && !mapped)
        s = gemm__cl_verify_lines(q, g, o->c, o->offc, n, m, ldc, 1, ws, -1, -1, v.got_col - host, -1, 1.0);
    if (s == GEMM_OK && !mapped)
        s = gemm__cl_verify_lines(q, g, o->c, o->offc, m, n, 1, ldc, ws, -1, -1, v.got_row - host, -1, 1.0);
    if (s == GEMM_OK && !mapped && (e = clEnqueueReadBuffer(q, ws, CL_TRUE, 0, head * sizeof(double), host, 0, NULL, NULL)) !=
                            CL_SUCCESS)
        s = gemm__cl_fail(e, "reading the verification's sums");
    if (s == GEMM_OK)
        s = gemm__verify_compare(func, &v, m, n, k, gemm__verify_unit(prec, 0), prec == GEMM_F32 ? FLT_MAX : DBL_MAX,
                                 p->swapped, -1);
    if (event && s != GEMM_OK) *event = NULL; /* a failed call (GEMM_ERR_VERIFY too) hands back no event */
    else if (event && (e = clEnqueueMarkerWithWaitList(q, 0, NULL, event)) != CL_SUCCESS)
        s = gemm__cl_fail(e, "clEnqueueMarkerWithWaitList");
    clFinish(q); /* nothing of this call left in flight with ws or host freed, no map outstanding */
    if (ws) clReleaseMemObject(ws);
    GEMM_FREE(host);
    return s;
}

/* A host call, verified: the sums on the host around the blocking call. */
static gemm_status gemm__cl_host_verified(gemm_cl_context *ctx, gemm_precision prec, const char *func,
                                          const gemm__problem *p, double alpha, const void *a, const void *b,
                                          double beta, void *c, gemm_timing *timing)
{
    gemm__verify_sums v;
    gemm__problem pq = *p;
    double *ws = (double *)GEMM_MALLOC(gemm__verify_doubles(p->m, p->n, p->k) * sizeof(double));
    gemm_status s;
    if (!ws) return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for the verification's sums", func);
    gemm__verify_host_before(p, prec, alpha, a, b, beta, c, ws, &v, 1);
#ifdef GEMM__TEST_HOOKS
    int faulty = gemm__cl_verify_faulty();
    gemm__cl_verify_drop(&pq, faulty);
#endif
    s = gemm__cl_host(ctx, &ctx->lane[0], prec, NULL, gemm__cl_select, GEMM__CL_BY_SIZE, &pq, alpha, a, b, beta, c,
                      timing);
    if (s == GEMM_OK) {
#ifdef GEMM__TEST_HOOKS
        gemm__cl_verify_flip(NULL, p, prec, c, NULL, 0, faulty);
#endif
        gemm__verify_host_after(p, prec, c, &v, 1);
        s = gemm__verify_compare(func, &v, p->m, p->n, p->k, gemm__verify_unit(prec, 0),
                                 prec == GEMM_F32 ? FLT_MAX : DBL_MAX, p->swapped, -1);
    }
    GEMM_FREE(ws);
    return s;
}

/* The host-pointer path: copy the operands to device buffers, run, copy C
   back, blocking; on the caller's queue for calls, on the private one for
   the self-check. */

static gemm_status gemm__cl_select(gemm_cl_context *ctx, gemm_precision prec, gemm__cl_program **out);

/* The device copies of one host call. C's buffer holds whole columns of ldc
   (NVIDIA's driver checks rectangle copies against region rows * pitch);
   only the m x n window of C is copied, never its padding. */
typedef struct gemm__cl_staged {
    gemm__cl_operands dev;
    size_t origin[3], region[3], pitch;
} gemm__cl_staged;

static void gemm__cl_staged_free(gemm__cl_staged *st)
{
    if (st->dev.a) clReleaseMemObject(st->dev.a);
    if (st->dev.b) clReleaseMemObject(st->dev.b);
    if (st->dev.c) clReleaseMemObject(st->dev.c);
}

/* Allocates the buffers and enqueues the copies in (not waited for). */
static cl_int gemm__cl_upload(gemm_cl_context *ctx, gemm__cl_lane *lane, gemm_precision prec, const gemm__problem *p,
                              const void *a, const void *b, double beta, const void *c, gemm__cl_staged *st)
{
    size_t elem = gemm_precision_size(prec), na = (size_t)p->a_extent, nb = (size_t)p->b_extent;
    cl_int e = CL_SUCCESS;
    memset(st, 0, sizeof *st);
    st->pitch = (size_t)p->ldc * elem;
    st->region[0] = (size_t)p->m * elem;
    st->region[1] = (size_t)p->n;
    st->region[2] = 1;
    st->dev.c = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, (size_t)p->n * (size_t)p->ldc * elem, NULL, &e);
    if (e == CL_SUCCESS && p->work == GEMM__WORK_FULL) {
        st->dev.a = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY, na * elem, NULL, &e);
        if (e == CL_SUCCESS) st->dev.b = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY, nb * elem, NULL, &e);
        if (e == CL_SUCCESS) e = clEnqueueWriteBuffer(lane->queue, st->dev.a, CL_FALSE, 0, na * elem, a, 0, NULL, NULL);
        if (e == CL_SUCCESS) e = clEnqueueWriteBuffer(lane->queue, st->dev.b, CL_FALSE, 0, nb * elem, b, 0, NULL, NULL);
    }
    if (e == CL_SUCCESS && beta != 0) /* beta == 0: C is not read */
        e = clEnqueueWriteBufferRect(lane->queue, st->dev.c, CL_FALSE, st->origin, st->origin, st->region, st->pitch,
                                     0, st->pitch, 0, c, 0, NULL, NULL);
    return e;
}

/* Enqueues the multiplication with g, or (g == NULL) with prec's choice,
   picked under the lock; *picked_at is when the kernel was ready. */
static gemm_status gemm__cl_host_run(gemm_cl_context *ctx, gemm__cl_lane *lane, gemm_precision prec,
                                     gemm__cl_program *g, gemm__cl_path path, const gemm__problem *p,
                                     const gemm__cl_operands *dev, double alpha, double beta, double *picked_at)
{
    gemm_status s = GEMM_OK;
    if (g) {
        *picked_at = gemm__cl_now();
        return gemm__cl_enqueue(ctx, lane, g, p, dev, alpha, beta, path, 0, NULL, NULL);
    }
    gemm__cl_lock_take(&ctx->lock);
    s = gemm__cl_select(ctx, prec, &g);
    *picked_at = gemm__cl_now();
    if (s == GEMM_OK) s = gemm__cl_enqueue(ctx, lane, g, p, dev, alpha, beta, path, 0, NULL, NULL);
    gemm__cl_lock_give(&ctx->lock);
    return s;
}

/* One blocking call on host pointers a, b, c (gemm__problem's names;
   p->work is SCALE or FULL). g == NULL: the context's kernel for prec. */
static gemm_status gemm__cl_host(gemm_cl_context *ctx, gemm__cl_lane *lane, gemm_precision prec, gemm__cl_program *g,
                                 gemm__cl_path path, const gemm__problem *p, double alpha, const void *a,
                                 const void *b, double beta, void *c, gemm_timing *timing)
{
    double t0 = gemm__cl_now(), t_alloc, t_in, t_pick, t_run;
    gemm__cl_staged st;
    gemm_status s;
    cl_int e = gemm__cl_upload(ctx, lane, prec, p, a, b, beta, c, &st);
    t_alloc = gemm__cl_now();
    if (e == CL_SUCCESS) e = clFinish(lane->queue);
    t_in = gemm__cl_now();
    if (e != CL_SUCCESS) {
        s = gemm__cl_fail(e, "allocating device memory for, or copying, the operands");
    } else if ((s = gemm__cl_host_run(ctx, lane, prec, g, path, p, &st.dev, alpha, beta, &t_pick)) == GEMM_OK) {
        if ((e = clFinish(lane->queue)) != CL_SUCCESS) s = gemm__cl_fail(e, "running the kernels");
        t_run = gemm__cl_now();
        if (s == GEMM_OK && (e = clEnqueueReadBufferRect(lane->queue, st.dev.c, CL_TRUE, st.origin, st.origin,
                                                         st.region, st.pitch, 0, st.pitch, 0, c, 0, NULL,
                                                         NULL)) != CL_SUCCESS)
            s = gemm__cl_fail(e, "clEnqueueReadBufferRect (C)");
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

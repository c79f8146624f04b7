/* C = beta*C, when A and B are not read (alpha == 0 or k == 0), in the
   order C is stored. */
static void gemm__cpu_scale_c(const gemm__problem *p, gemm_precision precision, double beta, void *C)
{
    int64_t i, j;
    for (j = 0; j < p->n; j++) {
        if (precision == GEMM_F32) {
            float *c = (float *)C + j * p->ldc, b = (float)beta;
            for (i = 0; i < p->m; i++) c[i] = b == 0 ? 0.0f : b * c[i];
        } else {
            double *c = (double *)C + j * p->ldc;
            for (i = 0; i < p->m; i++) c[i] = beta == 0 ? 0.0 : beta * c[i];
        }
    }
}

/* Allocates the job's workspaces, one per thread: packed A (mc x kc), then
   packed B (kc x nc), each 64-byte aligned and no larger than the problem
   needs. Returns the block to GEMM_FREE (NULL: no memory). */
static char *gemm__cpu_workspace(gemm__cpu_job *jb)
{
    const gemm__problem *p = jb->p;
    int64_t mcw = gemm__cpu_min(jb->mc, gemm__cpu_round_up(p->m, jb->uk->mr));
    int64_t ncw = gemm__cpu_min(jb->nc, gemm__cpu_round_up(p->n, jb->uk->nr));
    int64_t kcw = gemm__cpu_min(jb->kc, p->k);
    char *raw;
    jb->ws_a = (size_t)gemm__cpu_round_up(mcw * kcw * jb->es, 64);
    jb->ws_stride = jb->ws_a + (size_t)gemm__cpu_round_up(ncw * kcw * jb->es, 64);
    raw = (char *)GEMM_MALLOC(jb->ws_stride * (size_t)jb->threads + 64);
    if (raw) jb->ws = raw + (64 - (uintptr_t)raw % 64);
    return raw;
}

/* The one driver behind both precisions: p is gemm__prepare's problem, a
   and b its operands (the caller's A and B, swapped when row-major), alpha
   and beta the caller's scalars (exact in double), func the public name
   for error details. */
static gemm_status gemm__cpu_gemm(const char *func, const gemm__problem *p, gemm_precision precision, double alpha,
                                  const void *a, const void *b, double beta, void *C,
                                  const gemm_cpu_options *options)
{
    const gemm__cpu_isa *isa;
    gemm__cpu_job jb;
    char *raw;
    if (options && options->threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options->threads = %d is negative", func, options->threads);
    if (p->work == GEMM__WORK_NONE) return GEMM_OK;
    if (p->work == GEMM__WORK_SCALE) {
        gemm__cpu_scale_c(p, precision, beta, C);
        return GEMM_OK;
    }
    if (!(isa = gemm__cpu_isa_for_call()))
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the test hook forces kernel \"%s\", which this build or CPU cannot run",
                          func, GEMM__HOOK(cpu_kernel, "?"));
    memset(&jb, 0, sizeof jb);
    jb.p = p;
    jb.a = (const char *)a;
    jb.b = (const char *)b;
    jb.c = (char *)C;
    jb.es = (int64_t)gemm_precision_size(precision);
    jb.alpha = alpha;
    jb.beta = beta;
    jb.uk = precision == GEMM_F32 ? &isa->f32 : &isa->f64;
    gemm__cpu_blocking(jb.uk->mr, jb.uk->nr, (int)jb.es, &jb.mc, &jb.kc, &jb.nc);
    gemm__cpu_plan_in_place(&jb);
    gemm__cpu_plan_threads(&jb, gemm__cpu_threads_for_call(options));
    if (!(raw = gemm__cpu_workspace(&jb))) {
        if (jb.threads > 1) gemm__cpu_pool_release();
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for %d packing workspace(s) of %llu bytes", func,
                          jb.threads, (unsigned long long)jb.ws_stride);
    }
    if (jb.threads > 1) {
        gemm__cpu_pool_run(gemm__cpu_task, &jb);
        gemm__cpu_pool_release();
    } else {
        gemm__cpu_task(&jb, 0);
    }
    GEMM_FREE(raw);
    return GEMM_OK;
}

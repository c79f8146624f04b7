/* Batches: one gemm__problem (checked once, gemm__prepare_strided or
   gemm__prepare_batched) for every member, one job set up once (kernels,
   block sizes, a workspace per thread), then the members. Small members go
   whole to the threads, which take shares of them from a shared counter;
   members big enough to be worth cutting are cut like a single call when
   there are too few of them to go round. Either way a member is
   computed exactly as the single call computes it (the same kernel, tiles
   and k order), so the result is bitwise the single call's, whatever the
   thread count. */

/* The tiny kernels of the job's precision and instruction set (NULL:
   none), and how many rows each takes. */
static const gemm__cpu_tiny_fn *gemm__cpu_tiny_for(const gemm__cpu_isa *isa, gemm_precision precision, int *vl)
{
    int i;
    for (i = 0; i < GEMM__CPU_NTINY; i++)
        if (strcmp(gemm__cpu_tiny_sets[i].isa, isa->name) == 0) {
            *vl = precision == GEMM_F32 ? gemm__cpu_tiny_sets[i].vl_s : gemm__cpu_tiny_sets[i].vl_d;
            return precision == GEMM_F32 ? gemm__cpu_tiny_sets[i].s : gemm__cpu_tiny_sets[i].d;
        }
    return NULL;
}

/* One tiny member: k in the job's KC blocks (only the first applies beta,
   as in the packed path), A packed column by column into `pack` when its
   columns are not contiguous, the tiles of C in any order. */
static void gemm__cpu_tiny_member(const gemm__cpu_job *jb, const gemm__cpu_tiny_fn *kern, int vl, char *pack)
{
    const gemm__problem *p = jb->p;
    int64_t es = jb->es, pc, kc, i0, j0, x;
    for (pc = 0; pc < p->k; pc += jb->kc) {
        const char *a = jb->a + pc * p->acs * es, *b = jb->b + pc * p->brs * es;
        int64_t as = p->acs;
        double beta = pc == 0 ? jb->beta : 1.0;
        kc = gemm__cpu_min(jb->kc, p->k - pc);
        if (p->ars != 1) { /* a's rows are contiguous: transpose the block into m x kc */
            for (x = 0; x < p->m; x++) gemm__cpu_copy(pack + x * es, p->m, a + x * p->ars * es, p->acs, kc, es);
            a = pack;
            as = p->m;
        }
        for (j0 = 0; j0 < p->n; j0 += 8)
            for (i0 = 0; i0 < p->m; i0 += vl)
                kern[gemm__cpu_min(8, p->n - j0) - 1](kc, a + i0 * es, as, b + j0 * p->bcs * es, p->brs, p->bcs,
                                                      jb->alpha, beta, jb->c + (i0 + j0 * p->ldc) * es, p->ldc,
                                                      (int)gemm__cpu_min(vl, p->m - i0));
    }
}

/* The batch's threads and where its members are; read-only while the
   threads run, except `next`. */
typedef struct gemm__cpu_batch {
    gemm__cpu_job job;     /* the members' shared job; its a, b, c are member 0's (strided) */
    const gemm__batch *bt; /* where each member's operands are */
    const gemm__cpu_tiny_fn *tiny; /* tiny members: their kernels (NULL: the packed path) */
    int vl;                /* ... and the rows one takes */
    int64_t whole;         /* members [0, whole) go whole to threads; the rest are cut */
    int64_t group;         /* the fewest members taken at a time */
    int64_t next;          /* the next member to take */
} gemm__cpu_batch;

/* Points jb at member i's operands. */
static void gemm__cpu_member(const gemm__cpu_batch *cb, int64_t i, gemm__cpu_job *jb)
{
    const gemm__batch *bt = cb->bt;
    int64_t es = cb->job.es;
    if (bt->c_list) { /* the lists of A and B may be NULL when alpha == 0 or k == 0 */
        jb->a = bt->a_list ? (const char *)(uintptr_t)bt->addr_ab(bt->a_list, i) : NULL;
        jb->b = bt->b_list ? (const char *)(uintptr_t)bt->addr_ab(bt->b_list, i) : NULL;
        jb->c = (char *)(uintptr_t)bt->addr_c(bt->c_list, i);
    } else {
        jb->a = cb->job.a + i * bt->stride_a * es;
        jb->b = cb->job.b + i * bt->stride_b * es;
        jb->c = cb->job.c + i * bt->stride_c * es;
    }
}

#if defined(__GNUC__) || defined(__clang__)
#define GEMM__CPU_TAKE_N(x, n) __atomic_fetch_add(&(x), (n), __ATOMIC_RELAXED)
#else
#define GEMM__CPU_TAKE_N(x, n) (((x) += (n)) - (n))
#endif

/* The next members [*first, *end) for a thread: a share of what is left
   that shrinks as the batch ends (guided scheduling: a thread that starts
   its last share late, or runs slowly beside another process, leaves the
   others little to wait for), never fewer than cb->group. Returns 0 when
   none is left. */
static int gemm__cpu_batch_take(gemm__cpu_batch *cb, int64_t *first, int64_t *end)
{
    int64_t left = cb->whole - GEMM__CPU_LOAD(cb->next), n = left / ((int64_t)cb->job.threads * 4);
    if (n < cb->group) n = cb->group;
    *first = GEMM__CPU_TAKE_N(cb->next, n);
    *end = gemm__cpu_min(*first + n, cb->whole);
    return *first < cb->whole;
}

/* One thread's share of the whole members: taken until none is left, each
   member computed like a single call on one thread. */
static void gemm__cpu_batch_task(void *arg, int tid)
{
    gemm__cpu_batch *cb = (gemm__cpu_batch *)arg;
    gemm__cpu_job jb = cb->job; /* this thread's copy: only a, b, c change */
    int64_t i, end;
    char *w;
    if (tid >= cb->job.threads) return;
    w = cb->job.ws + (size_t)tid * cb->job.ws_stride;
    while (gemm__cpu_batch_take(cb, &i, &end)) {
        for (; i < end; i++) {
            gemm__cpu_member(cb, i, &jb);
            if (cb->tiny) gemm__cpu_tiny_member(&jb, cb->tiny, cb->vl, w);
            else gemm__cpu_loop_jc(&jb, 0, jb.p->m, 0, jb.p->n, w, w + jb.ws_a);
        }
    }
}

/* The members past `whole`, one after the other, each cut over the
   threads as a single call is. */
static void gemm__cpu_batch_cut(gemm__cpu_batch *cb)
{
    gemm__cpu_job jb = cb->job;
    int64_t i;
    for (i = cb->whole; i < cb->bt->count; i++) {
        gemm__cpu_member(cb, i, &jb);
        jb.next = 0;
        if (jb.threads > 1) gemm__cpu_pool_run(gemm__cpu_task, &jb);
        else gemm__cpu_task(&jb, 0);
    }
}

/* How the batch runs: its threads (taking the pool when more than one;
   the caller releases it), which members go whole, how many a thread
   takes at a time, and the grid a cut member is split by. Members below
   the single call's threading threshold always go whole; bigger ones go
   whole in full rounds of the threads, and the last partial round is cut. */
static void gemm__cpu_batch_plan(gemm__cpu_batch *cb, int want)
{
    gemm__cpu_job *jb = &cb->job;
    const gemm__problem *p = jb->p;
    int64_t count = cb->bt->count;
    double flops = 2.0 * (double)p->m * (double)p->n * (double)p->k;
    int threads = flops * (double)count < GEMM__CPU_THREADED ? 1 : gemm__cpu_pool_acquire(want);
    cb->whole = flops < GEMM__CPU_THREADED ? count : count / threads * threads;
    /* a take covers at least ~64K flops (about a microsecond), so tiny
       members do not queue on the shared counter */
    cb->group = flops >= 65536.0 ? 1 : (int64_t)(65536.0 / (flops > 1 ? flops : 1));
    if (cb->group > 64) cb->group = 64;
    gemm__cpu_grid(threads * (threads > 1 && flops >= GEMM__CPU_CHUNKY ? 4 : 1), p->m, p->n, jb->uk->mr, jb->uk->nr,
                   &jb->tm, &jb->tn);
    jb->threads = threads;
}

/* C_i = beta*C_i for every member (alpha == 0 or k == 0). */
static void gemm__cpu_batch_scale(gemm__cpu_batch *cb, gemm_precision precision, double beta)
{
    gemm__cpu_job jb = cb->job;
    int64_t i;
    for (i = 0; i < cb->bt->count; i++) {
        gemm__cpu_member(cb, i, &jb);
        gemm__cpu_scale_c(jb.p, precision, beta, jb.c);
    }
}

/* The one batch driver behind both precisions and both forms: p and bt
   from the batch checks, a and b member 0's canonical operands (strided;
   NULL for the pointer-array form), alpha and beta the caller's scalars. */
static gemm_status gemm__cpu_batch_gemm(const char *func, const gemm__problem *p, const gemm__batch *bt,
                                        gemm_precision precision, double alpha, const void *a, const void *b,
                                        double beta, void *C, const gemm_cpu_options *options)
{
    const gemm__cpu_isa *isa;
    gemm__cpu_batch cb;
    char *raw;
    if (options && options->threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options->threads = %d is negative", func, options->threads);
    if (p->work == GEMM__WORK_NONE || bt->count == 0) return GEMM_OK;
    if (!(isa = gemm__cpu_isa_for_call()))
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the test hook forces kernel \"%s\", which this build or CPU cannot run",
                          func, GEMM__HOOK(cpu_kernel, "?"));
    memset(&cb, 0, sizeof cb);
    cb.bt = bt;
    cb.job.p = p;
    cb.job.a = (const char *)a;
    cb.job.b = (const char *)b;
    cb.job.c = (char *)C;
    cb.job.es = (int64_t)gemm_precision_size(precision);
    cb.job.alpha = alpha;
    cb.job.beta = beta;
    if (p->work == GEMM__WORK_SCALE) {
        gemm__cpu_batch_scale(&cb, precision, beta);
        return GEMM_OK;
    }
    cb.job.uk = precision == GEMM_F32 ? &isa->f32 : &isa->f64;
    gemm__cpu_blocking(cb.job.uk->mr, cb.job.uk->nr, (int)cb.job.es, &cb.job.mc, &cb.job.kc, &cb.job.nc);
    gemm__cpu_plan_in_place(&cb.job);
    /* tiny members skip packing; their A, when transposed, fits in the A workspace */
    if (2.0 * (double)p->m * (double)p->n * (double)p->k <= GEMM__CPU_TINY && p->m <= cb.job.mc)
        cb.tiny = gemm__cpu_tiny_for(isa, precision, &cb.vl);
    gemm__cpu_batch_plan(&cb, gemm__cpu_threads_for_call(options));
    if (!(raw = gemm__cpu_workspace(&cb.job))) {
        if (cb.job.threads > 1) gemm__cpu_pool_release();
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for %d packing workspace(s) of %llu bytes", func,
                          cb.job.threads, (unsigned long long)cb.job.ws_stride);
    }
    if (cb.job.threads > 1 && cb.whole > 0) gemm__cpu_pool_run(gemm__cpu_batch_task, &cb);
    else gemm__cpu_batch_task(&cb, 0);
    gemm__cpu_batch_cut(&cb);
    if (cb.job.threads > 1) gemm__cpu_pool_release();
    GEMM_FREE(raw);
    return GEMM_OK;
}

/* Member addresses of the pointer-array form, read with the lists' own types. */
static uint64_t gemm__cpu_addr_cs(const void *list, int64_t i) { return (uintptr_t)((const float *const *)list)[i]; }
static uint64_t gemm__cpu_addr_s(const void *list, int64_t i) { return (uintptr_t)((float *const *)list)[i]; }
static uint64_t gemm__cpu_addr_cd(const void *list, int64_t i) { return (uintptr_t)((const double *const *)list)[i]; }
static uint64_t gemm__cpu_addr_d(const void *list, int64_t i) { return (uintptr_t)((double *const *)list)[i]; }

GEMM_DEF gemm_status gemm_cpu_sgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                    int64_t m, int64_t n, int64_t k,
                                                    float alpha, const float *A, int64_t lda, int64_t stride_a,
                                                    const float *B, int64_t ldb, int64_t stride_b,
                                                    float beta, float *C, int64_t ldc, int64_t stride_c,
                                                    int64_t batch_count, const gemm_cpu_options *options)
{
    const char *fn = "gemm_cpu_sgemm_strided_batched";
    gemm__problem p;
    gemm__batch bt;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare_strided(fn, layout, transa, transb, m, n, k, alpha == 0, A != NULL, lda, stride_a, B != NULL,
                              ldb, stride_b, beta == 1, C != NULL, ldc, stride_c, batch_count, &p, &bt);
    if (s != GEMM_OK) return s;
    return gemm__cpu_batch_gemm(fn, &p, &bt, GEMM_F32, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C, options);
}

GEMM_DEF gemm_status gemm_cpu_dgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                    int64_t m, int64_t n, int64_t k,
                                                    double alpha, const double *A, int64_t lda, int64_t stride_a,
                                                    const double *B, int64_t ldb, int64_t stride_b,
                                                    double beta, double *C, int64_t ldc, int64_t stride_c,
                                                    int64_t batch_count, const gemm_cpu_options *options)
{
    const char *fn = "gemm_cpu_dgemm_strided_batched";
    gemm__problem p;
    gemm__batch bt;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare_strided(fn, layout, transa, transb, m, n, k, alpha == 0, A != NULL, lda, stride_a, B != NULL,
                              ldb, stride_b, beta == 1, C != NULL, ldc, stride_c, batch_count, &p, &bt);
    if (s != GEMM_OK) return s;
    return gemm__cpu_batch_gemm(fn, &p, &bt, GEMM_F64, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C, options);
}

GEMM_DEF gemm_status gemm_cpu_sgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                            int64_t m, int64_t n, int64_t k,
                                            float alpha, const float *const A[], int64_t lda,
                                            const float *const B[], int64_t ldb,
                                            float beta, float *const C[], int64_t ldc,
                                            int64_t batch_count, const gemm_cpu_options *options)
{
    const char *fn = "gemm_cpu_sgemm_batched";
    gemm__problem p;
    gemm__batch bt;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare_batched(fn, layout, transa, transb, m, n, k, alpha == 0, A, lda, B, ldb, beta == 1, C, ldc,
                              batch_count, gemm__cpu_addr_cs, gemm__cpu_addr_s, sizeof(float), &p, &bt);
    if (s != GEMM_OK) return s;
    return gemm__cpu_batch_gemm(fn, &p, &bt, GEMM_F32, alpha, NULL, NULL, beta, NULL, options);
}

GEMM_DEF gemm_status gemm_cpu_dgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                            int64_t m, int64_t n, int64_t k,
                                            double alpha, const double *const A[], int64_t lda,
                                            const double *const B[], int64_t ldb,
                                            double beta, double *const C[], int64_t ldc,
                                            int64_t batch_count, const gemm_cpu_options *options)
{
    const char *fn = "gemm_cpu_dgemm_batched";
    gemm__problem p;
    gemm__batch bt;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare_batched(fn, layout, transa, transb, m, n, k, alpha == 0, A, lda, B, ldb, beta == 1, C, ldc,
                              batch_count, gemm__cpu_addr_cd, gemm__cpu_addr_d, sizeof(double), &p, &bt);
    if (s != GEMM_OK) return s;
    return gemm__cpu_batch_gemm(fn, &p, &bt, GEMM_F64, alpha, NULL, NULL, beta, NULL, options);
}

/* The front door's batches, declared in gemm.h: the CPU with default options. */
GEMM_DEF gemm_status gemm_sgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                int64_t m, int64_t n, int64_t k,
                                                float alpha, const float *A, int64_t lda, int64_t stride_a,
                                                const float *B, int64_t ldb, int64_t stride_b,
                                                float beta, float *C, int64_t ldc, int64_t stride_c,
                                                int64_t batch_count)
{
    return gemm_cpu_sgemm_strided_batched(layout, transa, transb, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b,
                                          beta, C, ldc, stride_c, batch_count, NULL);
}

GEMM_DEF gemm_status gemm_dgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                int64_t m, int64_t n, int64_t k,
                                                double alpha, const double *A, int64_t lda, int64_t stride_a,
                                                const double *B, int64_t ldb, int64_t stride_b,
                                                double beta, double *C, int64_t ldc, int64_t stride_c,
                                                int64_t batch_count)
{
    return gemm_cpu_dgemm_strided_batched(layout, transa, transb, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b,
                                          beta, C, ldc, stride_c, batch_count, NULL);
}

GEMM_DEF gemm_status gemm_sgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                        int64_t m, int64_t n, int64_t k,
                                        float alpha, const float *const A[], int64_t lda,
                                        const float *const B[], int64_t ldb,
                                        float beta, float *const C[], int64_t ldc, int64_t batch_count)
{
    return gemm_cpu_sgemm_batched(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, batch_count,
                                  NULL);
}

GEMM_DEF gemm_status gemm_dgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                        int64_t m, int64_t n, int64_t k,
                                        double alpha, const double *const A[], int64_t lda,
                                        const double *const B[], int64_t ldb,
                                        double beta, double *const C[], int64_t ldc, int64_t batch_count)
{
    return gemm_cpu_dgemm_batched(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, batch_count,
                                  NULL);
}

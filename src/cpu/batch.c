/* Batches: one gemm__problem (checked once, gemm__prepare_strided or
   gemm__prepare_batched) for every member, then each member through the
   single call's own driver (gemm__cpu_gemm), so its result is bitwise the
   single call's whatever the thread count (the single call's sums do not
   depend on its threads). Members that a single call runs on one thread
   go whole to the threads, which take shares of them from a shared
   counter, each member on one thread; members big enough to be cut over
   threads run one after the other, each cut as a single call is. */

/* The batch's members and threads; read-only while the threads run,
   except `next` and `status`. */
typedef struct gemm__cpu_batch {
    const char *func;
    const gemm__problem *p;
    const gemm__batch *bt; /* where each member's operands are */
    gemm_precision precision;
    double alpha, beta;
    const char *a, *b;     /* member 0's canonical a and b, and C (strided form) */
    char *c;
    int64_t es;            /* bytes of one element */
    int threads;           /* threads taking whole members */
    int64_t group;         /* the fewest members taken at a time */
    int64_t next;          /* the next member to take */
    int status;            /* the first failure of a member (gemm_status), else GEMM_OK */
} gemm__cpu_batch;

/* Member i's operands. */
static void gemm__cpu_member(const gemm__cpu_batch *cb, int64_t i, const char **a, const char **b, char **c)
{
    const gemm__batch *bt = cb->bt;
    if (bt->c_list) { /* the lists of A and B may be NULL when alpha == 0 or k == 0 */
        *a = bt->a_list ? (const char *)(uintptr_t)bt->addr_ab(bt->a_list, i) : NULL;
        *b = bt->b_list ? (const char *)(uintptr_t)bt->addr_ab(bt->b_list, i) : NULL;
        *c = (char *)(uintptr_t)bt->addr_c(bt->c_list, i);
    } else {
        *a = cb->a ? cb->a + i * bt->stride_a * cb->es : NULL;
        *b = cb->b ? cb->b + i * bt->stride_b * cb->es : NULL;
        *c = cb->c + i * bt->stride_c * cb->es;
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
    int64_t count = cb->bt->count, left = count - GEMM__CPU_LOAD(cb->next), n = left / ((int64_t)cb->threads * 4);
    if (n < cb->group) n = cb->group;
    *first = GEMM__CPU_TAKE_N(cb->next, n);
    *end = gemm__cpu_min(*first + n, count);
    return *first < count;
}

/* One thread's share of the members: taken until none is left, each
   computed by the single call's driver on this thread alone. */
static void gemm__cpu_batch_task(void *arg, int tid)
{
    gemm__cpu_batch *cb = (gemm__cpu_batch *)arg;
    gemm_cpu_options alone = {0};
    const char *a, *b;
    char *c;
    int64_t i, end;
    gemm_status s;
    if (tid >= cb->threads) return;
    alone.threads = 1;
    while (gemm__cpu_batch_take(cb, &i, &end)) {
        for (; i < end; i++) {
            gemm__cpu_member(cb, i, &a, &b, &c);
            s = gemm__cpu_gemm(cb->func, cb->p, cb->precision, cb->alpha, a, b, cb->beta, c, &alone);
            if (s != GEMM_OK) GEMM__CPU_STORE(cb->status, (int)s);
        }
    }
}

/* The members one after the other, each cut over the threads as a single
   call with the caller's options is. */
static gemm_status gemm__cpu_batch_each(gemm__cpu_batch *cb, const gemm_cpu_options *options)
{
    const char *a, *b;
    char *c;
    int64_t i;
    gemm_status s;
    for (i = 0; i < cb->bt->count; i++) {
        gemm__cpu_member(cb, i, &a, &b, &c);
        if ((s = gemm__cpu_gemm(cb->func, cb->p, cb->precision, cb->alpha, a, b, cb->beta, c, options)) != GEMM_OK)
            return s;
    }
    return GEMM_OK;
}

/* The one batch driver behind both precisions and both forms: p and bt
   from the batch checks, a and b member 0's canonical operands (strided;
   NULL for the pointer-array form), alpha and beta the caller's scalars.
   A member that runs out of memory fails the batch; members computed
   before it keep their results (a whole batch's workspace is not taken up
   front: each member takes what its single call takes). */
static gemm_status gemm__cpu_batch_gemm(const char *func, const gemm__problem *p, const gemm__batch *bt,
                                        gemm_precision precision, double alpha, const void *a, const void *b,
                                        double beta, void *C, const gemm_cpu_options *options)
{
    gemm__cpu_batch cb;
    double flops = 2.0 * (double)p->m * (double)p->n * (double)p->k;
    int want;
    if (options && options->threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options->threads = %d is negative", func, options->threads);
    if (p->work == GEMM__WORK_NONE || bt->count == 0) return GEMM_OK;
    if (!gemm__cpu_isa_for_call())
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the test hook forces kernel \"%s\", which this build or CPU cannot run",
                          func, GEMM__HOOK(cpu_kernel, "?"));
    memset(&cb, 0, sizeof cb);
    cb.func = func;
    cb.p = p;
    cb.bt = bt;
    cb.precision = precision;
    cb.alpha = alpha;
    cb.beta = beta;
    cb.a = (const char *)a;
    cb.b = (const char *)b;
    cb.c = (char *)C;
    cb.es = (int64_t)gemm_precision_size(precision);
    want = gemm__cpu_threads_for_call(options);
    if (p->work == GEMM__WORK_FULL && gemm__cpu_threads_for_flops(flops, want) > 1)
        return gemm__cpu_batch_each(&cb, options); /* members a single call cuts over threads */
    want = gemm__cpu_threads_for_flops(flops * (double)bt->count, want);
    cb.threads = want > 1 ? gemm__cpu_pool_acquire(want) : 1;
    /* a take covers at least ~64K flops (about a microsecond), so tiny
       members do not queue on the shared counter */
    cb.group = flops >= 65536.0 ? 1 : (int64_t)(65536.0 / (flops > 1 ? flops : 1));
    if (cb.group > 64) cb.group = 64;
    if (cb.threads > 1) {
        gemm__cpu_pool_run(gemm__cpu_batch_task, &cb);
        gemm__cpu_pool_release();
    } else {
        gemm__cpu_batch_task(&cb, 0);
    }
    if (cb.status != GEMM_OK)
        return gemm__fail((gemm_status)cb.status, "%s: a member failed (%s)", func,
                          cb.status == GEMM_ERR_OUT_OF_MEMORY ? "no memory for its workspace" : "see the single call");
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

/* Threads run one call by taking chunks (rectangles of C) from a shared
   counter until none is left. Below GEMM__CPU_THREADED flops a call runs
   on one thread; from GEMM__CPU_CHUNKY there are 4 chunks per thread, so a
   thread the OS runs late costs a chunk, not half the call. */
#define GEMM__CPU_THREADED (2.0 * 56.0 * 56.0 * 56.0)
#define GEMM__CPU_CHUNKY (2.0 * 256.0 * 256.0 * 256.0)

/* Part i of `parts` of [0, len), cut at multiples of unit, so every thread
   sees the same tiles whatever the thread count. */
static void gemm__cpu_split(int64_t len, int parts, int i, int unit, int64_t *lo, int64_t *hi)
{
    int64_t units = (len + unit - 1) / unit;
    *lo = gemm__cpu_min(units * i / parts * unit, len);
    *hi = gemm__cpu_min(units * (i + 1) / parts * unit, len);
}

/* A grid tm x tn of `chunks` rectangles over (m, n): the most square ones
   (the least packing repeated across chunks), splitting N on a tie. */
static void gemm__cpu_grid(int chunks, int64_t m, int64_t n, int mr, int nr, int *tm, int *tn)
{
    int c, t;
    double best = -1;
    *tm = *tn = 1;
    for (c = chunks; c > 1 && best < 0; c--) /* fewer chunks when C has fewer tiles */
        for (t = 1; t <= c; t++) {
            int u = c / t;
            double rm = (double)m / t, rn = (double)n / u, score = rm < rn ? rm / rn : rn / rm;
            if (c % t || t > (m + mr - 1) / mr || u > (n + nr - 1) / nr || score <= best) continue;
            best = score;
            *tm = t;
            *tn = u;
        }
}

/* How many threads the job runs on (taking the pool when more than one;
   the caller releases it) and its grid of chunks. */
static void gemm__cpu_plan_threads(gemm__cpu_job *jb, int want)
{
    const gemm__problem *p = jb->p;
    double flops = 2.0 * (double)p->m * (double)p->n * (double)p->k;
    int threads = flops < GEMM__CPU_THREADED ? 1 : gemm__cpu_pool_acquire(want);
    gemm__cpu_grid(threads * (threads > 1 && flops >= GEMM__CPU_CHUNKY ? 4 : 1), p->m, p->n, jb->uk->mr, jb->uk->nr,
                   &jb->tm, &jb->tn);
    jb->threads = threads;
}

/* One thread's share of the job: chunks taken until none is left, each
   computed with this thread's workspace. */
static void gemm__cpu_task(void *arg, int tid)
{
    gemm__cpu_job *jb = (gemm__cpu_job *)arg;
    int64_t m0, m1, n0, n1;
    char *w;
    int c;
    if (tid >= jb->threads) return; /* a worker this call has no workspace for */
    w = jb->ws + (size_t)tid * jb->ws_stride;
    while ((c = GEMM__CPU_TAKE(jb->next)) < jb->tm * jb->tn) {
        gemm__cpu_split(jb->p->m, jb->tm, c % jb->tm, jb->uk->mr, &m0, &m1);
        gemm__cpu_split(jb->p->n, jb->tn, c / jb->tm, jb->uk->nr, &n0, &n1);
        if (m0 < m1 && n0 < n1) gemm__cpu_loop_jc(jb, m0, m1, n0, n1, w, w + jb->ws_a);
    }
}

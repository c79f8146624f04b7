/* The direct path: the micro-kernel on the caller's matrices where they
   are, tile by tile over C, without packing, blocking or allocation. Small
   products take it (up to m*n*k = 128^3, measured: below that packing
   costs more than it saves, and at a few elements the fixed costs are all
   there is), and so does any call whose alpha is Inf or NaN: each tile
   then sums all of k before alpha multiplies it, as the reference does, so
   alpha = Inf gives +-Inf where the sum is non-zero, not Inf - Inf = NaN
   from k blocks of opposite signs. The kernel reads op(a) by columns of
   contiguous rows; a transposed op(a) is first copied, MR rows at a time,
   into a panel (on the stack, or from the workspace for a very deep k). */
#define GEMM__CPU_DIRECT_MAX (128.0 * 128.0 * 128.0)
#define GEMM__CPU_PANEL_BYTES 8192 /* the stack panel: MR x 64 in either precision on AVX-512 */

static int gemm__cpu_finite(double x) { return x - x == 0; }

/* Whether a call takes the direct path: from its shape and alpha alone,
   never the thread count, so the result's bits do not depend on it. */
static int gemm__cpu_plan_direct(const gemm__problem *p, const gemm__cpu_microkernel *uk, int64_t es, double alpha)
{
    int forced = GEMM__HOOK(cpu_path, 0); /* tests: 1 packed, 2 direct */
    if (!gemm__cpu_finite(alpha) || forced == 2) return 1;
    if (forced == 1) return 0;
    if ((double)p->m * (double)p->n * (double)p->k > GEMM__CPU_DIRECT_MAX) return 0;
    return p->ars == 1 || uk->mr * p->k * es <= GEMM__CPU_PANEL_BYTES;
}

/* Products of at most GEMM__CPU_TINY multiply-adds (2 x 2 x 2): plain
   loops through the strides. A vector kernel's fixed cost (a dozen
   pointers and accumulators, masked moves) is several times theirs, and
   a caller making millions of 1x1 or 2x2 products (LAPACK's inner
   blocks) pays it every time. Each sum in k order, then
   C = alpha*sum + beta*C (beta == 0: C not read), as everywhere. */
#define GEMM__CPU_TINY 8

static void gemm__cpu_tiny_f32(const gemm__problem *p, float alpha, const float *a, const float *b, float beta,
                               float *c)
{
    int64_t i, j, q;
    for (j = 0; j < p->n; j++)
        for (i = 0; i < p->m; i++) {
            float sum = 0, *cij = c + i + j * p->ldc;
            for (q = 0; q < p->k; q++) sum += a[i * p->ars + q * p->acs] * b[q * p->brs + j * p->bcs];
            *cij = beta == 0 ? alpha * sum : alpha * sum + beta * *cij;
        }
}

static void gemm__cpu_tiny_f64(const gemm__problem *p, double alpha, const double *a, const double *b, double beta,
                               double *c)
{
    int64_t i, j, q;
    for (j = 0; j < p->n; j++)
        for (i = 0; i < p->m; i++) {
            double sum = 0, *cij = c + i + j * p->ldc;
            for (q = 0; q < p->k; q++) sum += a[i * p->ars + q * p->acs] * b[q * p->brs + j * p->bcs];
            *cij = beta == 0 ? alpha * sum : alpha * sum + beta * *cij;
        }
}

/* Bytes of A panel a thread needs beyond its stack panel (0: none). */
static size_t gemm__cpu_direct_panel_bytes(const gemm__problem *p, const gemm__cpu_microkernel *uk, int64_t es)
{
    int64_t bytes = uk->mr * p->k * es;
    return p->ars == 1 || bytes <= GEMM__CPU_PANEL_BYTES ? 0 : (size_t)gemm__cpu_round_up(bytes, 64);
}

/* A batch's next member, brought into cache a few lines per tile while
   the direct path computes the current one. A batch's members stream from
   memory (10,000 products of 32^3 fp64 are 240 MiB), and the kernel walks
   op(a) by columns and op(b) by 8 columns at once, which the hardware
   prefetchers follow late: on the 2-core EPYC a member from memory took
   1.7x (32^3 fp64) and 1.5x (128^3) the time of the same member in cache.
   Prefetches change no arithmetic. Up to three rectangles (op(a), op(b),
   C), each `runs` contiguous runs of `len` bytes `step` bytes apart,
   walked line by line from a cursor. */
struct gemm__cpu_ahead {
    uintptr_t base[3];
    int64_t len[3], runs[3], step[3];
    int write[3], parts;
    int part;          /* the cursor: rectangle, run (`at` bytes from its base), bytes past the run's first line */
    int64_t run, off;
    uintptr_t at;
    int64_t per_tile;  /* lines each tile of the current member prefetches */
};

#if defined(__GNUC__) || defined(__clang__)
#define GEMM__CPU_PREFETCH_AHEAD(p, w) ((w) ? __builtin_prefetch(p, 1, 2) : __builtin_prefetch(p, 0, 2))
#else
#define GEMM__CPU_PREFETCH_AHEAD(p, w) ((void)(p), (void)(w))
#endif

/* Adds a rectangle of elements (i, j) at base + (i*is + j*js)*es, rows x
   cols, to the lines ahead; one of its strides is 1 (the canonical form). */
static void gemm__cpu_ahead_add(gemm__cpu_ahead *ah, const void *base, int64_t rows, int64_t cols, int64_t is,
                                int64_t js, int64_t es, int write)
{
    int x = ah->parts;
    if (!base || rows <= 0 || cols <= 0 || (is != 1 && js != 1)) return;
    if (is != 1) { /* rows contiguous: runs are rows */
        int64_t t = rows;
        rows = cols;
        cols = t;
        js = is;
    }
    if (js * es == rows * es) { /* dense: one run */
        rows *= cols;
        cols = 1;
    }
    ah->base[x] = (uintptr_t)base;
    ah->len[x] = rows * es;
    ah->runs[x] = cols;
    ah->step[x] = js * es;
    ah->write[x] = write;
    ah->parts = x + 1;
}

/* Prefetches the next `lines` lines ahead (none once all are done). */
static void gemm__cpu_prefetch_ahead(gemm__cpu_ahead *ah, int64_t lines)
{
    while (lines > 0 && ah->part < ah->parts) {
        int x = ah->part;
        uintptr_t first = ah->base[x] + ah->at, line = (first & ~(uintptr_t)63) + (uintptr_t)ah->off;
        uintptr_t end = first + (uintptr_t)ah->len[x];
        uintptr_t stop = (end - line) / 64 < (uintptr_t)lines ? end : line + 64 * (uintptr_t)lines;
        if (ah->write[x])
            for (; line < stop; line += 64) GEMM__CPU_PREFETCH_AHEAD((const void *)line, 1);
        else
            for (; line < stop; line += 64) GEMM__CPU_PREFETCH_AHEAD((const void *)line, 0);
        lines -= (int64_t)((line - (first & ~(uintptr_t)63) - (uintptr_t)ah->off) / 64);
        ah->off = (int64_t)(line - (first & ~(uintptr_t)63));
        if (line >= end) { /* past the run's last line: the next run */
            ah->off = 0;
            ah->at += (uintptr_t)ah->step[x];
            if (++ah->run == ah->runs[x]) {
                ah->run = 0;
                ah->at = 0;
                ah->part++;
            }
        }
    }
}

/* C[m0:m1, n0:n1] of the job, tile by tile; panel holds MR x k elements. */
static void gemm__cpu_direct_rect(const gemm__cpu_job *jb, int64_t m0, int64_t m1, int64_t n0, int64_t n1,
                                  char *panel)
{
    const gemm__problem *p = jb->p;
    int64_t i0, j0, i, mr = jb->uk->mr, nr = jb->uk->nr, es = jb->es;
    for (i0 = m0; i0 < m1; i0 += mr) {
        int64_t mw = gemm__cpu_min(mr, m1 - i0), as = mr;
        const char *ap = panel;
        if (p->ars == 1) {
            ap = jb->a + i0 * es;
            as = p->acs;
        } else { /* rows of op(a) are contiguous (acs == 1): panel[q*mr + i] = op(a)[i0 + i, q] */
            for (i = 0; i < mw; i++) gemm__cpu_copy(panel + i * es, mr, jb->a + (i0 + i) * p->ars * es, 1, p->k, es);
        }
        for (j0 = n0; j0 < n1; j0 += nr) {
            if (jb->ahead) gemm__cpu_prefetch_ahead(jb->ahead, jb->ahead->per_tile);
            jb->uk->direct(p->k, ap, as, jb->b + j0 * p->bcs * es, p->brs, p->bcs, jb->alpha, jb->beta,
                           jb->c + (i0 + j0 * p->ldc) * es, p->ldc, mw, gemm__cpu_min(nr, n1 - j0));
        }
    }
}

/* The direct path: the micro-kernel on the caller's matrices where they
   are, tile by tile over C, without packing, blocking or allocation. Small
   products take it (up to m*n*k = 128^3, measured: below that packing
   costs more than it saves, and at a few elements the fixed costs are all
   there is), and so does any call whose alpha is Inf or NaN: each tile
   then sums all of k before alpha multiplies it, as the reference does, so
   alpha = Inf gives +-Inf where the sum is non-zero, not Inf - Inf = NaN
   from k blocks of opposite signs. The kernel reads op(a) by columns of
   contiguous rows; a transposed op(a) is first copied, MR rows at a time,
   into a panel (on the stack, or from the workspace for a very deep k),
   unless op(b) is transposed too: then C^T = op(b)^T op(a)^T reads both in
   place, each tile stored transposed (gemm__cpu_direct_rect_t). An op(a)
   read in place is copied too when its leading dimension would make its
   MR rows evict themselves from L1 (gemm__cpu_direct_aliases). */
#pragma once

#include <stdint.h>           /* uintptr_t */
#include "../core/internal.h" /* GEMM__HOOK */
#include "../core/problem.c"  /* GEMM__INLINE */
#include "cache_blocking.c"   /* gemm__cpu_min, gemm__cpu_round_up */
#include "job.h"              /* gemm__cpu_job */
#include "packing.c"          /* gemm__cpu_pack */
#include "platform.h"         /* GEMM__CPU_X86, GEMM__CPU_LOAD */

#define GEMM__CPU_DIRECT_MAX (128.0 * 128.0 * 128.0)
#define GEMM__CPU_PANEL_BYTES 16384 /* the stack panel: MR x 128 in either precision on AVX-512 */

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
   C = alpha*sum + beta*C (beta == 0: C not read), as everywhere. Inlined,
   so that the problem's fields stay in registers: a 1x1x1 call's whole
   cost is a few nanoseconds (small_call.c). */
#define GEMM__CPU_TINY 8

static GEMM__INLINE void gemm__cpu_tiny_f32(const gemm__problem *p, float alpha, const float *a, const float *b, float beta,
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

static GEMM__INLINE void gemm__cpu_tiny_f64(const gemm__problem *p, double alpha, const double *a, const double *b, double beta,
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

/* Whether MR rows of an op(a) read in place, k columns ld elements of es
   bytes apart, miss L1 on their own: the tiles of a row of C read them
   again and again, and a stride of a multiple of 512 bytes puts all k
   columns in a few of L1's 64 sets (the Xeon's 48 KiB of 12 ways and the
   EPYC's 32 KiB of 8 ways both have 64), where more lines than the ways
   evict each other. Such rows are copied into the stack panel (when they fit and
   serve more than one tile), which changes no arithmetic: the kernel reads
   the same values. Only on Intel's cores, where the misses cost: 128^3
   fp64 batches on the Xeon, lda = 128, ran at 47 GFLOP/s per thread in
   place and 54 with lda = 136 or the rows copied. The EPYC (Zen 4) ran
   lda = 128 and 136 alike, and the copy cost it 4-5% at 128^3; copying
   where nothing aliases cost it up to a quarter at 16^3. */
static int gemm__cpu_direct_aliases(int64_t ld, int64_t es, int64_t k, int64_t row_bytes)
{
    int64_t lines = (row_bytes + 63) / 64, step, sets = 64;
    if (k < 2 || ld > ((int64_t)1 << 40)) return 0; /* one column (any ld is legal), or no product fits */
    if (ld * es % 64) return 0;                /* a stride off the lines walks through every set */
    step = ld * es / 64;
    while (sets > 1 && step % 2 == 0) {        /* the sets the columns start in: 64 / gcd(step, 64) */
        step /= 2;
        sets /= 2;
    }
    return k * lines > gemm__cpu_min(64, sets * lines) * 8; /* more lines than 8 ways of their sets hold */
}

/* Whether this CPU's direct path copies aliasing rows (read once). */
static int gemm__cpu_direct_copies_strips(void)
{
    static int intel = -1;
    int forced = GEMM__HOOK(cpu_strip_copy, 0); /* tests: 1 on any CPU, 2 never */
    if (forced) return forced == 1;
    if (GEMM__CPU_LOAD(intel) < 0) {
#if defined(GEMM__CPU_X86)
        __builtin_cpu_init();
        GEMM__CPU_STORE(intel, __builtin_cpu_is("intel") ? 1 : 0);
#else
        GEMM__CPU_STORE(intel, 0);
#endif
    }
    return GEMM__CPU_LOAD(intel);
}

/* Whether a product reads both operands in place as C^T = op(b)^T op(a)^T
   (gemm__cpu_direct_rect_t): op(a) transposed (its rows contiguous, which
   the kernel would otherwise copy) and op(b) transposed too (its rows
   contiguous: op(b)^T's columns, what the kernel reads in place), on a
   kernel that stores its tile transposed. Not where MR rows of op(b)^T
   would be copied to keep them from aliasing in L1 (gemm__cpu_direct_aliases). */
static int gemm__cpu_direct_swaps(const gemm__problem *p, const gemm__cpu_microkernel *uk, int64_t es)
{
    return uk->direct_t && p->ars != 1 && p->bcs == 1 &&
           !(gemm__cpu_direct_copies_strips() && gemm__cpu_direct_aliases(p->brs, es, p->k, uk->mr * es));
}

/* C[m0:m1, n0:n1] of the job as C^T's tiles: MR columns of C (rows of
   op(b)^T, read in place) by NR rows (columns of op(a)^T, rows of op(a)
   read in place), each tile stored transposed. The same tiles' terms as
   gemm__cpu_direct_rect's, in the same order, so the same bits. */
static void gemm__cpu_direct_rect_t(const gemm__cpu_job *jb, int64_t m0, int64_t m1, int64_t n0, int64_t n1)
{
    const gemm__problem *p = jb->p;
    int64_t i0, j0, mr = jb->uk->mr, nr = jb->uk->nr, es = jb->es, lines = 0;
    if (jb->ahead) { /* a batch's per_tile is per MR x NR tile of C; these are NR x MR: as many lines in all */
        int64_t tiles = ((m1 - m0 + mr - 1) / mr) * ((n1 - n0 + nr - 1) / nr);
        int64_t these = ((n1 - n0 + mr - 1) / mr) * ((m1 - m0 + nr - 1) / nr);
        lines = (jb->ahead->per_tile * tiles + these - 1) / these;
    }
    for (j0 = n0; j0 < n1; j0 += mr)
        for (i0 = m0; i0 < m1; i0 += nr) {
            if (jb->ahead) gemm__cpu_prefetch_ahead(jb->ahead, lines);
            jb->uk->direct_t(p->k, jb->b + j0 * es, p->brs, jb->a + i0 * p->ars * es, p->acs, p->ars, jb->alpha,
                             jb->beta, jb->c + (i0 + j0 * p->ldc) * es, p->ldc, gemm__cpu_min(mr, n1 - j0),
                             gemm__cpu_min(nr, m1 - i0));
        }
}

/* C[m0:m1, n0:n1] of the job, tile by tile; panel holds MR x k elements. */
static void gemm__cpu_direct_rect(const gemm__cpu_job *jb, int64_t m0, int64_t m1, int64_t n0, int64_t n1,
                                  char *panel)
{
    const gemm__problem *p = jb->p;
    int64_t i0, j0, mr = jb->uk->mr, nr = jb->uk->nr, es = jb->es;
    if (gemm__cpu_direct_swaps(p, jb->uk, es)) {
        gemm__cpu_direct_rect_t(jb, m0, m1, n0, n1);
        return;
    }
    int copy_strips = p->ars == 1 && n1 - n0 > nr && mr * p->k * es <= GEMM__CPU_PANEL_BYTES &&
                      gemm__cpu_direct_copies_strips() && gemm__cpu_direct_aliases(p->acs, es, p->k, mr * es);
    int64_t nw;
    for (i0 = m0; i0 < m1; i0 += mr) {
        int64_t mw = gemm__cpu_min(mr, m1 - i0), as = mr;
        const char *ap = panel;
        if (p->ars == 1 && !copy_strips) {
            ap = jb->a + i0 * es;
            as = p->acs;
        } else if (p->ars == 1) { /* the packed path's A panel: panel[q*mr + i] = op(a)[i0 + i, q] */
            gemm__cpu_pack(panel, jb->a + i0 * es, 1, p->acs, mw, p->k, (int)mr, 0, jb->uk->pack_a, NULL, es);
        } else { /* rows of op(a) are contiguous (acs == 1): panel[q*mr + i] = op(a)[i0 + i, q] */
            jb->uk->copy_rows(panel, mr, jb->a + i0 * p->ars * es, p->ars, mw, p->k, es);
        }
        for (j0 = n0; j0 < n1; j0 += nw) {
            /* a row block of one whole vector: tiles twice as wide (direct_wide says why) */
            int whole = jb->uk->direct_wide && mw == mr / 2 && n1 - j0 >= 2 * nr;
            nw = whole ? 2 * nr : gemm__cpu_min(nr, n1 - j0);
            if (jb->ahead) gemm__cpu_prefetch_ahead(jb->ahead, whole ? 2 * jb->ahead->per_tile : jb->ahead->per_tile);
            (whole ? jb->uk->direct_wide : jb->uk->direct)(p->k, ap, as, jb->b + j0 * p->bcs * es, p->brs, p->bcs,
                                                           jb->alpha, jb->beta, jb->c + (i0 + j0 * p->ldc) * es,
                                                           p->ldc, mw, nw);
        }
    }
}

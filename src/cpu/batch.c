/* Batches: one gemm__problem (checked once, gemm__prepare_strided or
   gemm__prepare_batched) for every member, then each member through the
   single call's own driver (gemm__cpu_gemm), so its result is bitwise the
   single call's whatever the thread count (the single call's sums do not
   depend on its threads). Members that a single call runs on one thread
   go whole to the threads, which take shares of them from a shared
   counter, each member on one thread; so do bigger members when there are
   at least 4 per thread; fewer big ones run one after the other, each cut
   over the threads as a single call is. A thread running whole members
   takes the single call's path (chosen once for the batch: it depends on
   the shape and alpha alone) without its per-call checks, and brings the
   next member into cache while it computes the current one. Members of
   m, n, k each at most 64 take the small path instead (small_kernels.c):
   a thread's share of strided members in one kernel call, with the direct
   kernel's arithmetic, so the single call's bits.

   A batch stops at its first failing member: the members before it are
   written, it and those after it are not, and the detail says so. Members
   run one after the other stop there at once. Threads taking whole
   members get their workspaces before any member runs (each as large as
   one member alone takes; the pool's kept block when threaded), so no
   member of theirs can fail for want of memory once one has run: a batch
   refused for it writes nothing. */
#pragma once

#include <stdint.h>           /* uintptr_t */
#include <string.h>           /* memset, memcpy, strlen, strncmp */
#include "../core/config.h"   /* GEMM_MALLOC, GEMM_FREE */
#include "../core/internal.h" /* gemm__batch, gemm__prepare_strided, gemm__prepare_batched */
#include "../core/lists.c"    /* gemm__pointer_list_addr */
#include "../core/overlap.c"  /* gemm__check_batch_overlap */
#include "batch_api.h"
#include "cache_blocking.c"   /* gemm__cpu_round_up, gemm__cpu_min */
#include "cache_info.c"       /* gemm__cpu_cache_sizes */
#include "direct.c"           /* gemm__cpu_ahead, gemm__cpu_direct_rect */
#include "driver.c"           /* gemm__cpu_gemm, gemm__cpu_path */
#include "thread_pool.c"      /* gemm__cpu_pool_* */
#include "threads.c"          /* gemm__cpu_threads_for_call */
#include "verify.c"           /* gemm__cpu_verified */

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
    const gemm__cpu_microkernel *uk; /* the precision's kernels */
    int path;              /* every member's path (gemm__cpu_path) */
    int prefetch;          /* the path walks tiles that can bring the next member in */
    int ahead;             /* the small path's strided members bring the next one in (gemm__cpu_small_args) */
    int64_t tiles;         /* a member's MR x NR tiles (the direct path) */
    char *ws;              /* threads taking whole members: thread t's workspace at ws + t*ws_bytes */
    size_t ws_bytes;       /*   (NULL: their path needs none) */
    int verify;            /* every member verified (the `verify` option) */
    double *vws;           /* then thread t's sums at vws + t*v_doubles (threads taking whole members) */
    size_t v_doubles;
    int64_t next;          /* the next member to take */
    int64_t stop;          /* the lowest member that failed (count: none); no member after it starts */
    int status;            /* the first failure of a member (gemm_status), else GEMM_OK */
    int64_t failed;        /* that member */
    int claimed;           /* 1 once a failing member has claimed `detail` */
    char detail[512];      /* its single call's detail, past the function's name */
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

/* Keeps the first failing member's status and its single call's detail
   (written on this thread), for the batch's own detail, and stops the
   members after it from starting. */
static void gemm__cpu_batch_failed(gemm__cpu_batch *cb, int64_t i, gemm_status s)
{
    const char *d = gemm_last_error_detail();
    size_t skip = strlen(cb->func), len;
#if defined(__GNUC__) || defined(__clang__)
    int none = 0;
    int64_t stop = GEMM__CPU_LOAD(cb->stop);
    while (i < stop && !__atomic_compare_exchange_n(&cb->stop, &stop, i, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {}
    if (!__atomic_compare_exchange_n(&cb->claimed, &none, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return;
#else
    if (i < cb->stop) cb->stop = i;
    if (cb->claimed) return; /* no threads without GCC-style atomics */
    cb->claimed = 1;
#endif
    if (strncmp(d, cb->func, skip) == 0 && d[skip] == ':') d += skip + 1 + (d[skip + 1] == ' ');
    len = strlen(d) < sizeof cb->detail ? strlen(d) : sizeof cb->detail - 1;
    memcpy(cb->detail, d, len);
    cb->detail[len] = '\0';
    cb->failed = i;
    GEMM__CPU_STORE(cb->status, (int)s);
}

/* The batch's status: a failed member's, with its index, its single
   call's detail, and which members were written. Members run one after the
   other (one thread, or each cut over the threads) stop exactly there;
   threads taking whole members cannot fail once their workspaces are had,
   but should one, the others finish the members they have begun. */
static gemm_status gemm__cpu_batch_status(const gemm__cpu_batch *cb)
{
    const char *written = cb->status == GEMM_ERR_VERIFY
                              ? (cb->threads > 1 ? "it and the members before it were written, and of those after it "
                                                   "only ones other threads had begun may have been"
                                                 : "it and the members before it were written, those after it were not")
                          : cb->failed == 0 ? "no member was written"
                          : cb->threads > 1 ? "members before it were written, it was not, and of those after it "
                                              "only ones other threads had begun may have been"
                                            : "members before it were written, it and those after it were not";
    if (cb->status == GEMM_OK) return GEMM_OK;
    return gemm__fail((gemm_status)cb->status, "%s: member %lld of %lld failed: %s; %s", cb->func,
                      (long long)cb->failed, (long long)cb->bt->count, cb->detail, written);
}

/* Member i on thread tid, as the single call computes it; `next` (NULL:
   none) is brought into cache meanwhile. jb: this thread's direct job. */
static gemm_status gemm__cpu_batch_one(gemm__cpu_batch *cb, gemm__cpu_job *jb, int tid, const char *a, const char *b,
                                       char *c, gemm__cpu_ahead *next)
{
    const gemm__problem *p = cb->p;
    gemm_cpu_options alone = {1, 0}; /* one thread */
    if (cb->verify)
        return gemm__cpu_verified(cb->func, p, cb->precision, cb->alpha, a, b, cb->beta, c, &alone,
                                  cb->ws ? cb->ws + (size_t)tid * cb->ws_bytes : NULL, cb->ws_bytes,
                                  cb->vws + (size_t)tid * cb->v_doubles, -1);
    if (cb->path == GEMM__CPU_PATH_TILE) {
        cb->uk->direct(p->k, a, p->acs, b, p->brs, p->bcs, cb->alpha, cb->beta, c, p->ldc, p->m, p->n);
        return GEMM_OK;
    }
    if (cb->path == GEMM__CPU_PATH_DIRECT && !gemm__cpu_direct_panel_bytes(p, cb->uk, cb->es)) {
        double stack_panel[GEMM__CPU_PANEL_BYTES / sizeof(double)];
        jb->a = a;
        jb->b = b;
        jb->c = c;
        jb->ahead = next;
        if (next) next->per_tile = (next->per_tile + cb->tiles - 1) / cb->tiles;
        gemm__cpu_direct_rect(jb, 0, p->m, 0, p->n, (char *)stack_panel);
        return GEMM_OK;
    }
    /* the tiny loops, the packed path, C = beta*C, a direct path with a panel */
    return gemm__cpu_gemm_lent(cb->func, p, cb->precision, cb->alpha, a, b, cb->beta, c, &alone,
                               cb->ws ? cb->ws + (size_t)tid * cb->ws_bytes : NULL, cb->ws_bytes);
}

/* The lines of member i's operands (op(a), op(b), C), with per_tile
   holding how many there are. */
static void gemm__cpu_batch_ahead(const gemm__cpu_batch *cb, int64_t i, gemm__cpu_ahead *ah)
{
    const gemm__problem *p = cb->p;
    const char *a, *b;
    char *c;
    int x;
    gemm__cpu_member(cb, i, &a, &b, &c);
    memset(ah, 0, sizeof *ah);
    gemm__cpu_ahead_add(ah, a, p->m, p->k, p->ars, p->acs, cb->es, 0);
    gemm__cpu_ahead_add(ah, b, p->k, p->n, p->brs, p->bcs, cb->es, 0);
    gemm__cpu_ahead_add(ah, c, p->m, p->n, 1, p->ldc, cb->es, 1);
    for (x = 0; x < ah->parts; x++) ah->per_tile += ah->runs[x] * (ah->len[x] / 64 + 2);
}

/* One thread's share of members on the small path: each take of strided
   members in one call of the small kernel (member i's operands at fixed
   strides from member 0's), listed members one call each; the kernel's
   arguments are set up once, here. Such members cannot fail. */
static void gemm__cpu_batch_small(gemm__cpu_batch *cb)
{
    const gemm__problem *p = cb->p;
    const gemm__batch *bt = cb->bt;
    gemm__cpu_small_args sa;
    const char *a, *b;
    char *c;
    int64_t i, end, w = gemm__cpu_small_panel_rows(p, cb->es);
    gemm__cpu_small_setup(&sa, p, NULL, NULL, NULL, cb->alpha, cb->beta);
    if (!bt->c_list) {
        sa.sa = bt->stride_a;
        sa.sb = bt->stride_b;
        sa.sc = bt->stride_c;
        sa.ahead = cb->ahead;
    }
    while (gemm__cpu_batch_take(cb, &i, &end)) {
        if (!bt->c_list) {
            gemm__cpu_member(cb, i, &a, &b, &c);
            sa.a = a;
            sa.b = b;
            sa.c = c;
            gemm__cpu_small_run(cb->uk, &sa, end - i, p->ars, w, cb->es);
            continue;
        }
        for (; i < end; i++) {
            gemm__cpu_member(cb, i, &a, &b, &c);
            sa.a = a;
            sa.b = b;
            sa.c = c;
            gemm__cpu_small_run(cb->uk, &sa, 1, p->ars, w, cb->es);
        }
    }
}

/* One thread's share of the members: taken until none is left, each
   computed as the single call computes it on this thread alone. */
static void gemm__cpu_batch_task(void *arg, int tid)
{
    gemm__cpu_batch *cb = (gemm__cpu_batch *)arg;
    gemm__cpu_job jb;
    gemm__cpu_ahead ahead;
    const char *a, *b;
    char *c;
    int64_t i, end;
    gemm_status s;
    if (tid >= cb->threads) return;
    if (cb->path == GEMM__CPU_PATH_SMALL && !cb->verify) {
        gemm__cpu_batch_small(cb);
        return;
    }
    memset(&jb, 0, sizeof jb);
    jb.p = cb->p;
    jb.es = cb->es;
    jb.alpha = cb->alpha;
    jb.beta = cb->beta;
    jb.uk = cb->uk;
    jb.threads = 1;
    while (gemm__cpu_batch_take(cb, &i, &end)) {
        for (; i < end; i++) {
            if (i > GEMM__CPU_LOAD(cb->stop)) return; /* a member before it failed: so did every later take */
            gemm__cpu_member(cb, i, &a, &b, &c);
            if (cb->prefetch && i + 1 < end) gemm__cpu_batch_ahead(cb, i + 1, &ahead);
            s = gemm__cpu_batch_one(cb, &jb, tid, a, b, c, cb->prefetch && i + 1 < end ? &ahead : NULL);
            if (s != GEMM_OK) gemm__cpu_batch_failed(cb, i, s);
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
        s = cb->verify ? gemm__cpu_verified(cb->func, cb->p, cb->precision, cb->alpha, a, b, cb->beta, c, options,
                                            NULL, 0, NULL, -1)
                       : gemm__cpu_gemm(cb->func, cb->p, cb->precision, cb->alpha, a, b, cb->beta, c, options);
        if (s != GEMM_OK) {
            gemm__cpu_batch_failed(cb, i, s);
            return gemm__cpu_batch_status(cb);
        }
    }
    return GEMM_OK;
}

/* The workspaces of threads taking whole members, each what one member
   alone takes: the pool's kept block when threaded, else a fresh one
   (*raw). A refusal (no memory; k too deep for the counters) writes no
   member and releases the pool. */
static gemm_status gemm__cpu_batch_workspaces(gemm__cpu_batch *cb, char **raw)
{
    size_t alone, total;
    char *block;
    gemm_status s = gemm__cpu_alone_bytes(cb->func, cb->p, cb->uk, cb->es, cb->path, &alone);
    size_t vbytes = 0;
    *raw = NULL;
    if (cb->verify) { /* each thread's sums, after its workspace */
        cb->v_doubles = gemm__verify_doubles(cb->p->m, cb->p->n, cb->p->k);
        vbytes = cb->v_doubles * sizeof(double) * (size_t)cb->threads;
    }
    if (s == GEMM_OK && alone + vbytes > 0) {
        cb->ws_bytes = (size_t)gemm__cpu_round_up((int64_t)alone, 64);
        total = cb->ws_bytes * (size_t)cb->threads + vbytes;
        block = cb->threads > 1 ? gemm__cpu_pool_workspace(total) : (*raw = (char *)GEMM_MALLOC(total));
        if (!block)
            s = gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for the workspaces of %d thread(s) taking whole "
                           "members, %llu bytes", cb->func, cb->threads, (unsigned long long)total);
        cb->ws = alone > 0 ? block : NULL;
        if (block && cb->verify) cb->vws = (double *)(block + cb->ws_bytes * (size_t)cb->threads);
    }
    if (s == GEMM_OK) return GEMM_OK;
    if (cb->threads > 1) gemm__cpu_pool_release();
    {
        char cause[512];
        size_t len = strlen(gemm_last_error_detail());
        len = len < sizeof cause ? len : sizeof cause - 1;
        memcpy(cause, gemm_last_error_detail(), len);
        cause[len] = '\0';
        return gemm__fail(s, "%s; no member was written", cause);
    }
}

/* The one batch driver behind both precisions and both forms: p and bt
   from the batch checks, a and b member 0's canonical operands (strided;
   NULL for the pointer-array form), alpha and beta the caller's scalars.
   The batch stops at its first failing member (see the top of this part). */
static gemm_status gemm__cpu_batch_gemm(const char *func, const gemm__problem *p, const gemm__batch *bt,
                                        gemm_precision precision, double alpha, const void *a, const void *b,
                                        double beta, void *C, const gemm_cpu_options *options)
{
    gemm__cpu_batch cb;
    const gemm__cpu_isa *isa;
    double flops = 2.0 * (double)p->m * (double)p->n * (double)p->k, member_bytes, llc;
    int want, streams;
    char *raw;
    gemm_status s;
    if (options && options->threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options->threads = %d is negative", func, options->threads);
    if (p->work == GEMM__WORK_NONE || bt->count == 0) return GEMM_OK;
    if (!(isa = gemm__cpu_isa_for_call()))
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the test hook forces kernel \"%s\", which this build or CPU cannot run",
                          func, GEMM__HOOK(cpu_kernel, "?"));
    memset(&cb, 0, sizeof cb);
    cb.stop = bt->count;
    cb.uk = precision == GEMM_F32 ? &isa->f32 : &isa->f64;
    cb.func = func;
    cb.p = p;
    cb.bt = bt;
    cb.precision = precision;
    cb.alpha = alpha;
    cb.beta = beta;
    cb.a = (const char *)a;
    cb.b = (const char *)b;
    cb.c = (char *)C;
    cb.verify = options && options->verify;
    cb.es = (int64_t)gemm_precision_size(precision);
    cb.path = p->work == GEMM__WORK_FULL ? gemm__cpu_path(p, cb.uk, cb.es, alpha) : GEMM__CPU_PATH_PACKED;
    if (p->work == GEMM__WORK_FULL && !cb.verify && gemm__cpu_small_fits(p, cb.uk, cb.es, alpha, cb.path))
        cb.path = GEMM__CPU_PATH_SMALL;
    /* members of a batch larger than half the last-level cache, which
       stream from memory: one ahead is brought in while the current one
       runs. A batch that fits runs faster without (measured on the 2-core
       EPYC, one thread, best of runs: fp32 16^3 x 2000 (6 MiB, in its
       32 MiB L3) 0.155 ms without, 0.222 with; fp64 32^3 x 300 0.20 / 0.23;
       fp64 64^3 x 100 0.45 / 0.50), one that does not with (without ->
       with: fp32 16^3 x 10,000 (30 MiB) 1.8 -> 1.1 ms; fp64 3.2 -> 2.3;
       fp64 32^3 x 10,000 22.4 -> 18.5; fp64 64^3 x 2000 36.3 -> 26.9;
       128^3 x 1000 fp32 60 -> 46, fp64 125 -> 88) */
    member_bytes = ((double)p->m * (double)p->k + (double)p->k * (double)p->n + (double)p->m * (double)p->n) *
                   (double)cb.es;
    llc = (double)gemm__cpu_cache_sizes().l3;
    if (llc <= 0) llc = 16.0 * 1024 * 1024; /* unknown: a small one */
    /* The small path's members (at most 64^3) bring the next one in only
       past the whole last-level cache (EPYC, 32 MiB L3, 1 thread, the
       fastest rounds of 5 alternated runs each: fp32 16^3 x 10,000 (30
       MiB) 0.59-0.64 ms without, 1.11-1.14 with; from memory fp64 16^3 x
       10,000 2.7-3.0 -> 2.0-2.2 ms, fp32 32^3 7.3-11.9 -> 5.4-9.7; fp64
       32^3 9.7-14.6 -> 11.5-17.3, the one such batch it slowed; on a
       machine shared with other sessions) */
    streams = GEMM__HOOK(cpu_batch_ahead, 0) ? GEMM__HOOK(cpu_batch_ahead, 0) == 1
                                             : member_bytes * (double)bt->count > llc / 2;
    cb.prefetch = cb.path == GEMM__CPU_PATH_DIRECT && !gemm__cpu_direct_panel_bytes(p, cb.uk, cb.es) && streams;
    cb.ahead = cb.path == GEMM__CPU_PATH_SMALL && (GEMM__HOOK(cpu_batch_ahead, 0) ? streams
                                                   : member_bytes * (double)bt->count > llc);
    cb.tiles = ((p->m + cb.uk->mr - 1) / cb.uk->mr) * ((p->n + cb.uk->nr - 1) / cb.uk->nr);
    want = gemm__cpu_threads_for_call(options);
    /* members a single call cuts over threads run one after the other only
       when there are too few to give every thread whole ones: a member per
       thread packs and syncs nothing with the others (128^3 x 1000 on 2
       threads: about 1.2x faster than cutting each on the 2-core machine) */
    if (p->work == GEMM__WORK_FULL && gemm__cpu_threads_for_flops(flops, want) > 1 && bt->count < 4 * (int64_t)want)
        return gemm__cpu_batch_each(&cb, options);
    want = gemm__cpu_threads_for_flops(flops * (double)bt->count, want);
    cb.threads = want > 1 ? gemm__cpu_pool_acquire(want) : 1;
    if ((s = gemm__cpu_batch_workspaces(&cb, &raw)) != GEMM_OK) return s;
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
    GEMM_FREE(raw);
    return gemm__cpu_batch_status(&cb);
}

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
    if (s == GEMM_OK) s = gemm__check_batch_overlap(fn, &p, &bt, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, sizeof *C);
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
    if (s == GEMM_OK) s = gemm__check_batch_overlap(fn, &p, &bt, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, sizeof *C);
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
                              batch_count, gemm__pointer_list_addr, gemm__pointer_list_addr, sizeof(float), &p, &bt);
    if (s == GEMM_OK) s = gemm__check_batch_overlap(fn, &p, &bt, 0, 0, 0, sizeof(float));
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
                              batch_count, gemm__pointer_list_addr, gemm__pointer_list_addr, sizeof(double), &p, &bt);
    if (s == GEMM_OK) s = gemm__check_batch_overlap(fn, &p, &bt, 0, 0, 0, sizeof(double));
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

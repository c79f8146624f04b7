/* The one driver behind every CPU product (gemm__cpu_gemm): the path a
   product takes, its threads and workspace, then the work.

   C is viewed column-major (a row-major C is the transposed problem
   C^T = op(B)^T op(A)^T, gemm__problem) and op(A), op(B) are read through
   (row stride, column stride) pairs, so the 8 layout/transpose cases are
   one path. The packed path is the Goto/BLIS loop nest:

     for jc in steps of NC         columns of C and op(B)
       for pc in steps of KC       the k dimension, never split
         pack op(B)[pc, jc] into KC x NR micro-panels   (L3 / L2)
         for ic in steps of MC     rows of C and op(A)
           pack op(A)[ic, pc] into MR x KC micro-panels (L2)
           for jr in steps of NR, ir in steps of MR:
             micro-kernel: C[MR x NR] = alpha*A*B + beta*C  (B panel in L1)

   cut over the threads as schedule.c and job.h tell. One driver serves
   both precisions: it moves bytes (the element size and the precision's
   micro-kernel come from a table), and the only typed arithmetic is in the
   micro-kernels. alpha and beta travel as double, which holds every float
   exactly.

   Paths, from the shape and alpha alone (gemm__cpu_path): up to 8
   multiply-adds (2x2x2) plain loops; one tile the direct kernel called
   once; up to 128^3 the direct path (direct.c); beyond, the packed path.
   A batch's members of m, n, k each up to 64 take the small path instead
   (gemm__cpu_small_fits): the ISA's small kernel (small_kernels.c; AVX-512
   has one) for several whole members per call.
   The fixed cost of a small call is the argument checks (an inlined common
   case) and little more.

   Workspace of the packed path, in one block: per thread a packed A block
   (MC x KC), per column group two B panels (KC x NC; one when a thread
   works alone) and its counters, about threads * MC*KC + groups * 2*KC*NC
   elements, never m*n*k. A call alone allocates it (GEMM_MALLOC) and frees
   it; a threaded call uses the pool's (thread_pool.c), kept from call to
   call. Either way it is had before C is touched. */
#pragma once

#include <stdint.h>           /* uintptr_t */
#include <string.h>           /* memset */
#include "../core/config.h"   /* GEMM_MALLOC, GEMM_FREE */
#include "../core/internal.h" /* gemm__problem, gemm__fail */
#include "api.h"              /* gemm_cpu_options */
#include "cache_blocking.c"   /* gemm__cpu_blocking */
#include "direct.c"           /* the tiny loops, the direct path's plan and panel */
#include "job.h"
#include "kernel_select.c"    /* gemm__cpu_isa_for_call */
#include "schedule.c"         /* the tasks, groups and grid */
#include "thread_pool.c"      /* gemm__cpu_pool_* */
#include "threads.c"          /* gemm__cpu_threads_for_call */

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

#ifdef GEMM__TEST_HOOKS
static int gemm__cpu_threads_used;
GEMM_DEF int gemm__cpu_last_threads(void) { return GEMM__CPU_LOAD(gemm__cpu_threads_used); }
#define GEMM__CPU_RECORD_THREADS(n) GEMM__CPU_STORE(gemm__cpu_threads_used, n)
#else
#define GEMM__CPU_RECORD_THREADS(n) ((void)0)
#endif

/* Runs the job's task on its threads: through the pool (then given back)
   or here alone. */
static void gemm__cpu_run(gemm__cpu_task_fn task, gemm__cpu_job *jb)
{
    GEMM__CPU_RECORD_THREADS(jb->threads);
    if (jb->threads > 1) {
        gemm__cpu_pool_run(task, jb);
        gemm__cpu_pool_release();
    } else {
        task(jb, 0);
    }
}

static gemm_status gemm__cpu_no_memory(const char *func, const gemm__cpu_job *jb, size_t bytes)
{
    if (jb->threads > 1) gemm__cpu_pool_release();
    return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for the workspace of %d thread(s), %llu bytes", func,
                      jb->threads, (unsigned long long)bytes);
}

/* The block of `bytes` a call computes in, when it does not use the
   pool's: the workspace lent to it when there is one and it is large
   enough (a batch's member), else a fresh one (*raw, which the caller
   frees). NULL: no memory. */
static char *gemm__cpu_own_block(const gemm__cpu_job *jb, size_t bytes, char **raw)
{
    *raw = NULL;
    if (jb->lent && jb->lent_bytes >= bytes) return jb->lent;
    return *raw = (char *)GEMM_MALLOC(bytes);
}

/* The direct path (direct.c): a small call runs here at once, with no
   allocation; a larger one shares its rectangles of C over the pool. */
static gemm_status gemm__cpu_run_direct(const char *func, gemm__cpu_job *jb, const gemm_cpu_options *options)
{
    const gemm__problem *p = jb->p;
    double flops = 2.0 * (double)p->m * (double)p->n * (double)p->k;
    size_t panel = gemm__cpu_direct_panel_bytes(p, jb->uk, jb->es);
    int want = flops < 2 * GEMM__CPU_THREAD_FLOPS ? 1 : gemm__cpu_threads_for_call(options);
    char *raw = NULL, *block;
    if (want == 1 && !panel) {
        double stack_panel[GEMM__CPU_PANEL_BYTES / sizeof(double)];
        GEMM__CPU_RECORD_THREADS(1);
        gemm__cpu_direct_rect(jb, 0, p->m, 0, p->n, (char *)stack_panel);
        return GEMM_OK;
    }
    want = gemm__cpu_threads_for_flops(flops, want);
    jb->threads = want > 1 ? gemm__cpu_pool_acquire(want) : 1;
    gemm__cpu_grid(jb->threads * 4, p->m, p->n, jb->uk->mr, jb->uk->nr, &jb->tm, &jb->tn);
    if (panel) {
        if (!(block = gemm__cpu_own_block(jb, panel * (size_t)jb->threads + 64, &raw)))
            return gemm__cpu_no_memory(func, jb, panel * (size_t)jb->threads + 64);
        jb->ws = block + (64 - (uintptr_t)block % 64);
        jb->ws_a = panel;
    }
    gemm__cpu_run(gemm__cpu_direct_task, jb);
    GEMM_FREE(raw);
    return GEMM_OK;
}

/* The packed path's workspace: per thread a packed A block (mc x kc), per
   group its two B panels (kc x nc; one when a thread works alone) and its
   counters, each part 64-byte aligned. Returns its bytes, with 64 to align
   the block; given ws (64-byte aligned), also points the job's groups,
   panels, counters and A blocks into it and clears the counters. */
static size_t gemm__cpu_packed_layout(gemm__cpu_job *jb, char *ws)
{
    const gemm__problem *p = jb->p;
    int64_t es = jb->es, nr = jb->uk->nr, kcw = gemm__cpu_min(jb->kc, p->k), kblocks = (p->k + jb->kc - 1) / jb->kc;
    int64_t mcw = gemm__cpu_min(jb->mc, gemm__cpu_round_up(p->m, jb->uk->mr)), n0, n1;
    size_t at = (size_t)gemm__cpu_round_up((int64_t)sizeof(gemm__cpu_group) * jb->groups, 64), b_bytes[2], off;
    int g;
    jb->ws_a = (size_t)gemm__cpu_round_up(mcw * kcw * es, 64);
    off = at + jb->ws_a * (size_t)jb->threads;
    if (ws) {
        jb->group = (gemm__cpu_group *)ws;
        jb->ws = ws + at;
    }
    for (g = 0; g < jb->groups; g++) {
        gemm__cpu_group *gr = ws ? &jb->group[g] : NULL;
        int64_t steps, ncw;
        gemm__cpu_split(p->n, jb->groups, g, (int)nr, &n0, &n1);
        ncw = gemm__cpu_min(jb->nc, gemm__cpu_round_up(n1 - n0, nr));
        steps = (n1 - n0 + jb->nc - 1) / jb->nc * kblocks;
        b_bytes[0] = (size_t)gemm__cpu_round_up(kcw * ncw * es, 64);
        b_bytes[1] = jb->threads > 1 ? b_bytes[0] : 0; /* one thread: one panel serves every step */
        if (gr) {
            gr->n0 = n0;
            gr->n1 = n1;
            gr->kblocks = kblocks;
            gr->steps = steps;
            gr->pb[0] = ws + off;
            gr->pb[1] = b_bytes[1] ? ws + off + b_bytes[0] : gr->pb[0];
            gr->step = (gemm__cpu_step *)(ws + off + b_bytes[0] + b_bytes[1]);
            gr->progress = (int *)(gr->step + steps);
            memset(gr->step, 0, sizeof(gemm__cpu_step) * (size_t)steps + sizeof(int) * (size_t)jb->items);
        }
        off += b_bytes[0] + b_bytes[1] + (size_t)gemm__cpu_round_up((int64_t)sizeof(gemm__cpu_step) * steps +
                                                                    (int64_t)sizeof(int) * jb->items, 64);
    }
    return off + 64;
}

/* The packed path's workspace, in one block 64-byte aligned (NULL: no
   memory; *bytes says how much). A threaded call uses the pool's kept
   block, a call alone the one lent to it or its own (*raw). */
static char *gemm__cpu_packed_workspace(gemm__cpu_job *jb, size_t *bytes, char **raw)
{
    char *block, *ws;
    *bytes = gemm__cpu_packed_layout(jb, NULL);
    *raw = NULL;
    block = jb->threads > 1 ? gemm__cpu_pool_workspace(*bytes) : gemm__cpu_own_block(jb, *bytes, raw);
    if (!block) return NULL;
    ws = block + (64 - (uintptr_t)block % 64);
    gemm__cpu_packed_layout(jb, ws);
    return ws;
}

/* The packed path's block sizes, for one thread or more; fails when k
   needs more k blocks than the int counters hold. */
static gemm_status gemm__cpu_packed_blocks(const char *func, gemm__cpu_job *jb)
{
    const gemm__problem *p = jb->p;
    gemm__cpu_blocking_parts(jb->uk->mr, jb->uk->nr, (int)jb->es, jb->l1_parts ? jb->l1_parts : 2,
                             jb->l2_parts ? jb->l2_parts : 2, jb->l3_parts ? jb->l3_parts : 4, &jb->mc, &jb->kc,
                             &jb->nc);
    if ((p->n + jb->nc - 1) / jb->nc * ((p->k + jb->kc - 1) / jb->kc) >= 0x40000000)
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: k = %lld needs more k blocks than the counters hold", func,
                          (long long)p->k);
    return GEMM_OK;
}

/* The packed path (job.h): the blocks, the threads and their groups, the
   workspace, then the work. */
static gemm_status gemm__cpu_run_packed(const char *func, gemm__cpu_job *jb, const gemm_cpu_options *options)
{
    const gemm__problem *p = jb->p;
    double flops = 2.0 * (double)p->m * (double)p->n * (double)p->k;
    int want = gemm__cpu_threads_for_flops(flops, gemm__cpu_threads_for_call(options));
    size_t bytes = 0;
    char *raw = NULL;
    gemm_status s = gemm__cpu_packed_blocks(func, jb);
    if (s != GEMM_OK) return s;
    jb->threads = want > 1 ? gemm__cpu_pool_acquire(want) : 1;
    jb->b_xmajor = !jb->pack_b_block && p->bcs != 1; /* B's columns are contiguous: copy them whole */
    gemm__cpu_plan_groups(jb);
    if (!gemm__cpu_packed_workspace(jb, &bytes, &raw)) return gemm__cpu_no_memory(func, jb, bytes);
    gemm__cpu_run(gemm__cpu_packed_task, jb);
    GEMM_FREE(raw);
    return GEMM_OK;
}

/* The paths a product takes, chosen by gemm__cpu_path. */
enum { GEMM__CPU_PATH_TINY, GEMM__CPU_PATH_TILE, GEMM__CPU_PATH_SMALL, GEMM__CPU_PATH_DIRECT, GEMM__CPU_PATH_PACKED };

/* The small path's bounds: each of m, n, k at most 64 (small_kernels.c). */
#define GEMM__CPU_SMALL_MAX 64

/* The small path's arguments for a product (p, its canonical a, b and C,
   alpha and beta), one member; the caller sets the members' strides. */
static void gemm__cpu_small_setup(gemm__cpu_small_args *s, const gemm__problem *p, const void *a, const void *b,
                                  void *C, double alpha, double beta)
{
    s->m = p->m;
    s->n = p->n;
    s->k = p->k;
    s->a = a;
    s->b = b;
    s->c = C;
    s->as = p->acs;
    s->bp = p->brs;
    s->bj = p->bcs;
    s->ldc = p->ldc;
    s->sa = s->sb = s->sc = 0;
    s->alpha = alpha;
    s->beta = beta;
    s->ahead = 0;
}

/* The small path's panel for a transposed op(a): m rows rounded up to a
   cache line, by k (0: op(a) is read in place). */
static int64_t gemm__cpu_small_panel_rows(const gemm__problem *p, int64_t es)
{
    return p->ars == 1 ? 0 : gemm__cpu_round_up(p->m, 64 / es);
}

/* Whether a transposed op(a) takes the small path (copied into a panel)
   rather than the direct one: from 32^3 on. Below, the copy of the whole
   op(a) first gained nothing over the direct path's row blocks (EPYC, 1
   thread, TT, one run each: fp32 8^3 66 ns against 54-57 on the direct
   path, 16^3 98-104 against 99-101; at 32^3 369-376 against 381-388). */
#define GEMM__CPU_SMALL_COPY_MIN 32768

/* The small path's members with a transposed op(a) (rows contiguous, ars
   apart): each copied into a panel of contiguous columns, as the direct
   path copies it (the same values: the same bits), then its product. */
static GEMM__CPU_NOINLINE void gemm__cpu_small_run_panel(const gemm__cpu_microkernel *uk,
                                                         const gemm__cpu_small_args *s, int64_t count, int64_t ars,
                                                         int64_t w, int64_t es)
{
    double panel[GEMM__CPU_PANEL_BYTES / sizeof(double)];
    gemm__cpu_small_args one;
    int64_t i;
    one = *s;
    one.as = w;
    one.sa = 0;
    one.a = panel;
    for (i = 0; i < count; i++) {
        uk->copy_rows((char *)panel, w, (const char *)s->a + i * s->sa * es, ars, s->m, s->k, es);
        one.b = (const char *)s->b + i * s->sb * es;
        one.c = (char *)s->c + i * s->sc * es;
        uk->small(&one, 1);
    }
}

/* Runs `count` members of the small path (s: member 0's arguments and the
   strides between members; w: gemm__cpu_small_panel_rows). */
static void gemm__cpu_small_run(const gemm__cpu_microkernel *uk, const gemm__cpu_small_args *s, int64_t count,
                                int64_t ars, int64_t w, int64_t es)
{
    if (w) gemm__cpu_small_run_panel(uk, s, count, ars, w, es);
    else uk->small(s, count);
}

/* The path of a product that does work (p->work == GEMM__WORK_FULL): from
   its shape and alpha alone, never the thread count, so a batch picks it
   once for all its members and each member gets the single call's bits. */
static int gemm__cpu_path(const gemm__problem *p, const gemm__cpu_microkernel *uk, int64_t es, double alpha)
{
    if ((double)p->m * (double)p->n * (double)p->k <= GEMM__CPU_TINY && !GEMM__HOOK(cpu_path, 0))
        return GEMM__CPU_PATH_TINY;
    if (p->m <= uk->mr && p->n <= uk->nr && (p->ars == 1 || p->m == 1) && gemm__cpu_finite(alpha) &&
        GEMM__HOOK(cpu_path, 0) != 1) /* one tile: the direct kernel alone, the whole cost of a tiny call */
        return GEMM__CPU_PATH_TILE;
    return gemm__cpu_plan_direct(p, uk, es, alpha) ? GEMM__CPU_PATH_DIRECT : GEMM__CPU_PATH_PACKED;
}

/* Whether a batch's members (the single call's path `path`) take the
   small path instead: whole products in one kernel call, several members
   to a call. Only batches: a single call ran as fast on the direct path
   (EPYC, 1 thread, within 3-4% at 16^3..64^3 for the fastest version of
   the small kernels, which doubled the header's compile time; the one
   kept is 5-8% slower alone at fp32 16^3 and 32^3), while a batch saves
   the call and set-up per member and per tile. The arithmetic is the
   direct kernel's, so each member keeps the single call's bits. */
static int gemm__cpu_small_fits(const gemm__problem *p, const gemm__cpu_microkernel *uk, int64_t es, double alpha,
                                int path)
{
    return (path == GEMM__CPU_PATH_TILE || path == GEMM__CPU_PATH_DIRECT) && uk->small &&
           p->m <= GEMM__CPU_SMALL_MAX && p->n <= GEMM__CPU_SMALL_MAX && p->k <= GEMM__CPU_SMALL_MAX &&
           (p->ars == 1 || (p->m * p->n * p->k >= GEMM__CPU_SMALL_COPY_MIN &&
                            gemm__cpu_small_panel_rows(p, es) * p->k * es <= GEMM__CPU_PANEL_BYTES)) &&
           gemm__cpu_finite(alpha) && !GEMM__HOOK(cpu_path, 0);
}

/* The workspace a product takes when it runs alone (one thread), in bytes
   (0: none), from its shape and path (gemm__cpu_path; any for C = beta*C):
   a batch lends each of its threads one this large before any member
   runs, so that no member can fail for want of memory once one has run.
   Fails as that call would when k needs more blocks than the counters
   hold. */
static gemm_status gemm__cpu_alone_bytes(const char *func, const gemm__problem *p, const gemm__cpu_microkernel *uk,
                                         int64_t es, int path, size_t *bytes)
{
    gemm__cpu_job jb;
    gemm_status s;
    size_t panel;
    *bytes = 0;
    if (p->work != GEMM__WORK_FULL) return GEMM_OK;
    if (path == GEMM__CPU_PATH_DIRECT) {
        panel = gemm__cpu_direct_panel_bytes(p, uk, es);
        *bytes = panel ? panel + 64 : 0; /* gemm__cpu_run_direct on one thread */
        return GEMM_OK;
    }
    if (path != GEMM__CPU_PATH_PACKED) return GEMM_OK;
    memset(&jb, 0, sizeof jb);
    jb.p = p;
    jb.uk = uk;
    jb.es = es;
    jb.threads = 1;
    if ((s = gemm__cpu_packed_blocks(func, &jb)) != GEMM_OK) return s;
    gemm__cpu_plan_groups(&jb); /* as gemm__cpu_run_packed plans one thread */
    *bytes = gemm__cpu_packed_layout(&jb, NULL);
    return GEMM_OK;
}

/* A job for one call alone (no workspace yet, none lent, fp32/fp64
   packing): the problem, its kernels and element size, operands and
   scalars. */
static void gemm__cpu_job_init(gemm__cpu_job *jb, const gemm__problem *p, const gemm__cpu_microkernel *uk, int64_t es,
                               double alpha, const void *a, const void *b, double beta, void *C)
{
    memset(jb, 0, sizeof *jb);
    jb->p = p;
    jb->uk = uk;
    jb->es = es;
    jb->a = (const char *)a;
    jb->b = (const char *)b;
    jb->c = (char *)C;
    jb->alpha = alpha;
    jb->beta = beta;
    jb->threads = 1;
    jb->k_elems = p->k;
}

/* The one driver behind both precisions: p is gemm__prepare's problem, a
   and b its operands (the caller's A and B, swapped when row-major), alpha
   and beta the caller's scalars (exact in double), func the public name
   for error details; lent (NULL: none) a workspace of lent_bytes a call
   alone uses instead of allocating (gemm__cpu_alone_bytes). */
static gemm_status gemm__cpu_gemm_lent(const char *func, const gemm__problem *p, gemm_precision precision,
                                       double alpha, const void *a, const void *b, double beta, void *C,
                                       const gemm_cpu_options *options, char *lent, size_t lent_bytes)
{
    const gemm__cpu_isa *isa;
    const gemm__cpu_microkernel *uk;
    gemm__cpu_job jb;
    int path;
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
    uk = precision == GEMM_F32 ? &isa->f32 : &isa->f64;
    jb.es = precision == GEMM_F32 ? (int64_t)sizeof(float) : (int64_t)sizeof(double);
    path = gemm__cpu_path(p, uk, jb.es, alpha);
    if (path == GEMM__CPU_PATH_TINY) {
        if (precision == GEMM_F32)
            gemm__cpu_tiny_f32(p, (float)alpha, (const float *)a, (const float *)b, (float)beta, (float *)C);
        else
            gemm__cpu_tiny_f64(p, alpha, (const double *)a, (const double *)b, beta, (double *)C);
        GEMM__CPU_RECORD_THREADS(1);
        return GEMM_OK;
    }
    if (path == GEMM__CPU_PATH_TILE) {
        uk->direct(p->k, a, p->acs, b, p->brs, p->bcs, alpha, beta, C, p->ldc, p->m, p->n);
        GEMM__CPU_RECORD_THREADS(1);
        return GEMM_OK;
    }
    gemm__cpu_job_init(&jb, p, uk, jb.es, alpha, a, b, beta, C);
    jb.lent = lent;
    jb.lent_bytes = lent_bytes;
    if (path == GEMM__CPU_PATH_DIRECT) return gemm__cpu_run_direct(func, &jb, options);
    return gemm__cpu_run_packed(func, &jb, options);
}

/* A product with its own workspace: every single call. */
static gemm_status gemm__cpu_gemm(const char *func, const gemm__problem *p, gemm_precision precision, double alpha,
                                  const void *a, const void *b, double beta, void *C,
                                  const gemm_cpu_options *options)
{
    return gemm__cpu_gemm_lent(func, p, precision, alpha, a, b, beta, C, options, NULL, 0);
}

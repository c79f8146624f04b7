/* How many threads a call uses, and how they share its work.

   A call uses one thread per 2*56^3 flops, up to the count it may use. The
   work is cut over M and N, never K. On the packed path the columns of C
   form a few groups; each group walks its (NC, KC) steps in order, its
   threads packing the step's B panel together (each NR-wide micro-panel
   taken from a counter) and then taking row blocks of the step from
   another counter, each packing its own A block (job.h). Two B buffers
   alternate, so the next step's packing overlaps this one's computing, and
   a thread done with its group helps the next. Nothing waits for a
   particular thread, only for work already taken, and no phase runs on
   one thread. The direct path cuts C into rectangles taken from a counter.
   Tiles start at multiples of MR and NR and each sees its k blocks in
   order, so results are bitwise identical for any thread count. */
#pragma once

#include "cache_blocking.c" /* gemm__cpu_min, gemm__cpu_max, gemm__cpu_round_up */
#include "direct.c"         /* gemm__cpu_direct_rect, GEMM__CPU_PANEL_BYTES */
#include "job.h"
#include "loops.c"          /* gemm__cpu_step_extent, gemm__cpu_pack_b_unit, gemm__cpu_item */
#include "thread_pool.c"    /* gemm__cpu_wait_for */

/* Flops each thread must have for a call to use it: a thread's share below
   this costs more in wake-ups and hand-overs than it saves. */
#define GEMM__CPU_THREAD_FLOPS (2.0 * 56.0 * 56.0 * 56.0)

/* The threads a call of `flops` runs on, of the `want` it may use. */
static int gemm__cpu_threads_for_flops(double flops, int want)
{
    double most = flops / GEMM__CPU_THREAD_FLOPS;
    return most < 2 ? 1 : most < want ? (int)most : want;
}

/* Part i of `parts` of [0, len), cut at multiples of unit, so every thread
   sees the same tiles whatever the thread count. */
static void gemm__cpu_split(int64_t len, int parts, int i, int unit, int64_t *lo, int64_t *hi)
{
    int64_t units = (len + unit - 1) / unit;
    *lo = gemm__cpu_min(units * i / parts * unit, len);
    *hi = gemm__cpu_min(units * (i + 1) / parts * unit, len);
}

/* ---- the direct path: rectangles of C taken from a counter ---- */

/* A grid tm x tn of `chunks` rectangles over (m, n): the most square ones,
   splitting N on a tie. */
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

static void gemm__cpu_direct_task(void *arg, int tid)
{
    gemm__cpu_job *jb = (gemm__cpu_job *)arg;
    double stack_panel[GEMM__CPU_PANEL_BYTES / sizeof(double)];
    char *panel = jb->ws ? jb->ws + (size_t)tid * jb->ws_a : (char *)stack_panel;
    int64_t m0, m1, n0, n1;
    int c;
    if (tid >= jb->threads) return; /* a worker this call has no panel for */
    while ((c = GEMM__CPU_TAKE(jb->next)) < jb->tm * jb->tn) {
        gemm__cpu_split(jb->p->m, jb->tm, c % jb->tm, jb->uk->mr, &m0, &m1);
        gemm__cpu_split(jb->p->n, jb->tn, c / jb->tm, jb->uk->nr, &n0, &n1);
        if (m0 < m1 && n0 < n1) gemm__cpu_direct_rect(jb, m0, m1, n0, n1, panel);
    }
}

/* ---- the packed path: column groups, steps and items (job.h) ---- */

/* Groups and items for `threads` threads: few groups (each packs A again,
   but B is packed once whatever their number), enough of them that every
   thread has about two items per step, items of at least 4 micro-panels. */
static void gemm__cpu_plan_groups(gemm__cpu_job *jb)
{
    const gemm__problem *p = jb->p;
    int64_t mr = jb->uk->mr, nr = jb->uk->nr, rows_min = 4 * mr;
    int64_t most_items = gemm__cpu_max(1, (p->m + rows_min - 1) / rows_min), want_items = 2 * (int64_t)jb->threads;
    int64_t groups = jb->threads == 1 ? 1 : (want_items + most_items - 1) / most_items, per_group;
    groups = gemm__cpu_max(1, gemm__cpu_min(groups, gemm__cpu_min(jb->threads, (p->n + nr - 1) / nr)));
    if (GEMM__HOOK(cpu_groups, 0) > 0) groups = gemm__cpu_min(GEMM__HOOK(cpu_groups, 0), (p->n + nr - 1) / nr);
    per_group = (want_items + groups - 1) / groups;
    if (jb->threads > 1) /* smaller row blocks share the work; never above the cache's MC */
        jb->mc = gemm__cpu_min(jb->mc, gemm__cpu_max(rows_min, gemm__cpu_round_up((p->m + per_group - 1) / per_group, mr)));
    jb->groups = (int)groups;
    jb->items = (p->m + jb->mc - 1) / jb->mc;
}

/* Walks group g's steps: packs B micro-panels while some are left, waits
   for the panel, runs items while some are left (each after its row
   block's previous step), then the next step. */
static void gemm__cpu_run_group(gemm__cpu_job *jb, gemm__cpu_group *g, char *pa)
{
    int64_t s, jc, nc, pc, kc;
    int u, i, units;
    for (s = 0; s < g->steps; s++) {
        gemm__cpu_step *st = &g->step[s];
        gemm__cpu_step_extent(jb, g, s, &jc, &nc, &pc, &kc);
        units = (int)((nc + jb->uk->nr - 1) / jb->uk->nr);
        if (GEMM__CPU_LOAD(st->pack_next) < units) {
            if (s >= 2) gemm__cpu_wait_for(&g->step[s - 2].items_done, (int)jb->items); /* its buffer is free */
            while ((u = GEMM__CPU_TAKE(st->pack_next)) < units) {
                gemm__cpu_pack_b_unit(jb, g, s, u);
                GEMM__CPU_DONE(st->pack_done);
            }
        }
        gemm__cpu_wait_for(&st->pack_done, units);
        while ((i = GEMM__CPU_TAKE(st->item_next)) < jb->items) {
            gemm__cpu_wait_for(&g->progress[i], (int)s);
            gemm__cpu_item(jb, g, s, i, pa);
            GEMM__CPU_STORE(g->progress[i], (int)s + 1);
            GEMM__CPU_DONE(st->items_done);
        }
    }
}

/* One thread's share: its own group first, then it helps the others. */
static void gemm__cpu_packed_task(void *arg, int tid)
{
    gemm__cpu_job *jb = (gemm__cpu_job *)arg;
    int g;
    if (tid >= jb->threads) return; /* a worker this call has no buffer for */
    for (g = 0; g < jb->groups; g++)
        gemm__cpu_run_group(jb, &jb->group[(tid + g) % jb->groups], jb->ws + (size_t)tid * jb->ws_a);
}

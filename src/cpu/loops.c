/* The packed path's inner loops, for one item of one step: the row block
   C[ic:ic+mc, jc:jc+nc] += alpha * (packed A block) * (packed B panel),
   jr over the NR-wide micro-panels of B (each stays in L1), ir over the
   MR-row micro-panels of A (the block stays in L2). */
#pragma once

#include <string.h>         /* memset, memcpy */
#include "cache_blocking.c" /* gemm__cpu_min */
#include "job.h"            /* gemm__cpu_job, gemm__cpu_block */
#include "packing.c"        /* gemm__cpu_pack */
#include "platform.h"       /* GEMM__CPU_PREFETCH */

#define GEMM__CPU_TILE_MAX (32 * 8) /* elements: the largest MR*NR of any kernel (avx512 fp32) */

/* An mw x nw tile at the edge of C: the same kernel on a local full tile,
   copied in (unless beta == 0: C is not read) and back, so edge results
   have the arithmetic of full tiles and C is never written past its end. */
static void gemm__cpu_edge_tile(const gemm__cpu_job *jb, gemm__cpu_block *bl, gemm__cpu_ukernel_fn kern,
                                const char *ap, const char *bp, int64_t bps, int64_t bjs, char *c, int64_t mw,
                                int64_t nw)
{
    int64_t j, mr = jb->uk->mr, es = jb->es, ldc = jb->p->ldc;
    if (!bl->tile_clean) {
        memset(bl->tile, 0, sizeof(double) * GEMM__CPU_TILE_MAX);
        bl->tile_clean = 1;
    }
    if (bl->beta != 0)
        for (j = 0; j < nw; j++) memcpy(bl->tile + j * mr * es, c + j * ldc * es, (size_t)(mw * es));
    kern(bl->kc, ap, mr, bp, bps, bjs, jb->alpha, bl->beta, bl->tile, mr);
    for (j = 0; j < nw; j++) memcpy(c + j * ldc * es, bl->tile + j * mr * es, (size_t)(mw * es));
}

/* ir: one B micro-panel (columns jr..jr+nw of the block) against each A
   micro-panel; the kernel variant reads the panel row by row (packed) or
   column by column (strided, bps = 1, bjs = kc). */
static void gemm__cpu_loop_ir(const gemm__cpu_job *jb, gemm__cpu_block *bl, int64_t jr, int64_t nw)
{
    int64_t ir, j, mr = jb->uk->mr, nr = jb->uk->nr, es = jb->es, ldc = jb->p->ldc;
    const char *bp = bl->pb + jr * bl->kc * es;
    gemm__cpu_ukernel_fn kern = jb->b_xmajor ? jb->uk->strided_b : jb->uk->packed_b;
    int64_t bps = jb->b_xmajor ? 1 : nr, bjs = jb->b_xmajor ? bl->kc : 1;
    for (ir = 0; ir < bl->mc; ir += mr) {
        int64_t mw = gemm__cpu_min(mr, bl->mc - ir);
        const char *ap = bl->pa + ir * bl->kc * es;
        char *c = bl->c + (ir + jr * ldc) * es;
        if (mw < mr || nw < nr) {
            gemm__cpu_edge_tile(jb, bl, kern, ap, bp, bps, bjs, c, mw, nw);
            continue;
        }
        for (j = 0; j < nr; j++) { /* here, not in the kernel: its registers are full */
            GEMM__CPU_PREFETCH(c + j * ldc * es);
            GEMM__CPU_PREFETCH(c + (j * ldc + mr - 1) * es);
        }
        kern(bl->kc, ap, mr, bp, bps, bjs, jb->alpha, bl->beta, c, ldc);
    }
}

/* jr: every micro-panel of the B panel. */
static void gemm__cpu_loop_jr(const gemm__cpu_job *jb, gemm__cpu_block *bl)
{
    int64_t jr, nr = jb->uk->nr;
    for (jr = 0; jr < bl->nc; jr += nr) gemm__cpu_loop_ir(jb, bl, jr, gemm__cpu_min(nr, bl->nc - jr));
}

/* Where step s of group g is: columns jc..jc+nc of C, k from pc to pc+kc. */
static void gemm__cpu_step_extent(const gemm__cpu_job *jb, const gemm__cpu_group *g, int64_t s, int64_t *jc,
                                  int64_t *nc, int64_t *pc, int64_t *kc)
{
    *jc = g->n0 + s / g->kblocks * jb->nc;
    *nc = gemm__cpu_min(jb->nc, g->n1 - *jc);
    *pc = s % g->kblocks * jb->kc;
    *kc = gemm__cpu_min(jb->kc, jb->p->k - *pc);
}

/* Packs micro-panel u (columns u*NR.. of the step's panel) of step s's B
   panel; the last one is zero-padded to NR columns. */
static void gemm__cpu_pack_b_unit(const gemm__cpu_job *jb, const gemm__cpu_group *g, int64_t s, int64_t u)
{
    const gemm__problem *p = jb->p;
    int64_t jc, nc, pc, kc, es = jb->es, nr = jb->uk->nr, x0 = u * nr;
    gemm__cpu_step_extent(jb, g, s, &jc, &nc, &pc, &kc);
    if (jb->pack_b_block)
        jb->pack_b_block(jb, g->pb[s & 1] + x0 * kc * es, jc + x0, pc, gemm__cpu_min(nr, nc - x0), kc, (int)nr);
    else
        gemm__cpu_pack(g->pb[s & 1] + x0 * kc * es, jb->b + (pc * p->brs + (jc + x0) * p->bcs) * es, p->bcs,
                       p->brs, gemm__cpu_min(nr, nc - x0), kc, (int)nr, jb->b_xmajor, NULL, NULL, es);
}

/* Item i of step s of group g: packs rows i*MC.. of op(a)'s k block into
   pa, then runs them against the step's B panel. */
static void gemm__cpu_item(const gemm__cpu_job *jb, const gemm__cpu_group *g, int64_t s, int64_t i, char *pa)
{
    const gemm__problem *p = jb->p;
    double tile[GEMM__CPU_TILE_MAX];
    gemm__cpu_block bl;
    int64_t jc, pc, es = jb->es, ic = i * jb->mc;
    gemm__cpu_step_extent(jb, g, s, &jc, &bl.nc, &pc, &bl.kc);
    bl.mc = gemm__cpu_min(jb->mc, p->m - ic);
    bl.pa = pa;
    bl.pb = g->pb[s & 1];
    bl.beta = pc == 0 ? jb->beta : 1.0;
    bl.c = jb->c + (ic + jc * p->ldc) * es;
    bl.tile = (char *)tile;
    bl.tile_clean = 0;
    if (jb->pack_a_block)
        jb->pack_a_block(jb, pa, ic, pc, bl.mc, bl.kc, jb->uk->mr);
    else
        gemm__cpu_pack(pa, jb->a + (ic * p->ars + pc * p->acs) * es, p->ars, p->acs, bl.mc, bl.kc, jb->uk->mr, 0,
                       p->ars == 1 ? jb->uk->pack_a : NULL, jb->uk->copy_rows, es);
    gemm__cpu_loop_jr(jb, &bl);
}

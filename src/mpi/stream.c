/* ---- the root-held Cannon, streamed in k-slabs ----------------------------------- */

/* S > 1 slabs (options.slabs, or the choice of mpi/slabs.c), root-held
   Cannon: the product runs as S products over k-slabs; the ranks start on
   the first slab as soon as it has landed, and each next slab travels from
   the root while the current one multiplies (mpi/feed.c): the root packs
   and sends between its own panels, or while its GPU works; the ranks
   receive into landing blocks a slab deep (1/S of their a and b blocks).
   It pays where the root's CPU is free while the ranks multiply: with the
   CUDA multiply. The root still moves every byte of A, B and C through its
   host memory. */
#pragma once

#include "copy.c"       /* gemm__mpi_copy, gemm__mpi_sync */
#include "distribute.c" /* C's blocks */
#include "feed.c"
#include "rounds.c"     /* gemm__mpi_cannon */
#include "slabs.c"      /* gemm__mpi_slab_count */

/* Whether this execute streams: the root-held Cannon in more than one
   slab (mpi/slabs.c). */
static int gemm__mpi_streams(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, const gemm__mpi_device *dv,
                             const gemm__mpi_call *c)
{
    return c->form == 0 && gemm__mpi_slab_count(&sh->o, &tm->g, dv->cuda, dv->root_devices) > 1;
}

/* The landed slab becomes each slot's a and b block (its feed is complete). */
static void gemm__mpi_load_slab(const gemm__mpi_team *tm, const gemm__mpi_device *dv, const gemm__mpi_slab *sl,
                                gemm__mpi_bufs *bf, gemm__mpi_err *e)
{
    int s;
    for (s = 0; s < tm->g.br * tm->g.bc; s++) {
        gemm__mpi_copy(dv, e, bf->a[s], dv->cuda, bf->land_a[s], dv->cuda, sl->abytes);
        gemm__mpi_copy(dv, e, bf->b[s], dv->cuda, bf->land_b[s], dv->cuda, sl->bbytes);
    }
}

/* C = alpha op(A) op(B) + beta C as S products over k-slabs: the virtual
   k-block kb is cut into S slabs of kbs columns; slab s is Cannon's
   algorithm on blocks mb x kbs and kbs x nb (the first with beta, the
   others adding to C), and while its rounds run, slab s+1 travels from the
   root to the ranks (mpi/feed.c): the ranks start multiplying once the
   first slab has landed instead of once all of A and B has. The shifts
   move blocks a slab thick, so they carry in total what the unstreamed
   rounds carry. */
static void gemm__mpi_stream(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, gemm__mpi_device *dv,
                             const gemm__mpi_call *c, gemm__mpi_bufs *bf, gemm__mpi_xchg *xc, gemm__mpi_stage *sg,
                             gemm__mpi_err *e, gemm_timing *t)
{
    const gemm__mpi_grid *g = &tm->g;
    gemm__mpi_slab sl;
    int s, S = gemm__mpi_slab_count(&sh->o, g, dv->cuda, dv->root_devices);
    int64_t kb = g->kb, kbs;
    double t0 = gemm__mpi_now();
    kbs = (kb + S - 1) / S;
    if (c->beta != 0) gemm__mpi_distribute_blocks(sh, tm, dv, c, bf, sg, e, t, 2, 2);
    sl.kb = kbs;
    sl.abytes = (size_t)(g->mb * kbs) * sh->es;
    sl.bbytes = (size_t)(kbs * g->nb) * sh->es;
    gemm__mpi_feed_start(sh, tm, dv, c, bf, sg, e, 0, kbs);
    gemm__mpi_feed_finish(sh, tm, dv, c, bf, sg, e);
    t->distribute_s += gemm__mpi_now() - t0;
    for (s = 0; s < S; s++) {
        gemm__mpi_load_slab(tm, dv, &sl, bf, e);
        gemm__mpi_sync(dv, e); /* on a GPU, the landing is read before the next slab lands there */
        if (s + 1 < S) gemm__mpi_feed_start(sh, tm, dv, c, bf, sg, e, (int64_t)(s + 1) * kbs, kbs);
        gemm__mpi_cannon(sh, tm, dv, c, bf, &sl, xc, sg, e, t, s > 0, 0);
        if (s + 1 < S) {
            double t1 = gemm__mpi_now();
            gemm__mpi_feed_finish(sh, tm, dv, c, bf, sg, e);
            t->distribute_s += gemm__mpi_now() - t1;
        }
    }
    gemm__mpi_sync(dv, e);
}

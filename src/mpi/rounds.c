/* ---- the rounds: Cannon and Fox ------------------------------------------------ */

/* Cannon (GEMM_MPI_CANNON): the blocks start skewed (slot (i, j) holds
   a(i, i+j) and b(i+j, j): mpi/distribute.c puts them there), then q
   rounds: multiply the resident blocks, shift a one block left and b one
   block up. On the virtual grid a shift moves one block per block row (or
   column) to the neighbouring rank and rotates the rest in place.
   Blocking shifts are MPI_Sendrecv_replace on host blocks; overlapped ones
   (options.overlap) start non-blocking transfers into spare blocks before
   the multiply and take the spares in after it; on a GPU a shift always
   lands in spares (the exchange's path: mpi/transfer.c). The CPU's
   overlapped multiply runs in column panels and polls MPI between them
   (mpi/local.c). Fox (GEMM_MPI_FOX): q rounds of broadcasting a along the
   process row (always blocking), multiplying, and rolling b up. A k-slab
   stream (mpi/stream.c) runs Cannon on blocks a slab deep, described by a
   gemm__mpi_slab, and its feed moves between panels. */
#pragma once

#include "copy.c"     /* gemm__mpi_copy, gemm__mpi_direct */
#include "feed.c"     /* gemm__mpi_feed_pump between panels */
#include "local.c"    /* the multiplies */
#include "transfer.c" /* the shifts' exchanges */

/* Tags of the shifts: a's number the block row, b's the block column from
   30000 on. The skew's block tags (below q*q) may reach these, but the skew
   is over before the first shift. */
#define GEMM__MPI_TAG_B 30000

/* Queues Cannon's shift: per block row the first a block goes left, a new
   one comes from the right into the spare; per block column the top b
   block goes up. Neighbours that are this rank itself need no message. */
static void gemm__mpi_queue_shift(const gemm__mpi_team *tm, const gemm__mpi_bufs *bf, const gemm__mpi_slab *sl,
                                  gemm__mpi_xchg *xc, int shift_a)
{
    int li, lj;
    if (shift_a && tm->left != tm->rank)
        for (li = 0; li < tm->g.br; li++) {
            gemm__mpi_post(xc->sends, &xc->nsend, bf->a[li * tm->g.bc], tm->left, li, sl->abytes);
            gemm__mpi_post(xc->recvs, &xc->nrecv, bf->aspare[li], tm->right, li, sl->abytes);
        }
    if (tm->up != tm->rank)
        for (lj = 0; lj < tm->g.bc; lj++) {
            gemm__mpi_post(xc->sends, &xc->nsend, bf->b[lj], tm->up, GEMM__MPI_TAG_B + lj, sl->bbytes);
            gemm__mpi_post(xc->recvs, &xc->nrecv, bf->bspare[lj], tm->down, GEMM__MPI_TAG_B + lj, sl->bbytes);
        }
}

/* After the blocks moved: slide the slots one place and put the arrival
   (the spare, or the block that left when the neighbour is this rank) last. */
static void gemm__mpi_rotate(const gemm__mpi_team *tm, gemm__mpi_bufs *bf, int shift_a, int used_spares)
{
    int li, lj, t, bc = tm->g.bc, br = tm->g.br;
    if (shift_a)
        for (li = 0; li < br; li++) {
            void *out = bf->a[li * bc];
            for (t = 0; t + 1 < bc; t++) bf->a[li * bc + t] = bf->a[li * bc + t + 1];
            if (used_spares && tm->left != tm->rank) {
                bf->a[li * bc + bc - 1] = bf->aspare[li];
                bf->aspare[li] = out;
            } else
                bf->a[li * bc + bc - 1] = out;
        }
    for (lj = 0; lj < bc; lj++) {
        void *out = bf->b[lj];
        for (t = 0; t + 1 < br; t++) bf->b[t * bc + lj] = bf->b[(t + 1) * bc + lj];
        if (used_spares && tm->up != tm->rank) {
            bf->b[(br - 1) * bc + lj] = bf->bspare[lj];
            bf->bspare[lj] = out;
        } else
            bf->b[(br - 1) * bc + lj] = out;
    }
}

/* Blocking shift: MPI_Sendrecv_replace on host blocks, spares on a GPU. */
static void gemm__mpi_shift_blocking(const gemm__mpi_team *tm, gemm__mpi_device *dv, gemm__mpi_bufs *bf,
                                     const gemm__mpi_slab *sl, gemm__mpi_xchg *xc, gemm__mpi_err *e, int shift_a)
{
    int li, lj;
    if (dv->cuda) {
        gemm__mpi_queue_shift(tm, bf, sl, xc, shift_a);
        gemm__mpi_start(xc, tm, dv, e);
        gemm__mpi_wait(xc, tm, dv, e);
        gemm__mpi_rotate(tm, bf, shift_a, 1);
        return;
    }
    if (shift_a && tm->left != tm->rank)
        for (li = 0; li < tm->g.br; li++)
            gemm__mpi_message(xc, tm, e, GEMM__MPI_REPLACE, bf->a[li * tm->g.bc], sl->abytes, tm->left, tm->right, li,
                              NULL);
    if (tm->up != tm->rank)
        for (lj = 0; lj < tm->g.bc; lj++)
            gemm__mpi_message(xc, tm, e, GEMM__MPI_REPLACE, bf->b[lj], sl->bbytes, tm->up, tm->down,
                              GEMM__MPI_TAG_B + lj, NULL);
    gemm__mpi_rotate(tm, bf, shift_a, 0);
}

#ifdef GEMM_MPI_CUDA
/* Seconds between the device's events ev0 and ev1, once ev1 is reached;
   while the GPU works, a k-slab's feed (`feed`: its staging, or NULL)
   moves on. */
static double gemm__mpi_event_seconds(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, const gemm__mpi_device *dv,
                                      const gemm__mpi_call *c, const gemm__mpi_bufs *bf, gemm__mpi_stage *feed,
                                      gemm__mpi_err *e)
{
    float ms = 0;
    while (feed && feed->fd.active && e->st == GEMM_OK && cudaEventQuery(dv->ev1) == cudaErrorNotReady)
        gemm__mpi_feed_pump(sh, tm, dv, c, bf, feed, e); /* the next slab moves while the GPU multiplies */
    GEMM__MPI_CU(e, cudaEventSynchronize(dv->ev1));
    if (e->st == GEMM_OK) GEMM__MPI_CU(e, cudaEventElapsedTime(&ms, dv->ev0, dv->ev1));
    return 1e-3 * (double)ms;
}

/* The GPU's round: queued (unless the distribution did: `prelaunched`),
   then timed by its events while the transfers in flight finish. */
static void gemm__mpi_round_gpu(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, gemm__mpi_device *dv,
                                const gemm__mpi_call *c, gemm__mpi_bufs *bf, const gemm__mpi_slab *sl,
                                gemm__mpi_xchg *xc, gemm__mpi_stage *feed, gemm__mpi_err *e, gemm_timing *t, void **a,
                                int first, int in_flight, int prelaunched, double t0)
{
    double comp, rest;
    if (!prelaunched) {
        GEMM__MPI_CU(e, cudaEventRecord(dv->ev0, dv->stream));
        gemm__mpi_multiply(sh, dv, c, &tm->g, bf, sl->kb, e, a, first);
        GEMM__MPI_CU(e, cudaEventRecord(dv->ev1, dv->stream));
    }
    if (in_flight) gemm__mpi_wait(xc, tm, dv, e);
    comp = gemm__mpi_event_seconds(sh, tm, dv, c, bf, feed, e);
    t->compute_s += comp;
    rest = gemm__mpi_now() - t0 - comp;
    t->shift_s += rest > 0 ? rest : 0;
}
#endif

/* One round's multiply of the slots (their a blocks from `a`), timed; with
   transfers in flight (overlap) the CPU polls MPI between panels so they
   progress, and the GPU works meanwhile. A k-slab's feed (`feed`: its
   staging, or NULL) moves on between panels too. */
static void gemm__mpi_round_multiply(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, gemm__mpi_device *dv,
                                     const gemm__mpi_call *c, gemm__mpi_bufs *bf, const gemm__mpi_slab *sl,
                                     gemm__mpi_xchg *xc, gemm__mpi_stage *feed, gemm__mpi_err *e, gemm_timing *t,
                                     void **a, int first, int in_flight, int prelaunched)
{
    const gemm__mpi_grid *g = &tm->g;
    double t0 = gemm__mpi_now(), comp = 0;
    int s, n = g->br * g->bc, feeding = feed && feed->fd.active;
#ifdef GEMM_MPI_CUDA
    if (dv->cuda) {
        gemm__mpi_round_gpu(sh, tm, dv, c, bf, sl, xc, feed, e, t, a, first, in_flight, prelaunched, t0);
        return;
    }
#endif
    (void)prelaunched;
    int64_t w = in_flight || feeding ? GEMM__HOOK(mpi_poll_cols, GEMM__MPI_POLL_COLS) : g->nb, j;
    for (s = 0; s < n; s++)
        for (j = 0; j < g->nb; j += w) {
            double t1 = gemm__mpi_now();
            gemm__mpi_multiply_cols(sh, dv, c, g, bf, sl->kb, e, a, first, s, j, j + w < g->nb ? j + w : g->nb);
            comp += gemm__mpi_now() - t1;
            if (in_flight) gemm__mpi_test(xc, e);
            if (feed && feed->fd.active) gemm__mpi_feed_pump(sh, tm, dv, c, bf, feed, e);
        }
    if (in_flight) gemm__mpi_wait(xc, tm, dv, e);
    t->compute_s += comp;
    t->shift_s += gemm__mpi_now() - t0 - comp;
}

/* Cannon's q rounds on the slots: multiply, shift a left and b up
   (overlapped: started before the multiply, into the spares). `sl`: the
   blocks' depth; `accumulate`: the first round adds to C (a later k-slab)
   instead of taking beta*C; `prelaunched`: the first round is queued
   already; `feed`: a k-slab's staging whose feed moves on meanwhile, or
   NULL. */
static void gemm__mpi_cannon(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, gemm__mpi_device *dv,
                             const gemm__mpi_call *c, gemm__mpi_bufs *bf, const gemm__mpi_slab *sl, gemm__mpi_xchg *xc,
                             gemm__mpi_stage *feed, gemm__mpi_err *e, gemm_timing *t, int accumulate, int prelaunched)
{
    int round, q = tm->g.q;
    for (round = 0; round < q; round++) {
        int last = round == q - 1, overlap = sh->o.overlap && !last;
        if (overlap) {
            gemm__mpi_queue_shift(tm, bf, sl, xc, 1);
            gemm__mpi_start(xc, tm, dv, e);
        }
        gemm__mpi_round_multiply(sh, tm, dv, c, bf, sl, xc, feed, e, t, bf->a, round == 0 && !accumulate, overlap,
                                 round == 0 && prelaunched);
        if (overlap) gemm__mpi_rotate(tm, bf, 1, 1);
        else if (!last) {
            double t0 = gemm__mpi_now();
            gemm__mpi_shift_blocking(tm, dv, bf, sl, xc, e, 1);
            t->shift_s += gemm__mpi_now() - t0;
        }
    }
}

/* Fox's broadcasts of one round: block row li multiplies a(i, i+round),
   broadcast along the process row from the rank holding it; use[] gets
   each slot's a block. */
static void gemm__mpi_fox_bcast(const gemm__mpi_team *tm, const gemm__mpi_device *dv, const gemm__mpi_bufs *bf,
                                gemm__mpi_xchg *xc, gemm__mpi_err *e, int round, void **use)
{
    const gemm__mpi_grid *g = &tm->g;
    int li, lj, q = g->q, bc = g->bc, staged = !gemm__mpi_direct(dv);
    for (li = 0; li < g->br; li++) {
        int i = g->row * g->br + li, p = (i + round) % q, mine = p / bc == g->col;
        void *buf = mine ? bf->a[li * bc + p % bc] : bf->fox[li];
        if (g->cols > 1 && staged) {
            if (mine) gemm__mpi_copy(dv, e, xc->pool, 0, buf, 1, bf->abytes);
            gemm__mpi_message(xc, tm, e, GEMM__MPI_BCAST, xc->pool, bf->abytes, p / bc, 0, 0, NULL);
            if (!mine) gemm__mpi_copy(dv, e, buf, 1, xc->pool, 0, bf->abytes);
        } else if (g->cols > 1)
            gemm__mpi_message(xc, tm, e, GEMM__MPI_BCAST, buf, bf->abytes, p / bc, 0, 0, NULL);
        for (lj = 0; lj < bc; lj++) use[li * bc + lj] = buf;
    }
}

/* Fox: each round broadcasts a, multiplies, then rolls b up. */
static void gemm__mpi_fox(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, gemm__mpi_device *dv,
                          const gemm__mpi_call *c, gemm__mpi_bufs *bf, gemm__mpi_xchg *xc, gemm__mpi_err *e,
                          gemm_timing *t)
{
    gemm__mpi_slab sl;
    int round, q = tm->g.q;
    sl.kb = tm->g.kb;
    sl.abytes = bf->abytes;
    sl.bbytes = bf->bbytes;
    for (round = 0; round < q; round++) {
        double t0 = gemm__mpi_now();
        gemm__mpi_fox_bcast(tm, dv, bf, xc, e, round, bf->use); /* bf->use: allocated by the setup, before its vote */
        t->shift_s += gemm__mpi_now() - t0;
        gemm__mpi_round_multiply(sh, tm, dv, c, bf, &sl, xc, NULL, e, t, bf->use, round == 0, 0, 0);
        if (round < q - 1) {
            t0 = gemm__mpi_now();
            gemm__mpi_shift_blocking(tm, dv, bf, &sl, xc, e, 0);
            t->shift_s += gemm__mpi_now() - t0;
        }
    }
}

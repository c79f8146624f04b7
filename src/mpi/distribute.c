/* ---- distribution and gather -------------------------------------------------- */

/* Root-held calls: the root cuts A, B and C into blocks and sends each rank
   the blocks it starts with, Cannon's initial skew already applied (so
   there is no separate skew round); after the rounds it gathers C. Blocks
   travel in chunks of whole runs through two staging buffers, one packed
   while the other travels. The caller's matrices are host memory, so a GPU
   rank copies each chunk to or from its device, unless its MPI takes
   device memory (the CUDA-aware path). The root's GPU starts the first
   round on the root's own blocks while the root packs everyone else's.
   Distributed calls: each rank packs its pieces into blocks and, for
   Cannon, sends each natural block to the slot the skew puts it in (one
   exchange, mpi/transfer.c); C goes back into the pieces. */
#pragma once

#include "copy.c"     /* spans, copies between blocks and the caller's matrices */
#include "local.c"    /* gemm__mpi_multiply: the prelaunch */
#include "transfer.c" /* the skew's exchange */

/* Virtual block (i, j) of slot s of grid place (r, c). */
static void gemm__mpi_slot_ij(const gemm__mpi_grid *g, int r, int c, int s, int *i, int *j)
{
    *i = r * g->br + s / g->bc;
    *j = c * g->bc + s % g->bc;
}

/* The block of `which` (a, b, c) that slot (i, j) starts with: Cannon's
   skew puts a(i, i+j) and b(i+j, j) there; Fox starts unskewed. */
static void gemm__mpi_start_block(const gemm__mpi_grid *g, gemm_mpi_algorithm algorithm, int which, int i, int j,
                                  int *bi, int *bj)
{
    int skew = which < 2 && algorithm == GEMM_MPI_CANNON ? (i + j) % g->q : -1;
    *bi = which == 1 && skew >= 0 ? skew : i;
    *bj = which == 0 && skew >= 0 ? skew : j;
}

/* The slots of a (0), b (1) or c (2), and the call's matrix (or piece)
   with its leading dimension. */
static void **gemm__mpi_slots(const gemm__mpi_bufs *bf, int which)
{
    return which == 0 ? bf->a : which == 1 ? bf->b : bf->c;
}

static void *gemm__mpi_user(const gemm__mpi_call *c, int which, int64_t *ld)
{
    *ld = which == 0 ? c->p.lda : which == 1 ? c->p.ldb : c->p.ldc;
    return which == 0 ? (void *)c->A : which == 1 ? (void *)c->B : c->C;
}

/* Waits until staging buffer k may be refilled; the wait for its device
   copy counts as to_device_s. */
static void gemm__mpi_stage_wait(gemm__mpi_stage *sg, gemm__mpi_err *e, gemm_timing *t, int k)
{
    if (sg->req[k] != MPI_REQUEST_NULL) GEMM__MPI_DO(e, MPI_Wait(&sg->req[k], MPI_STATUS_IGNORE));
#ifdef GEMM_MPI_CUDA
    if (sg->dev[k]) {
        double t0 = gemm__mpi_now();
        GEMM__MPI_CU(e, cudaEventSynchronize(sg->ev[k]));
        t->to_device_s += gemm__mpi_now() - t0;
    }
#else
    (void)t;
#endif
    sg->dev[k] = 0;
}

/* Starts the copy of staging buffer k to the device. */
static void gemm__mpi_stage_h2d(gemm__mpi_stage *sg, const gemm__mpi_device *dv, gemm__mpi_err *e, int k, void *dst,
                                size_t len)
{
#ifdef GEMM_MPI_CUDA
    GEMM__MPI_CU(e, cudaMemcpyAsync(dst, sg->buf[k], len, cudaMemcpyHostToDevice, dv->stream));
    GEMM__MPI_CU(e, cudaEventRecord(sg->ev[k], dv->stream));
    sg->dev[k] = 1;
#else
    (void)sg;
    (void)dv;
    (void)e;
    (void)k;
    (void)dst;
    (void)len;
#endif
}

/* Copies a device block's chunk into staging buffer k, timed. */
static void gemm__mpi_stage_d2h(gemm__mpi_stage *sg, const gemm__mpi_device *dv, gemm__mpi_err *e, gemm_timing *t,
                                int k, const void *src, size_t len)
{
    double t0 = gemm__mpi_now();
    gemm__mpi_copy(dv, e, sg->buf[k], 0, src, 1, len);
    t->from_device_s += gemm__mpi_now() - t0;
}

/* Moves one block between the root's matrix and the rank that owns it,
   chunk by chunk of whole runs through two staging buffers (one is filled
   while the other travels): to_block for the distribution, else the
   gather. The root packs and unpacks; a GPU rank copies each chunk to or
   from its device, unless MPI takes device memory. Every rank cuts a block
   into the same chunks. */
static void gemm__mpi_stage_block(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, const gemm__mpi_device *dv,
                                  gemm__mpi_stage *sg, gemm__mpi_err *e, gemm_timing *t, int owner, int tag,
                                  void *block, void *user, int64_t ld, const gemm__mpi_span *sp, int to_block)
{
    size_t run = (size_t)sp->INNER * sh->es;
    int64_t per = (int64_t)(sg->bytes / run), o;
    int root = sh->o.root;
    if (per < 1) per = 1;
    for (o = 0; o < sp->OUTER; o += per) {
        int64_t end = o + per < sp->OUTER ? o + per : sp->OUTER;
        size_t len = (size_t)(end - o) * run;
        char *blk = (char *)block + (size_t)o * run, *st;
        int k = sg->chunk++ & 1;
        st = sg->buf[k];
        if (tm->rank == root && to_block) {
            gemm__mpi_stage_wait(sg, e, t, k);
            gemm__mpi_copy_part(sh, st, user, ld, sp, o, end, 1);
            if (owner == root) gemm__mpi_stage_h2d(sg, dv, e, k, blk, len);
            else GEMM__MPI_DO(e, MPI_Isend(st, (int)len, MPI_BYTE, owner, tag, tm->comm, &sg->req[k]));
        } else if (tm->rank == root) {
            if (owner == root) gemm__mpi_stage_d2h(sg, dv, e, t, k, blk, len);
            else GEMM__MPI_DO(e, MPI_Recv(st, (int)len, MPI_BYTE, owner, tag, tm->comm, MPI_STATUS_IGNORE));
            gemm__mpi_copy_part(sh, st, user, ld, sp, o, end, 0);
        } else if (gemm__mpi_direct(dv)) {
            if (to_block) GEMM__MPI_DO(e, MPI_Recv(blk, (int)len, MPI_BYTE, root, tag, tm->comm, MPI_STATUS_IGNORE));
            else GEMM__MPI_DO(e, MPI_Send(blk, (int)len, MPI_BYTE, root, tag, tm->comm));
        } else if (to_block) {
            gemm__mpi_stage_wait(sg, e, t, k);
            GEMM__MPI_DO(e, MPI_Recv(st, (int)len, MPI_BYTE, root, tag, tm->comm, MPI_STATUS_IGNORE));
            gemm__mpi_stage_h2d(sg, dv, e, k, blk, len);
        } else {
            gemm__mpi_stage_wait(sg, e, t, k);
            gemm__mpi_stage_d2h(sg, dv, e, t, k, blk, len);
            GEMM__MPI_DO(e, MPI_Isend(st, (int)len, MPI_BYTE, root, tag, tm->comm, &sg->req[k]));
        }
    }
}

/* The root's GPU starts Cannon's first round on its own blocks (queued
   behind their copies) while the root packs and sends everyone else's.
   Returns whether it did: that round is then not queued again. */
static int gemm__mpi_prelaunch(const gemm__mpi_shape *sh, const gemm__mpi_device *dv, const gemm__mpi_call *c,
                               const gemm__mpi_grid *g, const gemm__mpi_bufs *bf, gemm__mpi_err *e)
{
#ifdef GEMM_MPI_CUDA
    if (!dv->cuda || sh->o.algorithm != GEMM_MPI_CANNON) return 0;
    GEMM__MPI_CU(e, cudaEventRecord(dv->ev0, dv->stream));
    gemm__mpi_multiply(sh, dv, c, g, bf, g->kb, e, bf->a, 1);
    GEMM__MPI_CU(e, cudaEventRecord(dv->ev1, dv->stream));
    return 1;
#else
    (void)sh;
    (void)dv;
    (void)c;
    (void)g;
    (void)bf;
    (void)e;
    return 0;
#endif
}

/* Root-held: the root sends every rank the blocks of a (which 0), b (1)
   and c (2) from w0 to w1 it starts with (its own first); each rank takes
   its own. The root's GPU starts on its own blocks meanwhile when they are
   all there: returns whether it did (gemm__mpi_prelaunch). */
static int gemm__mpi_distribute_blocks(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, const gemm__mpi_device *dv,
                                       const gemm__mpi_call *c, const gemm__mpi_bufs *bf, gemm__mpi_stage *sg,
                                       gemm__mpi_err *e, gemm_timing *t, int w0, int w1)
{
    const gemm__mpi_grid *g = &tm->g;
    int which, s, d, root = sh->o.root, prelaunched = 0;
    double t0 = gemm__mpi_now(), h2d0 = t->to_device_s;
    sg->chunk = 0;
    for (d = 0; d < tm->P; d++) {
        int dst = (root + d) % tm->P, r, cc;
        if (tm->rank != root && tm->rank != dst) continue;
        gemm__mpi_place(g, dst, &r, &cc);
        for (which = w0; which <= w1; which++) {
            int64_t ld;
            void *user = gemm__mpi_user(c, which, &ld), **slots = gemm__mpi_slots(bf, which);
            for (s = 0; s < g->br * g->bc; s++) {
                int i, j, bi, bj;
                gemm__mpi_span sp;
                gemm__mpi_slot_ij(g, r, cc, s, &i, &j);
                gemm__mpi_start_block(g, sh->o.algorithm, which, i, j, &bi, &bj);
                sp = gemm__mpi_span_in(c, g, which, bi, bj);
                if (dst == root && !dv->cuda) /* the root's own host blocks: copied in place */
                    gemm__mpi_copy_runs(sh, dv, e, slots[s], user, ld, &sp, 1, 0);
                else gemm__mpi_stage_block(sh, tm, dv, sg, e, t, dst, which, slots[s], user, ld, &sp, 1);
            }
        }
        if (dst == root && w0 == 0 && w1 >= 1) prelaunched = gemm__mpi_prelaunch(sh, dv, c, g, bf, e);
    }
    gemm__mpi_stage_wait(sg, e, t, 0);
    gemm__mpi_stage_wait(sg, e, t, 1);
    t->distribute_s += gemm__mpi_now() - t0 - (t->to_device_s - h2d0);
    return prelaunched;
}

/* Root-held: A, B and (beta != 0) C; beta == 0: C is not read. Returns
   whether the root's GPU already queued the first round. */
static int gemm__mpi_distribute(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, const gemm__mpi_device *dv,
                                const gemm__mpi_call *c, const gemm__mpi_bufs *bf, gemm__mpi_stage *sg,
                                gemm__mpi_err *e, gemm_timing *t)
{
    return gemm__mpi_distribute_blocks(sh, tm, dv, c, bf, sg, e, t, 0, c->beta != 0 ? 2 : 1);
}

/* Root-held: every rank sends its C blocks to the root, which unpacks them
   into C. */
static void gemm__mpi_gather(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, const gemm__mpi_device *dv,
                             const gemm__mpi_call *c, const gemm__mpi_bufs *bf, gemm__mpi_stage *sg, gemm__mpi_err *e,
                             gemm_timing *t)
{
    const gemm__mpi_grid *g = &tm->g;
    int d, s, root = sh->o.root;
    double t0 = gemm__mpi_now(), d2h0 = t->from_device_s;
    sg->chunk = 0;
    for (d = 0; d < tm->P; d++) {
        int src = (root + d) % tm->P, r, cc;
        if (tm->rank != root && tm->rank != src) continue;
        gemm__mpi_place(g, src, &r, &cc);
        for (s = 0; s < g->br * g->bc; s++) {
            int i, j;
            gemm__mpi_span sp;
            gemm__mpi_slot_ij(g, r, cc, s, &i, &j);
            sp = gemm__mpi_span_in(c, g, 2, i, j);
            if (src == root && !dv->cuda) gemm__mpi_copy_runs(sh, dv, e, bf->c[s], c->C, c->p.ldc, &sp, 0, 0);
            else gemm__mpi_stage_block(sh, tm, dv, sg, e, t, src, 2, bf->c[s], c->C, c->p.ldc, &sp, 0);
        }
    }
    gemm__mpi_stage_wait(sg, e, t, 0);
    gemm__mpi_stage_wait(sg, e, t, 1);
    t->gather_s += gemm__mpi_now() - t0 - (t->from_device_s - d2h0);
}

/* Distributed Cannon: queues the skew of a (which 0) or b (1): natural
   block (i, j) goes to the slot that starts with it: for a, slot (i, j - i);
   for b, slot (i - j, j) (mod q). Tags number blocks. */
static void gemm__mpi_queue_skew(gemm__mpi_xchg *xc, const gemm__mpi_team *tm, const gemm__mpi_bufs *bf, int which)
{
    const gemm__mpi_grid *g = &tm->g;
    int s, q = g->q, br = g->br, bc = g->bc;
    size_t bytes = which == 0 ? bf->abytes : bf->bbytes;
    void **slots = gemm__mpi_slots(bf, which);
    for (s = 0; s < br * bc; s++) {
        int i, j, ti, tj, bi, bj;
        gemm__mpi_slot_ij(g, g->row, g->col, s, &i, &j);
        ti = which == 0 ? i : ((i - j) % q + q) % q;
        tj = which == 0 ? ((j - i) % q + q) % q : j;
        gemm__mpi_post(xc->sends, &xc->nsend, bf->temps[s], gemm__mpi_rank_at(g, ti / br, tj / bc), i * q + j, bytes);
        gemm__mpi_start_block(g, GEMM_MPI_CANNON, which, i, j, &bi, &bj);
        gemm__mpi_post(xc->recvs, &xc->nrecv, slots[s], gemm__mpi_rank_at(g, bi / br, bj / bc), bi * q + bj, bytes);
    }
}

/* Distributed: pack this rank's pieces into blocks; for Cannon, send each
   natural block of a and b to the slot its skew puts it in. */
static void gemm__mpi_local_blocks(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, gemm__mpi_device *dv,
                                   const gemm__mpi_call *c, const gemm__mpi_bufs *bf, gemm__mpi_xchg *xc,
                                   gemm__mpi_err *e, gemm_timing *t)
{
    const gemm__mpi_grid *g = &tm->g;
    int which, s, fox = sh->o.algorithm == GEMM_MPI_FOX;
    double t0 = gemm__mpi_now();
    for (which = 0; which < 3; which++) {
        int64_t ld;
        void *user = gemm__mpi_user(c, which, &ld), **slots = gemm__mpi_slots(bf, which);
        int skew = which < 2 && !fox;
        if (which == 2 && c->beta == 0) break;
        for (s = 0; s < g->br * g->bc; s++) {
            int i, j;
            gemm__mpi_span sp;
            gemm__mpi_slot_ij(g, g->row, g->col, s, &i, &j);
            sp = gemm__mpi_span_in(c, g, which, i, j);
            gemm__mpi_copy_runs(sh, dv, e, skew ? bf->temps[s] : slots[s], user, ld, &sp, 1, dv->cuda);
        }
        if (!skew) continue;
        gemm__mpi_sync(dv, e);
        gemm__mpi_queue_skew(xc, tm, bf, which);
        gemm__mpi_start(xc, tm, dv, e);
        gemm__mpi_wait(xc, tm, dv, e);
    }
    gemm__mpi_sync(dv, e);
    t->distribute_s += gemm__mpi_now() - t0;
}

/* Distributed: write the C blocks back into this rank's piece. */
static void gemm__mpi_store_c(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, const gemm__mpi_device *dv,
                              const gemm__mpi_call *c, const gemm__mpi_bufs *bf, gemm__mpi_err *e)
{
    const gemm__mpi_grid *g = &tm->g;
    int s;
    for (s = 0; s < g->br * g->bc; s++) {
        int i, j;
        gemm__mpi_span sp;
        gemm__mpi_slot_ij(g, g->row, g->col, s, &i, &j);
        sp = gemm__mpi_span_in(c, g, 2, i, j);
        gemm__mpi_copy_runs(sh, dv, e, bf->c[s], c->C, c->p.ldc, &sp, 0, dv->cuda);
    }
    gemm__mpi_sync(dv, e);
}

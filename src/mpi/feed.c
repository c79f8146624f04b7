/* ---- the root-held stream: the next k-slab travels during the rounds --------------- */

/* With options.slabs > 1 the root-held Cannon multiplies A and B in
   k-slabs (mpi/stream.c). While the ranks multiply one slab, the next one
   travels: the root packs it chunk by chunk into its two staging buffers
   and sends each chunk to the rank that starts with that block; each rank
   receives its chunks into its landing blocks (through its own staging
   buffers and the copy stream when it is a GPU rank and MPI takes no
   device memory). Nothing here waits unless asked to (`block`): the rounds
   call gemm__mpi_feed_pump between panels and while their GPU works, so
   the feed moves whenever the rank would otherwise wait, and
   gemm__mpi_feed_finish completes it before the slab is used. The chunks
   are those of the whole-block distribution (mpi/distribute.c), in the
   order rank, a then b, slot, runs; messages carry tags of their own. The
   cursor (gemm__mpi_feed) lives in the staging it moves through
   (gemm__mpi_stage). */
#pragma once

#include <string.h>
#include "copy.c"       /* gemm__mpi_copy_part, gemm__mpi_direct */
#include "distribute.c" /* the cursor's blocks: slots, start blocks, the call's matrices */

/* The feed's messages have tags of their own: a slab's a and b chunks. */
#define GEMM__MPI_TAG_FEED 31000

/* The block of the feed's cursor: its span in A or B (the slab's columns),
   where it lands on its rank, and the call's matrix. */
static gemm__mpi_span gemm__mpi_feed_block(const gemm__mpi_shape *sh, const gemm__mpi_team *tm,
                                           const gemm__mpi_call *c, const gemm__mpi_bufs *bf,
                                           const gemm__mpi_feed *fd, int *dst, char **land, void **user, int64_t *ld)
{
    const gemm__mpi_grid *g = &tm->g;
    int r, cc, i, j, bi, bj;
    *dst = (sh->o.root + fd->d) % tm->P;
    gemm__mpi_place(g, *dst, &r, &cc);
    gemm__mpi_slot_ij(g, r, cc, fd->slot, &i, &j);
    gemm__mpi_start_block(g, sh->o.algorithm, fd->which, i, j, &bi, &bj);
    *land = (char *)(fd->which ? bf->land_b : bf->land_a)[fd->slot];
    *user = gemm__mpi_user(c, fd->which, ld);
    return gemm__mpi_span_slab(c, g, fd->which, bi, bj, fd->kb, fd->kofs);
}

/* Runs per chunk of a block whose runs are `run` bytes (every rank cuts alike). */
static int64_t gemm__mpi_feed_per(const gemm__mpi_stage *sg, size_t run)
{
    int64_t per = (int64_t)(sg->bytes / run);
    return per > 1 ? per : 1;
}

/* Moves the cursor past the chunk of `per` runs of a block of `outer` runs:
   the root walks every rank's blocks, another rank only its own. */
static void gemm__mpi_feed_next(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, gemm__mpi_feed *fd, int64_t per,
                                int64_t outer)
{
    fd->o += per;
    if (fd->o < outer) return;
    fd->o = 0;
    if (++fd->slot < tm->g.br * tm->g.bc) return;
    fd->slot = 0;
    if (++fd->which < 2) return;
    fd->which = 0;
    if (tm->rank != sh->o.root || ++fd->d == tm->P) fd->done = 1;
}

/* Whether staging buffer k is free: its message sent or received, and its
   device copy done. `block`: wait until it is. */
static int gemm__mpi_feed_free(gemm__mpi_stage *sg, gemm__mpi_err *e, int k, int block)
{
    int done = 1;
    if (sg->req[k] != MPI_REQUEST_NULL) {
        if (block) GEMM__MPI_DO(e, MPI_Wait(&sg->req[k], MPI_STATUS_IGNORE));
        else if (!GEMM__MPI_DO(e, MPI_Test(&sg->req[k], &done, MPI_STATUS_IGNORE))) done = 1;
        if (!done) return 0;
    }
#ifdef GEMM_MPI_CUDA
    if (sg->dev[k]) {
        cudaError_t rc = block ? cudaEventSynchronize(sg->ev[k]) : cudaEventQuery(sg->ev[k]);
        if (rc == cudaErrorNotReady) return 0;
        GEMM__MPI_CU(e, rc);
        sg->dev[k] = 0;
    }
#endif
    return 1;
}

/* Staging buffer k's chunk to the device, on the copy stream. */
static void gemm__mpi_feed_h2d(const gemm__mpi_device *dv, gemm__mpi_stage *sg, gemm__mpi_err *e, int k, char *to,
                               size_t len)
{
#ifdef GEMM_MPI_CUDA
    GEMM__MPI_CU(e, cudaMemcpyAsync(to, sg->buf[k], len, cudaMemcpyHostToDevice, dv->copy_stream));
    GEMM__MPI_CU(e, cudaEventRecord(sg->ev[k], dv->copy_stream));
    sg->dev[k] = 1;
#else
    (void)dv;
    (void)sg;
    (void)e;
    (void)k;
    (void)to;
    (void)len;
#endif
}

/* The root's next chunk: packed (its own CPU blocks straight into their
   landing), then sent, or copied to its own GPU. */
static int gemm__mpi_feed_root(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, const gemm__mpi_device *dv,
                               const gemm__mpi_call *c, const gemm__mpi_bufs *bf, gemm__mpi_stage *sg,
                               gemm__mpi_err *e, int block)
{
    gemm__mpi_feed *fd = &sg->fd;
    int dst, k = sg->chunk & 1;
    char *land;
    void *user;
    int64_t ld, end, per;
    size_t run, len;
    gemm__mpi_span sp = gemm__mpi_feed_block(sh, tm, c, bf, fd, &dst, &land, &user, &ld);
    run = (size_t)sp.INNER * sh->es;
    per = gemm__mpi_feed_per(sg, run);
    end = fd->o + per < sp.OUTER ? fd->o + per : sp.OUTER;
    len = (size_t)(end - fd->o) * run;
    if (dst == tm->rank && !dv->cuda)
        gemm__mpi_copy_part(sh, land + (size_t)fd->o * run, user, ld, &sp, fd->o, end, 1);
    else {
        if (!gemm__mpi_feed_free(sg, e, k, block)) return 0;
        gemm__mpi_copy_part(sh, sg->buf[k], user, ld, &sp, fd->o, end, 1);
        if (dst == tm->rank) gemm__mpi_feed_h2d(dv, sg, e, k, land + (size_t)fd->o * run, len);
        else GEMM__MPI_DO(e, MPI_Isend(sg->buf[k], (int)len, MPI_BYTE, dst, GEMM__MPI_TAG_FEED + fd->which, tm->comm,
                                       &sg->req[k]));
        sg->chunk++;
    }
    gemm__mpi_feed_next(sh, tm, fd, per, sp.OUTER);
    return 1;
}

/* Another rank's next chunk: its receive posted (straight into the landing
   when MPI takes the memory; else into staging buffer k, whose previous
   chunk goes on to the device first). */
static int gemm__mpi_feed_rank(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, const gemm__mpi_device *dv,
                               const gemm__mpi_call *c, const gemm__mpi_bufs *bf, gemm__mpi_stage *sg,
                               gemm__mpi_err *e, int block)
{
    gemm__mpi_feed *fd = &sg->fd;
    int dst, k = sg->chunk & 1, direct = gemm__mpi_direct(dv);
    char *land, *to;
    void *user;
    int64_t ld, per;
    size_t run, len;
    gemm__mpi_span sp = gemm__mpi_feed_block(sh, tm, c, bf, fd, &dst, &land, &user, &ld);
    run = (size_t)sp.INNER * sh->es;
    per = gemm__mpi_feed_per(sg, run);
    len = (size_t)((fd->o + per < sp.OUTER ? fd->o + per : sp.OUTER) - fd->o) * run;
    to = land + (size_t)fd->o * run;
    if (fd->pending[k]) { /* the chunk received here two chunks ago */
        if (!gemm__mpi_feed_free(sg, e, k, block)) return 0;
        gemm__mpi_feed_h2d(dv, sg, e, k, fd->to[k], fd->len[k]);
        fd->pending[k] = 0;
    }
    if (!gemm__mpi_feed_free(sg, e, k, block)) return 0;
    GEMM__MPI_DO(e, MPI_Irecv(direct ? to : sg->buf[k], (int)len, MPI_BYTE, sh->o.root,
                              GEMM__MPI_TAG_FEED + fd->which, tm->comm, &sg->req[k]));
    fd->pending[k] = !direct;
    fd->to[k] = to;
    fd->len[k] = len;
    sg->chunk++;
    gemm__mpi_feed_next(sh, tm, fd, per, sp.OUTER);
    return 1;
}

/* One step of the feed; 0 when it would have to wait (or is over). */
static int gemm__mpi_feed_step(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, const gemm__mpi_device *dv,
                               const gemm__mpi_call *c, const gemm__mpi_bufs *bf, gemm__mpi_stage *sg,
                               gemm__mpi_err *e, int block)
{
    if (!sg->fd.active || sg->fd.done) return 0;
    return tm->rank == sh->o.root ? gemm__mpi_feed_root(sh, tm, dv, c, bf, sg, e, block)
                                   : gemm__mpi_feed_rank(sh, tm, dv, c, bf, sg, e, block);
}

/* As many steps as go without waiting. */
static void gemm__mpi_feed_pump(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, const gemm__mpi_device *dv,
                                const gemm__mpi_call *c, const gemm__mpi_bufs *bf, gemm__mpi_stage *sg,
                                gemm__mpi_err *e)
{
    while (gemm__mpi_feed_step(sh, tm, dv, c, bf, sg, e, 0)) {}
}

/* Starts the slab of kb columns beginning `kofs` into each virtual k-block. */
static void gemm__mpi_feed_start(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, const gemm__mpi_device *dv,
                                 const gemm__mpi_call *c, const gemm__mpi_bufs *bf, gemm__mpi_stage *sg,
                                 gemm__mpi_err *e, int64_t kofs, int64_t kb)
{
    gemm__mpi_feed *fd = &sg->fd;
    memset(fd, 0, sizeof *fd);
    fd->active = 1;
    fd->kofs = kofs;
    fd->kb = kb;
    fd->d = (tm->rank - sh->o.root + tm->P) % tm->P;
    if (tm->rank == sh->o.root) fd->d = 0;
    sg->chunk = 0;
    gemm__mpi_feed_pump(sh, tm, dv, c, bf, sg, e);
}

/* Completes the slab: every chunk sent, received and on its device. */
static void gemm__mpi_feed_finish(const gemm__mpi_shape *sh, const gemm__mpi_team *tm, const gemm__mpi_device *dv,
                                  const gemm__mpi_call *c, const gemm__mpi_bufs *bf, gemm__mpi_stage *sg,
                                  gemm__mpi_err *e)
{
    gemm__mpi_feed *fd = &sg->fd;
    int k;
    while (gemm__mpi_feed_step(sh, tm, dv, c, bf, sg, e, 1)) {}
    for (k = 0; k < 2; k++) {
        if (fd->pending[k]) {
            gemm__mpi_feed_free(sg, e, k, 1);
            gemm__mpi_feed_h2d(dv, sg, e, k, fd->to[k], fd->len[k]);
            fd->pending[k] = 0;
        }
    }
    for (k = 0; k < 2; k++) gemm__mpi_feed_free(sg, e, k, 1);
    fd->active = 0;
}

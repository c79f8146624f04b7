/* ---- the root-held stream: the next k-slab travels during the rounds --------------- */

#pragma once

#include <string.h>
#include "distribute.c" /* the cursor's blocks: slots, spans, the caller's matrices */

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
   order rank, a then b, slot, runs; messages carry tags of their own. */
#define GEMM__MPI_TAG_FEED 31000

/* The block of the feed's cursor: its span in A or B (this slab's columns),
   where it lands on its rank, and the caller's matrix. */
static gemm__mpi_span gemm__mpi_feed_block(const gemm__mpi *x, int *dst, char **land, void **user, int64_t *ld)
{
    int r, c, i, j, bi, bj;
    *dst = (x->o.root + x->fd.d) % x->P;
    gemm__mpi_place(&x->g, *dst, &r, &c);
    gemm__mpi_slot_ij(x, r, c, x->fd.slot, &i, &j);
    gemm__mpi_start_block(x, x->fd.which, i, j, &bi, &bj);
    *land = (char *)(x->fd.which ? x->land_b : x->land_a)[x->fd.slot];
    *user = gemm__mpi_user(x, x->fd.which, ld);
    return gemm__mpi_span_slab(x, x->fd.which, bi, bj, x->fd.kofs);
}

/* Runs per chunk of a block whose runs are `run` bytes (every rank cuts alike). */
static int64_t gemm__mpi_feed_per(const gemm__mpi *x, size_t run)
{
    int64_t per = (int64_t)(x->stage_bytes / run);
    return per > 1 ? per : 1;
}

/* Moves the cursor past the chunk of `per` runs of a block of `outer` runs:
   the root walks every rank's blocks, another rank only its own. */
static void gemm__mpi_feed_next(gemm__mpi *x, int64_t per, int64_t outer)
{
    x->fd.o += per;
    if (x->fd.o < outer) return;
    x->fd.o = 0;
    if (++x->fd.slot < x->g.br * x->g.bc) return;
    x->fd.slot = 0;
    if (++x->fd.which < 2) return;
    x->fd.which = 0;
    if (x->rank != x->o.root || ++x->fd.d == x->P) x->fd.done = 1;
}

/* Whether staging buffer k is free: its message sent or received, and its
   device copy done. `block`: wait until it is. */
static int gemm__mpi_feed_free(gemm__mpi *x, int k, int block)
{
    int done = 1;
    if (x->stage_req[k] != MPI_REQUEST_NULL) {
        if (block) GEMM__MPI_DO(x, MPI_Wait(&x->stage_req[k], MPI_STATUS_IGNORE));
        else if (!GEMM__MPI_DO(x, MPI_Test(&x->stage_req[k], &done, MPI_STATUS_IGNORE))) done = 1;
        if (!done) return 0;
    }
#ifdef GEMM_MPI_CUDA
    if (x->stage_dev[k]) {
        cudaError_t e = block ? cudaEventSynchronize(x->stage_ev[k]) : cudaEventQuery(x->stage_ev[k]);
        if (e == cudaErrorNotReady) return 0;
        GEMM__MPI_CU(x, e);
        x->stage_dev[k] = 0;
    }
#endif
    return 1;
}

/* Staging buffer k's chunk to the device, on the copy stream. */
static void gemm__mpi_feed_h2d(gemm__mpi *x, int k, char *to, size_t len)
{
#ifdef GEMM_MPI_CUDA
    GEMM__MPI_CU(x, cudaMemcpyAsync(to, x->stage[k], len, cudaMemcpyHostToDevice, x->copy_stream));
    GEMM__MPI_CU(x, cudaEventRecord(x->stage_ev[k], x->copy_stream));
    x->stage_dev[k] = 1;
#else
    (void)x;
    (void)k;
    (void)to;
    (void)len;
#endif
}

/* The root's next chunk: packed (its own CPU blocks straight into their
   landing), then sent, or copied to its own GPU. */
static int gemm__mpi_feed_root(gemm__mpi *x, int block)
{
    int dst, k = x->chunk & 1;
    char *land;
    void *user;
    int64_t ld, end, per;
    size_t run, len;
    gemm__mpi_span sp = gemm__mpi_feed_block(x, &dst, &land, &user, &ld);
    run = (size_t)sp.INNER * x->es;
    per = gemm__mpi_feed_per(x, run);
    end = x->fd.o + per < sp.OUTER ? x->fd.o + per : sp.OUTER;
    len = (size_t)(end - x->fd.o) * run;
    if (dst == x->rank && !x->cuda)
        gemm__mpi_copy_part(x, land + (size_t)x->fd.o * run, user, ld, &sp, x->fd.o, end, 1);
    else {
        if (!gemm__mpi_feed_free(x, k, block)) return 0;
        gemm__mpi_copy_part(x, x->stage[k], user, ld, &sp, x->fd.o, end, 1);
        if (dst == x->rank) gemm__mpi_feed_h2d(x, k, land + (size_t)x->fd.o * run, len);
        else GEMM__MPI_DO(x, MPI_Isend(x->stage[k], (int)len, MPI_BYTE, dst, GEMM__MPI_TAG_FEED + x->fd.which,
                                       x->comm, &x->stage_req[k]));
        x->chunk++;
    }
    gemm__mpi_feed_next(x, per, sp.OUTER);
    return 1;
}

/* Another rank's next chunk: its receive posted (straight into the landing
   when MPI takes the memory; else into staging buffer k, whose previous
   chunk goes on to the device first). */
static int gemm__mpi_feed_rank(gemm__mpi *x, int block)
{
    int dst, k = x->chunk & 1, direct = gemm__mpi_direct(x);
    char *land, *to;
    void *user;
    int64_t ld, per;
    size_t run, len;
    gemm__mpi_span sp = gemm__mpi_feed_block(x, &dst, &land, &user, &ld);
    run = (size_t)sp.INNER * x->es;
    per = gemm__mpi_feed_per(x, run);
    len = (size_t)((x->fd.o + per < sp.OUTER ? x->fd.o + per : sp.OUTER) - x->fd.o) * run;
    to = land + (size_t)x->fd.o * run;
    if (x->fd.pending[k]) { /* the chunk received here two chunks ago */
        if (!gemm__mpi_feed_free(x, k, block)) return 0;
        gemm__mpi_feed_h2d(x, k, x->fd.to[k], x->fd.len[k]);
        x->fd.pending[k] = 0;
    }
    if (!gemm__mpi_feed_free(x, k, block)) return 0;
    GEMM__MPI_DO(x, MPI_Irecv(direct ? to : x->stage[k], (int)len, MPI_BYTE, x->o.root,
                              GEMM__MPI_TAG_FEED + x->fd.which, x->comm, &x->stage_req[k]));
    x->fd.pending[k] = !direct;
    x->fd.to[k] = to;
    x->fd.len[k] = len;
    x->chunk++;
    gemm__mpi_feed_next(x, per, sp.OUTER);
    return 1;
}

/* One step of the feed; 0 when it would have to wait (or is over). */
static int gemm__mpi_feed_step(gemm__mpi *x, int block)
{
    if (!x->fd.active || x->fd.done) return 0;
    return x->rank == x->o.root ? gemm__mpi_feed_root(x, block) : gemm__mpi_feed_rank(x, block);
}

/* As many steps as go without waiting. */
static void gemm__mpi_feed_pump(gemm__mpi *x)
{
    while (gemm__mpi_feed_step(x, 0)) {}
}

/* Starts the slab whose k range begins `kofs` into each virtual k-block. */
static void gemm__mpi_feed_start(gemm__mpi *x, int64_t kofs)
{
    memset(&x->fd, 0, sizeof x->fd);
    x->fd.active = 1;
    x->fd.kofs = kofs;
    x->fd.d = (x->rank - x->o.root + x->P) % x->P;
    if (x->rank == x->o.root) x->fd.d = 0;
    x->chunk = 0;
    gemm__mpi_feed_pump(x);
}

/* Completes the slab: every chunk sent, received and on its device. */
static void gemm__mpi_feed_finish(gemm__mpi *x)
{
    int k;
    while (gemm__mpi_feed_step(x, 1)) {}
    for (k = 0; k < 2; k++) {
        if (x->fd.pending[k]) {
            gemm__mpi_feed_free(x, k, 1);
            gemm__mpi_feed_h2d(x, k, x->fd.to[k], x->fd.len[k]);
            x->fd.pending[k] = 0;
        }
    }
    for (k = 0; k < 2; k++) gemm__mpi_feed_free(x, k, 1);
    x->fd.active = 0;
}

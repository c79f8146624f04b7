/* ---- distribution and gather -------------------------------------------------- */

#pragma once

#include "memory.c" /* GEMM__MPI_STAGE_BYTES */
#include "local.c" /* gemm__mpi_multiply: the prelaunch */
#include "transfer.c"

/* Virtual block (i, j) of slot s of grid place (r, c). */
static void gemm__mpi_slot_ij(const gemm__mpi *x, int r, int c, int s, int *i, int *j)
{
    *i = r * x->g.br + s / x->g.bc;
    *j = c * x->g.bc + s % x->g.bc;
}

/* The block of `which` (a, b, c) that slot (i, j) starts with: Cannon's
   skew puts a(i, i+j) and b(i+j, j) there; Fox starts unskewed. */
static void gemm__mpi_start_block(const gemm__mpi *x, int which, int i, int j, int *bi, int *bj)
{
    int skew = which < 2 && x->o.algorithm == GEMM_MPI_CANNON ? (i + j) % x->g.q : -1;
    *bi = which == 1 && skew >= 0 ? skew : i;
    *bj = which == 0 && skew >= 0 ? skew : j;
}

/* The slots of a (0), b (1) or c (2), and the caller's matrix (or piece)
   with its leading dimension. */
static void **gemm__mpi_slots(const gemm__mpi *x, int which) { return which == 0 ? x->a : which == 1 ? x->b : x->c; }

static void *gemm__mpi_user(const gemm__mpi *x, int which, int64_t *ld)
{
    *ld = which == 0 ? x->p.lda : which == 1 ? x->p.ldb : x->p.ldc;
    return which == 0 ? (void *)x->A : which == 1 ? (void *)x->B : x->C;
}

/* Waits until staging buffer k may be refilled. */
static void gemm__mpi_stage_wait(gemm__mpi *x, int k)
{
    if (x->stage_req[k] != MPI_REQUEST_NULL) GEMM__MPI_DO(x, MPI_Wait(&x->stage_req[k], MPI_STATUS_IGNORE));
#ifdef GEMM_MPI_CUDA
    if (x->stage_dev[k]) {
        double t = gemm__mpi_now();
        GEMM__MPI_CU(x, cudaEventSynchronize(x->stage_ev[k]));
        x->t.to_device_s += gemm__mpi_now() - t;
    }
#endif
    x->stage_dev[k] = 0;
}

/* Starts the copy of staging buffer k to the device. */
static void gemm__mpi_stage_h2d(gemm__mpi *x, int k, void *dst, size_t len)
{
#ifdef GEMM_MPI_CUDA
    GEMM__MPI_CU(x, cudaMemcpyAsync(dst, x->stage[k], len, cudaMemcpyHostToDevice, x->stream));
    GEMM__MPI_CU(x, cudaEventRecord(x->stage_ev[k], x->stream));
    x->stage_dev[k] = 1;
#else
    (void)x;
    (void)k;
    (void)dst;
    (void)len;
#endif
}

/* Copies a device block's chunk into staging buffer k, timed. */
static void gemm__mpi_stage_d2h(gemm__mpi *x, int k, const void *src, size_t len)
{
    double t = gemm__mpi_now();
    gemm__mpi_copy(x, x->stage[k], 0, src, 1, len);
    x->t.from_device_s += gemm__mpi_now() - t;
}

/* Moves one block between the root's matrix and the rank that owns it,
   chunk by chunk of whole runs through two staging buffers (one is filled
   while the other travels): to_block for the distribution, else the
   gather. The root packs and unpacks; a GPU rank copies each chunk to or
   from its device, unless MPI takes device memory. Every rank cuts a block
   into the same chunks. */
static void gemm__mpi_stage_block(gemm__mpi *x, int owner, int tag, void *block, void *user, int64_t ld,
                                  const gemm__mpi_span *sp, int to_block)
{
    size_t run = (size_t)sp->INNER * x->es;
    int64_t per = (int64_t)(x->stage_bytes / run), o;
    int root = x->o.root;
    if (per < 1) per = 1;
    for (o = 0; o < sp->OUTER; o += per) {
        int64_t end = o + per < sp->OUTER ? o + per : sp->OUTER;
        size_t len = (size_t)(end - o) * run;
        char *blk = (char *)block + (size_t)o * run, *st;
        int k = x->chunk++ & 1;
        st = x->stage[k];
        if (x->rank == root && to_block) {
            gemm__mpi_stage_wait(x, k);
            gemm__mpi_copy_part(x, st, user, ld, sp, o, end, 1);
            if (owner == root) gemm__mpi_stage_h2d(x, k, blk, len);
            else GEMM__MPI_DO(x, MPI_Isend(st, (int)len, MPI_BYTE, owner, tag, x->comm, &x->stage_req[k]));
        } else if (x->rank == root) {
            if (owner == root) gemm__mpi_stage_d2h(x, k, blk, len);
            else GEMM__MPI_DO(x, MPI_Recv(st, (int)len, MPI_BYTE, owner, tag, x->comm, MPI_STATUS_IGNORE));
            gemm__mpi_copy_part(x, st, user, ld, sp, o, end, 0);
        } else if (gemm__mpi_direct(x)) {
            if (to_block) GEMM__MPI_DO(x, MPI_Recv(blk, (int)len, MPI_BYTE, root, tag, x->comm, MPI_STATUS_IGNORE));
            else GEMM__MPI_DO(x, MPI_Send(blk, (int)len, MPI_BYTE, root, tag, x->comm));
        } else if (to_block) {
            gemm__mpi_stage_wait(x, k);
            GEMM__MPI_DO(x, MPI_Recv(st, (int)len, MPI_BYTE, root, tag, x->comm, MPI_STATUS_IGNORE));
            gemm__mpi_stage_h2d(x, k, blk, len);
        } else {
            gemm__mpi_stage_wait(x, k);
            gemm__mpi_stage_d2h(x, k, blk, len);
            GEMM__MPI_DO(x, MPI_Isend(st, (int)len, MPI_BYTE, root, tag, x->comm, &x->stage_req[k]));
        }
    }
}

/* The root's GPU starts Cannon's first round on its own blocks (queued
   behind their copies) while the root packs and sends everyone else's. */
static void gemm__mpi_prelaunch(gemm__mpi *x)
{
#ifdef GEMM_MPI_CUDA
    if (!x->cuda || x->o.algorithm != GEMM_MPI_CANNON) return;
    GEMM__MPI_CU(x, cudaEventRecord(x->ev0, x->stream));
    gemm__mpi_multiply(x, x->a, x->b, 1);
    GEMM__MPI_CU(x, cudaEventRecord(x->ev1, x->stream));
    x->prelaunched = 1;
#else
    (void)x;
#endif
}

/* Root-held: the root sends every rank the blocks of a (which 0), b (1)
   and c (2) from w0 to w1 it starts with (its own first); each rank takes
   its own. The root's GPU starts on its own blocks meanwhile when they are
   all there. */
static void gemm__mpi_distribute_blocks(gemm__mpi *x, int w0, int w1)
{
    int which, s, d, root = x->o.root;
    double t0 = gemm__mpi_now(), h2d0 = x->t.to_device_s;
    x->chunk = 0;
    for (d = 0; d < x->P; d++) {
        int dst = (root + d) % x->P, r, c;
        if (x->rank != root && x->rank != dst) continue;
        gemm__mpi_place(&x->g, dst, &r, &c);
        for (which = w0; which <= w1; which++) {
            int64_t ld;
            void *user = gemm__mpi_user(x, which, &ld), **slots = gemm__mpi_slots(x, which);
            for (s = 0; s < x->g.br * x->g.bc; s++) {
                int i, j, bi, bj;
                gemm__mpi_span sp;
                gemm__mpi_slot_ij(x, r, c, s, &i, &j);
                gemm__mpi_start_block(x, which, i, j, &bi, &bj);
                sp = gemm__mpi_span_in(x, which, bi, bj);
                if (dst == root && !x->cuda) gemm__mpi_copy_runs(x, slots[s], user, ld, &sp, 1, 0); /* in place */
                else gemm__mpi_stage_block(x, dst, which, slots[s], user, ld, &sp, 1);
            }
        }
        if (dst == root && w0 == 0 && w1 >= 1) gemm__mpi_prelaunch(x);
    }
    gemm__mpi_stage_wait(x, 0);
    gemm__mpi_stage_wait(x, 1);
    x->t.distribute_s += gemm__mpi_now() - t0 - (x->t.to_device_s - h2d0);
}

/* Root-held: A, B and (beta != 0) C; beta == 0: C is not read. */
static void gemm__mpi_distribute(gemm__mpi *x)
{
    gemm__mpi_distribute_blocks(x, 0, x->beta != 0 ? 2 : 1);
}

/* Root-held: every rank sends its C blocks to the root, which unpacks them
   into C. */
static void gemm__mpi_gather(gemm__mpi *x)
{
    int d, s, root = x->o.root;
    double t0 = gemm__mpi_now(), d2h0 = x->t.from_device_s;
    x->chunk = 0;
    for (d = 0; d < x->P; d++) {
        int src = (root + d) % x->P, r, c;
        if (x->rank != root && x->rank != src) continue;
        gemm__mpi_place(&x->g, src, &r, &c);
        for (s = 0; s < x->g.br * x->g.bc; s++) {
            int i, j;
            gemm__mpi_span sp;
            gemm__mpi_slot_ij(x, r, c, s, &i, &j);
            sp = gemm__mpi_span_in(x, 2, i, j);
            if (src == root && !x->cuda) gemm__mpi_copy_runs(x, x->c[s], x->C, x->p.ldc, &sp, 0, 0);
            else gemm__mpi_stage_block(x, src, 2, x->c[s], x->C, x->p.ldc, &sp, 0);
        }
    }
    gemm__mpi_stage_wait(x, 0);
    gemm__mpi_stage_wait(x, 1);
    x->t.gather_s += gemm__mpi_now() - t0 - (x->t.from_device_s - d2h0);
}

/* Distributed Cannon: natural block (i, j) goes to the slot that starts
   with it: for a, slot (i, j - i); for b, slot (i - j, j) (mod q). Tags
   number blocks. */
static void gemm__mpi_queue_skew(gemm__mpi *x, int which)
{
    int s, q = x->g.q, br = x->g.br, bc = x->g.bc;
    size_t bytes = which == 0 ? x->abytes : x->bbytes;
    void **slots = gemm__mpi_slots(x, which);
    for (s = 0; s < br * bc; s++) {
        int i, j, ti, tj, bi, bj;
        gemm__mpi_slot_ij(x, x->g.row, x->g.col, s, &i, &j);
        ti = which == 0 ? i : ((i - j) % q + q) % q;
        tj = which == 0 ? ((j - i) % q + q) % q : j;
        gemm__mpi_post(x->sends, &x->nsend, x->temps[s], gemm__mpi_rank_at(&x->g, ti / br, tj / bc), i * q + j, bytes);
        gemm__mpi_start_block(x, which, i, j, &bi, &bj);
        gemm__mpi_post(x->recvs, &x->nrecv, slots[s], gemm__mpi_rank_at(&x->g, bi / br, bj / bc), bi * q + bj, bytes);
    }
}

/* Distributed: pack this rank's pieces into blocks; for Cannon, send each
   natural block of a and b to the slot its skew puts it in. */
static void gemm__mpi_local_blocks(gemm__mpi *x)
{
    int which, s, fox = x->o.algorithm == GEMM_MPI_FOX;
    double t0 = gemm__mpi_now();
    for (which = 0; which < 3; which++) {
        int64_t ld;
        void *user = gemm__mpi_user(x, which, &ld), **slots = gemm__mpi_slots(x, which);
        int skew = which < 2 && !fox;
        if (which == 2 && x->beta == 0) break;
        for (s = 0; s < x->g.br * x->g.bc; s++) {
            int i, j;
            gemm__mpi_span sp;
            gemm__mpi_slot_ij(x, x->g.row, x->g.col, s, &i, &j);
            sp = gemm__mpi_span_in(x, which, i, j);
            gemm__mpi_copy_runs(x, skew ? x->temps[s] : slots[s], user, ld, &sp, 1, x->cuda);
        }
        if (!skew) continue;
        gemm__mpi_sync(x);
        gemm__mpi_queue_skew(x, which);
        gemm__mpi_start(x);
        gemm__mpi_wait(x);
    }
    gemm__mpi_sync(x);
    x->t.distribute_s += gemm__mpi_now() - t0;
}

/* Distributed: write the C blocks back into this rank's piece. */
static void gemm__mpi_store_c(gemm__mpi *x)
{
    int s;
    for (s = 0; s < x->g.br * x->g.bc; s++) {
        int i, j;
        gemm__mpi_span sp;
        gemm__mpi_slot_ij(x, x->g.row, x->g.col, s, &i, &j);
        sp = gemm__mpi_span_in(x, 2, i, j);
        gemm__mpi_copy_runs(x, x->c[s], x->C, x->p.ldc, &sp, 0, x->cuda);
    }
    gemm__mpi_sync(x);
}

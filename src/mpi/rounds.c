/* ---- the rounds: Cannon and Fox ------------------------------------------------ */

#pragma once

#include "feed.c" /* gemm__mpi_feed_pump between panels */
#include "local.c"
#include "transfer.c"

/* Tags of the shifts: a's number the block row, b's the block column from
   30000 on. The skew's block tags (below q*q) may reach these, but the skew
   is over before the first shift. */
#define GEMM__MPI_TAG_B 30000

/* Queues Cannon's shift: per block row the first a block goes left, a new
   one comes from the right into the spare; per block column the top b
   block goes up. Neighbours that are this rank itself need no message. */
static void gemm__mpi_queue_shift(gemm__mpi *x, int shift_a)
{
    int li, lj;
    if (shift_a && x->left != x->rank)
        for (li = 0; li < x->g.br; li++) {
            gemm__mpi_post(x->sends, &x->nsend, x->a[li * x->g.bc], x->left, li, x->abytes);
            gemm__mpi_post(x->recvs, &x->nrecv, x->aspare[li], x->right, li, x->abytes);
        }
    if (x->up != x->rank)
        for (lj = 0; lj < x->g.bc; lj++) {
            gemm__mpi_post(x->sends, &x->nsend, x->b[lj], x->up, GEMM__MPI_TAG_B + lj, x->bbytes);
            gemm__mpi_post(x->recvs, &x->nrecv, x->bspare[lj], x->down, GEMM__MPI_TAG_B + lj, x->bbytes);
        }
}

/* After the blocks moved: slide the slots one place and put the arrival
   (the spare, or the block that left when the neighbour is this rank) last. */
static void gemm__mpi_rotate(gemm__mpi *x, int shift_a, int used_spares)
{
    int li, lj, t, bc = x->g.bc, br = x->g.br;
    if (shift_a)
        for (li = 0; li < br; li++) {
            void *out = x->a[li * bc];
            for (t = 0; t + 1 < bc; t++) x->a[li * bc + t] = x->a[li * bc + t + 1];
            if (used_spares && x->left != x->rank) {
                x->a[li * bc + bc - 1] = x->aspare[li];
                x->aspare[li] = out;
            } else
                x->a[li * bc + bc - 1] = out;
        }
    for (lj = 0; lj < bc; lj++) {
        void *out = x->b[lj];
        for (t = 0; t + 1 < br; t++) x->b[t * bc + lj] = x->b[(t + 1) * bc + lj];
        if (used_spares && x->up != x->rank) {
            x->b[(br - 1) * bc + lj] = x->bspare[lj];
            x->bspare[lj] = out;
        } else
            x->b[(br - 1) * bc + lj] = out;
    }
}

/* Blocking shift: MPI_Sendrecv_replace on host blocks, spares on a GPU. */
static void gemm__mpi_shift_blocking(gemm__mpi *x, int shift_a)
{
    int li, lj;
    if (x->cuda) {
        gemm__mpi_queue_shift(x, shift_a);
        gemm__mpi_start(x);
        gemm__mpi_wait(x);
        gemm__mpi_rotate(x, shift_a, 1);
        return;
    }
    if (shift_a && x->left != x->rank)
        for (li = 0; li < x->g.br; li++)
            gemm__mpi_message(x, GEMM__MPI_REPLACE, x->a[li * x->g.bc], x->abytes, x->left, x->right, li, NULL);
    if (x->up != x->rank)
        for (lj = 0; lj < x->g.bc; lj++)
            gemm__mpi_message(x, GEMM__MPI_REPLACE, x->b[lj], x->bbytes, x->up, x->down, GEMM__MPI_TAG_B + lj, NULL);
    gemm__mpi_rotate(x, shift_a, 0);
}

#ifdef GEMM_MPI_CUDA
static double gemm__mpi_event_seconds(gemm__mpi *x)
{
    float ms = 0;
    while (x->fd.active && x->st == GEMM_OK && cudaEventQuery(x->ev1) == cudaErrorNotReady)
        gemm__mpi_feed_pump(x); /* the next slab moves while the GPU multiplies */
    GEMM__MPI_CU(x, cudaEventSynchronize(x->ev1));
    if (x->st == GEMM_OK) GEMM__MPI_CU(x, cudaEventElapsedTime(&ms, x->ev0, x->ev1));
    return 1e-3 * (double)ms;
}

/* The GPU's round: queued (unless the distribution did), then timed by
   its events while the transfers in flight finish. */
static void gemm__mpi_round_gpu(gemm__mpi *x, void **a, int first, int in_flight, double t0)
{
    double comp, rest;
    if (!x->prelaunched) {
        GEMM__MPI_CU(x, cudaEventRecord(x->ev0, x->stream));
        gemm__mpi_multiply(x, a, x->b, first);
        GEMM__MPI_CU(x, cudaEventRecord(x->ev1, x->stream));
    }
    x->prelaunched = 0;
    if (in_flight) gemm__mpi_wait(x);
    comp = gemm__mpi_event_seconds(x);
    x->t.compute_s += comp;
    rest = gemm__mpi_now() - t0 - comp;
    x->t.shift_s += rest > 0 ? rest : 0;
}
#endif

/* One round's multiply, timed; with transfers in flight (overlap) the CPU
   polls MPI between panels so they progress, and the GPU works meanwhile. */
static void gemm__mpi_round_multiply(gemm__mpi *x, void **a, int first, int in_flight)
{
    double t0 = gemm__mpi_now(), comp = 0;
    int s, n = x->g.br * x->g.bc;
#ifdef GEMM_MPI_CUDA
    if (x->cuda) { gemm__mpi_round_gpu(x, a, first, in_flight, t0); return; }
#endif
    int poll = in_flight || x->fd.active;
    int64_t w = poll ? GEMM__HOOK(mpi_poll_cols, GEMM__MPI_POLL_COLS) : x->g.nb, j;
    for (s = 0; s < n; s++)
        for (j = 0; j < x->g.nb; j += w) {
            double t = gemm__mpi_now();
            gemm__mpi_multiply_cols(x, a, x->b, first, s, j, j + w < x->g.nb ? j + w : x->g.nb);
            comp += gemm__mpi_now() - t;
            if (in_flight) gemm__mpi_test(x);
            if (x->fd.active) gemm__mpi_feed_pump(x);
        }
    if (in_flight) gemm__mpi_wait(x);
    x->t.compute_s += comp;
    x->t.shift_s += gemm__mpi_now() - t0 - comp;
}

static void gemm__mpi_cannon(gemm__mpi *x)
{
    int round, q = x->g.q;
    for (round = 0; round < q; round++) {
        int last = round == q - 1, overlap = x->o.overlap && !last;
        if (overlap) {
            gemm__mpi_queue_shift(x, 1);
            gemm__mpi_start(x);
        }
        gemm__mpi_round_multiply(x, x->a, round == 0 && !x->accumulate, overlap);
        if (overlap) gemm__mpi_rotate(x, 1, 1);
        else if (!last) {
            double t = gemm__mpi_now();
            gemm__mpi_shift_blocking(x, 1);
            x->t.shift_s += gemm__mpi_now() - t;
        }
    }
}

/* Fox's broadcasts of one round: block row li multiplies a(i, i+round),
   broadcast along the process row from the rank holding it. */
static void gemm__mpi_fox_bcast(gemm__mpi *x, int round, void **use)
{
    int li, lj, q = x->g.q, bc = x->g.bc, staged = !gemm__mpi_direct(x);
    for (li = 0; li < x->g.br; li++) {
        int i = x->g.row * x->g.br + li, p = (i + round) % q, mine = p / bc == x->g.col;
        void *buf = mine ? x->a[li * bc + p % bc] : x->fox[li];
        if (x->g.cols > 1 && staged) {
            if (mine) gemm__mpi_copy(x, x->pool, 0, buf, 1, x->abytes);
            gemm__mpi_message(x, GEMM__MPI_BCAST, x->pool, x->abytes, p / bc, 0, 0, NULL);
            if (!mine) gemm__mpi_copy(x, buf, 1, x->pool, 0, x->abytes);
        } else if (x->g.cols > 1)
            gemm__mpi_message(x, GEMM__MPI_BCAST, buf, x->abytes, p / bc, 0, 0, NULL);
        for (lj = 0; lj < bc; lj++) use[li * bc + lj] = buf;
    }
}

/* Fox: each round broadcasts a, multiplies, then rolls b up. */
static void gemm__mpi_fox(gemm__mpi *x)
{
    int round, q = x->g.q;
    for (round = 0; round < q; round++) {
        double t = gemm__mpi_now();
        gemm__mpi_fox_bcast(x, round, x->use); /* x->use: allocated by the setup, before its vote */
        x->t.shift_s += gemm__mpi_now() - t;
        gemm__mpi_round_multiply(x, x->use, round == 0, 0);
        if (round < q - 1) {
            t = gemm__mpi_now();
            gemm__mpi_shift_blocking(x, 0);
            x->t.shift_s += gemm__mpi_now() - t;
        }
    }
}

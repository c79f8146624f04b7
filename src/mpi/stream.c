/* ---- the root-held Cannon, streamed in k-slabs ----------------------------------- */

#pragma once

#include "distribute.c"
#include "feed.c"
#include "rounds.c" /* gemm__mpi_cannon */

/* Whether this execute streams: the root-held Cannon with options.slabs > 1. */
static int gemm__mpi_streams(const gemm__mpi *x)
{
    return !x->distributed && x->o.algorithm == GEMM_MPI_CANNON && x->o.slabs > 1;
}

/* The landed slab becomes each slot's block (its feed is complete). */
static void gemm__mpi_load_slab(gemm__mpi *x)
{
    int s;
    for (s = 0; s < x->g.br * x->g.bc; s++) {
        gemm__mpi_copy(x, x->a[s], x->cuda, x->land_a[s], x->cuda, x->abytes);
        gemm__mpi_copy(x, x->b[s], x->cuda, x->land_b[s], x->cuda, x->bbytes);
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
static void gemm__mpi_stream(gemm__mpi *x)
{
    int s, S = x->o.slabs;
    int64_t kb = x->g.kb, kbs;
    size_t abytes = x->abytes, bbytes = x->bbytes;
    double t0 = gemm__mpi_now();
    if (S > kb) S = (int)kb;
    kbs = (kb + S - 1) / S;
    if (x->beta != 0) gemm__mpi_distribute_blocks(x, 2, 2);
    x->g.kb = kbs;
    x->abytes = (size_t)(x->g.mb * kbs) * x->es;
    x->bbytes = (size_t)(kbs * x->g.nb) * x->es;
    gemm__mpi_feed_start(x, 0);
    gemm__mpi_feed_finish(x);
    x->t.distribute_s += gemm__mpi_now() - t0;
    for (s = 0; s < S; s++) {
        gemm__mpi_load_slab(x);
        gemm__mpi_sync(x); /* on a GPU, the landing is read before the next slab lands there */
        if (s + 1 < S) gemm__mpi_feed_start(x, (int64_t)(s + 1) * kbs);
        x->accumulate = s > 0;
        gemm__mpi_cannon(x);
        if (s + 1 < S) {
            double t = gemm__mpi_now();
            gemm__mpi_feed_finish(x);
            x->t.distribute_s += gemm__mpi_now() - t;
        }
    }
    gemm__mpi_sync(x);
    x->accumulate = 0;
    x->g.kb = kb;
    x->abytes = abytes;
    x->bbytes = bbytes;
}

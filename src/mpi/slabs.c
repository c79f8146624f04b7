/* ---- slabs: how deep the root-held Cannon streams ----------------------- */

/* The root-held Cannon can run as S products over k-slabs of A and B, the
   next slab travelling from the root while the ranks multiply this one
   (mpi/stream.c). options.slabs > 0 fixes S; 0 chooses it here from the
   sizes: streaming pays where the ranks multiply on GPUs while the root's
   CPU is free to send, and the blocks travel by MPI (not where the root's
   host call drives every GPU itself, GEMM_MPI_PATH_ROOT_DEVICES). Slabs
   then hold about GEMM__MPI_SLAB_DEPTH columns of the k-block: deep enough
   that each slab's multiply runs at the full rate, and on 2 H200s at n =
   32768 (k-block 16384) 4 slabs took fp32's root-held call from 2.28 s to
   1.88 s. More than GEMM__MPI_SLABS_MAX only add steps. */
#pragma once

#include "api.h"  /* gemm_mpi_options */
#include "grid.c" /* gemm__mpi_grid */

#define GEMM__MPI_SLAB_DEPTH 4096
#define GEMM__MPI_SLABS_MAX 8

/* The slabs a root-held Cannon of grid g streams in: `cuda` when the ranks
   multiply on GPUs, `root_devices` when the root's host call runs the
   root-held form instead (then nothing streams). Fox never streams. */
static int gemm__mpi_slab_count(const gemm_mpi_options *o, const gemm__mpi_grid *g, int cuda, int root_devices)
{
    int64_t s;
    if (o->algorithm != GEMM_MPI_CANNON) return 1;
    if (o->slabs > 0) return o->slabs > g->kb ? (int)g->kb : o->slabs;
    if (!cuda || root_devices) return 1;
    s = g->kb / GEMM__MPI_SLAB_DEPTH;
    return s < 1 ? 1 : s > GEMM__MPI_SLABS_MAX ? GEMM__MPI_SLABS_MAX : (int)s;
}

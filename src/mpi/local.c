/* ---- the local multiply ------------------------------------------------------ */

/* Each rank's products of blocks: gemm_cpu.h's on host blocks
   (options.threads threads), gemm_cuda.cuh's on the rank's stream for
   device blocks. */
#pragma once

#include <string.h>
#include "platform.h" /* gemm_cpu_?gemm, gemm_cuda_?gemm */
#include "copy.c" /* gemm__mpi_block_ld, gemm__mpi_sync */

/* One column-major product on this rank: gemm_cpu_?gemm of gemm_cpu.h on
   host blocks with options.threads, or gemm_cuda_?gemm on the rank's
   stream for device blocks. */
static void gemm__mpi_gemm(const gemm__mpi_shape *sh, const gemm__mpi_device *dv, gemm__mpi_err *e, int device,
                           int a_trans, int b_trans, int64_t m, int64_t n, int64_t k, double alpha, const void *A,
                           int64_t lda, const void *B, int64_t ldb, double beta, void *C, int64_t ldc)
{
    gemm_transpose ta = a_trans ? GEMM_TRANS : GEMM_NO_TRANS, tb = b_trans ? GEMM_TRANS : GEMM_NO_TRANS;
    gemm_cpu_options co;
    gemm_status s;
    if (e->st != GEMM_OK) return;
    memset(&co, 0, sizeof co);
    co.threads = sh->o.threads;
#ifdef GEMM_MPI_CUDA
    if (device) {
        s = sh->es == 4 ? gemm_cuda_sgemm(dv->stream, GEMM_COL_MAJOR, ta, tb, m, n, k, (float)alpha, (const float *)A,
                                          lda, (const float *)B, ldb, (float)beta, (float *)C, ldc, NULL)
                        : gemm_cuda_dgemm(dv->stream, GEMM_COL_MAJOR, ta, tb, m, n, k, alpha, (const double *)A, lda,
                                          (const double *)B, ldb, beta, (double *)C, ldc, NULL);
        gemm__mpi_keep(e, s);
        return;
    }
#endif
    (void)dv;
    (void)device;
    s = sh->es == 4 ? gemm_cpu_sgemm(GEMM_COL_MAJOR, ta, tb, m, n, k, (float)alpha, (const float *)A, lda,
                                     (const float *)B, ldb, (float)beta, (float *)C, ldc, &co)
                    : gemm_cpu_dgemm(GEMM_COL_MAJOR, ta, tb, m, n, k, alpha, (const double *)A, lda,
                                     (const double *)B, ldb, beta, (double *)C, ldc, &co);
    gemm__mpi_keep(e, s);
}

/* C = beta*C (m x n, column-major) for alpha == 0 or k == 0: A and B are
   not read. */
static void gemm__mpi_scale(const gemm__mpi_shape *sh, const gemm__mpi_device *dv, gemm__mpi_err *e, int device,
                            int64_t m, int64_t n, double beta, void *C, int64_t ldc)
{
    int64_t ld = m > n ? m : n;
    gemm__mpi_gemm(sh, dv, e, device, 0, 0, m, n, 0, 0.0, NULL, ld > 1 ? ld : 1, NULL, ld > 1 ? ld : 1, beta, C, ldc);
    if (device) gemm__mpi_sync(dv, e);
}

/* Columns [j0, j1) of slot s's product on the host: c[s] (+)= alpha *
   a[s] * b[s], with the a and b blocks `kb` deep (first_round: beta*C,
   else adding to C). The CPU's overlapped rounds multiply in such panels
   and poll MPI between them: Open MPI's shared-memory transfers progress
   only inside MPI calls, so a shift started before one long multiply would
   otherwise wait for its end. */
#define GEMM__MPI_POLL_COLS 512

static void gemm__mpi_multiply_cols(const gemm__mpi_shape *sh, const gemm__mpi_device *dv, const gemm__mpi_call *c,
                                    const gemm__mpi_grid *g, const gemm__mpi_bufs *bf, int64_t kb, gemm__mpi_err *e,
                                    void **a, int first_round, int s, int64_t j0, int64_t j1)
{
    int64_t lda = gemm__mpi_block_ld(!c->p.a_trans, g->mb, kb);
    int64_t ldb = gemm__mpi_block_ld(!c->p.b_trans, kb, g->nb);
    int64_t ldc = gemm__mpi_block_ld(1, g->mb, g->nb);
    const char *bj = (const char *)bf->b[s] + (size_t)(c->p.b_trans ? j0 : j0 * ldb) * sh->es;
    char *cj = (char *)bf->c[s] + (size_t)(j0 * ldc) * sh->es;
    gemm__mpi_gemm(sh, dv, e, 0, c->p.a_trans, c->p.b_trans, g->mb, j1 - j0, kb, c->alpha, a[s], lda, bj, ldb,
                   first_round ? c->beta : 1.0, cj, ldc);
}

#ifdef GEMM_MPI_CUDA
/* c[s] (+)= alpha * a[s] * b[s] for every slot, on the GPU; the a and b
   blocks are `kb` deep. */
static void gemm__mpi_multiply(const gemm__mpi_shape *sh, const gemm__mpi_device *dv, const gemm__mpi_call *c,
                               const gemm__mpi_grid *g, const gemm__mpi_bufs *bf, int64_t kb, gemm__mpi_err *e,
                               void **a, int first_round)
{
    int64_t lda = gemm__mpi_block_ld(!c->p.a_trans, g->mb, kb);
    int64_t ldb = gemm__mpi_block_ld(!c->p.b_trans, kb, g->nb);
    int64_t ldc = gemm__mpi_block_ld(1, g->mb, g->nb);
    /* round one takes beta*C (beta == 0 reads no C: the blocks were not filled) */
    double beta = first_round ? c->beta : 1.0;
    int s, n = g->br * g->bc;
    for (s = 0; s < n; s++)
        gemm__mpi_gemm(sh, dv, e, dv->cuda, c->p.a_trans, c->p.b_trans, g->mb, g->nb, kb, c->alpha, a[s], lda,
                       bf->b[s], ldb, beta, bf->c[s], ldc);
}
#endif

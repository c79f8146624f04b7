/* ---- the local multiply ------------------------------------------------------ */

#pragma once

#include <string.h>
#include "platform.h" /* gemm_cpu_?gemm, gemm_cuda_?gemm */
#include "copy.c" /* gemm__mpi_block_ld, gemm__mpi_sync */

/* One column-major product on this rank: gemm_cpu_?gemm of gemm_cpu.h on
   host blocks with options.threads, or gemm_cuda_?gemm on the rank's
   stream for device blocks. */
static void gemm__mpi_gemm(gemm__mpi *x, int device, int a_trans, int b_trans, int64_t m, int64_t n, int64_t k,
                           double alpha, const void *A, int64_t lda, const void *B, int64_t ldb, double beta, void *C,
                           int64_t ldc)
{
    gemm_transpose ta = a_trans ? GEMM_TRANS : GEMM_NO_TRANS, tb = b_trans ? GEMM_TRANS : GEMM_NO_TRANS;
    gemm_cpu_options co;
    gemm_status s;
    if (x->st != GEMM_OK) return;
    memset(&co, 0, sizeof co);
    co.threads = x->o.threads;
#ifdef GEMM_MPI_CUDA
    if (device) {
        s = x->es == 4 ? gemm_cuda_sgemm(x->stream, GEMM_COL_MAJOR, ta, tb, m, n, k, (float)alpha, (const float *)A,
                                         lda, (const float *)B, ldb, (float)beta, (float *)C, ldc, NULL)
                       : gemm_cuda_dgemm(x->stream, GEMM_COL_MAJOR, ta, tb, m, n, k, alpha, (const double *)A, lda,
                                         (const double *)B, ldb, beta, (double *)C, ldc, NULL);
        gemm__mpi_keep(x, s);
        return;
    }
#endif
    (void)device;
    s = x->es == 4 ? gemm_cpu_sgemm(GEMM_COL_MAJOR, ta, tb, m, n, k, (float)alpha, (const float *)A, lda,
                                    (const float *)B, ldb, (float)beta, (float *)C, ldc, &co)
                   : gemm_cpu_dgemm(GEMM_COL_MAJOR, ta, tb, m, n, k, alpha, (const double *)A, lda,
                                    (const double *)B, ldb, beta, (double *)C, ldc, &co);
    gemm__mpi_keep(x, s);
}

/* C = beta*C (m x n, column-major) for alpha == 0 or k == 0: A and B are
   not read. */
static void gemm__mpi_scale(gemm__mpi *x, int device, int64_t m, int64_t n, void *C, int64_t ldc)
{
    int64_t ld = m > n ? m : n;
    gemm__mpi_gemm(x, device, 0, 0, m, n, 0, 0.0, NULL, ld > 1 ? ld : 1, NULL, ld > 1 ? ld : 1, x->beta, C, ldc);
    if (device) gemm__mpi_sync(x);
}

/* Columns [j0, j1) of slot s's product on the host. The CPU's overlapped
   rounds multiply in such panels and poll MPI between them: Open MPI's
   shared-memory transfers progress only inside MPI calls, so a shift
   started before one long multiply would otherwise wait for its end. */
#define GEMM__MPI_POLL_COLS 512

static void gemm__mpi_multiply_cols(gemm__mpi *x, void **a, void **b, int first_round, int s, int64_t j0, int64_t j1)
{
    const gemm__mpi_grid *g = &x->g;
    int64_t lda = gemm__mpi_block_ld(!x->p.a_trans, g->mb, g->kb);
    int64_t ldb = gemm__mpi_block_ld(!x->p.b_trans, g->kb, g->nb);
    int64_t ldc = gemm__mpi_block_ld(1, g->mb, g->nb);
    const char *bj = (const char *)b[s] + (size_t)(x->p.b_trans ? j0 : j0 * ldb) * x->es;
    char *cj = (char *)x->c[s] + (size_t)(j0 * ldc) * x->es;
    gemm__mpi_gemm(x, 0, x->p.a_trans, x->p.b_trans, g->mb, j1 - j0, g->kb, x->alpha, a[s], lda, bj, ldb,
                   first_round ? x->beta : 1.0, cj, ldc);
}

#ifdef GEMM_MPI_CUDA
/* C_slot (+)= alpha * a_slot * b_slot for every slot, on the GPU. */
static void gemm__mpi_multiply(gemm__mpi *x, void **a, void **b, int first_round)
{
    const gemm__mpi_grid *g = &x->g;
    int64_t lda = gemm__mpi_block_ld(!x->p.a_trans, g->mb, g->kb);
    int64_t ldb = gemm__mpi_block_ld(!x->p.b_trans, g->kb, g->nb);
    int64_t ldc = gemm__mpi_block_ld(1, g->mb, g->nb);
    /* round one takes beta*C (beta == 0 reads no C: the blocks were not filled) */
    double beta = first_round ? x->beta : 1.0;
    int s, n = g->br * g->bc;
    for (s = 0; s < n; s++)
        gemm__mpi_gemm(x, x->cuda, x->p.a_trans, x->p.b_trans, g->mb, g->nb, g->kb, x->alpha, a[s], lda, b[s], ldb, beta,
                       x->c[s], ldc);
}
#endif

/* ---- a call's failures: kept, then agreed ----------------------------------- */

#pragma once

#include <string.h>
#include "state.h"

/* Keeps the first failure (later ones are its consequences). */
static void gemm__mpi_keep(gemm__mpi *x, gemm_status s)
{
    if (s == GEMM_OK || x->st != GEMM_OK) return;
    x->st = s;
    strncpy(x->detail, gemm_last_error_detail(), sizeof x->detail - 1);
    x->detail[sizeof x->detail - 1] = '\0';
}

/* The outcome of a vote that failed: the same on every rank. */
static void gemm__mpi_agreed(gemm__mpi *x, gemm_status s)
{
    x->st = GEMM_OK;
    gemm__mpi_keep(x, s);
    x->agreed = 1;
}

GEMM_DEF gemm_status gemm__mpi_status(int mpi_rc, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (mpi_rc == MPI_SUCCESS) return GEMM_OK;
    if (MPI_Error_string(mpi_rc, text, &len) != MPI_SUCCESS) len = 0;
    text[len] = '\0';
    return gemm__fail(GEMM_ERR_MPI, "%s failed: %s (MPI error %d)", what, len ? text : "unknown error", mpi_rc);
}

/* Runs an MPI call and keeps its failure; nonzero if all is fine. A rank
   that failed otherwise (a CUDA error, say) still takes part, so that no
   peer waits for it forever; after an MPI failure MPI calls are skipped. */
#define GEMM__MPI_DO(x, call) gemm__mpi_ok((x), (x)->st == GEMM_ERR_MPI ? MPI_SUCCESS : (call), #call)
static int gemm__mpi_ok(gemm__mpi *x, int rc, const char *what)
{
    gemm__mpi_keep(x, gemm__mpi_status(rc, what));
    return x->st == GEMM_OK;
}

static double gemm__mpi_now(void) { return MPI_Wtime(); }

#ifdef GEMM_MPI_CUDA
#define GEMM__MPI_CU(x, call) gemm__mpi_cu((x), (call), #call)
static int gemm__mpi_cu(gemm__mpi *x, cudaError_t e, const char *what)
{
    if (e != cudaSuccess && x->st == GEMM_OK)
        gemm__mpi_keep(x, gemm__fail(GEMM_ERR_DEVICE, "%s failed: %s", what, cudaGetErrorString(e)));
    return e == cudaSuccess;
}
#endif

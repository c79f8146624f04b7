/* ---- a call's failures: kept, then agreed ----------------------------------- */

/* A failure on one rank (a CUDA error, a failed local multiply) is kept,
   the first one only, in the call's gemm__mpi_err, while the rank goes on
   taking part in the communication so that no peer waits for it forever;
   the next vote (mpi/vote.c) hands it to every rank. An MPI failure is the
   exception: MPI promises nothing after it, so this rank stops calling MPI
   (GEMM__MPI_DO skips the calls) and its peers may be left waiting. */
#pragma once

#include <string.h>
#include "state.h"

/* No failure yet in the call of public function `func`. */
static void gemm__mpi_err_init(gemm__mpi_err *e, const char *func)
{
    memset(e, 0, sizeof *e);
    e->func = func;
    e->st = GEMM_OK;
}

/* Keeps the first failure (later ones are its consequences). */
static void gemm__mpi_keep(gemm__mpi_err *e, gemm_status s)
{
    if (s == GEMM_OK || e->st != GEMM_OK) return;
    e->st = s;
    { /* (memcpy of a measured length: GCC warns that strncpy may truncate, which is meant) */
        const char *d = gemm_last_error_detail();
        size_t len = strlen(d) < sizeof e->detail - 1 ? strlen(d) : sizeof e->detail - 1;
        memcpy(e->detail, d, len);
        e->detail[len] = '\0';
    }
}

/* The outcome of a vote that failed: the same on every rank. */
static void gemm__mpi_agreed(gemm__mpi_err *e, gemm_status s)
{
    e->st = GEMM_OK;
    gemm__mpi_keep(e, s);
    e->agreed = 1;
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
#define GEMM__MPI_DO(e, call) gemm__mpi_ok((e), (e)->st == GEMM_ERR_MPI ? MPI_SUCCESS : (call), #call)
static int gemm__mpi_ok(gemm__mpi_err *e, int rc, const char *what)
{
    gemm__mpi_keep(e, gemm__mpi_status(rc, what));
    return e->st == GEMM_OK;
}

static double gemm__mpi_now(void) { return MPI_Wtime(); }

#ifdef GEMM_MPI_CUDA
#define GEMM__MPI_CU(e, call) gemm__mpi_cu((e), (call), #call)
static int gemm__mpi_cu(gemm__mpi_err *e, cudaError_t rc, const char *what)
{
    if (rc != cudaSuccess && e->st == GEMM_OK)
        gemm__mpi_keep(e, gemm__fail(GEMM_ERR_DEVICE, "%s failed: %s", what, cudaGetErrorString(rc)));
    return rc == cudaSuccess;
}
#endif

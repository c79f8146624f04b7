/* ---- agreeing ------------------------------------------------------------ */

/* Every rank returns the same status with the same detail. One
   MPI_Allreduce carries each rank's verdict and the values that must be
   alike (their maximum and the maximum of their complements, so any
   difference shows); the lowest failing rank's detail is broadcast. The
   ranks vote on the arguments first, around each allocation, after the
   rounds (before C is written) and last (after). */
#pragma once

#include <string.h>
#include "status.c"

/* The most values one vote compares (an execute's: the shape's, alpha,
   beta, the form and verify). */
#define GEMM__MPI_VOTE_VALUES 32

/* Every rank learns whether all are fine: the lowest failing rank's status
   and detail (this rank's in e) become everyone's; then whether every rank
   passed the same vals (named by names; at most GEMM__MPI_VOTE_VALUES).
   Returns the outcome; e is only read. */
static gemm_status gemm__mpi_vote(const gemm__mpi_team *tm, const gemm__mpi_err *e, const int64_t *vals, int nvals,
                                  const char *const *names)
{
    int64_t v[2 * (GEMM__MPI_VOTE_VALUES + 1)], r[2 * (GEMM__MPI_VOTE_VALUES + 1)];
    int i, rc, nv = nvals + 1;
    if (nvals < 0 || nvals > GEMM__MPI_VOTE_VALUES) /* the same on every rank: no rank is left in a collective */
        return gemm__fail(GEMM_ERR_INTERNAL, "gemm__mpi_vote: %d values, at most %d", nvals, GEMM__MPI_VOTE_VALUES);
    struct { int status; char detail[512]; } msg;
    v[0] = e->st != GEMM_OK ? (int64_t)(tm->P - tm->rank) : 0;
    for (i = 0; i < nvals; i++) v[1 + i] = vals[i];
    for (i = 0; i < nv; i++) v[nv + i] = ~v[i]; /* max of ~v is ~min (no overflow, unlike -v at INT64_MIN) */
    rc = MPI_Allreduce(v, r, 2 * nv, MPI_INT64_T, MPI_MAX, tm->comm);
    if (rc != MPI_SUCCESS) return gemm__mpi_status(rc, "MPI_Allreduce");
    if (r[0] > 0) {
        int bad = (int)(tm->P - r[0]);
        msg.status = (int)e->st;
        memcpy(msg.detail, e->detail, sizeof msg.detail);
        rc = MPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, bad, tm->comm);
        if (rc != MPI_SUCCESS) return gemm__mpi_status(rc, "MPI_Bcast");
        msg.detail[sizeof msg.detail - 1] = '\0';
        return gemm__fail((gemm_status)msg.status, "rank %d: %s", bad, msg.detail);
    }
    for (i = 1; i < nv; i++)
        if (r[i] != ~r[nv + i])
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: the ranks passed different %s (from %lld to %lld)", e->func,
                              names[i - 1], (long long)~r[nv + i], (long long)r[i]);
    return GEMM_OK;
}

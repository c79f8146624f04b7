/* ---- MPI's state and the plan's communicator ----------------------------------- */

/* Every entry point asks whether MPI is running before any other MPI call;
   a plan works on its own copy of the caller's communicator, which returns
   MPI's errors instead of aborting. */
#pragma once

#include "status.c" /* gemm__mpi_status */

/* MPI must be running: before MPI_Init or after MPI_Finalize an MPI call
   is erroneous (Open MPI aborts the job), so every entry point asks first,
   with the two calls MPI allows at any time. */
static gemm_status gemm__mpi_running(const char *func)
{
    int up = 0, down = 0;
    if (MPI_Initialized(&up) != MPI_SUCCESS || !up)
        return gemm__fail(GEMM_ERR_MPI, "%s: MPI is not initialised (call MPI_Init first)", func);
    if (MPI_Finalized(&down) != MPI_SUCCESS || down)
        return gemm__fail(GEMM_ERR_MPI, "%s: MPI is finalised (MPI_Finalize was called)", func);
    return GEMM_OK;
}

/* The plan's own copy of the communicator, which returns MPI's errors
   instead of aborting; its size and this rank. An intercommunicator has
   no single group to lay a grid on: refused before any collective (MPI's
   checks in MPI_Comm_test_inter report through the caller's handler, as
   every call on the caller's communicator does). */
static gemm_status gemm__mpi_open(const char *func, MPI_Comm comm, gemm__mpi_team *tm)
{
    gemm_status s;
    int inter = 0;
    if (comm == MPI_COMM_NULL) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: comm is MPI_COMM_NULL", func);
    s = gemm__mpi_status(MPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
    if (s == GEMM_OK && inter)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: comm is an intercommunicator; pass an intracommunicator "
                          "(MPI_Intercomm_merge makes one)", func);
    if (s == GEMM_OK) s = gemm__mpi_status(MPI_Comm_dup(comm, &tm->comm), "MPI_Comm_dup");
    if (s == GEMM_OK)
        s = gemm__mpi_status(MPI_Comm_set_errhandler(tm->comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    if (s == GEMM_OK) s = gemm__mpi_status(MPI_Comm_size(tm->comm, &tm->P), "MPI_Comm_size");
    if (s == GEMM_OK) s = gemm__mpi_status(MPI_Comm_rank(tm->comm, &tm->rank), "MPI_Comm_rank");
    if (s != GEMM_OK && tm->comm != MPI_COMM_NULL) MPI_Comm_free(&tm->comm);
    return s;
}

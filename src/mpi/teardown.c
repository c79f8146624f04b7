/* ---- the end of a plan ------------------------------------------------------ */

#pragma once

#include "comm.c" /* gemm__mpi_running */
#include "ipc.c" /* gemm__mpi_ipc_unmap_all */
#include "plan.c" /* gemm__mpi_free_form */

/* After an MPI failure some transfers may still be pending: cancel them and
   let go of their requests before their buffers are freed. A transfer MPI
   cannot cancel (a send already on its way, say) may still touch a freed
   buffer: MPI promises nothing after an error, and this is best effort. */
static void gemm__mpi_drop_requests(gemm__mpi *x)
{
    int i, done;
    MPI_Request *r;
    for (i = 0; i < x->cap + 2; i++) {
        r = i < 2 ? &x->stage_req[i] : x->reqs ? &x->reqs[i - 2] : NULL;
        if (!r || *r == MPI_REQUEST_NULL) continue;
        done = 0;
        MPI_Cancel(r);
        if (MPI_Test(r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || !done)
            if (*r != MPI_REQUEST_NULL) MPI_Request_free(r);
        *r = MPI_REQUEST_NULL;
    }
}

static void gemm__mpi_free_blocks(gemm__mpi *x)
{
    int nslots = x->g.br * x->g.bc;
    gemm__mpi_blocks_free(x, x->a, nslots);
    gemm__mpi_blocks_free(x, x->b, nslots);
    gemm__mpi_blocks_free(x, x->c, nslots);
    gemm__mpi_blocks_free(x, x->aspare, x->g.br);
    gemm__mpi_blocks_free(x, x->bspare, x->g.bc);
    gemm__mpi_blocks_free(x, x->fox, x->g.br);
    gemm__mpi_free_form(x, 0);
    gemm__mpi_free_form(x, 1);
    gemm__mpi_release(x, x->pool, 0);
    GEMM_FREE(x->use);
    GEMM_FREE(x->sends);
    GEMM_FREE(x->recvs);
    GEMM_FREE(x->reqs);
#ifdef GEMM_MPI_CUDA
    GEMM_FREE(x->ipc_out);
    GEMM_FREE(x->ipc_in);
    GEMM_FREE(x->maps);
    GEMM_FREE(x->acks);
    if (x->copy_stream) cudaStreamDestroy(x->copy_stream);
    if (x->stream) cudaStreamDestroy(x->stream);
    if (x->ev0) cudaEventDestroy(x->ev0);
    if (x->ev1) cudaEventDestroy(x->ev1);
#endif
}

/* Frees what this rank holds. With `agree` the ranks first close their
   mappings of each other's blocks and meet in a barrier, so that no rank
   frees a block a peer still maps; a plan broken by an MPI failure, or
   MPI already finalised, frees without it (and says so). */
static gemm_status gemm__mpi_free_all(gemm__mpi *x, int agree)
{
    gemm_status s = GEMM_OK;
    int alive = gemm__mpi_running(x->func) == GEMM_OK;
    if (alive) gemm__mpi_drop_requests(x);
#ifdef GEMM_MPI_CUDA
    if (x->stream) cudaStreamSynchronize(x->stream);
    gemm__mpi_ipc_unmap_all(x);
#endif
    if (!alive)
        s = gemm__fail(GEMM_ERR_MPI, "%s: MPI was finalised before the plan was destroyed: freed without the "
                       "ranks' agreement", x->func);
    else if (agree && !x->broken && x->comm != MPI_COMM_NULL)
        s = gemm__mpi_status(MPI_Barrier(x->comm), "MPI_Barrier");
    gemm__mpi_free_blocks(x);
    if (alive && x->row_comm != MPI_COMM_NULL) MPI_Comm_free(&x->row_comm);
    if (alive && x->comm != MPI_COMM_NULL) MPI_Comm_free(&x->comm);
    return s;
}

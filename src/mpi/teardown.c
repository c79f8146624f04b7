/* ---- the end of a plan ------------------------------------------------------ */

/* Destroying a plan is collective: each rank closes its mappings of its
   peers' blocks, the ranks meet in a barrier, then each frees its own, so
   that no rank frees a block a peer still maps. A plan broken by an MPI
   failure, or destroyed after MPI_Finalize, is freed without the barrier
   (and says so); after an MPI failure the pending transfers are cancelled
   first, best effort. */
#pragma once

#include "buffers.c" /* gemm__mpi_blocks_free, gemm__mpi_release */
#include "comm.c"    /* gemm__mpi_running */
#include "ipc.c"     /* gemm__mpi_ipc_unmap_all */
#include "plan.c"    /* gemm__mpi_free_form */

/* After an MPI failure some transfers may still be pending: cancel them and
   let go of their requests before their buffers are freed. A transfer MPI
   cannot cancel (a send already on its way, say) may still touch a freed
   buffer: MPI promises nothing after an error, and this is best effort. */
static void gemm__mpi_drop_requests(gemm__mpi_xchg *xc, gemm__mpi_stage *sg)
{
    int i, done;
    MPI_Request *r;
    for (i = 0; i < xc->cap + 2; i++) {
        r = i < 2 ? &sg->req[i] : xc->reqs ? &xc->reqs[i - 2] : NULL;
        if (!r || *r == MPI_REQUEST_NULL) continue;
        done = 0;
        MPI_Cancel(r);
        if (MPI_Test(r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || !done)
            if (*r != MPI_REQUEST_NULL) MPI_Request_free(r);
        *r = MPI_REQUEST_NULL;
    }
}

/* Frees the plan's blocks, buffers, lists and the GPU's streams. */
static void gemm__mpi_free_blocks(gemm_mpi_plan *pl)
{
    const gemm__mpi_team *tm = &pl->team;
    gemm__mpi_device *dv = &pl->dev;
    gemm__mpi_bufs *bf = &pl->bufs;
    gemm__mpi_xchg *xc = &pl->xchg;
    int nslots = tm->g.br * tm->g.bc;
    gemm__mpi_blocks_free(dv, bf->a, nslots);
    gemm__mpi_blocks_free(dv, bf->b, nslots);
    gemm__mpi_blocks_free(dv, bf->c, nslots);
    gemm__mpi_blocks_free(dv, bf->aspare, tm->g.br);
    gemm__mpi_blocks_free(dv, bf->bspare, tm->g.bc);
    gemm__mpi_blocks_free(dv, bf->fox, tm->g.br);
    gemm__mpi_free_form(tm, dv, bf, &pl->stage, 0);
    gemm__mpi_free_form(tm, dv, bf, &pl->stage, 1);
    gemm__mpi_release(dv, xc->pool, 0);
    GEMM_FREE(bf->use);
    GEMM_FREE(xc->sends);
    GEMM_FREE(xc->recvs);
    GEMM_FREE(xc->reqs);
#ifdef GEMM_MPI_CUDA
    GEMM_FREE(xc->ipc_out);
    GEMM_FREE(xc->ipc_in);
    GEMM_FREE(dv->maps);
    GEMM_FREE(xc->acks);
    if (dv->copy_stream) cudaStreamDestroy(dv->copy_stream);
    if (dv->stream) cudaStreamDestroy(dv->stream);
    if (dv->ev0) cudaEventDestroy(dv->ev0);
    if (dv->ev1) cudaEventDestroy(dv->ev1);
#endif
}

/* Frees what this rank's plan holds (`func`: the public function, for the
   detail). With `agree` the ranks first close their mappings of each
   other's blocks and meet in a barrier, so that no rank frees a block a
   peer still maps; a plan broken by an MPI failure, or MPI already
   finalised, frees without it (and says so). */
static gemm_status gemm__mpi_free_all(gemm_mpi_plan *pl, const char *func, int agree)
{
    gemm_status s = GEMM_OK;
    int alive = gemm__mpi_running(func) == GEMM_OK;
    if (alive) gemm__mpi_drop_requests(&pl->xchg, &pl->stage);
#ifdef GEMM_MPI_CUDA
    if (pl->dev.stream) cudaStreamSynchronize(pl->dev.stream);
    gemm__mpi_ipc_unmap_all(&pl->dev);
#endif
    if (!alive)
        s = gemm__fail(GEMM_ERR_MPI, "%s: MPI was finalised before the plan was destroyed: freed without the "
                       "ranks' agreement", func);
    else if (agree && !pl->broken && pl->team.comm != MPI_COMM_NULL)
        s = gemm__mpi_status(MPI_Barrier(pl->team.comm), "MPI_Barrier");
    gemm__mpi_free_blocks(pl);
    if (alive && pl->team.row_comm != MPI_COMM_NULL) MPI_Comm_free(&pl->team.row_comm);
    if (alive && pl->team.comm != MPI_COMM_NULL) MPI_Comm_free(&pl->team.comm);
    return s;
}

/* ---- moving blocks by CUDA IPC (ranks of one node) --------------------------- */

/* Only each block's handle and address travel over MPI; the receiver maps
   the sender's block (once per plan: the mapping is kept in the device
   piece) and copies it straight from that GPU's memory (over NVLink where
   there is one), then both sides say they are done, so no block changes
   while a peer reads it. Mappings are closed when the plan is destroyed,
   before the barrier after which every rank frees its blocks: no rank
   frees a block that a peer still maps (CUDA leaves that undefined). The
   plan's creation maps every block a shift or a skew will read, so
   executes open nothing. The start and the end of an exchange are in
   mpi/transfer.c. */
#pragma once

#include <string.h>
#include "../core/config.h" /* GEMM_MALLOC, GEMM_FREE */
#include "status.c"

#ifdef GEMM_MPI_CUDA

/* Receive i of the exchange: its block's handle, as request *r. */
static void gemm__mpi_ipc_expect(gemm__mpi_xchg *xc, const gemm__mpi_team *tm, gemm__mpi_err *e, int i, int *r)
{
    const gemm__mpi_msg *m = &xc->recvs[i];
    xc->reqs[*r] = MPI_REQUEST_NULL;
    GEMM__MPI_DO(e, MPI_Irecv(&xc->ipc_in[i], (int)sizeof(gemm__mpi_ipc_msg), MPI_BYTE, m->peer, m->tag, tm->comm,
                              &xc->reqs[*r]));
    (*r)++;
}

/* Send i of the exchange: its block's handle and address, as request *r. */
static void gemm__mpi_ipc_offer(gemm__mpi_xchg *xc, const gemm__mpi_team *tm, gemm__mpi_err *e, int i, int *r)
{
    const gemm__mpi_msg *m = &xc->sends[i];
    memset(&xc->ipc_out[i], 0, sizeof xc->ipc_out[i]);
    GEMM__MPI_CU(e, cudaIpcGetMemHandle(&xc->ipc_out[i].handle, m->buf));
    xc->ipc_out[i].remote = (uint64_t)(uintptr_t)m->buf;
    xc->reqs[*r] = MPI_REQUEST_NULL;
    GEMM__MPI_DO(e, MPI_Isend(&xc->ipc_out[i], (int)sizeof(gemm__mpi_ipc_msg), MPI_BYTE, m->peer, m->tag, tm->comm,
                              &xc->reqs[*r]));
    (*r)++;
}

/* The peer's block described by `msg`, mapped here: from the device's
   list, or opened now and added to it. NULL when it cannot be mapped. */
static void *gemm__mpi_ipc_map(gemm__mpi_device *dv, gemm__mpi_err *e, int peer, const gemm__mpi_ipc_msg *msg)
{
    int i;
    void *p = NULL;
    for (i = 0; i < dv->nmaps; i++)
        if (dv->maps[i].peer == peer && dv->maps[i].remote == msg->remote) return dv->maps[i].local;
    if (dv->nmaps == dv->mapcap) {
        int cap = dv->mapcap ? 2 * dv->mapcap : 16;
        gemm__mpi_mapping *m = (gemm__mpi_mapping *)GEMM_MALLOC(sizeof(gemm__mpi_mapping) * (size_t)cap);
        if (!m) { gemm__mpi_keep(e, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory", e->func)); return NULL; }
        if (dv->nmaps) memcpy(m, dv->maps, sizeof(gemm__mpi_mapping) * (size_t)dv->nmaps);
        GEMM_FREE(dv->maps);
        dv->maps = m;
        dv->mapcap = cap;
    }
    if (!GEMM__MPI_CU(e, cudaIpcOpenMemHandle(&p, msg->handle, cudaIpcMemLazyEnablePeerAccess))) return NULL;
    dv->mappings++;
    dv->maps[dv->nmaps].peer = peer;
    dv->maps[dv->nmaps].remote = msg->remote;
    dv->maps[dv->nmaps].local = p;
    dv->nmaps++;
    return p;
}

/* Closes every mapping (the plan's end, before the vote that frees). */
static void gemm__mpi_ipc_unmap_all(gemm__mpi_device *dv)
{
    int i;
    for (i = 0; i < dv->nmaps; i++) cudaIpcCloseMemHandle(dv->maps[i].local);
    dv->nmaps = 0;
}

/* Tells each sender that its block was copied, and hears the same from
   each receiver of ours, so that no block changes while a peer reads it. */
static void gemm__mpi_ipc_ack(gemm__mpi_xchg *xc, const gemm__mpi_team *tm, gemm__mpi_err *e)
{
    int i, r = 0;
    for (i = 0; i < xc->nrecv; i++)
        if (xc->recvs[i].peer != tm->rank) {
            xc->acks[i] = 1;
            xc->reqs[r] = MPI_REQUEST_NULL;
            GEMM__MPI_DO(e, MPI_Isend(&xc->acks[i], 1, MPI_BYTE, xc->recvs[i].peer, xc->recvs[i].tag, tm->comm,
                                      &xc->reqs[r]));
            r++;
        }
    for (i = 0; i < xc->nsend; i++)
        if (xc->sends[i].peer != tm->rank) {
            xc->reqs[r] = MPI_REQUEST_NULL;
            GEMM__MPI_DO(e, MPI_Irecv(&xc->acks[xc->nrecv + i], 1, MPI_BYTE, xc->sends[i].peer, xc->sends[i].tag,
                                      tm->comm, &xc->reqs[r]));
            r++;
        }
    for (; r < xc->cap; r++) xc->reqs[r] = MPI_REQUEST_NULL;
    GEMM__MPI_DO(e, MPI_Waitall(xc->cap, xc->reqs, MPI_STATUSES_IGNORE));
}

/* Every handle has arrived: copy each block from its mapping (on the copy
   stream), then acknowledge. `copy` 0 only maps (the plan's creation). */
static void gemm__mpi_ipc_copy(gemm__mpi_xchg *xc, const gemm__mpi_team *tm, gemm__mpi_device *dv, gemm__mpi_err *e,
                               int copy)
{
    int i;
    for (i = 0; i < xc->nrecv; i++) {
        void *src;
        if (xc->recvs[i].peer == tm->rank || e->st != GEMM_OK) continue;
        src = gemm__mpi_ipc_map(dv, e, xc->recvs[i].peer, &xc->ipc_in[i]);
        if (src && copy)
            GEMM__MPI_CU(e, cudaMemcpyAsync(xc->recvs[i].buf, src, xc->recvs[i].bytes, cudaMemcpyDefault,
                                            dv->copy_stream));
    }
    if (!copy) return;
    GEMM__MPI_CU(e, cudaStreamSynchronize(dv->copy_stream));
    gemm__mpi_ipc_ack(xc, tm, e);
}

#endif /* GEMM_MPI_CUDA */

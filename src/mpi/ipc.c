/* ---- moving blocks by CUDA IPC (ranks of one node) --------------------------- */

#pragma once

#include <string.h>
#include "../core/config.c" /* GEMM_MALLOC, GEMM_FREE */
#include "status.c"

/* Only each block's handle and address travel over MPI; the receiver maps
   the sender's block (once per plan: the mapping is kept) and copies it
   straight from that GPU's memory (over NVLink where there is one), then
   both sides say they are done. Mappings are closed when the plan is
   destroyed, before the vote after which every rank frees its blocks: no
   rank frees a block that a peer still maps (CUDA leaves that undefined;
   a cache without that agreement failed just so on H200s). The plan's
   creation maps every block a shift or a skew will read, so executes open
   nothing. The start and the end of an exchange are in mpi/transfer.c. */
#ifdef GEMM_MPI_CUDA

/* Receive i of the exchange: its block's handle, as request *r. */
static void gemm__mpi_ipc_expect(gemm__mpi *x, int i, int *r)
{
    const gemm__mpi_msg *m = &x->recvs[i];
    x->reqs[*r] = MPI_REQUEST_NULL;
    GEMM__MPI_DO(x, MPI_Irecv(&x->ipc_in[i], (int)sizeof(gemm__mpi_ipc_msg), MPI_BYTE, m->peer, m->tag, x->comm,
                              &x->reqs[*r]));
    (*r)++;
}

/* Send i of the exchange: its block's handle and address, as request *r. */
static void gemm__mpi_ipc_offer(gemm__mpi *x, int i, int *r)
{
    const gemm__mpi_msg *m = &x->sends[i];
    memset(&x->ipc_out[i], 0, sizeof x->ipc_out[i]);
    GEMM__MPI_CU(x, cudaIpcGetMemHandle(&x->ipc_out[i].handle, m->buf));
    x->ipc_out[i].remote = (uint64_t)(uintptr_t)m->buf;
    x->reqs[*r] = MPI_REQUEST_NULL;
    GEMM__MPI_DO(x, MPI_Isend(&x->ipc_out[i], (int)sizeof(gemm__mpi_ipc_msg), MPI_BYTE, m->peer, m->tag, x->comm,
                              &x->reqs[*r]));
    (*r)++;
}

/* The peer's block described by `msg`, mapped here: from the plan's list,
   or opened now and added to it. NULL when it cannot be mapped. */
static void *gemm__mpi_ipc_map(gemm__mpi *x, int peer, const gemm__mpi_ipc_msg *msg)
{
    int i;
    void *p = NULL;
    for (i = 0; i < x->nmaps; i++)
        if (x->maps[i].peer == peer && x->maps[i].remote == msg->remote) return x->maps[i].local;
    if (x->nmaps == x->mapcap) {
        int cap = x->mapcap ? 2 * x->mapcap : 16;
        gemm__mpi_mapping *m = (gemm__mpi_mapping *)GEMM_MALLOC(sizeof(gemm__mpi_mapping) * (size_t)cap);
        if (!m) { gemm__mpi_keep(x, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory", x->func)); return NULL; }
        if (x->nmaps) memcpy(m, x->maps, sizeof(gemm__mpi_mapping) * (size_t)x->nmaps);
        GEMM_FREE(x->maps);
        x->maps = m;
        x->mapcap = cap;
    }
    if (!GEMM__MPI_CU(x, cudaIpcOpenMemHandle(&p, msg->handle, cudaIpcMemLazyEnablePeerAccess))) return NULL;
    x->mappings++;
    x->maps[x->nmaps].peer = peer;
    x->maps[x->nmaps].remote = msg->remote;
    x->maps[x->nmaps].local = p;
    x->nmaps++;
    return p;
}

/* Closes every mapping (the plan's end, before the vote that frees). */
static void gemm__mpi_ipc_unmap_all(gemm__mpi *x)
{
    int i;
    for (i = 0; i < x->nmaps; i++) cudaIpcCloseMemHandle(x->maps[i].local);
    x->nmaps = 0;
}

/* Tells each sender that its block was copied, and hears the same from
   each receiver of ours, so that no block changes while a peer reads it. */
static void gemm__mpi_ipc_ack(gemm__mpi *x)
{
    int i, r = 0;
    for (i = 0; i < x->nrecv; i++)
        if (x->recvs[i].peer != x->rank) {
            x->acks[i] = 1;
            x->reqs[r] = MPI_REQUEST_NULL;
            GEMM__MPI_DO(x, MPI_Isend(&x->acks[i], 1, MPI_BYTE, x->recvs[i].peer, x->recvs[i].tag, x->comm, &x->reqs[r]));
            r++;
        }
    for (i = 0; i < x->nsend; i++)
        if (x->sends[i].peer != x->rank) {
            x->reqs[r] = MPI_REQUEST_NULL;
            GEMM__MPI_DO(x, MPI_Irecv(&x->acks[x->nrecv + i], 1, MPI_BYTE, x->sends[i].peer, x->sends[i].tag, x->comm,
                                      &x->reqs[r]));
            r++;
        }
    for (; r < x->cap; r++) x->reqs[r] = MPI_REQUEST_NULL;
    GEMM__MPI_DO(x, MPI_Waitall(x->cap, x->reqs, MPI_STATUSES_IGNORE));
}

/* Every handle has arrived: copy each block from its mapping, then
   acknowledge. `copy` 0 only maps (the plan's creation). */
static void gemm__mpi_ipc_copy(gemm__mpi *x, int copy)
{
    int i;
    for (i = 0; i < x->nrecv; i++) {
        void *src;
        if (x->recvs[i].peer == x->rank || x->st != GEMM_OK) continue;
        src = gemm__mpi_ipc_map(x, x->recvs[i].peer, &x->ipc_in[i]);
        if (src && copy)
            GEMM__MPI_CU(x, cudaMemcpyAsync(x->recvs[i].buf, src, x->recvs[i].bytes, cudaMemcpyDefault,
                                            x->copy_stream));
    }
    if (!copy) return;
    GEMM__MPI_CU(x, cudaStreamSynchronize(x->copy_stream));
    gemm__mpi_ipc_ack(x);
}

#endif /* GEMM_MPI_CUDA */

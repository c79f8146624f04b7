/* ---- moving blocks by CUDA IPC (ranks of one node) --------------------------- */

/* Only each block's handle travels over MPI; the receiver maps the
   sender's block and copies it straight from that GPU's memory (over
   NVLink where there is one), then both sides say they are done. The
   start and the end of an exchange are in mpi/transfer.c. */
#ifdef GEMM_MPI_CUDA

/* Receive i of the exchange: its block's handle, as request *r. */
static void gemm__mpi_ipc_expect(gemm__mpi *x, int i, int *r)
{
    const gemm__mpi_msg *m = &x->recvs[i];
    x->reqs[*r] = MPI_REQUEST_NULL;
    GEMM__MPI_DO(x, MPI_Irecv(&x->ipc_in[i], (int)sizeof(cudaIpcMemHandle_t), MPI_BYTE, m->peer, m->tag, x->comm,
                              &x->reqs[*r]));
    (*r)++;
}

/* Send i of the exchange: its block's handle, as request *r. */
static void gemm__mpi_ipc_offer(gemm__mpi *x, int i, int *r)
{
    const gemm__mpi_msg *m = &x->sends[i];
    GEMM__MPI_CU(x, cudaIpcGetMemHandle(&x->ipc_out[i], m->buf));
    x->reqs[*r] = MPI_REQUEST_NULL;
    GEMM__MPI_DO(x, MPI_Isend(&x->ipc_out[i], (int)sizeof(cudaIpcMemHandle_t), MPI_BYTE, m->peer, m->tag, x->comm,
                              &x->reqs[*r]));
    (*r)++;
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

/* Every handle has arrived: copy each block, unmap it, then acknowledge. */
static void gemm__mpi_ipc_copy(gemm__mpi *x)
{
    int i;
    for (i = 0; i < x->nrecv; i++) {
        x->ipc_src[i] = NULL;
        if (x->recvs[i].peer == x->rank || x->st != GEMM_OK) continue;
        if (GEMM__MPI_CU(x, cudaIpcOpenMemHandle(&x->ipc_src[i], x->ipc_in[i], cudaIpcMemLazyEnablePeerAccess)))
            GEMM__MPI_CU(x, cudaMemcpyAsync(x->recvs[i].buf, x->ipc_src[i], x->recvs[i].bytes, cudaMemcpyDefault,
                                            x->copy_stream));
        else
            x->ipc_src[i] = NULL;
    }
    GEMM__MPI_CU(x, cudaStreamSynchronize(x->copy_stream));
    /* Unmapped before the sender hears we are done: it frees its blocks at
       the end of the call, and freeing a block still mapped elsewhere is
       undefined in CUDA (mappings kept across calls failed just so on
       H200s). */
    for (i = 0; i < x->nrecv; i++)
        if (x->ipc_src[i]) GEMM__MPI_CU(x, cudaIpcCloseMemHandle(x->ipc_src[i]));
    gemm__mpi_ipc_ack(x);
}

#endif /* GEMM_MPI_CUDA */

/* ---- moving blocks between ranks ---------------------------------------------- */

#pragma once

#include "copy.c" /* gemm__mpi_copy, gemm__mpi_sync */
#include "ipc.c"

/* An exchange: queue sends and receives of whole blocks (gemm__mpi_post),
   start them all (gemm__mpi_start), let them progress (gemm__mpi_test) and
   finish them (gemm__mpi_wait). How a block travels is the call's path:
   host blocks and CUDA-aware MPI hand the block to MPI; the staged path
   copies device blocks through the host pool; the IPC path sends handles
   (mpi/ipc.c). A message from this rank to itself is a copy. */

static void gemm__mpi_post(gemm__mpi_msg *list, int *n, void *buf, int peer, int tag, size_t bytes)
{
    list[*n].buf = buf;
    list[*n].peer = peer;
    list[*n].tag = tag;
    list[*n].bytes = bytes;
    (*n)++;
}

/* Large blocks go as several MPI messages: counts are int. */
#define GEMM__MPI_CHUNK ((size_t)1 << 30)

static int gemm__mpi_pieces(size_t bytes) { return (int)((bytes + GEMM__MPI_CHUNK - 1) / GEMM__MPI_CHUNK); }

typedef enum gemm__mpi_verb {
    GEMM__MPI_ISEND,   /* to `peer`, one request of x->reqs per piece from *r on */
    GEMM__MPI_IRECV,   /* from `peer`, the same */
    GEMM__MPI_REPLACE, /* to `peer` and from `from` in place, blocking */
    GEMM__MPI_BCAST    /* along the process row from its rank `peer`, blocking */
} gemm__mpi_verb;

/* One block as MPI messages of at most GEMM__MPI_CHUNK bytes each. */
static void gemm__mpi_message(gemm__mpi *x, gemm__mpi_verb verb, void *buf, size_t bytes, int peer, int from, int tag,
                              int *r)
{
    size_t off;
    for (off = 0; off < bytes; off += GEMM__MPI_CHUNK) {
        char *p = (char *)buf + off;
        int n = (int)(bytes - off < GEMM__MPI_CHUNK ? bytes - off : GEMM__MPI_CHUNK);
        MPI_Request *req = NULL;
        if (verb == GEMM__MPI_ISEND || verb == GEMM__MPI_IRECV) {
            req = &x->reqs[(*r)++];
            *req = MPI_REQUEST_NULL;
        }
        if (verb == GEMM__MPI_ISEND) GEMM__MPI_DO(x, MPI_Isend(p, n, MPI_BYTE, peer, tag, x->comm, req));
        else if (verb == GEMM__MPI_IRECV) GEMM__MPI_DO(x, MPI_Irecv(p, n, MPI_BYTE, peer, tag, x->comm, req));
        else if (verb == GEMM__MPI_REPLACE)
            GEMM__MPI_DO(x, MPI_Sendrecv_replace(p, n, MPI_BYTE, peer, tag, from, tag, x->comm, MPI_STATUS_IGNORE));
        else GEMM__MPI_DO(x, MPI_Bcast(p, n, MPI_BYTE, peer, x->row_comm));
    }
}

/* A receive from this rank itself: copy the matching send's block. */
static int gemm__mpi_self_copy(gemm__mpi *x, const gemm__mpi_msg *m)
{
    int j, found = 0;
    for (j = 0; j < x->nsend; j++)
        if (x->sends[j].peer == x->rank && x->sends[j].tag == m->tag) {
            gemm__mpi_copy(x, m->buf, x->cuda, x->sends[j].buf, x->cuda, m->bytes);
            found = 1;
        }
    return found;
}

static void gemm__mpi_start_recv(gemm__mpi *x, int i, int *r)
{
    gemm__mpi_msg *m = &x->recvs[i];
    int staged = x->path == GEMM_MPI_PATH_STAGED;
#ifdef GEMM_MPI_CUDA
    if (x->path == GEMM_MPI_PATH_CUDA_IPC) { gemm__mpi_ipc_expect(x, i, r); return; }
#endif
    gemm__mpi_message(x, GEMM__MPI_IRECV, staged ? x->pool + (size_t)i * x->big : (char *)m->buf, m->bytes, m->peer,
                      0, m->tag, r);
}

static void gemm__mpi_start_send(gemm__mpi *x, int i, int *r)
{
    gemm__mpi_msg *m = &x->sends[i];
    char *p = (char *)m->buf;
#ifdef GEMM_MPI_CUDA
    if (x->path == GEMM_MPI_PATH_CUDA_IPC) { gemm__mpi_ipc_offer(x, i, r); return; }
#endif
    if (x->path == GEMM_MPI_PATH_STAGED) {
        p = x->pool + (size_t)(x->nrecv + i) * x->big;
        gemm__mpi_copy(x, p, 0, m->buf, 1, m->bytes);
    }
    gemm__mpi_message(x, GEMM__MPI_ISEND, p, m->bytes, m->peer, 0, m->tag, r);
}

/* Starts every queued receive, then every send (x->recvs, x->sends). */
static void gemm__mpi_start(gemm__mpi *x)
{
    int i, r = 0, self = 0;
    for (i = 0; i < x->nrecv; i++) {
        if (x->recvs[i].peer == x->rank) self |= gemm__mpi_self_copy(x, &x->recvs[i]);
        else gemm__mpi_start_recv(x, i, &r);
    }
    for (i = 0; i < x->nsend; i++)
        if (x->sends[i].peer != x->rank) gemm__mpi_start_send(x, i, &r);
    for (; r < x->cap; r++) x->reqs[r] = MPI_REQUEST_NULL;
    if (self) gemm__mpi_sync(x); /* device copies to self end before a buffer is reused */
}

/* Whether the started transfers are done (polls MPI's progress). */
static int gemm__mpi_test(gemm__mpi *x)
{
    int done = 1;
    if (!GEMM__MPI_DO(x, MPI_Testall(x->cap, x->reqs, &done, MPI_STATUSES_IGNORE))) return 1;
    return done;
}

/* Finishes the exchange: every block is where it was sent. */
static void gemm__mpi_wait(gemm__mpi *x)
{
    int i;
    GEMM__MPI_DO(x, MPI_Waitall(x->cap, x->reqs, MPI_STATUSES_IGNORE));
#ifdef GEMM_MPI_CUDA
    if (x->path == GEMM_MPI_PATH_CUDA_IPC) gemm__mpi_ipc_copy(x, 1);
#endif
    if (x->path == GEMM_MPI_PATH_STAGED)
        for (i = 0; i < x->nrecv; i++)
            if (x->recvs[i].peer != x->rank)
                gemm__mpi_copy(x, x->recvs[i].buf, 1, x->pool + (size_t)i * x->big, 0, x->recvs[i].bytes);
    x->nsend = x->nrecv = 0;
}

#ifdef GEMM_MPI_CUDA
/* The plan's creation, on the IPC path: the queued exchange's handles
   travel and every receiver maps the blocks it will copy from, once. */
static void gemm__mpi_map_queued(gemm__mpi *x)
{
    int i, n = 0;
    for (i = 0; i < x->nrecv; i++) /* blocks from this rank itself are copies: nothing to map */
        if (x->recvs[i].peer != x->rank) x->recvs[n++] = x->recvs[i];
    x->nrecv = n;
    for (i = n = 0; i < x->nsend; i++)
        if (x->sends[i].peer != x->rank) x->sends[n++] = x->sends[i];
    x->nsend = n;
    gemm__mpi_start(x);
    GEMM__MPI_DO(x, MPI_Waitall(x->cap, x->reqs, MPI_STATUSES_IGNORE));
    gemm__mpi_ipc_copy(x, 0);
    x->nsend = x->nrecv = 0;
}
#endif

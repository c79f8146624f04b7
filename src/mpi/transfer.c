/* ---- moving blocks between ranks ---------------------------------------------- */

/* An exchange (gemm__mpi_xchg): queue sends and receives of whole blocks
   (gemm__mpi_post), start them all (gemm__mpi_start), let them progress
   (gemm__mpi_test) and finish them (gemm__mpi_wait). How a block travels
   is the device's path: host blocks and CUDA-aware MPI hand the block to
   MPI (in messages of at most 1 GiB: MPI's counts are int); the staged
   path copies device blocks through the host pool; the IPC path sends
   handles (mpi/ipc.c). A message from this rank to itself is a copy. */
#pragma once

#include "copy.c" /* gemm__mpi_copy, gemm__mpi_sync */
#include "ipc.c"

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
    GEMM__MPI_ISEND,   /* to `peer`, one request of xc->reqs per piece from *r on */
    GEMM__MPI_IRECV,   /* from `peer`, the same */
    GEMM__MPI_REPLACE, /* to `peer` and from `from` in place, blocking */
    GEMM__MPI_BCAST    /* along the process row from its rank `peer`, blocking */
} gemm__mpi_verb;

/* One block as MPI messages of at most GEMM__MPI_CHUNK bytes each; the
   non-blocking verbs take requests of xc from *r on. */
static void gemm__mpi_message(gemm__mpi_xchg *xc, const gemm__mpi_team *tm, gemm__mpi_err *e, gemm__mpi_verb verb,
                              void *buf, size_t bytes, int peer, int from, int tag, int *r)
{
    size_t off;
    for (off = 0; off < bytes; off += GEMM__MPI_CHUNK) {
        char *p = (char *)buf + off;
        int n = (int)(bytes - off < GEMM__MPI_CHUNK ? bytes - off : GEMM__MPI_CHUNK);
        MPI_Request *req = NULL;
        if (verb == GEMM__MPI_ISEND || verb == GEMM__MPI_IRECV) {
            req = &xc->reqs[(*r)++];
            *req = MPI_REQUEST_NULL;
        }
        if (verb == GEMM__MPI_ISEND) GEMM__MPI_DO(e, MPI_Isend(p, n, MPI_BYTE, peer, tag, tm->comm, req));
        else if (verb == GEMM__MPI_IRECV) GEMM__MPI_DO(e, MPI_Irecv(p, n, MPI_BYTE, peer, tag, tm->comm, req));
        else if (verb == GEMM__MPI_REPLACE) {
            GEMM__MPI_DO(e, MPI_Sendrecv_replace(p, n, MPI_BYTE, peer, tag, from, tag, tm->comm, MPI_STATUS_IGNORE));
#ifdef GEMM__TEST_HOOKS
            if (off == 0 && n >= 4 && gemm__test_hooks()->mpi_corrupt_shift > 0 &&
                --gemm__test_hooks()->mpi_corrupt_shift == 0)
                p[3] ^= 0x40; /* a block corrupted in transit: bit 30 of its first 4 bytes */
#endif
        }
        else GEMM__MPI_DO(e, MPI_Bcast(p, n, MPI_BYTE, peer, tm->row_comm));
    }
}

/* A receive from this rank itself: copy the matching send's block. */
static int gemm__mpi_self_copy(const gemm__mpi_xchg *xc, const gemm__mpi_team *tm, const gemm__mpi_device *dv,
                               gemm__mpi_err *e, const gemm__mpi_msg *m)
{
    int j, found = 0;
    for (j = 0; j < xc->nsend; j++)
        if (xc->sends[j].peer == tm->rank && xc->sends[j].tag == m->tag) {
            gemm__mpi_copy(dv, e, m->buf, dv->cuda, xc->sends[j].buf, dv->cuda, m->bytes);
            found = 1;
        }
    return found;
}

static void gemm__mpi_start_recv(gemm__mpi_xchg *xc, const gemm__mpi_team *tm, const gemm__mpi_device *dv,
                                 gemm__mpi_err *e, int i, int *r)
{
    gemm__mpi_msg *m = &xc->recvs[i];
    int staged = dv->path == GEMM_MPI_PATH_STAGED;
#ifdef GEMM_MPI_CUDA
    if (dv->path == GEMM_MPI_PATH_CUDA_IPC) { gemm__mpi_ipc_expect(xc, tm, e, i, r); return; }
#endif
    gemm__mpi_message(xc, tm, e, GEMM__MPI_IRECV, staged ? xc->pool + (size_t)i * xc->slot : (char *)m->buf, m->bytes,
                      m->peer, 0, m->tag, r);
}

static void gemm__mpi_start_send(gemm__mpi_xchg *xc, const gemm__mpi_team *tm, const gemm__mpi_device *dv,
                                 gemm__mpi_err *e, int i, int *r)
{
    gemm__mpi_msg *m = &xc->sends[i];
    char *p = (char *)m->buf;
#ifdef GEMM_MPI_CUDA
    if (dv->path == GEMM_MPI_PATH_CUDA_IPC) { gemm__mpi_ipc_offer(xc, tm, e, i, r); return; }
#endif
    if (dv->path == GEMM_MPI_PATH_STAGED) {
        p = xc->pool + (size_t)(xc->nrecv + i) * xc->slot;
        gemm__mpi_copy(dv, e, p, 0, m->buf, 1, m->bytes);
    }
    gemm__mpi_message(xc, tm, e, GEMM__MPI_ISEND, p, m->bytes, m->peer, 0, m->tag, r);
}

/* Starts every queued receive, then every send (xc->recvs, xc->sends). */
static void gemm__mpi_start(gemm__mpi_xchg *xc, const gemm__mpi_team *tm, const gemm__mpi_device *dv,
                            gemm__mpi_err *e)
{
    int i, r = 0, self = 0;
    for (i = 0; i < xc->nrecv; i++) {
        if (xc->recvs[i].peer == tm->rank) self |= gemm__mpi_self_copy(xc, tm, dv, e, &xc->recvs[i]);
        else gemm__mpi_start_recv(xc, tm, dv, e, i, &r);
    }
    for (i = 0; i < xc->nsend; i++)
        if (xc->sends[i].peer != tm->rank) gemm__mpi_start_send(xc, tm, dv, e, i, &r);
    for (; r < xc->cap; r++) xc->reqs[r] = MPI_REQUEST_NULL;
    if (self) gemm__mpi_sync(dv, e); /* device copies to self end before a buffer is reused */
}

/* Whether the started transfers are done (polls MPI's progress). */
static int gemm__mpi_test(gemm__mpi_xchg *xc, gemm__mpi_err *e)
{
    int done = 1;
    if (!GEMM__MPI_DO(e, MPI_Testall(xc->cap, xc->reqs, &done, MPI_STATUSES_IGNORE))) return 1;
    return done;
}

/* Finishes the exchange: every block is where it was sent (on the IPC
   path a block not mapped yet is mapped now: `dv` keeps the mapping). */
static void gemm__mpi_wait(gemm__mpi_xchg *xc, const gemm__mpi_team *tm, gemm__mpi_device *dv, gemm__mpi_err *e)
{
    int i;
    GEMM__MPI_DO(e, MPI_Waitall(xc->cap, xc->reqs, MPI_STATUSES_IGNORE));
#ifdef GEMM_MPI_CUDA
    if (dv->path == GEMM_MPI_PATH_CUDA_IPC) gemm__mpi_ipc_copy(xc, tm, dv, e, 1);
#endif
    if (dv->path == GEMM_MPI_PATH_STAGED)
        for (i = 0; i < xc->nrecv; i++)
            if (xc->recvs[i].peer != tm->rank)
                gemm__mpi_copy(dv, e, xc->recvs[i].buf, 1, xc->pool + (size_t)i * xc->slot, 0, xc->recvs[i].bytes);
    xc->nsend = xc->nrecv = 0;
}

#ifdef GEMM_MPI_CUDA
/* The plan's creation, on the IPC path: the queued exchange's handles
   travel and every receiver maps the blocks it will copy from, once. */
static void gemm__mpi_map_queued(gemm__mpi_xchg *xc, const gemm__mpi_team *tm, gemm__mpi_device *dv,
                                 gemm__mpi_err *e)
{
    int i, n = 0;
    for (i = 0; i < xc->nrecv; i++) /* blocks from this rank itself are copies: nothing to map */
        if (xc->recvs[i].peer != tm->rank) xc->recvs[n++] = xc->recvs[i];
    xc->nrecv = n;
    for (i = n = 0; i < xc->nsend; i++)
        if (xc->sends[i].peer != tm->rank) xc->sends[n++] = xc->sends[i];
    xc->nsend = n;
    gemm__mpi_start(xc, tm, dv, e);
    GEMM__MPI_DO(e, MPI_Waitall(xc->cap, xc->reqs, MPI_STATUSES_IGNORE));
    gemm__mpi_ipc_copy(xc, tm, dv, e, 0);
    xc->nsend = xc->nrecv = 0;
}
#endif

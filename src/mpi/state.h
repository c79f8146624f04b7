/* ---- one call's state ------------------------------------------------------ */

#pragma once

#include "grid.c" /* gemm__mpi_grid; gemm__problem */
#include "platform.h" /* the CUDA types, with GEMM_MPI_CUDA */

/* A block's valid part as runs of contiguous elements in the stored
   matrix: outer_n runs of inner_n elements, run o at (outer0+o)*ld + inner0.
   The block buffer holds OUTER runs of INNER elements (zero padding beyond). */
typedef struct gemm__mpi_span {
    int64_t outer0, outer_n, inner0, inner_n, OUTER, INNER;
} gemm__mpi_span;

/* One point-to-point transfer of a whole block. */
typedef struct gemm__mpi_msg {
    void *buf;
    int peer, tag;
    size_t bytes;
} gemm__mpi_msg;

#ifdef GEMM_MPI_CUDA
/* A peer's block, mapped once by CUDA IPC and kept until the plan goes. */
typedef struct gemm__mpi_mapping {
    int peer;
    uint64_t remote;             /* the block's address in the peer */
    void *local;                 /* the same memory, mapped here */
} gemm__mpi_mapping;

/* What travels for one block of an IPC exchange. */
typedef struct gemm__mpi_ipc_msg {
    cudaIpcMemHandle_t handle;
    uint64_t remote;
} gemm__mpi_ipc_msg;
#endif

/* The root-held stream: one k-slab of A and B on its way, chunk by chunk,
   while the ranks multiply the previous one (mpi/feed.c). */
typedef struct gemm__mpi_feed {
    int active;                  /* a slab is on its way */
    int done;                    /* every chunk of it has been started */
    int64_t kofs;                /* the slab's first column inside each virtual k-block */
    int d, which, slot;          /* the next chunk: runs from o of this block of rank (root + d) % P */
    int64_t o;
    int pending[2];              /* a GPU rank's chunk received in stage[k], still to be copied ... */
    char *to[2];                 /* ... to here on the device */
    size_t len[2];
} gemm__mpi_feed;

/* Everything one rank's plan holds, and the call in progress. The problem
   is gemm__prepare's canonical form: column-major, with the caller's A and
   B changed places for a row-major call; A, B and C below are the
   operands of that view. */
typedef struct gemm__mpi {
    const char *func;            /* the public function in progress (error details) */
    int distributed;             /* the form in progress: 0 root-held, 1 distributed */
    size_t es;                   /* bytes of one element */
    gemm_precision precision;
    gemm_layout layout;          /* the create's shape, which every execute keeps */
    gemm_transpose transa, transb;
    int64_t m, n, k;
    gemm__problem p;             /* this execute's (its leading dimensions) */
    double alpha, beta;
    const void *A, *B;
    void *C;
    gemm_mpi_options o;
    gemm_mpi_blocks u;           /* this rank's blocks in the caller's grid */
    int setup_done;              /* the shared blocks are allocated (and, on the IPC path, mapped) */
    int form_ready[2];           /* the root-held / distributed buffers are allocated */
    int cuda_ready;              /* the GPU is chosen, its streams and events made */
    int64_t kb_full;             /* the virtual k-block; g.kb is a slab of it while A and B stream */
    int accumulate;              /* a later slab: the first round adds to C instead of taking beta*C */
    void **land_a, **land_b;     /* the stream's next slab lands here, per slot */
    gemm__mpi_feed fd;
    long allocations, mappings;  /* blocks and buffers allocated, peer blocks mapped: the tests read them */
    int broken;                  /* an MPI failure left transfers behind: no more executes */

    MPI_Comm comm, row_comm;     /* the caller's communicator duplicated; Fox's process rows */
    int P, rank, left, right, up, down;
    gemm__mpi_grid g;
    int cuda;
    gemm_mpi_path path;
    size_t abytes, bbytes, cbytes, big;

    void **a, **b, **c;          /* slots, [li*bc + lj] */
    void **aspare, **bspare, **fox;
    void **temps;                /* distributed Cannon: natural blocks before the skew */
    char *pool;                  /* host staging of whole blocks */
    size_t pool_blocks;
    char *stage[2];              /* root-held calls: chunks on their way */
    size_t stage_bytes;
    int chunk;                   /* chunks staged so far in this phase: the parity picks the buffer */
    MPI_Request stage_req[2];    /* a chunk's MPI transfer in flight ... */
    int stage_dev[2];            /* ... or its device copy (event) */

    void **use;                  /* Fox: the a block each slot multiplies this round */
    gemm__mpi_msg *sends, *recvs;
    int nsend, nrecv, cap;
    MPI_Request *reqs;
#ifdef GEMM_MPI_CUDA
    gemm__mpi_ipc_msg *ipc_out, *ipc_in;   /* the blocks of one exchange */
    gemm__mpi_mapping *maps;               /* peers' blocks mapped so far */
    int nmaps, mapcap;
    char *acks;
    cudaStream_t copy_stream;
    cudaEvent_t stage_ev[2];
#endif

    gemm_status st;              /* the first failure on this rank */
    int agreed;                  /* st came from a vote: every rank has it */
    int prelaunched;             /* the root's first round is already queued on its GPU */
    char detail[512];
    gemm_timing t;               /* this rank's phases */
#ifdef GEMM_MPI_CUDA
    cudaStream_t stream;
    cudaEvent_t ev0, ev1;
#endif
} gemm__mpi;

/* ---- a plan's state and one call's, in the pieces each phase owns ------------ */

/* Nothing holds everything: each function takes the pieces it reads (const)
   and the ones it writes. A plan keeps what lasts from its creation to its
   destruction:

     gemm__mpi_shape   the create's arguments and options (fixed)
     gemm__mpi_team    the communicator, the grid, the neighbours (fixed
                       once the setup has run)
     gemm__mpi_device  where blocks live (host or GPU), the GPU's streams,
                       the transfer path, the IPC mappings, the counters
     gemm__mpi_bufs    the blocks: slots, spares, each form's own blocks
     gemm__mpi_xchg    one exchange of whole blocks: lists, requests, pool
     gemm__mpi_stage   the root-held form's staging buffers, what is in
                       flight through them, the k-slab stream's cursor

   and each call makes, on its stack, what lasts one call:

     gemm__mpi_call    the execute's arguments in canonical form, outputs
     gemm__mpi_err     the first failure on this rank, agreed or not
     gemm_timing       this rank's phases

   A phase that works on a part of the blocks says so in its arguments:
   the rounds take a gemm__mpi_slab (the k extent and bytes of the a and b
   blocks they multiply and move), not a changed grid. */
#pragma once

#include "grid.c"     /* gemm__mpi_grid; gemm__problem, gemm_timing */
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

/* The plan's shape: the create's arguments, which every execute keeps, and
   its options (without the three outputs, which are each call's). Written
   by gemm__mpi_init, read-only after. */
typedef struct gemm__mpi_shape {
    gemm_precision precision;
    size_t es;                   /* bytes of one element */
    gemm_layout layout;
    gemm_transpose transa, transb;
    int64_t m, n, k;
    int pairs;                   /* the real form of a complex plan: m (column-major) or n (row-major), and k,
                                    are twice the complex sizes, and the blocks keep each element's two reals
                                    together (gemm__mpi_blocks_paired) */
    gemm_mpi_options o;          /* timing, timing_max, path_used: NULL */
} gemm__mpi_shape;

/* This rank among the plan's ranks. The communicator's copy, its size and
   this rank (gemm__mpi_open), the caller's grid and its column-major view
   (the create's checks), the neighbours on the periodic grid and Fox's
   process rows (the setup). Read-only after the setup. */
typedef struct gemm__mpi_team {
    MPI_Comm comm, row_comm;     /* the caller's communicator duplicated; Fox's process rows */
    int P, rank;
    gemm_mpi_blocks u;           /* this rank's blocks in the caller's grid */
    gemm__mpi_grid g;            /* the same in the column-major view */
    int left, right, up, down;
} gemm__mpi_team;

/* Where this rank's blocks live and how they move: host memory (the CPU
   multiply) or the GPU, its streams and events (gemm__mpi_cuda_init), the
   path blocks take between GPUs (gemm__mpi_choose_path), the peers' blocks
   mapped by CUDA IPC, and what was allocated and mapped so far (the tests
   read the counts). */
#define GEMM__MPI_MAX_DEVICES 64

typedef struct gemm__mpi_device {
    int cuda;                    /* blocks on the GPU: options.local is GEMM_MPI_LOCAL_CUDA */
    int ready;                   /* the GPU is chosen, its streams and events made */
    gemm_mpi_path path;          /* GEMM_MPI_PATH_HOST for the CPU multiply */
    long allocations, mappings;
    int root_devices;            /* the root-held form runs as the root's host call on the ranks' GPUs
                                    (mpi/root_devices.c) */
    int ndevs, devs[GEMM__MPI_MAX_DEVICES]; /* on the root: those GPUs, as its own device indices */
#ifdef GEMM_MPI_CUDA
    cudaStream_t stream, copy_stream;
    cudaEvent_t ev0, ev1;        /* a round's multiply, timed */
    gemm__mpi_mapping *maps;     /* peers' blocks mapped so far */
    int nmaps, mapcap;
#endif
} gemm__mpi_device;

/* The plan's blocks (host or device, as gemm__mpi_device says): slot s of
   this rank holds block s / bc, s % bc of its br x bc blocks of the virtual
   grid. Allocated by the setup (shared) and a form's first execute (its
   own); the rounds rotate the slot pointers. */
typedef struct gemm__mpi_bufs {
    size_t abytes, bbytes, cbytes, big; /* one a, b, c block, and the largest */
    void **a, **b, **c;          /* slots, [li*bc + lj] */
    void **aspare, **bspare;     /* a shift's arrivals: one a per block row, one b per block column */
    void **fox, **use;           /* Fox: broadcast a blocks; the a block each slot multiplies this round */
    void **temps;                /* distributed Cannon: natural blocks before the skew */
    void **land_a, **land_b;     /* root-held, streamed: the next k-slab lands here */
    int setup_done;              /* the shared blocks are allocated (and, on the IPC path, mapped) */
    int form_ready[2];           /* the root-held / distributed buffers are allocated */
} gemm__mpi_bufs;

/* One exchange of whole blocks (mpi/transfer.c): the queued sends and
   receives, their requests, the host pool that staged blocks travel
   through, and on the IPC path the handles and acknowledgements. The setup
   allocates room for the largest exchange; each exchange fills and empties
   the lists. */
typedef struct gemm__mpi_xchg {
    gemm__mpi_msg *sends, *recvs;
    int nsend, nrecv, cap;       /* cap: room in each list and in reqs */
    MPI_Request *reqs;
    char *pool;                  /* host staging of whole blocks, pool_blocks of `slot` bytes */
    size_t pool_blocks, slot;
#ifdef GEMM_MPI_CUDA
    gemm__mpi_ipc_msg *ipc_out, *ipc_in;
    char *acks;
#endif
} gemm__mpi_xchg;

/* The root-held stream's cursor: one k-slab of A and B on its way, chunk
   by chunk, while the ranks multiply the previous one (mpi/feed.c). */
typedef struct gemm__mpi_feed {
    int active;                  /* a slab is on its way */
    int done;                    /* every chunk of it has been started */
    int64_t kofs, kb;            /* the slab: kb columns from kofs inside each virtual k-block */
    int d, which, slot;          /* the next chunk: runs from o of this block of rank (root + d) % P */
    int64_t o;
    int pending[2];              /* a GPU rank's chunk received in buf[k], still to be copied ... */
    char *to[2];                 /* ... to here on the device */
    size_t len[2];
} gemm__mpi_feed;

/* The root-held form's staging: two buffers of `bytes` (on the root, and
   on every GPU rank), one filled while the other travels; what is in
   flight through each; and the stream's cursor. Every rank cuts blocks
   into chunks of the same runs (`bytes` is set on every rank). */
typedef struct gemm__mpi_stage {
    char *buf[2];
    size_t bytes;
    int chunk;                   /* chunks staged so far in this phase: the parity picks the buffer */
    MPI_Request req[2];          /* a chunk's MPI transfer in flight ... */
    int dev[2];                  /* ... or its device copy (event) */
#ifdef GEMM_MPI_CUDA
    cudaEvent_t ev[2];
#endif
    gemm__mpi_feed fd;
} gemm__mpi_stage;

/* One call's arguments: the form, gemm__prepare's canonical problem with
   this call's leading dimensions (column-major, the caller's A and B
   changed places for a row-major call: A, B and C below are the view's
   operands), the scalars, and where the call's outputs go. Made by
   gemm__mpi_prepare, read-only after. */
typedef struct gemm__mpi_call {
    int form;                    /* 0 root-held, 1 distributed, -1 a plan's create */
    gemm__problem p;
    double alpha, beta;
    const void *A, *B;
    void *C;
    gemm_timing *timing, *timing_max; /* the options' outputs, or NULL */
    gemm_mpi_path *path_used;
} gemm__mpi_call;

/* This rank's outcome of the call in progress: its first failure, with
   the detail, and whether a vote agreed on it (every rank has it). */
typedef struct gemm__mpi_err {
    const char *func;            /* the public function in progress (error details) */
    gemm_status st;
    int agreed;
    char detail[512];
} gemm__mpi_err;

/* The a and b blocks the rounds multiply and move: the grid's (k extent
   g.kb), or one k-slab of them while A and B stream (mpi/stream.c). */
typedef struct gemm__mpi_slab {
    int64_t kb;
    size_t abytes, bbytes;
} gemm__mpi_slab;

/* A complex plan's own (mpi/complex_plan.c): the complex call it was made
   for, and the buffer its executes expand into, kept from one to the next. */
typedef struct gemm__mpi_cplx {
    int on;                      /* made by gemm_mpi_plan_create_complex */
    int inner;                   /* 1 while a complex execute runs the real one (which the real calls refuse) */
    gemm_transpose transa, transb;
    int64_t m, n, k;
    void *buf;
    size_t bytes;
} gemm__mpi_cplx;

/* Everything one rank's plan holds. A one-shot call is a plan on the
   stack. */
struct gemm_mpi_plan {
    gemm__mpi_shape shape;
    gemm__mpi_team team;
    gemm__mpi_device dev;
    gemm__mpi_bufs bufs;
    gemm__mpi_xchg xchg;
    gemm__mpi_stage stage;
    int broken;                  /* an MPI failure left transfers behind: no more executes */
    gemm__mpi_cplx cx;           /* a complex plan: the complex call (its real form is the rest) */
};

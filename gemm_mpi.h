/* gemm_mpi.h - gemm across MPI processes and GPUs: Cannon's algorithm (or
   Fox's) with a CPU or CUDA multiply inside each process.

       C <- alpha * op(A) * op(B) + beta * C

   Do this in one C or C++ file, compiled with mpicc (or nvcc with MPI flags):
       #define GEMM_IMPLEMENTATION
       #include "gemm_mpi.h"        (or gemm.h with GEMM_ENABLE_MPI defined)
   Copy gemm.h and gemm_cpu.h beside it; for the CUDA multiply also gemm_cuda.cuh.

   Two ways to call it, and a plan for calling many times; every rank of
   the communicator calls, collectively, with the communicator (or the
   plan) first, then cblas_?gemm's arguments, then options:

     gemm_mpi_sgemm / gemm_mpi_dgemm         (root-held)
       The whole A, B and C live on the root rank (options.root, default 0),
       as for gemm_sgemm. The root cuts them into blocks and sends each rank
       the blocks it starts with, Cannon's initial skew already applied (so
       there is no separate skew round), the ranks multiply and shift, and
       the root gathers C. Every rank passes the same scalars (layout,
       transposes, m, n, k, alpha, beta); pointers and leading dimensions
       are read on the root only. With options.slabs = S > 1 (Cannon), A
       and B stream instead: the product runs as S products over k-slabs,
       the ranks start on the first slab as soon as it has landed, and each
       next slab travels from the root while the current one multiplies
       (the root packs and sends between its own panels, or while its GPU
       works; the ranks receive into landing blocks of 1/S of their a and b
       blocks). It pays where the root's CPU is free while the ranks
       multiply: with the CUDA multiply. The root must still move every byte
       of A, B and C through its host memory: the bound is that traffic over
       the root's host bandwidth, however the rounds overlap it.

     gemm_mpi_sgemm_dist / gemm_mpi_dgemm_dist   (distributed)
       For data that never sits on one rank: each rank passes only its own
       pieces, where gemm_mpi_blocks_of() puts them, and its piece of C is
       updated in place (the result stays distributed). With the CUDA
       multiply the pieces are device pointers on the rank's GPU.

     gemm_mpi_plan_create / gemm_mpi_?gemm_plan[_dist] / gemm_mpi_plan_destroy
       A plan sets up, once, what every product of one shape needs: the
       communicator's copy, the grid, the blocks and spares, the exchange
       lists and, with the CUDA multiply, the GPU's streams and the CUDA IPC
       mappings of the peers' blocks. Its executes take new data each time
       (alpha, beta, the pointers and leading dimensions may change; every
       rank passes the same alpha and beta) in either form: _plan is the
       root-held call, _plan_dist the distributed one. The first execute of
       a form allocates that form's own buffers (the root's staging, or the
       distributed skew's blocks); every later execute allocates nothing and
       maps nothing (timing.setup_s is 0). The create refuses, on every
       rank, a plan whose shape or options differ on some rank (detail names
       the argument), and leaves *plan NULL everywhere. The destroy is
       collective: each rank unmaps its peers' blocks, then the ranks meet
       in a barrier, then each frees its own, so no rank frees a block that a
       peer still maps. The one-shot calls above are a plan made, executed
       once and freed, in one pass.

           gemm_mpi_plan *plan;
           gemm_mpi_plan_create(MPI_COMM_WORLD, GEMM_F32, GEMM_ROW_MAJOR, GEMM_NO_TRANS,
                                GEMM_NO_TRANS, m, n, k, &opt, &plan);
           for (...) gemm_mpi_sgemm_plan_dist(plan, 1.0f, A, lda, B, ldb, 0.0f, C, ldc, &opt);
           gemm_mpi_plan_destroy(&plan);

       The handle comes first, as the communicator does in the one-shot
       calls, and the shape (layout, transposes, m, n, k, precision) is the
       plan's, as FFTW's plans and cuBLASMp's handles keep theirs: an execute
       carries only what changes. Its options may be the create's own struct:
       only the three outputs are read, and a field set to another value than
       the create's (another algorithm, say) is refused. An execute whose
       MPI call failed leaves the plan broken: later executes return
       GEMM_ERR_MPI; destroy it.

   The block descriptor (gemm_mpi_blocks_of)
       P ranks form a grid_rows x grid_cols process grid (as square as P
       allows: 1x2, 1x3, 2x2, 2x3, 2x4, 3x3, ...); rank r sits at row
       r / grid_cols, column r % grid_cols. Each rank owns one contiguous
       tile of op(A) (m x k), of op(B) (k x n) and of C (m x n), given as
       first row, row count, first column, column count in the op() view
       (tile .a, .b, .c). The caller stores its tile of X as the submatrix
       of the stored X that holds those elements, in the call's layout, with
       its own leading dimension: for transa == GEMM_TRANS the local A piece
       is .a.cols x .a.rows as stored. A tile may be empty (0 rows): then its
       pointer may be NULL.
       P must make q = lcm(grid_rows, grid_cols) (see below) at most 181:
       message tags number the q*q blocks, below 32767, the smallest
       MPI_TAG_UB MPI allows; a larger grid is refused with
       GEMM_ERR_INVALID_ARG (P = 182, a 13 x 14 grid, is the smallest).

   How it runs
       A grid that is not square runs Cannon on a virtual q x q grid, q =
       lcm(grid_rows, grid_cols), each rank holding (q/grid_rows) x
       (q/grid_cols) blocks; a shift moves one block per block row (or
       column) to the neighbour and rotates the rest in place. That is how
       the seed paper ran 2 GPUs, generalised to any P. Sizes the grid does
       not divide are padded with zeros inside (never in the caller's data).
       q rounds: multiply the resident blocks, shift A left and B up, either
       blocking (MPI_Sendrecv_replace on host memory) or overlapped
       (options.overlap: non-blocking transfers into spare blocks while the
       current blocks multiply). Fox's algorithm (broadcast A along the
       process row, multiply, roll B up) is options.algorithm = GEMM_MPI_FOX;
       its broadcasts are always blocking. Inside, every call is column-major
       (gemm.h's canonical form): a row-major call is the transposed problem
       C^T = op(B)^T op(A)^T on the transposed grid, so there A and B, and
       process rows and columns, change places; for Cannon that is the same
       traffic, for Fox it broadcasts B^T down the process columns instead.

   Local multiply (options.local)
       GEMM_MPI_LOCAL_CPU (default): gemm_cpu_sgemm/gemm_cpu_dgemm of
       gemm_cpu.h in each rank, with options.threads threads (0: as
       gemm_cpu.h decides: gemm_cpu_set_threads(), GEMM_NUM_THREADS, else
       the cores the rank may run on, so one per rank under mpirun
       --bind-to core, and 4 under --map-by slot:PE=4). In overlapped
       rounds a rank multiplies in column panels and polls MPI between
       them, so that shared-memory shifts move during the multiply.
       GEMM_MPI_LOCAL_CUDA: needs GEMM_MPI_CUDA (defined automatically when
       nvcc compiles this with gemm_cuda.cuh reachable, or define it and
       compile as CUDA). Each rank takes GPU (node-local rank mod GPU count)
       and makes it current; blocks stay on the GPU across all rounds. Blocks
       move between ranks as options.path says:
         GEMM_MPI_PATH_AUTO (0)     CUDA_AWARE if MPIX_Query_cuda_support()
                                    says so on every rank, else CUDA_IPC when
                                    all ranks share a node, else STAGED
         GEMM_MPI_PATH_CUDA_AWARE   device pointers straight to MPI (Open MPI
                                    with UCX moves same-node GPU blocks over
                                    NVLink by CUDA IPC)
         GEMM_MPI_PATH_CUDA_IPC     for ranks of one node: the receiver copies
                                    the block straight from the sender's GPU
                                    memory (CUDA IPC handles sent over MPI),
                                    over NVLink where there is one
         GEMM_MPI_PATH_STAGED       through pinned host buffers
       The ranks agree on this (the minimum of MPIX_Query_cuda_support()
       over ranks), so every rank takes the same path. Root-held distribution
       and gather go from host memory, so they go through MPI directly on the
       CUDA-aware path and staged otherwise. options.path_used says which
       path ran (GEMM_MPI_PATH_HOST for the CPU multiply).

   Memory
       gemm_mpi_memory() tells how many bytes of host and device memory the
       busiest rank allocates for a call, or for a plan executed in that form
       (beyond the caller's matrices); a size whose bytes do not fit in
       size_t is GEMM_ERR_OUT_OF_MEMORY, never a wrapped count.
       options.max_host_bytes / max_device_bytes cap it (0 = no cap): a call
       or a create over the cap returns GEMM_ERR_OUT_OF_MEMORY on every rank
       before it allocates any block or buffer (only the communicator's copy
       and, with the CUDA multiply, the GPU's streams and events come
       first); a plan's first execute of a form checks the cap again with
       that form's buffers.

   Errors
       Every rank returns the same status with the same detail. The ranks
       first agree (one MPI_Allreduce) that each one's arguments are valid
       and that all passed the same scalars and options; a rank that
       disagrees makes every rank return GEMM_ERR_INVALID_ARG, naming the
       rank and the argument. Allocation is agreed on the same way. A
       failure later on (a CUDA error, a failed local multiply) is kept
       while the rank goes on taking part in the communication, and a vote
       after the rounds hands it to every rank before C is written: a call
       that fails there leaves C (the root's, or every rank's piece) as it
       was. A failure while C is written back goes to every rank through a
       last vote (C may then be partly written). An MPI call that fails in
       the middle of the rounds is the exception: MPI promises nothing after
       that, this rank stops calling MPI (except to cancel its pending
       transfers, best effort, before it frees their buffers), and its peers
       may be left waiting. An MPI error is GEMM_ERR_MPI with
       MPI_Error_string's text in gemm_last_error_detail(). The call (or
       the plan) duplicates the communicator and sets MPI_ERRORS_RETURN on
       its copy, so the caller's error handler is not changed. Before any
       MPI call each entry point asks MPI_Initialized and MPI_Finalized: a
       call before MPI_Init or after MPI_Finalize returns GEMM_ERR_MPI (a
       plan destroyed after MPI_Finalize is freed without the barrier, and
       says so). An intercommunicator is GEMM_ERR_INVALID_ARG.

   Timing (options.timing, options.timing_max: gemm_timing, in seconds)
       Seconds per phase, like the seed paper's Figure 4: setup_s (a plan's
       create, or the allocation of an execute's form: 0 on every execute
       after a form's first), distribute_s (root to ranks, or the skew of
       the distributed call), to_device_s,
       compute_s, from_device_s, shift_s (communication not hidden behind
       compute), gather_s, and total_s, the whole call; timing for this rank,
       timing_max the maximum over ranks, phase by phase. Filled on every
       return, failures and early returns (m or n = 0) included, as is
       options.path_used (GEMM_MPI_PATH_HOST where no block moved between
       GPUs: the CPU multiply, the scale-only C = beta*C). The three outputs
       may be NULL on some ranks and set on others. The process grid is what
       gemm_mpi_blocks_of() says.

   For maintainers: this file is generated from src/ (src/gemm_mpi.h.in and
   the files it names; `make headers`). Edit those, not this file.

   LICENSE: MIT, see the end of gemm.h.
*/

#ifndef GEMM_MPI_H_INCLUDED
#define GEMM_MPI_H_INCLUDED

#include "gemm.h"
/* Only MPI's C API is used; Open MPI's and MPICH's C++ bindings stay out. */
#if defined(__cplusplus) && !defined(OMPI_SKIP_MPICXX)
#define OMPI_SKIP_MPICXX 1
#endif
#if defined(__cplusplus) && !defined(MPICH_SKIP_MPICXX)
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

/* The CUDA local multiply comes with nvcc when gemm_cuda.cuh is there. */
#if !defined(GEMM_MPI_CUDA) && defined(__CUDACC__) && defined(__has_include)
#if __has_include("gemm_cuda.cuh")
#define GEMM_MPI_CUDA
#endif
#endif
#ifdef GEMM_MPI_CUDA
#include "gemm_cuda.cuh"
#endif

/* ====================================================================== */
/*  API                                                                    */
/* ====================================================================== */

/* >>mpi api: src/mpi/api.h */
#ifdef __cplusplus
extern "C" {
#endif

typedef enum gemm_mpi_local {
    GEMM_MPI_LOCAL_CPU = 0,  /* gemm_sgemm / gemm_dgemm in each rank */
    GEMM_MPI_LOCAL_CUDA = 1  /* gemm_cuda_sgemm / gemm_cuda_dgemm, one GPU per rank */
} gemm_mpi_local;

typedef enum gemm_mpi_algorithm {
    GEMM_MPI_CANNON = 0, /* skew, then q rounds of multiply and shift A left, B up */
    GEMM_MPI_FOX = 1     /* q rounds of broadcast A along the row, multiply, roll B up */
} gemm_mpi_algorithm;

typedef enum gemm_mpi_path {
    GEMM_MPI_PATH_AUTO = 0,       /* option only: let the call choose */
    GEMM_MPI_PATH_HOST = 1,       /* CPU multiply: blocks in host memory */
    GEMM_MPI_PATH_CUDA_AWARE = 2, /* device buffers handed to MPI */
    GEMM_MPI_PATH_STAGED = 3,     /* device <-> pinned host <-> MPI */
    GEMM_MPI_PATH_CUDA_IPC = 4    /* same node: copies from the peer's GPU memory */
} gemm_mpi_path;

/* Zero-initialised means the defaults; NULL is the same as all zeros. Every
   rank must pass the same values, except the three outputs at the end,
   which may be NULL on some ranks and set on others. */
typedef struct gemm_mpi_options {
    gemm_mpi_local local;          /* default CPU */
    gemm_mpi_algorithm algorithm;  /* default Cannon */
    int overlap;                   /* nonzero: overlap Cannon's shifts with compute */
    gemm_mpi_path path;            /* CUDA multiply only; default AUTO */
    int root;                      /* root-held calls: the rank holding A, B, C */
    size_t max_host_bytes;         /* cap per rank; 0 = none */
    size_t max_device_bytes;       /* cap per rank; 0 = none */
    gemm_timing *timing;           /* out: this rank's phases in seconds: distribute_s, to_device_s,
                                      compute_s, from_device_s, shift_s, gather_s, total_s */
    gemm_timing *timing_max;       /* out: the maximum over ranks, phase by phase */
    gemm_mpi_path *path_used;      /* out: how blocks moved (GEMM_MPI_PATH_HOST for the CPU multiply) */
    int threads;                   /* CPU multiply: threads per rank (gemm_cpu_options.threads); 0 = gemm_cpu.h's
                                      default: gemm_cpu_set_threads(), GEMM_NUM_THREADS, the rank's cores */
    int slabs;                     /* root-held Cannon: A and B travel in this many k-slabs, the next while the
                                      ranks multiply this one; 0 or 1 = all before the rounds */
} gemm_mpi_options;

/* A rank's piece of a matrix in the op() view: rows [row0, row0+rows),
   columns [col0, col0+cols). */
typedef struct gemm_mpi_tile {
    int64_t row0, rows, col0, cols;
} gemm_mpi_tile;

typedef struct gemm_mpi_blocks {
    int grid_rows, grid_cols; /* the process grid */
    int row, col;             /* this rank's place in it */
    int q;                    /* virtual Cannon grid q x q */
    int64_t mb, nb, kb;       /* block sizes of the virtual grid (padded) */
    gemm_mpi_tile a, b, c;    /* pieces of op(A) (m x k), op(B) (k x n), C (m x n) */
} gemm_mpi_blocks;

/* Where rank `rank` of `nranks` keeps its pieces for an m x n x k call.
   Pure arithmetic: no MPI call; the same on every rank. */
GEMM_DEF gemm_status gemm_mpi_blocks_of(int nranks, int rank, int64_t m, int64_t n, int64_t k,
                                        gemm_mpi_blocks *out);

/* Bytes of host and device memory the busiest rank allocates for such a
   call, or for a plan of that shape executed in that form (precision
   GEMM_F32 or GEMM_F64; distributed nonzero for the _dist calls). No MPI
   call. A size whose bytes do not fit in size_t is GEMM_ERR_OUT_OF_MEMORY. */
GEMM_DEF gemm_status gemm_mpi_memory(int nranks, int64_t m, int64_t n, int64_t k, gemm_precision precision,
                                     int distributed, const gemm_mpi_options *options,
                                     size_t *host_bytes, size_t *device_bytes);

/* ---- plans: set up once, multiply many times ----------------------------

   A plan holds what a product of one shape needs on every rank: the
   communicator's copy, the blocks, spares and staging buffers and, with the
   CUDA multiply, the GPU's streams and the CUDA IPC mappings of the peers'
   blocks. Every call below is collective over the plan's communicator. */
typedef struct gemm_mpi_plan gemm_mpi_plan;

/* Sets a plan up for C = alpha*op(A)*op(B) + beta*C of this shape. Every
   rank passes the same values (options' three outputs excepted); a rank
   that differs makes every rank return GEMM_ERR_INVALID_ARG, naming the
   argument, with *plan = NULL everywhere. options->timing gets the set-up's
   seconds (setup_s, total_s). */
GEMM_DEF gemm_status gemm_mpi_plan_create(MPI_Comm comm, gemm_precision precision, gemm_layout layout,
                                          gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n,
                                          int64_t k, const gemm_mpi_options *options, gemm_mpi_plan **plan);

/* Frees the plan on every rank, after every rank has let go of its peers'
   blocks (CUDA IPC mappings), so no rank frees a block another still maps.
   NULL on every rank is a no-op; *plan becomes NULL. */
GEMM_DEF gemm_status gemm_mpi_plan_destroy(gemm_mpi_plan **plan);

/* Executes a plan on new data: root-held (A, B, C on options.root of the
   create, as gemm_mpi_sgemm) or distributed (this rank's pieces, as
   gemm_mpi_sgemm_dist). alpha and beta may change from call to call (every
   rank passes the same); so may the pointers and leading dimensions. The
   first execute of each form allocates that form's buffers (the root's
   staging, or the distributed skew's blocks), later ones allocate nothing.
   options: NULL, or the create's options: only the three outputs are read;
   another value in a set field (another algorithm, say) is refused. The
   plan's precision must match the function's (s: GEMM_F32, d: GEMM_F64). */
GEMM_DEF gemm_status gemm_mpi_sgemm_plan(gemm_mpi_plan *plan, float alpha, const float *A, int64_t lda,
                                         const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                                         const gemm_mpi_options *options);
GEMM_DEF gemm_status gemm_mpi_dgemm_plan(gemm_mpi_plan *plan, double alpha, const double *A, int64_t lda,
                                         const double *B, int64_t ldb, double beta, double *C, int64_t ldc,
                                         const gemm_mpi_options *options);
GEMM_DEF gemm_status gemm_mpi_sgemm_plan_dist(gemm_mpi_plan *plan, float alpha, const float *A, int64_t lda,
                                              const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                                              const gemm_mpi_options *options);
GEMM_DEF gemm_status gemm_mpi_dgemm_plan_dist(gemm_mpi_plan *plan, double alpha, const double *A, int64_t lda,
                                              const double *B, int64_t ldb, double beta, double *C, int64_t ldc,
                                              const gemm_mpi_options *options);

/* ---- one-shot calls: create, execute, destroy ------------------------------ */

/* Root-held: A, B, C (and lda, ldb, ldc) are read on options->root only. */
GEMM_DEF gemm_status gemm_mpi_sgemm(MPI_Comm comm, gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                                    const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                                    const gemm_mpi_options *options);
GEMM_DEF gemm_status gemm_mpi_dgemm(MPI_Comm comm, gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                                    const double *B, int64_t ldb, double beta, double *C, int64_t ldc,
                                    const gemm_mpi_options *options);

/* Distributed: A, B, C are this rank's pieces (gemm_mpi_blocks_of), with
   leading dimensions of those pieces; device pointers with the CUDA multiply. */
GEMM_DEF gemm_status gemm_mpi_sgemm_dist(MPI_Comm comm, gemm_layout layout, gemm_transpose transa,
                                         gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                         const float *A, int64_t lda, const float *B, int64_t ldb, float beta,
                                         float *C, int64_t ldc, const gemm_mpi_options *options);
GEMM_DEF gemm_status gemm_mpi_dgemm_dist(MPI_Comm comm, gemm_layout layout, gemm_transpose transa,
                                         gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                         const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                                         double *C, int64_t ldc, const gemm_mpi_options *options);

#ifdef GEMM__TEST_HOOKS
/* For the tests: the status of an MPI return code, with MPI_Error_string's
   text in the detail. */
GEMM_DEF gemm_status gemm__mpi_status(int mpi_rc, const char *what);
/* For the tests: how many blocks and buffers this rank's plan has
   allocated, and how many peer blocks it has mapped by CUDA IPC, so far. */
GEMM_DEF void gemm__mpi_plan_counts(const gemm_mpi_plan *plan, long *allocations, long *mappings);
#endif

#ifdef __cplusplus
}
#endif
/* <<mpi api */

#define GEMM__MPI_API_DONE
#endif /* GEMM_MPI_H_INCLUDED */

/* ====================================================================== */
/*  IMPLEMENTATION                                                         */
/* ====================================================================== */

#if defined(GEMM_IMPLEMENTATION) && defined(GEMM__MPI_API_DONE) && !defined(GEMM__MPI_IMPLEMENTED)
#define GEMM__MPI_IMPLEMENTED

#include <stdlib.h>
#include <string.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
/* Host copies of big blocks run on several threads (mpi/copy.c). */
#if !defined(GEMM_NO_THREADS) && (defined(__unix__) || defined(__APPLE__))
#define GEMM__MPI_PTHREADS
#include <pthread.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* >>mpi grid: src/mpi/grid.c */
/* ---- the grid and its blocks -------------------------------------------- */

static int gemm__mpi_gcd(int a, int b) { return b ? gemm__mpi_gcd(b, a % b) : a; }

static int64_t gemm__mpi_ceil(int64_t a, int64_t b) { return b ? (a + b - 1) / b : 0; }

/* Rows [lo, lo+count) of `total` that `nblocks` blocks of size bs starting
   at block `first` cover. */
static void gemm__mpi_range(int64_t total, int64_t bs, int first, int nblocks, int64_t *lo, int64_t *count)
{
    int64_t a = bs * first, b = bs * (first + nblocks);
    if (a > total) a = total;
    if (b > total) b = total;
    *lo = a;
    *count = b - a;
}

GEMM_DEF gemm_status gemm_mpi_blocks_of(int nranks, int rank, int64_t m, int64_t n, int64_t k,
                                        gemm_mpi_blocks *out)
{
    int pr, br, bc;
    gemm__clear_error();
    if (!out) return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_mpi_blocks_of: out is NULL");
    if (nranks < 1 || rank < 0 || rank >= nranks)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_mpi_blocks_of: rank %d of %d ranks", rank, nranks);
    if (m < 0 || n < 0 || k < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_mpi_blocks_of: m, n, k = %lld, %lld, %lld: negative",
                          (long long)m, (long long)n, (long long)k);
    /* The squarest grid: most rows that still divide P, no more rows than columns. */
    for (pr = 1; (pr + 1) * (pr + 1) <= nranks; pr++) {}
    while (nranks % pr) pr--;
    out->grid_rows = pr;
    out->grid_cols = nranks / pr;
    out->q = pr / gemm__mpi_gcd(pr, out->grid_cols) * out->grid_cols;
    if (out->q > 181) /* message tags are block numbers below q*q <= 32767, the smallest MPI_TAG_UB */
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_mpi_blocks_of: %d ranks make a %d x %d grid: too large",
                          nranks, out->q, out->q);
    out->row = rank / out->grid_cols;
    out->col = rank % out->grid_cols;
    br = out->q / out->grid_rows;
    bc = out->q / out->grid_cols;
    out->mb = gemm__mpi_ceil(m, out->q);
    out->nb = gemm__mpi_ceil(n, out->q);
    out->kb = gemm__mpi_ceil(k, out->q);
    gemm__mpi_range(m, out->mb, out->row * br, br, &out->c.row0, &out->c.rows);
    gemm__mpi_range(n, out->nb, out->col * bc, bc, &out->c.col0, &out->c.cols);
    out->a.row0 = out->c.row0;
    out->a.rows = out->c.rows;
    gemm__mpi_range(k, out->kb, out->col * bc, bc, &out->a.col0, &out->a.cols);
    gemm__mpi_range(k, out->kb, out->row * br, br, &out->b.row0, &out->b.rows);
    out->b.col0 = out->c.col0;
    out->b.cols = out->c.cols;
    return GEMM_OK;
}

/* The grid as the call works on it: in the column-major view of
   gemm__problem. A row-major call is the transposed problem C^T = op(B)^T
   op(A)^T, so there the caller's process grid is transposed too: the
   caller's process columns are the view's rows, and its A, B and C tiles
   are the view's b, a and c, each transposed. The traffic of Cannon's
   rounds is the same either way: only the names change. */
typedef struct gemm__mpi_grid {
    int rows, cols;          /* the process grid in the view */
    int row, col;            /* this rank's place in it */
    int q, br, bc;           /* the virtual q x q grid: br x bc blocks on each rank */
    int64_t mb, nb, kb;      /* its block sizes (padded) */
    gemm_mpi_tile a, b, c;   /* this rank's pieces of op(a) (m x k), op(b) (k x n), c (m x n) */
    int swapped;             /* a row-major call: the caller's grid transposed */
} gemm__mpi_grid;

static gemm_mpi_tile gemm__mpi_tile_t(gemm_mpi_tile t)
{
    gemm_mpi_tile u;
    u.row0 = t.col0;
    u.rows = t.cols;
    u.col0 = t.row0;
    u.cols = t.rows;
    return u;
}

/* The view of the caller's blocks `u` (gemm_mpi_blocks_of) for a call whose
   problem is `swapped` (gemm__problem.swapped). */
static void gemm__mpi_grid_view(const gemm_mpi_blocks *u, int swapped, gemm__mpi_grid *g)
{
    g->swapped = swapped;
    g->rows = swapped ? u->grid_cols : u->grid_rows;
    g->cols = swapped ? u->grid_rows : u->grid_cols;
    g->row = swapped ? u->col : u->row;
    g->col = swapped ? u->row : u->col;
    g->q = u->q;
    g->br = u->q / g->rows;
    g->bc = u->q / g->cols;
    g->mb = swapped ? u->nb : u->mb;
    g->nb = swapped ? u->mb : u->nb;
    g->kb = u->kb;
    g->a = swapped ? gemm__mpi_tile_t(u->b) : u->a;
    g->b = swapped ? gemm__mpi_tile_t(u->a) : u->b;
    g->c = swapped ? gemm__mpi_tile_t(u->c) : u->c;
}

/* The rank at place (row, col) of the view; the caller's grid numbers its
   ranks row by row. */
static int gemm__mpi_rank_at(const gemm__mpi_grid *g, int row, int col)
{
    return g->swapped ? col * g->rows + row : row * g->cols + col;
}

/* The place of `rank` in the view. */
static void gemm__mpi_place(const gemm__mpi_grid *g, int rank, int *row, int *col)
{
    int ucols = g->swapped ? g->rows : g->cols, urow = rank / ucols, ucol = rank % ucols;
    *row = g->swapped ? ucol : urow;
    *col = g->swapped ? urow : ucol;
}
/* <<mpi grid */
/* >>mpi memory: src/mpi/memory.c */
/* ---- memory: what one rank allocates ------------------------------------ */

/* The root-held calls stage blocks in chunks of whole runs (rows of a
   row-major block), about this size: large enough for full-speed copies and
   messages, small enough that the first chunks reach the ranks early. The
   tests make it small (the hook) so that blocks travel in many chunks. */
#define GEMM__MPI_STAGE_BYTES ((size_t)64 << 20)

/* Byte counts that saturate instead of wrapping: a problem whose memory
   does not fit in size_t is refused, never allocated short. */
typedef struct gemm__mpi_bytes {
    size_t v;
    int over;
} gemm__mpi_bytes;

static size_t gemm__mpi_mul(gemm__mpi_bytes *b, size_t x, size_t y)
{
    if (x && y > (size_t)-1 / x) { b->over = 1; return (size_t)-1; }
    return x * y;
}

static void gemm__mpi_add(gemm__mpi_bytes *b, size_t x)
{
    if (x > (size_t)-1 - b->v) { b->over = 1; b->v = (size_t)-1; }
    else b->v += x;
}

/* Bytes of one a, b and c block of the virtual grid, and the largest. */
static size_t gemm__mpi_block_bytes(const gemm__mpi_grid *g, size_t es, size_t *a, size_t *b, size_t *c,
                                    int *over)
{
    gemm__mpi_bytes t = {0, 0};
    size_t big;
    *a = gemm__mpi_mul(&t, gemm__mpi_mul(&t, (size_t)g->mb, (size_t)g->kb), es);
    *b = gemm__mpi_mul(&t, gemm__mpi_mul(&t, (size_t)g->kb, (size_t)g->nb), es);
    *c = gemm__mpi_mul(&t, gemm__mpi_mul(&t, (size_t)g->mb, (size_t)g->nb), es);
    if (over) *over = t.over;
    big = *a > *b ? *a : *b;
    return *c > big ? *c : big;
}

/* One staging buffer: at least one run of the widest block, at most a block
   (and at most 1 GiB, unless one run is longer: the setup refuses runs over
   INT_MAX bytes, since each chunk goes as one MPI message). */
static size_t gemm__mpi_stage_bytes(const gemm__mpi_grid *g, size_t es)
{
    int64_t w = g->mb > g->nb ? g->mb : g->nb;
    size_t a, b, c, big = gemm__mpi_block_bytes(g, es, &a, &b, &c, NULL), run;
    size_t st = GEMM__HOOK(mpi_stage_bytes, GEMM__MPI_STAGE_BYTES);
    gemm__mpi_bytes t = {0, 0};
    if (g->kb > w) w = g->kb;
    run = gemm__mpi_mul(&t, (size_t)w, es);
    if (st > ((size_t)1 << 30)) st = (size_t)1 << 30; /* one MPI message: an int count */
    if (st < run) st = run;
    return st < big ? st : (big ? big : 1);
}

/* The form-independent host staging of whole blocks (CUDA multiply only):
   Fox's broadcast, and every block of an exchange (a shift, or the
   distributed skew) on the staged path. */
static size_t gemm__mpi_pool_blocks(const gemm__mpi_grid *g, const gemm_mpi_options *o, gemm_mpi_path path)
{
    size_t slots = (size_t)g->br * (size_t)g->bc, pool = 0, n;
    int direct = path != GEMM_MPI_PATH_STAGED && path != GEMM_MPI_PATH_CUDA_IPC;
    int fox = o->algorithm == GEMM_MPI_FOX;
    if (o->local != GEMM_MPI_LOCAL_CUDA) return 0;
    if (fox && !direct) pool = 1;
    if (path == GEMM_MPI_PATH_STAGED) {
        n = 2 * ((size_t)g->br + (size_t)g->bc);
        if (!fox && 2 * slots > n) n = 2 * slots;
        if (n > pool) pool = n;
    }
    return pool;
}

/* What one rank allocates: *host and *device bytes, for the plan's shared
   part (form < 0) or with one form's own buffers added (0 root-held, 1
   distributed). The query, the caps and the allocation all use it.
   Returns nonzero when the bytes overflow size_t. */
static int gemm__mpi_need(const gemm__mpi_grid *g, size_t es, int form, int is_root, const gemm_mpi_options *o,
                          gemm_mpi_path path, size_t *host, size_t *device)
{
    size_t br = (size_t)g->br, bc = (size_t)g->bc, slots = br * bc, a, b, c, big;
    int cuda = o->local == GEMM_MPI_LOCAL_CUDA, fox = o->algorithm == GEMM_MPI_FOX, over = 0;
    gemm__mpi_bytes blk = {0, 0}, hst = {0, 0};
    big = gemm__mpi_block_bytes(g, es, &a, &b, &c, &over);
    blk.over = over;
    gemm__mpi_add(&blk, gemm__mpi_mul(&blk, slots, a));
    gemm__mpi_add(&blk, gemm__mpi_mul(&blk, slots, b));
    gemm__mpi_add(&blk, gemm__mpi_mul(&blk, slots, c));
    /* Spare blocks receive shifts (overlapped, or always on a GPU); Fox
       also needs one broadcast a block per block row. */
    if (o->overlap || cuda) {
        gemm__mpi_add(&blk, gemm__mpi_mul(&blk, br, a));
        gemm__mpi_add(&blk, gemm__mpi_mul(&blk, bc, b));
    }
    if (fox) gemm__mpi_add(&blk, gemm__mpi_mul(&blk, br, a));
    /* The distributed Cannon call packs its natural blocks before the skew. */
    if (form == 1 && !fox) gemm__mpi_add(&blk, gemm__mpi_mul(&blk, slots, big));
    if (!cuda) gemm__mpi_add(&hst, blk.v);
    gemm__mpi_add(&hst, gemm__mpi_mul(&hst, gemm__mpi_pool_blocks(g, o, path), big));
    /* Root-held calls move blocks between the caller's matrices and the
       ranks in chunks through two staging buffers (the root's, and a GPU
       rank's); streamed in k-slabs, each rank's next slab lands beside its
       blocks. */
    if (form == 0 && (cuda || is_root)) gemm__mpi_add(&hst, gemm__mpi_mul(&hst, 2, gemm__mpi_stage_bytes(g, es)));
    if (form == 0 && o->slabs > 1 && !fox) {
        size_t kbs = (size_t)((g->kb + o->slabs - 1) / o->slabs), land;
        land = gemm__mpi_mul(&blk, gemm__mpi_mul(&blk, slots, (size_t)g->mb + (size_t)g->nb), kbs);
        land = gemm__mpi_mul(&blk, land, es);
        if (cuda) gemm__mpi_add(&blk, land);
        else gemm__mpi_add(&hst, land);
    }
    *host = hst.v;
    *device = cuda ? blk.v : 0;
    return blk.over || hst.over;
}

/* The most over every rank and both views: the layout, which this query
   does not take, decides the view (Fox's broadcast blocks are a blocks of
   the view, the caller's A or B). The staged path needs the most, and AUTO
   may end up there. */
GEMM_DEF gemm_status gemm_mpi_memory(int nranks, int64_t m, int64_t n, int64_t k, gemm_precision precision,
                                     int distributed, const gemm_mpi_options *options,
                                     size_t *host_bytes, size_t *device_bytes)
{
    gemm_mpi_options o;
    gemm_mpi_path path;
    gemm_mpi_blocks u;
    gemm__mpi_grid g;
    size_t h, d;
    int swapped, root, over = 0;
    gemm_status s = gemm_mpi_blocks_of(nranks, 0, m, n, k, &u);
    if (s != GEMM_OK) return s;
    if (precision != GEMM_F32 && precision != GEMM_F64)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_mpi_memory: precision = %d, not GEMM_F32 or GEMM_F64",
                          (int)precision);
    if (!host_bytes || !device_bytes)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_mpi_memory: host_bytes or device_bytes is NULL");
    if (options) o = *options;
    else memset(&o, 0, sizeof o);
    path = o.path == GEMM_MPI_PATH_AUTO ? GEMM_MPI_PATH_STAGED : o.path;
    *host_bytes = *device_bytes = 0;
    for (swapped = 0; swapped < 2; swapped++)
        for (root = 0; root < 2; root++) {
            gemm__mpi_grid_view(&u, swapped, &g);
            over |= gemm__mpi_need(&g, gemm_precision_size(precision), distributed != 0, root, &o, path, &h, &d);
            if (h > *host_bytes) *host_bytes = h;
            if (d > *device_bytes) *device_bytes = d;
        }
    if (over)
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "gemm_mpi_memory: %lld x %lld x %lld on %d ranks needs more than "
                          "%zu bytes per rank", (long long)m, (long long)n, (long long)k, nranks, (size_t)-1);
    return GEMM_OK;
}
/* <<mpi memory */
/* >>mpi state: src/mpi/state.h */
/* ---- one call's state ------------------------------------------------------ */

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
/* <<mpi state */
/* >>mpi status: src/mpi/status.c */
/* ---- a call's failures: kept, then agreed ----------------------------------- */

/* Keeps the first failure (later ones are its consequences). */
static void gemm__mpi_keep(gemm__mpi *x, gemm_status s)
{
    if (s == GEMM_OK || x->st != GEMM_OK) return;
    x->st = s;
    strncpy(x->detail, gemm_last_error_detail(), sizeof x->detail - 1);
    x->detail[sizeof x->detail - 1] = '\0';
}

/* The outcome of a vote that failed: the same on every rank. */
static void gemm__mpi_agreed(gemm__mpi *x, gemm_status s)
{
    x->st = GEMM_OK;
    gemm__mpi_keep(x, s);
    x->agreed = 1;
}

GEMM_DEF gemm_status gemm__mpi_status(int mpi_rc, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (mpi_rc == MPI_SUCCESS) return GEMM_OK;
    if (MPI_Error_string(mpi_rc, text, &len) != MPI_SUCCESS) len = 0;
    text[len] = '\0';
    return gemm__fail(GEMM_ERR_MPI, "%s failed: %s (MPI error %d)", what, len ? text : "unknown error", mpi_rc);
}

/* Runs an MPI call and keeps its failure; nonzero if all is fine. A rank
   that failed otherwise (a CUDA error, say) still takes part, so that no
   peer waits for it forever; after an MPI failure MPI calls are skipped. */
#define GEMM__MPI_DO(x, call) gemm__mpi_ok((x), (x)->st == GEMM_ERR_MPI ? MPI_SUCCESS : (call), #call)
static int gemm__mpi_ok(gemm__mpi *x, int rc, const char *what)
{
    gemm__mpi_keep(x, gemm__mpi_status(rc, what));
    return x->st == GEMM_OK;
}

static double gemm__mpi_now(void) { return MPI_Wtime(); }

#ifdef GEMM_MPI_CUDA
#define GEMM__MPI_CU(x, call) gemm__mpi_cu((x), (call), #call)
static int gemm__mpi_cu(gemm__mpi *x, cudaError_t e, const char *what)
{
    if (e != cudaSuccess && x->st == GEMM_OK)
        gemm__mpi_keep(x, gemm__fail(GEMM_ERR_DEVICE, "%s failed: %s", what, cudaGetErrorString(e)));
    return e == cudaSuccess;
}
#endif
/* <<mpi status */
/* >>mpi buffers: src/mpi/buffers.c */
/* ---- memory of blocks: host or device --------------------------------------- */

static void *gemm__mpi_alloc(gemm__mpi *x, size_t bytes, int device)
{
    void *p = NULL;
    if (!bytes) bytes = 1;
    x->allocations++;
#ifdef GEMM_MPI_CUDA
    if (device) {
        if (cudaMalloc(&p, bytes) != cudaSuccess) p = NULL;
    } else if (x->cuda) {
        if (cudaMallocHost(&p, bytes) != cudaSuccess) p = NULL; /* pinned: fast copies */
    } else
#endif
    {
        (void)device;
        p = GEMM_MALLOC(bytes);
    }
    if (!p) gemm__mpi_keep(x, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for %zu bytes of %s", x->func,
                                         bytes, device ? "device blocks" : "host blocks"));
    return p;
}

static void gemm__mpi_release(gemm__mpi *x, void *p, int device)
{
    if (!p) return;
#ifdef GEMM_MPI_CUDA
    if (device) { cudaFree(p); return; }
    if (x->cuda) { cudaFreeHost(p); return; }
#endif
    (void)x;
    (void)device;
    GEMM_FREE(p);
}

/* An array of n block pointers, each block `bytes` long. */
static void **gemm__mpi_blocks_new(gemm__mpi *x, int n, size_t bytes)
{
    void **v;
    int i;
    if (n <= 0 || x->st != GEMM_OK) return NULL;
    v = (void **)GEMM_MALLOC(sizeof(void *) * (size_t)n);
    if (!v) { gemm__mpi_keep(x, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory", x->func)); return NULL; }
    for (i = 0; i < n; i++) v[i] = NULL;
    for (i = 0; i < n && x->st == GEMM_OK; i++) v[i] = gemm__mpi_alloc(x, bytes, x->cuda);
    return v;
}

static void gemm__mpi_blocks_free(gemm__mpi *x, void **v, int n)
{
    int i;
    if (!v) return;
    for (i = 0; i < n; i++) gemm__mpi_release(x, v[i], x->cuda);
    GEMM_FREE(v);
}
/* <<mpi buffers */
/* >>mpi copy: src/mpi/copy.c */
/* ---- where a block sits, and copies of blocks -------------------------------- */

/* The span of the block whose op() corner is (r0, c0), RB x CB in the
   buffer, of which at most rlim x clim lie in the matrix (whose op() view
   is rows x cols), relative to a piece that starts at op() element (row0,
   col0). Column-major storage: `rows_run` when the op() view is the stored
   matrix (C, an untransposed operand), so its columns are the runs; else
   the stored matrix is the transpose and the op() rows are the runs. */
static gemm__mpi_span gemm__mpi_span_at(int rows_run, int64_t rows, int64_t cols, int64_t RB, int64_t CB, int64_t r0,
                                        int64_t c0, int64_t rlim, int64_t clim, int64_t row0, int64_t col0)
{
    gemm__mpi_span s;
    int64_t rn = rows - r0, cn = cols - c0;
    if (rn > rlim) rn = rlim;
    if (cn > clim) cn = clim;
    if (rn < 0) rn = 0;
    if (cn < 0) cn = 0;
    r0 -= row0;
    c0 -= col0;
    if (rows_run) { s.outer0 = c0; s.outer_n = cn; s.OUTER = CB; s.inner0 = r0; s.inner_n = rn; s.INNER = RB; }
    else          { s.outer0 = r0; s.outer_n = rn; s.OUTER = RB; s.inner0 = c0; s.inner_n = cn; s.INNER = CB; }
    return s;
}

/* Leading dimension of a block buffer (op() view RB x CB): its run length. */
static int64_t gemm__mpi_block_ld(int rows_run, int64_t RB, int64_t CB)
{
    int64_t ld = rows_run ? RB : CB;
    return ld > 1 ? ld : 1;
}

/* The span of block (bi, bj) of a (which = 0), b (1) or c (2) inside the
   caller's matrix (root-held) or this rank's piece (distributed). While A
   and B stream in k-slabs, g.kb is the slab's width and a block's k range
   starts `kofs` into its virtual k-block of x->kb_full. */
static gemm__mpi_span gemm__mpi_span_slab(const gemm__mpi *x, int which, int bi, int bj, int64_t kofs)
{
    const gemm__mpi_grid *g = &x->g;
    int dist = x->distributed;
    int64_t kb = g->kb, k0 = x->kb_full * (which == 0 ? bj : bi) + kofs, klim = x->kb_full - kofs;
    if (klim > kb) klim = kb;
    if (which == 0)
        return gemm__mpi_span_at(!x->p.a_trans, x->p.m, x->p.k, g->mb, kb, bi * g->mb, k0, g->mb, klim,
                                 dist ? g->a.row0 : 0, dist ? g->a.col0 : 0);
    if (which == 1)
        return gemm__mpi_span_at(!x->p.b_trans, x->p.k, x->p.n, kb, g->nb, k0, bj * g->nb, klim, g->nb,
                                 dist ? g->b.row0 : 0, dist ? g->b.col0 : 0);
    return gemm__mpi_span_at(1, x->p.m, x->p.n, g->mb, g->nb, bi * g->mb, bj * g->nb, g->mb, g->nb,
                             dist ? g->c.row0 : 0, dist ? g->c.col0 : 0);
}

static gemm__mpi_span gemm__mpi_span_in(const gemm__mpi *x, int which, int bi, int bj)
{
    return gemm__mpi_span_slab(x, which, bi, bj, 0);
}

/* Host copies of big blocks run on several threads: one core's memcpy
   (about 10 GB/s) is what limits the root's packing and unpacking. */
#define GEMM__MPI_COPY_PARALLEL_BYTES ((size_t)32 << 20)
#define GEMM__MPI_COPY_THREADS 8

/* Runs [o0, o1) of a block's runs between block and caller's memory. */
typedef struct gemm__mpi_job {
    char *blk, *usr;             /* blk holds run `first` onwards */
    int64_t ld, o0, o1, outer_n, first;
    size_t es, run, width;
    int to_block;
} gemm__mpi_job;

static void *gemm__mpi_runs(void *arg)
{
    const gemm__mpi_job *j = (const gemm__mpi_job *)arg;
    int64_t o;
    for (o = j->o0; o < j->o1; o++) {
        char *b = j->blk + (size_t)(o - j->first) * j->run;
        if (o >= j->outer_n) {
            if (j->to_block) memset(b, 0, j->run);
            continue;
        }
        if (j->to_block) {
            memcpy(b, j->usr + (size_t)(o * j->ld) * j->es, j->width);
            memset(b + j->width, 0, j->run - j->width);
        } else
            memcpy(j->usr + (size_t)(o * j->ld) * j->es, b, j->width);
    }
    return NULL;
}

/* How many threads copy `bytes`: 1 below the threshold, else as many as
   the local multiply uses, at most GEMM__MPI_COPY_THREADS and one per run. */
static int gemm__mpi_copy_threads(const gemm__mpi *x, size_t bytes, int64_t runs)
{
    int nt = 1;
#ifdef GEMM__MPI_PTHREADS
    if (bytes >= GEMM__HOOK(mpi_copy_parallel_bytes, GEMM__MPI_COPY_PARALLEL_BYTES)) {
        nt = x->o.threads > 0 ? x->o.threads : gemm_cpu_get_threads();
        if (nt > GEMM__MPI_COPY_THREADS) nt = GEMM__MPI_COPY_THREADS;
        if (nt > runs) nt = (int)runs;
        if (nt < 1) nt = 1;
    }
#else
    (void)x;
    (void)bytes;
    (void)runs;
#endif
    return nt;
}

/* Runs the jobs, job[0] on this thread; a job without a thread runs here too. */
static void gemm__mpi_run_jobs(gemm__mpi_job *job, int nt)
{
#ifdef GEMM__MPI_PTHREADS
    pthread_t th[GEMM__MPI_COPY_THREADS];
    int started[GEMM__MPI_COPY_THREADS], t;
    for (t = 1; t < nt; t++) started[t] = pthread_create(&th[t], NULL, gemm__mpi_runs, &job[t]) == 0;
    gemm__mpi_runs(&job[0]);
    for (t = 1; t < nt; t++) {
        if (started[t]) pthread_join(th[t], NULL);
        else gemm__mpi_runs(&job[t]);
    }
#else
    (void)nt;
    gemm__mpi_runs(&job[0]);
#endif
}

/* Copies runs [first, end) between a block (`block` holds run `first`
   onwards) and the caller's matrix; to_block zeroes the padding. Host
   memory on both sides. */
static void gemm__mpi_copy_part(gemm__mpi *x, void *block, void *user, int64_t ld, const gemm__mpi_span *s,
                                int64_t first, int64_t end, int to_block)
{
    size_t es = x->es, run = (size_t)s->INNER * es, width = (size_t)(s->inner_n > 0 ? s->inner_n : 0) * es;
    int empty = s->outer_n <= 0 || s->inner_n <= 0, nt, t;
    char *usr = empty ? NULL : (char *)user + (size_t)(s->outer0 * ld + s->inner0) * es;
    gemm__mpi_job job[GEMM__MPI_COPY_THREADS];
    if (empty && !to_block) return;
    nt = gemm__mpi_copy_threads(x, run * (size_t)(end - first), end - first);
    for (t = 0; t < nt; t++) {
        job[t].blk = (char *)block;
        job[t].usr = usr;
        job[t].ld = ld;
        job[t].first = first;
        job[t].o0 = first + (end - first) * t / nt;
        job[t].o1 = first + (end - first) * (t + 1) / nt;
        job[t].outer_n = empty ? 0 : s->outer_n;
        job[t].es = es;
        job[t].run = run;
        job[t].width = width;
        job[t].to_block = to_block;
    }
    gemm__mpi_run_jobs(job, nt);
}

/* Copies a whole block from or to the caller's matrix. `user_dev`: the
   caller's memory is on the device (then so is the block). */
static void gemm__mpi_copy_runs(gemm__mpi *x, void *block, void *user, int64_t ld, const gemm__mpi_span *s,
                                int to_block, int user_dev)
{
#ifdef GEMM_MPI_CUDA
    size_t es = x->es, run = (size_t)s->INNER * es, width = (size_t)(s->inner_n > 0 ? s->inner_n : 0) * es;
    int empty = s->outer_n <= 0 || s->inner_n <= 0;
    char *blk = (char *)block, *usr = empty ? NULL : (char *)user + (size_t)(s->outer0 * ld + s->inner0) * es;
    if (user_dev) {
        if (empty && !to_block) return;
        if (to_block && (s->inner_n < s->INNER || s->outer_n < s->OUTER))
            GEMM__MPI_CU(x, cudaMemsetAsync(blk, 0, run * (size_t)s->OUTER, x->stream));
        if (empty) return;
        if (to_block)
            GEMM__MPI_CU(x, cudaMemcpy2DAsync(blk, run, usr, (size_t)ld * es, width, (size_t)s->outer_n,
                                              cudaMemcpyDeviceToDevice, x->stream));
        else
            GEMM__MPI_CU(x, cudaMemcpy2DAsync(usr, (size_t)ld * es, blk, run, width, (size_t)s->outer_n,
                                              cudaMemcpyDeviceToDevice, x->stream));
        return;
    }
#endif
    (void)user_dev;
    gemm__mpi_copy_part(x, block, user, ld, s, 0, s->OUTER, to_block);
}

/* Whole-block copy; `dst_dev`/`src_dev` say where each side lives. */
static void gemm__mpi_copy(gemm__mpi *x, void *dst, int dst_dev, const void *src, int src_dev, size_t bytes)
{
#ifdef GEMM_MPI_CUDA
    if (dst_dev || src_dev) {
        GEMM__MPI_CU(x, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, x->stream));
        if (!(dst_dev && src_dev)) GEMM__MPI_CU(x, cudaStreamSynchronize(x->stream));
        return;
    }
#endif
    (void)x;
    (void)dst_dev;
    (void)src_dev;
    memcpy(dst, src, bytes);
}

static void gemm__mpi_sync(gemm__mpi *x)
{
#ifdef GEMM_MPI_CUDA
    if (x->cuda) GEMM__MPI_CU(x, cudaStreamSynchronize(x->stream));
#endif
    (void)x;
}

/* Whether MPI takes this rank's block buffers as they are (host blocks, or
   device blocks with a CUDA-aware MPI); else they go through the pool. */
static int gemm__mpi_direct(const gemm__mpi *x)
{
    return !x->cuda || x->path == GEMM_MPI_PATH_CUDA_AWARE;
}
/* <<mpi copy */
/* >>mpi local: src/mpi/local.c */
/* ---- the local multiply ------------------------------------------------------ */

/* One column-major product on this rank: gemm_cpu_?gemm of gemm_cpu.h on
   host blocks with options.threads, or gemm_cuda_?gemm on the rank's
   stream for device blocks. */
static void gemm__mpi_gemm(gemm__mpi *x, int device, int a_trans, int b_trans, int64_t m, int64_t n, int64_t k,
                           double alpha, const void *A, int64_t lda, const void *B, int64_t ldb, double beta, void *C,
                           int64_t ldc)
{
    gemm_transpose ta = a_trans ? GEMM_TRANS : GEMM_NO_TRANS, tb = b_trans ? GEMM_TRANS : GEMM_NO_TRANS;
    gemm_cpu_options co;
    gemm_status s;
    if (x->st != GEMM_OK) return;
    memset(&co, 0, sizeof co);
    co.threads = x->o.threads;
#ifdef GEMM_MPI_CUDA
    if (device) {
        s = x->es == 4 ? gemm_cuda_sgemm(x->stream, GEMM_COL_MAJOR, ta, tb, m, n, k, (float)alpha, (const float *)A,
                                         lda, (const float *)B, ldb, (float)beta, (float *)C, ldc, NULL)
                       : gemm_cuda_dgemm(x->stream, GEMM_COL_MAJOR, ta, tb, m, n, k, alpha, (const double *)A, lda,
                                         (const double *)B, ldb, beta, (double *)C, ldc, NULL);
        gemm__mpi_keep(x, s);
        return;
    }
#endif
    (void)device;
    s = x->es == 4 ? gemm_cpu_sgemm(GEMM_COL_MAJOR, ta, tb, m, n, k, (float)alpha, (const float *)A, lda,
                                    (const float *)B, ldb, (float)beta, (float *)C, ldc, &co)
                   : gemm_cpu_dgemm(GEMM_COL_MAJOR, ta, tb, m, n, k, alpha, (const double *)A, lda,
                                    (const double *)B, ldb, beta, (double *)C, ldc, &co);
    gemm__mpi_keep(x, s);
}

/* C = beta*C (m x n, column-major) for alpha == 0 or k == 0: A and B are
   not read. */
static void gemm__mpi_scale(gemm__mpi *x, int device, int64_t m, int64_t n, void *C, int64_t ldc)
{
    int64_t ld = m > n ? m : n;
    gemm__mpi_gemm(x, device, 0, 0, m, n, 0, 0.0, NULL, ld > 1 ? ld : 1, NULL, ld > 1 ? ld : 1, x->beta, C, ldc);
    if (device) gemm__mpi_sync(x);
}

/* Columns [j0, j1) of slot s's product on the host. The CPU's overlapped
   rounds multiply in such panels and poll MPI between them: Open MPI's
   shared-memory transfers progress only inside MPI calls, so a shift
   started before one long multiply would otherwise wait for its end. */
#define GEMM__MPI_POLL_COLS 512

static void gemm__mpi_multiply_cols(gemm__mpi *x, void **a, void **b, int first_round, int s, int64_t j0, int64_t j1)
{
    const gemm__mpi_grid *g = &x->g;
    int64_t lda = gemm__mpi_block_ld(!x->p.a_trans, g->mb, g->kb);
    int64_t ldb = gemm__mpi_block_ld(!x->p.b_trans, g->kb, g->nb);
    int64_t ldc = gemm__mpi_block_ld(1, g->mb, g->nb);
    const char *bj = (const char *)b[s] + (size_t)(x->p.b_trans ? j0 : j0 * ldb) * x->es;
    char *cj = (char *)x->c[s] + (size_t)(j0 * ldc) * x->es;
    gemm__mpi_gemm(x, 0, x->p.a_trans, x->p.b_trans, g->mb, j1 - j0, g->kb, x->alpha, a[s], lda, bj, ldb,
                   first_round ? x->beta : 1.0, cj, ldc);
}

#ifdef GEMM_MPI_CUDA
/* C_slot (+)= alpha * a_slot * b_slot for every slot, on the GPU. */
static void gemm__mpi_multiply(gemm__mpi *x, void **a, void **b, int first_round)
{
    const gemm__mpi_grid *g = &x->g;
    int64_t lda = gemm__mpi_block_ld(!x->p.a_trans, g->mb, g->kb);
    int64_t ldb = gemm__mpi_block_ld(!x->p.b_trans, g->kb, g->nb);
    int64_t ldc = gemm__mpi_block_ld(1, g->mb, g->nb);
    /* round one takes beta*C (beta == 0 reads no C: the blocks were not filled) */
    double beta = first_round ? x->beta : 1.0;
    int s, n = g->br * g->bc;
    for (s = 0; s < n; s++)
        gemm__mpi_gemm(x, x->cuda, x->p.a_trans, x->p.b_trans, g->mb, g->nb, g->kb, x->alpha, a[s], lda, b[s], ldb, beta,
                       x->c[s], ldc);
}
#endif
/* <<mpi local */
/* >>mpi ipc: src/mpi/ipc.c */
/* ---- moving blocks by CUDA IPC (ranks of one node) --------------------------- */

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
/* <<mpi ipc */
/* >>mpi transfer: src/mpi/transfer.c */
/* ---- moving blocks between ranks ---------------------------------------------- */

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
/* <<mpi transfer */
/* >>mpi distribute: src/mpi/distribute.c */
/* ---- distribution and gather -------------------------------------------------- */

/* Virtual block (i, j) of slot s of grid place (r, c). */
static void gemm__mpi_slot_ij(const gemm__mpi *x, int r, int c, int s, int *i, int *j)
{
    *i = r * x->g.br + s / x->g.bc;
    *j = c * x->g.bc + s % x->g.bc;
}

/* The block of `which` (a, b, c) that slot (i, j) starts with: Cannon's
   skew puts a(i, i+j) and b(i+j, j) there; Fox starts unskewed. */
static void gemm__mpi_start_block(const gemm__mpi *x, int which, int i, int j, int *bi, int *bj)
{
    int skew = which < 2 && x->o.algorithm == GEMM_MPI_CANNON ? (i + j) % x->g.q : -1;
    *bi = which == 1 && skew >= 0 ? skew : i;
    *bj = which == 0 && skew >= 0 ? skew : j;
}

/* The slots of a (0), b (1) or c (2), and the caller's matrix (or piece)
   with its leading dimension. */
static void **gemm__mpi_slots(const gemm__mpi *x, int which) { return which == 0 ? x->a : which == 1 ? x->b : x->c; }

static void *gemm__mpi_user(const gemm__mpi *x, int which, int64_t *ld)
{
    *ld = which == 0 ? x->p.lda : which == 1 ? x->p.ldb : x->p.ldc;
    return which == 0 ? (void *)x->A : which == 1 ? (void *)x->B : x->C;
}

/* Waits until staging buffer k may be refilled. */
static void gemm__mpi_stage_wait(gemm__mpi *x, int k)
{
    if (x->stage_req[k] != MPI_REQUEST_NULL) GEMM__MPI_DO(x, MPI_Wait(&x->stage_req[k], MPI_STATUS_IGNORE));
#ifdef GEMM_MPI_CUDA
    if (x->stage_dev[k]) {
        double t = gemm__mpi_now();
        GEMM__MPI_CU(x, cudaEventSynchronize(x->stage_ev[k]));
        x->t.to_device_s += gemm__mpi_now() - t;
    }
#endif
    x->stage_dev[k] = 0;
}

/* Starts the copy of staging buffer k to the device. */
static void gemm__mpi_stage_h2d(gemm__mpi *x, int k, void *dst, size_t len)
{
#ifdef GEMM_MPI_CUDA
    GEMM__MPI_CU(x, cudaMemcpyAsync(dst, x->stage[k], len, cudaMemcpyHostToDevice, x->stream));
    GEMM__MPI_CU(x, cudaEventRecord(x->stage_ev[k], x->stream));
    x->stage_dev[k] = 1;
#else
    (void)x;
    (void)k;
    (void)dst;
    (void)len;
#endif
}

/* Copies a device block's chunk into staging buffer k, timed. */
static void gemm__mpi_stage_d2h(gemm__mpi *x, int k, const void *src, size_t len)
{
    double t = gemm__mpi_now();
    gemm__mpi_copy(x, x->stage[k], 0, src, 1, len);
    x->t.from_device_s += gemm__mpi_now() - t;
}

/* Moves one block between the root's matrix and the rank that owns it,
   chunk by chunk of whole runs through two staging buffers (one is filled
   while the other travels): to_block for the distribution, else the
   gather. The root packs and unpacks; a GPU rank copies each chunk to or
   from its device, unless MPI takes device memory. Every rank cuts a block
   into the same chunks. */
static void gemm__mpi_stage_block(gemm__mpi *x, int owner, int tag, void *block, void *user, int64_t ld,
                                  const gemm__mpi_span *sp, int to_block)
{
    size_t run = (size_t)sp->INNER * x->es;
    int64_t per = (int64_t)(x->stage_bytes / run), o;
    int root = x->o.root;
    if (per < 1) per = 1;
    for (o = 0; o < sp->OUTER; o += per) {
        int64_t end = o + per < sp->OUTER ? o + per : sp->OUTER;
        size_t len = (size_t)(end - o) * run;
        char *blk = (char *)block + (size_t)o * run, *st;
        int k = x->chunk++ & 1;
        st = x->stage[k];
        if (x->rank == root && to_block) {
            gemm__mpi_stage_wait(x, k);
            gemm__mpi_copy_part(x, st, user, ld, sp, o, end, 1);
            if (owner == root) gemm__mpi_stage_h2d(x, k, blk, len);
            else GEMM__MPI_DO(x, MPI_Isend(st, (int)len, MPI_BYTE, owner, tag, x->comm, &x->stage_req[k]));
        } else if (x->rank == root) {
            if (owner == root) gemm__mpi_stage_d2h(x, k, blk, len);
            else GEMM__MPI_DO(x, MPI_Recv(st, (int)len, MPI_BYTE, owner, tag, x->comm, MPI_STATUS_IGNORE));
            gemm__mpi_copy_part(x, st, user, ld, sp, o, end, 0);
        } else if (gemm__mpi_direct(x)) {
            if (to_block) GEMM__MPI_DO(x, MPI_Recv(blk, (int)len, MPI_BYTE, root, tag, x->comm, MPI_STATUS_IGNORE));
            else GEMM__MPI_DO(x, MPI_Send(blk, (int)len, MPI_BYTE, root, tag, x->comm));
        } else if (to_block) {
            gemm__mpi_stage_wait(x, k);
            GEMM__MPI_DO(x, MPI_Recv(st, (int)len, MPI_BYTE, root, tag, x->comm, MPI_STATUS_IGNORE));
            gemm__mpi_stage_h2d(x, k, blk, len);
        } else {
            gemm__mpi_stage_wait(x, k);
            gemm__mpi_stage_d2h(x, k, blk, len);
            GEMM__MPI_DO(x, MPI_Isend(st, (int)len, MPI_BYTE, root, tag, x->comm, &x->stage_req[k]));
        }
    }
}

/* The root's GPU starts Cannon's first round on its own blocks (queued
   behind their copies) while the root packs and sends everyone else's. */
static void gemm__mpi_prelaunch(gemm__mpi *x)
{
#ifdef GEMM_MPI_CUDA
    if (!x->cuda || x->o.algorithm != GEMM_MPI_CANNON) return;
    GEMM__MPI_CU(x, cudaEventRecord(x->ev0, x->stream));
    gemm__mpi_multiply(x, x->a, x->b, 1);
    GEMM__MPI_CU(x, cudaEventRecord(x->ev1, x->stream));
    x->prelaunched = 1;
#else
    (void)x;
#endif
}

/* Root-held: the root sends every rank the blocks of a (which 0), b (1)
   and c (2) from w0 to w1 it starts with (its own first); each rank takes
   its own. The root's GPU starts on its own blocks meanwhile when they are
   all there. */
static void gemm__mpi_distribute_blocks(gemm__mpi *x, int w0, int w1)
{
    int which, s, d, root = x->o.root;
    double t0 = gemm__mpi_now(), h2d0 = x->t.to_device_s;
    x->chunk = 0;
    for (d = 0; d < x->P; d++) {
        int dst = (root + d) % x->P, r, c;
        if (x->rank != root && x->rank != dst) continue;
        gemm__mpi_place(&x->g, dst, &r, &c);
        for (which = w0; which <= w1; which++) {
            int64_t ld;
            void *user = gemm__mpi_user(x, which, &ld), **slots = gemm__mpi_slots(x, which);
            for (s = 0; s < x->g.br * x->g.bc; s++) {
                int i, j, bi, bj;
                gemm__mpi_span sp;
                gemm__mpi_slot_ij(x, r, c, s, &i, &j);
                gemm__mpi_start_block(x, which, i, j, &bi, &bj);
                sp = gemm__mpi_span_in(x, which, bi, bj);
                if (dst == root && !x->cuda) gemm__mpi_copy_runs(x, slots[s], user, ld, &sp, 1, 0); /* in place */
                else gemm__mpi_stage_block(x, dst, which, slots[s], user, ld, &sp, 1);
            }
        }
        if (dst == root && w0 == 0 && w1 >= 1) gemm__mpi_prelaunch(x);
    }
    gemm__mpi_stage_wait(x, 0);
    gemm__mpi_stage_wait(x, 1);
    x->t.distribute_s += gemm__mpi_now() - t0 - (x->t.to_device_s - h2d0);
}

/* Root-held: A, B and (beta != 0) C; beta == 0: C is not read. */
static void gemm__mpi_distribute(gemm__mpi *x)
{
    gemm__mpi_distribute_blocks(x, 0, x->beta != 0 ? 2 : 1);
}

/* Root-held: every rank sends its C blocks to the root, which unpacks them
   into C. */
static void gemm__mpi_gather(gemm__mpi *x)
{
    int d, s, root = x->o.root;
    double t0 = gemm__mpi_now(), d2h0 = x->t.from_device_s;
    x->chunk = 0;
    for (d = 0; d < x->P; d++) {
        int src = (root + d) % x->P, r, c;
        if (x->rank != root && x->rank != src) continue;
        gemm__mpi_place(&x->g, src, &r, &c);
        for (s = 0; s < x->g.br * x->g.bc; s++) {
            int i, j;
            gemm__mpi_span sp;
            gemm__mpi_slot_ij(x, r, c, s, &i, &j);
            sp = gemm__mpi_span_in(x, 2, i, j);
            if (src == root && !x->cuda) gemm__mpi_copy_runs(x, x->c[s], x->C, x->p.ldc, &sp, 0, 0);
            else gemm__mpi_stage_block(x, src, 2, x->c[s], x->C, x->p.ldc, &sp, 0);
        }
    }
    gemm__mpi_stage_wait(x, 0);
    gemm__mpi_stage_wait(x, 1);
    x->t.gather_s += gemm__mpi_now() - t0 - (x->t.from_device_s - d2h0);
}

/* Distributed Cannon: natural block (i, j) goes to the slot that starts
   with it: for a, slot (i, j - i); for b, slot (i - j, j) (mod q). Tags
   number blocks. */
static void gemm__mpi_queue_skew(gemm__mpi *x, int which)
{
    int s, q = x->g.q, br = x->g.br, bc = x->g.bc;
    size_t bytes = which == 0 ? x->abytes : x->bbytes;
    void **slots = gemm__mpi_slots(x, which);
    for (s = 0; s < br * bc; s++) {
        int i, j, ti, tj, bi, bj;
        gemm__mpi_slot_ij(x, x->g.row, x->g.col, s, &i, &j);
        ti = which == 0 ? i : ((i - j) % q + q) % q;
        tj = which == 0 ? ((j - i) % q + q) % q : j;
        gemm__mpi_post(x->sends, &x->nsend, x->temps[s], gemm__mpi_rank_at(&x->g, ti / br, tj / bc), i * q + j, bytes);
        gemm__mpi_start_block(x, which, i, j, &bi, &bj);
        gemm__mpi_post(x->recvs, &x->nrecv, slots[s], gemm__mpi_rank_at(&x->g, bi / br, bj / bc), bi * q + bj, bytes);
    }
}

/* Distributed: pack this rank's pieces into blocks; for Cannon, send each
   natural block of a and b to the slot its skew puts it in. */
static void gemm__mpi_local_blocks(gemm__mpi *x)
{
    int which, s, fox = x->o.algorithm == GEMM_MPI_FOX;
    double t0 = gemm__mpi_now();
    for (which = 0; which < 3; which++) {
        int64_t ld;
        void *user = gemm__mpi_user(x, which, &ld), **slots = gemm__mpi_slots(x, which);
        int skew = which < 2 && !fox;
        if (which == 2 && x->beta == 0) break;
        for (s = 0; s < x->g.br * x->g.bc; s++) {
            int i, j;
            gemm__mpi_span sp;
            gemm__mpi_slot_ij(x, x->g.row, x->g.col, s, &i, &j);
            sp = gemm__mpi_span_in(x, which, i, j);
            gemm__mpi_copy_runs(x, skew ? x->temps[s] : slots[s], user, ld, &sp, 1, x->cuda);
        }
        if (!skew) continue;
        gemm__mpi_sync(x);
        gemm__mpi_queue_skew(x, which);
        gemm__mpi_start(x);
        gemm__mpi_wait(x);
    }
    gemm__mpi_sync(x);
    x->t.distribute_s += gemm__mpi_now() - t0;
}

/* Distributed: write the C blocks back into this rank's piece. */
static void gemm__mpi_store_c(gemm__mpi *x)
{
    int s;
    for (s = 0; s < x->g.br * x->g.bc; s++) {
        int i, j;
        gemm__mpi_span sp;
        gemm__mpi_slot_ij(x, x->g.row, x->g.col, s, &i, &j);
        sp = gemm__mpi_span_in(x, 2, i, j);
        gemm__mpi_copy_runs(x, x->c[s], x->C, x->p.ldc, &sp, 0, x->cuda);
    }
    gemm__mpi_sync(x);
}
/* <<mpi distribute */
/* >>mpi feed: src/mpi/feed.c */
/* ---- the root-held stream: the next k-slab travels during the rounds --------------- */

/* With options.slabs > 1 the root-held Cannon multiplies A and B in
   k-slabs (mpi/stream.c). While the ranks multiply one slab, the next one
   travels: the root packs it chunk by chunk into its two staging buffers
   and sends each chunk to the rank that starts with that block; each rank
   receives its chunks into its landing blocks (through its own staging
   buffers and the copy stream when it is a GPU rank and MPI takes no
   device memory). Nothing here waits unless asked to (`block`): the rounds
   call gemm__mpi_feed_pump between panels and while their GPU works, so
   the feed moves whenever the rank would otherwise wait, and
   gemm__mpi_feed_finish completes it before the slab is used. The chunks
   are those of the whole-block distribution (mpi/distribute.c), in the
   order rank, a then b, slot, runs; messages carry tags of their own. */
#define GEMM__MPI_TAG_FEED 31000

/* The block of the feed's cursor: its span in A or B (this slab's columns),
   where it lands on its rank, and the caller's matrix. */
static gemm__mpi_span gemm__mpi_feed_block(const gemm__mpi *x, int *dst, char **land, void **user, int64_t *ld)
{
    int r, c, i, j, bi, bj;
    *dst = (x->o.root + x->fd.d) % x->P;
    gemm__mpi_place(&x->g, *dst, &r, &c);
    gemm__mpi_slot_ij(x, r, c, x->fd.slot, &i, &j);
    gemm__mpi_start_block(x, x->fd.which, i, j, &bi, &bj);
    *land = (char *)(x->fd.which ? x->land_b : x->land_a)[x->fd.slot];
    *user = gemm__mpi_user(x, x->fd.which, ld);
    return gemm__mpi_span_slab(x, x->fd.which, bi, bj, x->fd.kofs);
}

/* Runs per chunk of a block whose runs are `run` bytes (every rank cuts alike). */
static int64_t gemm__mpi_feed_per(const gemm__mpi *x, size_t run)
{
    int64_t per = (int64_t)(x->stage_bytes / run);
    return per > 1 ? per : 1;
}

/* Moves the cursor past the chunk of `per` runs of a block of `outer` runs:
   the root walks every rank's blocks, another rank only its own. */
static void gemm__mpi_feed_next(gemm__mpi *x, int64_t per, int64_t outer)
{
    x->fd.o += per;
    if (x->fd.o < outer) return;
    x->fd.o = 0;
    if (++x->fd.slot < x->g.br * x->g.bc) return;
    x->fd.slot = 0;
    if (++x->fd.which < 2) return;
    x->fd.which = 0;
    if (x->rank != x->o.root || ++x->fd.d == x->P) x->fd.done = 1;
}

/* Whether staging buffer k is free: its message sent or received, and its
   device copy done. `block`: wait until it is. */
static int gemm__mpi_feed_free(gemm__mpi *x, int k, int block)
{
    int done = 1;
    if (x->stage_req[k] != MPI_REQUEST_NULL) {
        if (block) GEMM__MPI_DO(x, MPI_Wait(&x->stage_req[k], MPI_STATUS_IGNORE));
        else if (!GEMM__MPI_DO(x, MPI_Test(&x->stage_req[k], &done, MPI_STATUS_IGNORE))) done = 1;
        if (!done) return 0;
    }
#ifdef GEMM_MPI_CUDA
    if (x->stage_dev[k]) {
        cudaError_t e = block ? cudaEventSynchronize(x->stage_ev[k]) : cudaEventQuery(x->stage_ev[k]);
        if (e == cudaErrorNotReady) return 0;
        GEMM__MPI_CU(x, e);
        x->stage_dev[k] = 0;
    }
#endif
    return 1;
}

/* Staging buffer k's chunk to the device, on the copy stream. */
static void gemm__mpi_feed_h2d(gemm__mpi *x, int k, char *to, size_t len)
{
#ifdef GEMM_MPI_CUDA
    GEMM__MPI_CU(x, cudaMemcpyAsync(to, x->stage[k], len, cudaMemcpyHostToDevice, x->copy_stream));
    GEMM__MPI_CU(x, cudaEventRecord(x->stage_ev[k], x->copy_stream));
    x->stage_dev[k] = 1;
#else
    (void)x;
    (void)k;
    (void)to;
    (void)len;
#endif
}

/* The root's next chunk: packed (its own CPU blocks straight into their
   landing), then sent, or copied to its own GPU. */
static int gemm__mpi_feed_root(gemm__mpi *x, int block)
{
    int dst, k = x->chunk & 1;
    char *land;
    void *user;
    int64_t ld, end, per;
    size_t run, len;
    gemm__mpi_span sp = gemm__mpi_feed_block(x, &dst, &land, &user, &ld);
    run = (size_t)sp.INNER * x->es;
    per = gemm__mpi_feed_per(x, run);
    end = x->fd.o + per < sp.OUTER ? x->fd.o + per : sp.OUTER;
    len = (size_t)(end - x->fd.o) * run;
    if (dst == x->rank && !x->cuda)
        gemm__mpi_copy_part(x, land + (size_t)x->fd.o * run, user, ld, &sp, x->fd.o, end, 1);
    else {
        if (!gemm__mpi_feed_free(x, k, block)) return 0;
        gemm__mpi_copy_part(x, x->stage[k], user, ld, &sp, x->fd.o, end, 1);
        if (dst == x->rank) gemm__mpi_feed_h2d(x, k, land + (size_t)x->fd.o * run, len);
        else GEMM__MPI_DO(x, MPI_Isend(x->stage[k], (int)len, MPI_BYTE, dst, GEMM__MPI_TAG_FEED + x->fd.which,
                                       x->comm, &x->stage_req[k]));
        x->chunk++;
    }
    gemm__mpi_feed_next(x, per, sp.OUTER);
    return 1;
}

/* Another rank's next chunk: its receive posted (straight into the landing
   when MPI takes the memory; else into staging buffer k, whose previous
   chunk goes on to the device first). */
static int gemm__mpi_feed_rank(gemm__mpi *x, int block)
{
    int dst, k = x->chunk & 1, direct = gemm__mpi_direct(x);
    char *land, *to;
    void *user;
    int64_t ld, per;
    size_t run, len;
    gemm__mpi_span sp = gemm__mpi_feed_block(x, &dst, &land, &user, &ld);
    run = (size_t)sp.INNER * x->es;
    per = gemm__mpi_feed_per(x, run);
    len = (size_t)((x->fd.o + per < sp.OUTER ? x->fd.o + per : sp.OUTER) - x->fd.o) * run;
    to = land + (size_t)x->fd.o * run;
    if (x->fd.pending[k]) { /* the chunk received here two chunks ago */
        if (!gemm__mpi_feed_free(x, k, block)) return 0;
        gemm__mpi_feed_h2d(x, k, x->fd.to[k], x->fd.len[k]);
        x->fd.pending[k] = 0;
    }
    if (!gemm__mpi_feed_free(x, k, block)) return 0;
    GEMM__MPI_DO(x, MPI_Irecv(direct ? to : x->stage[k], (int)len, MPI_BYTE, x->o.root,
                              GEMM__MPI_TAG_FEED + x->fd.which, x->comm, &x->stage_req[k]));
    x->fd.pending[k] = !direct;
    x->fd.to[k] = to;
    x->fd.len[k] = len;
    x->chunk++;
    gemm__mpi_feed_next(x, per, sp.OUTER);
    return 1;
}

/* One step of the feed; 0 when it would have to wait (or is over). */
static int gemm__mpi_feed_step(gemm__mpi *x, int block)
{
    if (!x->fd.active || x->fd.done) return 0;
    return x->rank == x->o.root ? gemm__mpi_feed_root(x, block) : gemm__mpi_feed_rank(x, block);
}

/* As many steps as go without waiting. */
static void gemm__mpi_feed_pump(gemm__mpi *x)
{
    while (gemm__mpi_feed_step(x, 0)) {}
}

/* Starts the slab whose k range begins `kofs` into each virtual k-block. */
static void gemm__mpi_feed_start(gemm__mpi *x, int64_t kofs)
{
    memset(&x->fd, 0, sizeof x->fd);
    x->fd.active = 1;
    x->fd.kofs = kofs;
    x->fd.d = (x->rank - x->o.root + x->P) % x->P;
    if (x->rank == x->o.root) x->fd.d = 0;
    x->chunk = 0;
    gemm__mpi_feed_pump(x);
}

/* Completes the slab: every chunk sent, received and on its device. */
static void gemm__mpi_feed_finish(gemm__mpi *x)
{
    int k;
    while (gemm__mpi_feed_step(x, 1)) {}
    for (k = 0; k < 2; k++) {
        if (x->fd.pending[k]) {
            gemm__mpi_feed_free(x, k, 1);
            gemm__mpi_feed_h2d(x, k, x->fd.to[k], x->fd.len[k]);
            x->fd.pending[k] = 0;
        }
    }
    for (k = 0; k < 2; k++) gemm__mpi_feed_free(x, k, 1);
    x->fd.active = 0;
}
/* <<mpi feed */
/* >>mpi rounds: src/mpi/rounds.c */
/* ---- the rounds: Cannon and Fox ------------------------------------------------ */

/* Tags of the shifts: a's number the block row, b's the block column from
   30000 on. The skew's block tags (below q*q) may reach these, but the skew
   is over before the first shift. */
#define GEMM__MPI_TAG_B 30000

/* Queues Cannon's shift: per block row the first a block goes left, a new
   one comes from the right into the spare; per block column the top b
   block goes up. Neighbours that are this rank itself need no message. */
static void gemm__mpi_queue_shift(gemm__mpi *x, int shift_a)
{
    int li, lj;
    if (shift_a && x->left != x->rank)
        for (li = 0; li < x->g.br; li++) {
            gemm__mpi_post(x->sends, &x->nsend, x->a[li * x->g.bc], x->left, li, x->abytes);
            gemm__mpi_post(x->recvs, &x->nrecv, x->aspare[li], x->right, li, x->abytes);
        }
    if (x->up != x->rank)
        for (lj = 0; lj < x->g.bc; lj++) {
            gemm__mpi_post(x->sends, &x->nsend, x->b[lj], x->up, GEMM__MPI_TAG_B + lj, x->bbytes);
            gemm__mpi_post(x->recvs, &x->nrecv, x->bspare[lj], x->down, GEMM__MPI_TAG_B + lj, x->bbytes);
        }
}

/* After the blocks moved: slide the slots one place and put the arrival
   (the spare, or the block that left when the neighbour is this rank) last. */
static void gemm__mpi_rotate(gemm__mpi *x, int shift_a, int used_spares)
{
    int li, lj, t, bc = x->g.bc, br = x->g.br;
    if (shift_a)
        for (li = 0; li < br; li++) {
            void *out = x->a[li * bc];
            for (t = 0; t + 1 < bc; t++) x->a[li * bc + t] = x->a[li * bc + t + 1];
            if (used_spares && x->left != x->rank) {
                x->a[li * bc + bc - 1] = x->aspare[li];
                x->aspare[li] = out;
            } else
                x->a[li * bc + bc - 1] = out;
        }
    for (lj = 0; lj < bc; lj++) {
        void *out = x->b[lj];
        for (t = 0; t + 1 < br; t++) x->b[t * bc + lj] = x->b[(t + 1) * bc + lj];
        if (used_spares && x->up != x->rank) {
            x->b[(br - 1) * bc + lj] = x->bspare[lj];
            x->bspare[lj] = out;
        } else
            x->b[(br - 1) * bc + lj] = out;
    }
}

/* Blocking shift: MPI_Sendrecv_replace on host blocks, spares on a GPU. */
static void gemm__mpi_shift_blocking(gemm__mpi *x, int shift_a)
{
    int li, lj;
    if (x->cuda) {
        gemm__mpi_queue_shift(x, shift_a);
        gemm__mpi_start(x);
        gemm__mpi_wait(x);
        gemm__mpi_rotate(x, shift_a, 1);
        return;
    }
    if (shift_a && x->left != x->rank)
        for (li = 0; li < x->g.br; li++)
            gemm__mpi_message(x, GEMM__MPI_REPLACE, x->a[li * x->g.bc], x->abytes, x->left, x->right, li, NULL);
    if (x->up != x->rank)
        for (lj = 0; lj < x->g.bc; lj++)
            gemm__mpi_message(x, GEMM__MPI_REPLACE, x->b[lj], x->bbytes, x->up, x->down, GEMM__MPI_TAG_B + lj, NULL);
    gemm__mpi_rotate(x, shift_a, 0);
}

#ifdef GEMM_MPI_CUDA
static double gemm__mpi_event_seconds(gemm__mpi *x)
{
    float ms = 0;
    while (x->fd.active && x->st == GEMM_OK && cudaEventQuery(x->ev1) == cudaErrorNotReady)
        gemm__mpi_feed_pump(x); /* the next slab moves while the GPU multiplies */
    GEMM__MPI_CU(x, cudaEventSynchronize(x->ev1));
    if (x->st == GEMM_OK) GEMM__MPI_CU(x, cudaEventElapsedTime(&ms, x->ev0, x->ev1));
    return 1e-3 * (double)ms;
}

/* The GPU's round: queued (unless the distribution did), then timed by
   its events while the transfers in flight finish. */
static void gemm__mpi_round_gpu(gemm__mpi *x, void **a, int first, int in_flight, double t0)
{
    double comp, rest;
    if (!x->prelaunched) {
        GEMM__MPI_CU(x, cudaEventRecord(x->ev0, x->stream));
        gemm__mpi_multiply(x, a, x->b, first);
        GEMM__MPI_CU(x, cudaEventRecord(x->ev1, x->stream));
    }
    x->prelaunched = 0;
    if (in_flight) gemm__mpi_wait(x);
    comp = gemm__mpi_event_seconds(x);
    x->t.compute_s += comp;
    rest = gemm__mpi_now() - t0 - comp;
    x->t.shift_s += rest > 0 ? rest : 0;
}
#endif

/* One round's multiply, timed; with transfers in flight (overlap) the CPU
   polls MPI between panels so they progress, and the GPU works meanwhile. */
static void gemm__mpi_round_multiply(gemm__mpi *x, void **a, int first, int in_flight)
{
    double t0 = gemm__mpi_now(), comp = 0;
    int s, n = x->g.br * x->g.bc;
#ifdef GEMM_MPI_CUDA
    if (x->cuda) { gemm__mpi_round_gpu(x, a, first, in_flight, t0); return; }
#endif
    int poll = in_flight || x->fd.active;
    int64_t w = poll ? GEMM__HOOK(mpi_poll_cols, GEMM__MPI_POLL_COLS) : x->g.nb, j;
    for (s = 0; s < n; s++)
        for (j = 0; j < x->g.nb; j += w) {
            double t = gemm__mpi_now();
            gemm__mpi_multiply_cols(x, a, x->b, first, s, j, j + w < x->g.nb ? j + w : x->g.nb);
            comp += gemm__mpi_now() - t;
            if (in_flight) gemm__mpi_test(x);
            if (x->fd.active) gemm__mpi_feed_pump(x);
        }
    if (in_flight) gemm__mpi_wait(x);
    x->t.compute_s += comp;
    x->t.shift_s += gemm__mpi_now() - t0 - comp;
}

static void gemm__mpi_cannon(gemm__mpi *x)
{
    int round, q = x->g.q;
    for (round = 0; round < q; round++) {
        int last = round == q - 1, overlap = x->o.overlap && !last;
        if (overlap) {
            gemm__mpi_queue_shift(x, 1);
            gemm__mpi_start(x);
        }
        gemm__mpi_round_multiply(x, x->a, round == 0 && !x->accumulate, overlap);
        if (overlap) gemm__mpi_rotate(x, 1, 1);
        else if (!last) {
            double t = gemm__mpi_now();
            gemm__mpi_shift_blocking(x, 1);
            x->t.shift_s += gemm__mpi_now() - t;
        }
    }
}

/* Fox's broadcasts of one round: block row li multiplies a(i, i+round),
   broadcast along the process row from the rank holding it. */
static void gemm__mpi_fox_bcast(gemm__mpi *x, int round, void **use)
{
    int li, lj, q = x->g.q, bc = x->g.bc, staged = !gemm__mpi_direct(x);
    for (li = 0; li < x->g.br; li++) {
        int i = x->g.row * x->g.br + li, p = (i + round) % q, mine = p / bc == x->g.col;
        void *buf = mine ? x->a[li * bc + p % bc] : x->fox[li];
        if (x->g.cols > 1 && staged) {
            if (mine) gemm__mpi_copy(x, x->pool, 0, buf, 1, x->abytes);
            gemm__mpi_message(x, GEMM__MPI_BCAST, x->pool, x->abytes, p / bc, 0, 0, NULL);
            if (!mine) gemm__mpi_copy(x, buf, 1, x->pool, 0, x->abytes);
        } else if (x->g.cols > 1)
            gemm__mpi_message(x, GEMM__MPI_BCAST, buf, x->abytes, p / bc, 0, 0, NULL);
        for (lj = 0; lj < bc; lj++) use[li * bc + lj] = buf;
    }
}

/* Fox: each round broadcasts a, multiplies, then rolls b up. */
static void gemm__mpi_fox(gemm__mpi *x)
{
    int round, q = x->g.q;
    for (round = 0; round < q; round++) {
        double t = gemm__mpi_now();
        gemm__mpi_fox_bcast(x, round, x->use); /* x->use: allocated by the setup, before its vote */
        x->t.shift_s += gemm__mpi_now() - t;
        gemm__mpi_round_multiply(x, x->use, round == 0, 0);
        if (round < q - 1) {
            t = gemm__mpi_now();
            gemm__mpi_shift_blocking(x, 0);
            x->t.shift_s += gemm__mpi_now() - t;
        }
    }
}
/* <<mpi rounds */
/* >>mpi stream: src/mpi/stream.c */
/* ---- the root-held Cannon, streamed in k-slabs ----------------------------------- */

/* Whether this execute streams: the root-held Cannon with options.slabs > 1. */
static int gemm__mpi_streams(const gemm__mpi *x)
{
    return !x->distributed && x->o.algorithm == GEMM_MPI_CANNON && x->o.slabs > 1;
}

/* The landed slab becomes each slot's block (its feed is complete). */
static void gemm__mpi_load_slab(gemm__mpi *x)
{
    int s;
    for (s = 0; s < x->g.br * x->g.bc; s++) {
        gemm__mpi_copy(x, x->a[s], x->cuda, x->land_a[s], x->cuda, x->abytes);
        gemm__mpi_copy(x, x->b[s], x->cuda, x->land_b[s], x->cuda, x->bbytes);
    }
}

/* C = alpha op(A) op(B) + beta C as S products over k-slabs: the virtual
   k-block kb is cut into S slabs of kbs columns; slab s is Cannon's
   algorithm on blocks mb x kbs and kbs x nb (the first with beta, the
   others adding to C), and while its rounds run, slab s+1 travels from the
   root to the ranks (mpi/feed.c): the ranks start multiplying once the
   first slab has landed instead of once all of A and B has. The shifts
   move blocks a slab thick, so they carry in total what the unstreamed
   rounds carry. */
static void gemm__mpi_stream(gemm__mpi *x)
{
    int s, S = x->o.slabs;
    int64_t kb = x->g.kb, kbs;
    size_t abytes = x->abytes, bbytes = x->bbytes;
    double t0 = gemm__mpi_now();
    if (S > kb) S = (int)kb;
    kbs = (kb + S - 1) / S;
    if (x->beta != 0) gemm__mpi_distribute_blocks(x, 2, 2);
    x->g.kb = kbs;
    x->abytes = (size_t)(x->g.mb * kbs) * x->es;
    x->bbytes = (size_t)(kbs * x->g.nb) * x->es;
    gemm__mpi_feed_start(x, 0);
    gemm__mpi_feed_finish(x);
    x->t.distribute_s += gemm__mpi_now() - t0;
    for (s = 0; s < S; s++) {
        gemm__mpi_load_slab(x);
        gemm__mpi_sync(x); /* on a GPU, the landing is read before the next slab lands there */
        if (s + 1 < S) gemm__mpi_feed_start(x, (int64_t)(s + 1) * kbs);
        x->accumulate = s > 0;
        gemm__mpi_cannon(x);
        if (s + 1 < S) {
            double t = gemm__mpi_now();
            gemm__mpi_feed_finish(x);
            x->t.distribute_s += gemm__mpi_now() - t;
        }
    }
    gemm__mpi_sync(x);
    x->accumulate = 0;
    x->g.kb = kb;
    x->abytes = abytes;
    x->bbytes = bbytes;
}
/* <<mpi stream */
/* >>mpi vote: src/mpi/vote.c */
/* ---- agreeing ------------------------------------------------------------ */

/* Every rank learns whether all are fine: the lowest failing rank's status
   and detail become everyone's. */
static gemm_status gemm__mpi_vote(gemm__mpi *x, MPI_Comm comm, int64_t *vals, int nvals, const char *const *names)
{
    int64_t v[40], r[40];
    int i, rc, nv = nvals + 1;
    struct { int status; char detail[512]; } msg;
    v[0] = x->st != GEMM_OK ? (int64_t)(x->P - x->rank) : 0;
    for (i = 0; i < nvals; i++) v[1 + i] = vals[i];
    for (i = 0; i < nv; i++) v[nv + i] = ~v[i]; /* max of ~v is ~min (no overflow, unlike -v at INT64_MIN) */
    rc = MPI_Allreduce(v, r, 2 * nv, MPI_INT64_T, MPI_MAX, comm);
    if (rc != MPI_SUCCESS) return gemm__mpi_status(rc, "MPI_Allreduce");
    if (r[0] > 0) {
        int bad = (int)(x->P - r[0]);
        msg.status = (int)x->st;
        memcpy(msg.detail, x->detail, sizeof msg.detail);
        rc = MPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, bad, comm);
        if (rc != MPI_SUCCESS) return gemm__mpi_status(rc, "MPI_Bcast");
        msg.detail[sizeof msg.detail - 1] = '\0';
        return gemm__fail((gemm_status)msg.status, "rank %d: %s", bad, msg.detail);
    }
    for (i = 1; i < nv; i++)
        if (r[i] != ~r[nv + i])
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: the ranks passed different %s (from %lld to %lld)", x->func,
                              names[i - 1], (long long)~r[nv + i], (long long)r[i]);
    return GEMM_OK;
}
/* <<mpi vote */
/* >>mpi setup: src/mpi/setup.c */
/* ---- setup and teardown -------------------------------------------------------- */

/* CUDA multiply: takes GPU (node-local rank mod GPU count), makes its
   streams and events. Returns whether all ranks share one node. */
static int gemm__mpi_cuda_init(gemm__mpi *x)
{
    int one_node = 0;
#ifdef GEMM_MPI_CUDA
    int ndev = 0, local = 0;
    MPI_Comm node;
    if (GEMM__MPI_DO(x, MPI_Comm_split_type(x->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node))) {
        int size = 0;
        GEMM__MPI_DO(x, MPI_Comm_rank(node, &local));
        GEMM__MPI_DO(x, MPI_Comm_size(node, &size));
        one_node = size == x->P;
        GEMM__MPI_DO(x, MPI_Comm_free(&node));
    }
    if (GEMM__MPI_CU(x, cudaGetDeviceCount(&ndev)) && ndev > 0 && GEMM__MPI_CU(x, cudaSetDevice(local % ndev))) {
        GEMM__MPI_CU(x, cudaStreamCreateWithFlags(&x->stream, cudaStreamNonBlocking));
        GEMM__MPI_CU(x, cudaStreamCreateWithFlags(&x->copy_stream, cudaStreamNonBlocking));
        GEMM__MPI_CU(x, cudaEventCreate(&x->ev0));
        GEMM__MPI_CU(x, cudaEventCreate(&x->ev1));
        x->cuda_ready = 1;
    } else if (x->st == GEMM_OK)
        gemm__mpi_keep(x, gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: no CUDA device", x->func));
#else
    (void)x;
#endif
    return one_node;
}

/* CUDA multiply: how blocks move between GPUs. CUDA-aware only if every
   rank is, so that all ranks pick the same path. */
static void gemm__mpi_choose_path(gemm__mpi *x)
{
    int cuda_aware = 0, one_node = gemm__mpi_cuda_init(x);
#if defined(GEMM_MPI_CUDA) && defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    cuda_aware = MPIX_Query_cuda_support();
#endif
    GEMM__MPI_DO(x, MPI_Allreduce(MPI_IN_PLACE, &cuda_aware, 1, MPI_INT, MPI_MIN, x->comm));
    x->path = x->o.path == GEMM_MPI_PATH_AUTO
                  ? (cuda_aware ? GEMM_MPI_PATH_CUDA_AWARE : one_node ? GEMM_MPI_PATH_CUDA_IPC : GEMM_MPI_PATH_STAGED)
                  : x->o.path;
    if (x->path == GEMM_MPI_PATH_CUDA_IPC && !one_node && x->st == GEMM_OK)
        gemm__mpi_keep(x, gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: path CUDA_IPC asked for, but the ranks are on "
                                     "several nodes", x->func));
    if (x->path == GEMM_MPI_PATH_CUDA_AWARE && !cuda_aware && x->st == GEMM_OK)
        gemm__mpi_keep(x, gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: path CUDA_AWARE asked for, but this MPI "
                                     "does not accept device buffers (MPIX_Query_cuda_support)", x->func));
}

/* The vote before an allocation: every rank takes the same path, and the
   memory (the plan's shared part, form < 0, or with one form's buffers)
   fits every rank's caps and size_t. */
static gemm_status gemm__mpi_fits(gemm__mpi *x, int form)
{
    static const char *const names[] = {"transfer paths (some MPI ranks are not CUDA-aware)"};
    int64_t v[1];
    size_t host, device, cap, stage = gemm__mpi_stage_bytes(&x->g, x->es);
    int over = gemm__mpi_need(&x->g, x->es, form, x->rank == x->o.root, &x->o, x->path, &host, &device);
    if (x->st == GEMM_OK && over)
        gemm__mpi_keep(x, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: %lld x %lld x %lld needs more than %zu bytes on "
                                     "this rank", x->func, (long long)x->m, (long long)x->n, (long long)x->k,
                                     (size_t)-1));
    if (x->st == GEMM_OK && form == 0 && stage > (size_t)2147483647)
        gemm__mpi_keep(x, gemm__fail(GEMM_ERR_INVALID_ARG, "%s: one row of a block is %zu bytes, over MPI's int "
                                     "count: the root-held call stages whole rows (use the distributed call)",
                                     x->func, stage));
    cap = x->o.max_host_bytes;
    if (x->st == GEMM_OK && cap && host > cap)
        gemm__mpi_keep(x, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: needs %zu bytes of host memory, the cap is %zu",
                                     x->func, host, cap));
    cap = x->o.max_device_bytes;
    if (x->st == GEMM_OK && cap && device > cap)
        gemm__mpi_keep(x, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: needs %zu bytes of device memory, the cap is %zu",
                                     x->func, device, cap));
    v[0] = (int64_t)x->path;
    return gemm__mpi_vote(x, x->comm, v, 1, names);
}

/* The neighbours on the periodic grid of the view, and Fox's process rows
   (ordered by column, so a rank's column is its rank there). */
static void gemm__mpi_neighbours(gemm__mpi *x)
{
    const gemm__mpi_grid *g = &x->g;
    x->left = gemm__mpi_rank_at(g, g->row, (g->col + g->cols - 1) % g->cols);
    x->right = gemm__mpi_rank_at(g, g->row, (g->col + 1) % g->cols);
    x->up = gemm__mpi_rank_at(g, (g->row + g->rows - 1) % g->rows, g->col);
    x->down = gemm__mpi_rank_at(g, (g->row + 1) % g->rows, g->col);
    if (x->o.algorithm == GEMM_MPI_FOX) GEMM__MPI_DO(x, MPI_Comm_split(x->comm, g->row, g->col, &x->row_comm));
}

/* The plan's blocks, spares and pool (gemm__mpi_need's shared list). */
static void gemm__mpi_alloc_blocks(gemm__mpi *x)
{
    int nslots = x->g.br * x->g.bc;
    x->a = gemm__mpi_blocks_new(x, nslots, x->abytes);
    x->b = gemm__mpi_blocks_new(x, nslots, x->bbytes);
    x->c = gemm__mpi_blocks_new(x, nslots, x->cbytes);
    if (x->o.overlap || x->cuda) {
        x->aspare = gemm__mpi_blocks_new(x, x->g.br, x->abytes);
        x->bspare = gemm__mpi_blocks_new(x, x->g.bc, x->bbytes);
    }
    if (x->o.algorithm == GEMM_MPI_FOX) {
        x->fox = gemm__mpi_blocks_new(x, x->g.br, x->abytes);
        if (x->st == GEMM_OK && !(x->use = (void **)GEMM_MALLOC(sizeof(void *) * (size_t)nslots)))
            gemm__mpi_keep(x, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory", x->func));
    }
    x->pool_blocks = gemm__mpi_pool_blocks(&x->g, &x->o, x->path);
    if (x->pool_blocks && x->st == GEMM_OK) x->pool = (char *)gemm__mpi_alloc(x, x->pool_blocks * x->big, 0);
    x->stage_bytes = gemm__mpi_stage_bytes(&x->g, x->es); /* every rank cuts blocks into the same chunks */
}

/* One form's own buffers: the root-held form's two staging buffers (on the
   root, and on every GPU rank) and, streamed, the slab landing blocks; or
   the distributed Cannon's natural blocks. */
static void gemm__mpi_alloc_form(gemm__mpi *x, int form)
{
    int k;
    if (form == 1) {
        if (x->o.algorithm == GEMM_MPI_CANNON) x->temps = gemm__mpi_blocks_new(x, x->g.br * x->g.bc, x->big);
        return;
    }
    if (x->o.slabs > 1 && x->o.algorithm == GEMM_MPI_CANNON) {
        int64_t kbs = (x->g.kb + x->o.slabs - 1) / x->o.slabs;
        x->land_a = gemm__mpi_blocks_new(x, x->g.br * x->g.bc, (size_t)(x->g.mb * kbs) * x->es);
        x->land_b = gemm__mpi_blocks_new(x, x->g.br * x->g.bc, (size_t)(kbs * x->g.nb) * x->es);
    }
    if (!(x->cuda || x->rank == x->o.root)) return;
    for (k = 0; k < 2 && x->st == GEMM_OK; k++) {
        x->stage[k] = (char *)gemm__mpi_alloc(x, x->stage_bytes, 0);
#ifdef GEMM_MPI_CUDA
        if (x->cuda) GEMM__MPI_CU(x, cudaEventCreateWithFlags(&x->stage_ev[k], cudaEventDisableTiming));
#endif
    }
}

/* The lists of one exchange: room for every block of a skew or a shift,
   each in int-sized pieces. */
static void gemm__mpi_alloc_lists(gemm__mpi *x)
{
    int r, nslots = x->g.br * x->g.bc, edge = x->g.br + x->g.bc;
    x->cap = 2 * (nslots > edge ? nslots : edge) * gemm__mpi_pieces(x->big);
    if (x->st != GEMM_OK) return;
    x->sends = (gemm__mpi_msg *)GEMM_MALLOC(sizeof(gemm__mpi_msg) * (size_t)x->cap);
    x->recvs = (gemm__mpi_msg *)GEMM_MALLOC(sizeof(gemm__mpi_msg) * (size_t)x->cap);
    x->reqs = (MPI_Request *)GEMM_MALLOC(sizeof(MPI_Request) * (size_t)x->cap);
    if (!x->sends || !x->recvs || !x->reqs)
        gemm__mpi_keep(x, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory", x->func));
    for (r = 0; x->reqs && r < x->cap; r++) x->reqs[r] = MPI_REQUEST_NULL;
#ifdef GEMM_MPI_CUDA
    if (x->path == GEMM_MPI_PATH_CUDA_IPC && x->st == GEMM_OK) {
        x->ipc_out = (gemm__mpi_ipc_msg *)GEMM_MALLOC(sizeof(gemm__mpi_ipc_msg) * (size_t)x->cap);
        x->ipc_in = (gemm__mpi_ipc_msg *)GEMM_MALLOC(sizeof(gemm__mpi_ipc_msg) * (size_t)x->cap);
        x->acks = (char *)GEMM_MALLOC((size_t)x->cap);
        if (!x->ipc_out || !x->ipc_in || !x->acks)
            gemm__mpi_keep(x, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory", x->func));
    }
#endif
}
/* <<mpi setup */
/* >>mpi comm: src/mpi/comm.c */
/* ---- MPI's state and the plan's communicator ----------------------------------- */

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
static gemm_status gemm__mpi_open(gemm__mpi *x, MPI_Comm comm)
{
    gemm_status s;
    int inter = 0;
    if (comm == MPI_COMM_NULL) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: comm is MPI_COMM_NULL", x->func);
    s = gemm__mpi_status(MPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
    if (s == GEMM_OK && inter)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: comm is an intercommunicator; pass an intracommunicator "
                          "(MPI_Intercomm_merge makes one)", x->func);
    if (s == GEMM_OK) s = gemm__mpi_status(MPI_Comm_dup(comm, &x->comm), "MPI_Comm_dup");
    if (s == GEMM_OK)
        s = gemm__mpi_status(MPI_Comm_set_errhandler(x->comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    if (s == GEMM_OK) s = gemm__mpi_status(MPI_Comm_size(x->comm, &x->P), "MPI_Comm_size");
    if (s == GEMM_OK) s = gemm__mpi_status(MPI_Comm_rank(x->comm, &x->rank), "MPI_Comm_rank");
    if (s != GEMM_OK && x->comm != MPI_COMM_NULL) MPI_Comm_free(&x->comm);
    return s;
}
/* <<mpi comm */
/* >>mpi check: src/mpi/check.c */
/* ---- this rank's arguments: checked, then the canonical problem ---------------- */

/* The caller's arguments as they came: the checks read them, and the ranks
   compare their scalars in the first vote. */
typedef struct gemm__mpi_args {
    gemm_layout layout;
    gemm_transpose transa, transb;
    int64_t m, n, k;
    double alpha;
    const void *A;
    int64_t lda;
    const void *B;
    int64_t ldb;
    double beta;
    void *C;
    int64_t ldc;
} gemm__mpi_args;

/* The largest extent of a piece: its byte offsets fit in int64_t. */
#define GEMM__MPI_MAX_EXTENT (INT64_MAX / 8)

/* The smallest leading dimension of a stored matrix whose op() view is
   rows x cols: what a rank that holds no matrix passes to the checks. */
static int64_t gemm__mpi_min_ld(gemm_layout layout, gemm_transpose t, int64_t rows, int64_t cols)
{
    int64_t need = (layout == GEMM_ROW_MAJOR) == (t == GEMM_TRANS) ? rows : cols;
    return need > 1 ? need : 1;
}

/* Distributed: this rank's pieces, in the caller's argument order, each as
   the stored matrix that holds its tile; then the problem's leading
   dimensions, strides and extents become the pieces'. */
static gemm_status gemm__mpi_check_pieces(gemm__mpi *x, const gemm__mpi_args *in)
{
    static const char *const nm[3] = {"A", "B", "C"};
    gemm__problem *p = &x->p;
    int sw = p->swapped, w;
    /* the caller's A, B, C in the view: a row-major call's A is its b */
    const gemm_mpi_tile *t[3];
    const void *ptr[3];
    int64_t ld[3], ext[3];
    int tr[3];
    t[0] = sw ? &x->g.b : &x->g.a; t[1] = sw ? &x->g.a : &x->g.b; t[2] = &x->g.c;
    tr[0] = sw ? p->b_trans : p->a_trans; tr[1] = sw ? p->a_trans : p->b_trans; tr[2] = 0;
    ptr[0] = in->A; ptr[1] = in->B; ptr[2] = in->C;
    ld[0] = in->lda; ld[1] = in->ldb; ld[2] = in->ldc;
    for (w = 0; w < 3; w++) {
        int used = p->work == GEMM__WORK_FULL || (w == 2 && p->work == GEMM__WORK_SCALE);
        /* stored column-major in the view (op(X) = X^T is held cols x rows);
           the caller's stored shape is its transpose for a row-major call */
        int64_t rows = tr[w] ? t[w]->cols : t[w]->rows, cols = tr[w] ? t[w]->rows : t[w]->cols;
        int64_t srows = sw ? cols : rows, scols = sw ? rows : cols, need = rows > 1 ? rows : 1;
        if (used && !ptr[w] && t[w]->rows > 0 && t[w]->cols > 0)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s is NULL, but this rank's piece is %lld x %lld", x->func,
                              nm[w], (long long)srows, (long long)scols);
        if (ld[w] < need)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: ld%c = %lld is too small: this rank's piece of %s is %lld x "
                              "%lld stored, needs ld%c >= %lld", x->func, "abc"[w], (long long)ld[w], nm[w],
                              (long long)srows, (long long)scols, "abc"[w], (long long)need);
        ext[w] = used ? gemm__extent(rows, cols, ld[w]) : 0;
        if (ext[w] < 0 || ext[w] > GEMM__MPI_MAX_EXTENT)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: this rank's piece of %s spans more than 2^60 elements "
                              "(ld%c = %lld)", x->func, nm[w], "abc"[w], (long long)ld[w]);
    }
    p->lda = ld[sw];
    p->ldb = ld[!sw];
    p->ldc = ld[2];
    p->ars = p->a_trans ? p->lda : 1;
    p->acs = p->a_trans ? 1 : p->lda;
    p->brs = p->b_trans ? p->ldb : 1;
    p->bcs = p->b_trans ? 1 : p->ldb;
    p->a_extent = ext[sw];
    p->b_extent = ext[!sw];
    p->c_extent = ext[2];
    return GEMM_OK;
}

/* The options last, as the arguments come. */
static gemm_status gemm__mpi_check_options(const gemm__mpi *x)
{
    const gemm_mpi_options *o = &x->o;
    if (o->local != GEMM_MPI_LOCAL_CPU && o->local != GEMM_MPI_LOCAL_CUDA)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.local = %d is not a gemm_mpi_local", x->func, (int)o->local);
#ifndef GEMM_MPI_CUDA
    if (o->local == GEMM_MPI_LOCAL_CUDA)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the CUDA local multiply is not compiled in (compile with nvcc "
                          "and gemm_cuda.cuh, or define GEMM_MPI_CUDA)", x->func);
#endif
    if (o->algorithm != GEMM_MPI_CANNON && o->algorithm != GEMM_MPI_FOX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.algorithm = %d is not a gemm_mpi_algorithm", x->func,
                          (int)o->algorithm);
    if (o->path != GEMM_MPI_PATH_AUTO && o->path != GEMM_MPI_PATH_CUDA_AWARE && o->path != GEMM_MPI_PATH_STAGED &&
        o->path != GEMM_MPI_PATH_CUDA_IPC)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.path = %d: AUTO, CUDA_AWARE, CUDA_IPC or STAGED", x->func,
                          (int)o->path);
    if (o->slabs < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.slabs = %d is negative", x->func, o->slabs);
    if (o->threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.threads = %d is negative", x->func, o->threads);
    if (x->distributed != 1 && (o->root < 0 || o->root >= x->P))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.root = %d, but there are %d ranks", x->func, o->root, x->P);
    return GEMM_OK;
}

/* This rank's checks in argument order, and the canonical problem made
   once (gemm__prepare). The root-held call reads matrices on the root
   only: there every check; elsewhere the scalars' (a rank that holds no
   matrix passes the smallest leading dimensions). The distributed call
   checks the scalars so, then this rank's pieces. `u`: the caller's grid. */
static gemm_status gemm__mpi_prepare(gemm__mpi *x, const gemm__mpi_args *in, const gemm_mpi_blocks *u)
{
    int full = !x->distributed && x->rank == x->o.root;
    int64_t lda = full ? in->lda : gemm__mpi_min_ld(in->layout, in->transa, in->m, in->k);
    int64_t ldb = full ? in->ldb : gemm__mpi_min_ld(in->layout, in->transb, in->k, in->n);
    int64_t ldc = full ? in->ldc : gemm__mpi_min_ld(in->layout, GEMM_NO_TRANS, in->m, in->n);
    gemm_status s = gemm__prepare(x->func, in->layout, in->transa, in->transb, in->m, in->n, in->k, in->alpha == 0,
                                  full ? in->A != NULL : 1, lda, full ? in->B != NULL : 1, ldb, in->beta == 1,
                                  full ? in->C != NULL : 1, ldc, &x->p);
    if (s != GEMM_OK) return s;
    x->alpha = in->alpha;
    x->beta = in->beta;
    x->A = x->p.swapped ? in->B : in->A;
    x->B = x->p.swapped ? in->A : in->B;
    x->C = in->C;
    gemm__mpi_grid_view(u, x->p.swapped, &x->g);
    x->kb_full = x->g.kb;
    if (x->distributed) s = gemm__mpi_check_pieces(x, in);
    return s != GEMM_OK ? s : gemm__mpi_check_options(x);
}

/* The plan's shape, checked once at its creation as a call with the
   smallest leading dimensions would be, then the options. */
static gemm_status gemm__mpi_check_shape(gemm__mpi *x, const gemm_mpi_blocks *u)
{
    gemm_status s;
    if (x->precision != GEMM_F32 && x->precision != GEMM_F64)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: precision = %d, not GEMM_F32 or GEMM_F64", x->func,
                          (int)x->precision);
    s = gemm__prepare(x->func, x->layout, x->transa, x->transb, x->m, x->n, x->k, 0, 1,
                      gemm__mpi_min_ld(x->layout, x->transa, x->m, x->k), 1,
                      gemm__mpi_min_ld(x->layout, x->transb, x->k, x->n), 0, 1,
                      gemm__mpi_min_ld(x->layout, GEMM_NO_TRANS, x->m, x->n), &x->p);
    if (s != GEMM_OK) return s;
    gemm__mpi_grid_view(u, x->p.swapped, &x->g);
    x->kb_full = x->g.kb;
    return gemm__mpi_check_options(x);
}

/* An execute's options: the outputs, and otherwise zero or the plan's own
   values (the same struct may serve the create and its executes). */
static gemm_status gemm__mpi_check_exec_options(const gemm__mpi *x, const gemm_mpi_options *e)
{
    const gemm_mpi_options *o = &x->o;
    const char *bad = NULL;
    if (!e) return GEMM_OK;
    if (e->local && e->local != o->local) bad = "local";
    else if (e->algorithm && e->algorithm != o->algorithm) bad = "algorithm";
    else if (e->overlap && !o->overlap) bad = "overlap";
    else if (e->path && e->path != o->path) bad = "path";
    else if (e->root && e->root != o->root) bad = "root";
    else if (e->max_host_bytes && e->max_host_bytes != o->max_host_bytes) bad = "max_host_bytes";
    else if (e->max_device_bytes && e->max_device_bytes != o->max_device_bytes) bad = "max_device_bytes";
    else if (e->threads && e->threads != o->threads) bad = "threads";
    else if (e->slabs && e->slabs != o->slabs) bad = "slabs";
    if (bad)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.%s differs from the plan's: it is fixed when the plan "
                          "is created", x->func, bad);
    return GEMM_OK;
}
/* <<mpi check */
/* >>mpi plan: src/mpi/plan.c */
/* ---- a plan: set up once, freed once ------------------------------------------ */

struct gemm_mpi_plan {
    gemm__mpi x;
};

static void gemm__mpi_init(gemm__mpi *x, const char *func, gemm_precision precision, int form, gemm_layout layout,
                           gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                           const gemm_mpi_options *options)
{
    memset(x, 0, sizeof *x);
    x->func = func;
    x->distributed = form; /* -1: a plan, which serves both forms */
    x->precision = precision;
    x->es = gemm_precision_size(precision);
    x->layout = layout;
    x->transa = transa;
    x->transb = transb;
    x->m = m;
    x->n = n;
    x->k = k;
    if (options) x->o = *options;
    x->cuda = x->o.local == GEMM_MPI_LOCAL_CUDA;
    x->comm = x->row_comm = MPI_COMM_NULL;
    x->stage_req[0] = x->stage_req[1] = MPI_REQUEST_NULL;
    x->st = GEMM_OK;
    x->path = GEMM_MPI_PATH_HOST; /* until the setup picks another */
}

/* The values every rank must pass alike, and their names for the vote. */
#define GEMM__MPI_SHAPE_VALUES 16
static const char *const gemm__mpi_shape_names[] = {
    "precision", "layout", "transa", "transb", "m", "n", "k", "options.local", "options.algorithm",
    "options.overlap", "options.path", "options.root", "options.max_host_bytes", "options.max_device_bytes",
    "options.threads", "options.slabs", "alpha", "beta", "forms (a root-held and a distributed execute)"};

static void gemm__mpi_shape_values(const gemm__mpi *x, int64_t *v)
{
    v[0] = x->precision; v[1] = x->layout; v[2] = x->transa; v[3] = x->transb;
    v[4] = x->m; v[5] = x->n; v[6] = x->k;
    v[7] = x->o.local; v[8] = x->o.algorithm; v[9] = x->o.overlap != 0; v[10] = x->o.path;
    v[11] = x->distributed == 1 ? 0 : x->o.root;
    v[12] = (int64_t)x->o.max_host_bytes; v[13] = (int64_t)x->o.max_device_bytes;
    v[14] = x->o.threads;
    v[15] = x->o.slabs > 1 ? x->o.slabs : 1;
}

/* The plan's communicator, the grid and this rank's checks of the shape
   and options; with `vote`, every rank learns that all are valid and
   alike (the one-shot calls vote once, with alpha and beta, later). */
static gemm_status gemm__mpi_begin(gemm__mpi *x, MPI_Comm comm, int vote)
{
    int64_t v[GEMM__MPI_SHAPE_VALUES];
    gemm_status s = gemm__mpi_open(x, comm);
    if (s != GEMM_OK) return s;
    s = gemm_mpi_blocks_of(x->P, x->rank, x->m < 0 ? 0 : x->m, x->n < 0 ? 0 : x->n, x->k < 0 ? 0 : x->k, &x->u);
    if (s == GEMM_OK) s = gemm__mpi_check_shape(x, &x->u);
    gemm__mpi_keep(x, s);
    if (!vote) return GEMM_OK;
    gemm__mpi_shape_values(x, v);
    s = gemm__mpi_vote(x, x->comm, v, GEMM__MPI_SHAPE_VALUES, gemm__mpi_shape_names);
    if (s != GEMM_OK) gemm__mpi_agreed(x, s);
    return s;
}

#ifdef GEMM_MPI_CUDA
/* IPC path: blocks v[0..n) will go to `to`, as many come from `from`:
   their handles travel now and the receivers map them. */
static void gemm__mpi_map_list(gemm__mpi *x, void **v, int n, int to, int from, size_t bytes)
{
    int i;
    if (!v || to == x->rank || x->st != GEMM_OK) return;
    for (i = 0; i < n; i++) {
        gemm__mpi_post(x->sends, &x->nsend, v[i], to, i, bytes);
        gemm__mpi_post(x->recvs, &x->nrecv, NULL, from, i, bytes);
    }
    gemm__mpi_map_queued(x);
}
#endif

/* IPC path: maps every peer block this rank will copy from: every a block
   (slots and spares) of the right neighbour, every b block of the one
   below, and for the distributed skew the natural blocks sent here. */
static void gemm__mpi_map_blocks(gemm__mpi *x, int form)
{
#ifdef GEMM_MPI_CUDA
    int slots = x->g.br * x->g.bc, which;
    if (x->path != GEMM_MPI_PATH_CUDA_IPC || x->st != GEMM_OK) return;
    if (form != 1) {
        if (x->o.algorithm == GEMM_MPI_CANNON) {
            gemm__mpi_map_list(x, x->a, slots, x->left, x->right, x->abytes);
            gemm__mpi_map_list(x, x->aspare, x->g.br, x->left, x->right, x->abytes);
        }
        gemm__mpi_map_list(x, x->b, slots, x->up, x->down, x->bbytes);
        gemm__mpi_map_list(x, x->bspare, x->g.bc, x->up, x->down, x->bbytes);
    }
    for (which = 0; form == 1 && x->temps && which < 2 && x->st == GEMM_OK; which++) {
        gemm__mpi_queue_skew(x, which);
        gemm__mpi_map_queued(x);
    }
#else
    (void)x;
    (void)form;
#endif
}

/* One form's buffers go (a failed allocation, or the plan's end). */
static void gemm__mpi_free_form(gemm__mpi *x, int form)
{
    int k;
    if (form == 1) {
        gemm__mpi_blocks_free(x, x->temps, x->g.br * x->g.bc);
        x->temps = NULL;
        return;
    }
    gemm__mpi_blocks_free(x, x->land_a, x->g.br * x->g.bc);
    gemm__mpi_blocks_free(x, x->land_b, x->g.br * x->g.bc);
    x->land_a = x->land_b = NULL;
    for (k = 0; k < 2; k++) {
        gemm__mpi_release(x, x->stage[k], 0);
        x->stage[k] = NULL;
#ifdef GEMM_MPI_CUDA
        if (x->stage_ev[k]) cudaEventDestroy(x->stage_ev[k]);
        x->stage_ev[k] = NULL;
#endif
    }
}

/* The plan's shared blocks (and, form >= 0, that form's buffers): path,
   caps, allocation, each agreed by every rank; then the IPC mappings. */
static void gemm__mpi_setup(gemm__mpi *x, int form)
{
    gemm_status s;
    double t0 = gemm__mpi_now();
    x->big = gemm__mpi_block_bytes(&x->g, x->es, &x->abytes, &x->bbytes, &x->cbytes, NULL);
    x->path = GEMM_MPI_PATH_HOST;
    if (x->cuda) gemm__mpi_choose_path(x);
    s = gemm__mpi_fits(x, form);
    if (s == GEMM_OK) {
        gemm__mpi_neighbours(x);
        gemm__mpi_alloc_blocks(x);
        gemm__mpi_alloc_lists(x);
        if (form >= 0) gemm__mpi_alloc_form(x, form);
        s = gemm__mpi_vote(x, x->comm, NULL, 0, NULL);
    }
    if (s != GEMM_OK) gemm__mpi_agreed(x, s);
    else {
        x->setup_done = 1;
        if (form >= 0) x->form_ready[form] = 1;
        gemm__mpi_map_blocks(x, -1);
        if (form == 1) gemm__mpi_map_blocks(x, 1);
    }
    x->t.setup_s += gemm__mpi_now() - t0;
}

/* Before an execute's product: the plan's blocks and this form's buffers,
   allocated now if this is the first time (later executes skip it all). */
static void gemm__mpi_form(gemm__mpi *x, int form)
{
    gemm_status s;
    double t0;
    if (!x->setup_done) { gemm__mpi_setup(x, form); return; }
    if (x->form_ready[form]) return;
    t0 = gemm__mpi_now();
    s = gemm__mpi_fits(x, form);
    if (s == GEMM_OK) {
        gemm__mpi_alloc_form(x, form);
        s = gemm__mpi_vote(x, x->comm, NULL, 0, NULL);
        if (s != GEMM_OK) gemm__mpi_free_form(x, form);
    }
    if (s != GEMM_OK) gemm__mpi_agreed(x, s);
    else {
        x->form_ready[form] = 1;
        gemm__mpi_map_blocks(x, form);
    }
    x->t.setup_s += gemm__mpi_now() - t0;
}
/* <<mpi plan */
/* >>mpi teardown: src/mpi/teardown.c */
/* ---- the end of a plan ------------------------------------------------------ */

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
/* <<mpi teardown */
/* >>mpi execute: src/mpi/execute.c */
/* ---- one execute of a plan ------------------------------------------------------ */

/* The execute's vote: every rank's arguments are valid, and every rank
   passed the same shape, options, scalars and form. Returns what the call
   has to do. */
static gemm__work gemm__mpi_agree(gemm__mpi *x, const gemm__mpi_args *in)
{
    int64_t v[GEMM__MPI_SHAPE_VALUES + 3];
    gemm_status s;
    if (x->st == GEMM_OK) gemm__mpi_keep(x, gemm__mpi_prepare(x, in, &x->u));
    gemm__mpi_shape_values(x, v);
    memcpy(&v[GEMM__MPI_SHAPE_VALUES], &in->alpha, 8);
    memcpy(&v[GEMM__MPI_SHAPE_VALUES + 1], &in->beta, 8);
    v[GEMM__MPI_SHAPE_VALUES + 2] = x->distributed;
    s = gemm__mpi_vote(x, x->comm, v, GEMM__MPI_SHAPE_VALUES + 3, gemm__mpi_shape_names);
    if (s != GEMM_OK) gemm__mpi_agreed(x, s);
    return s == GEMM_OK ? x->p.work : GEMM__WORK_NONE;
}

/* C = beta*C needs no communication: the rank holding C does it (on the
   root's host, or on each rank's GPU for distributed pieces). */
static void gemm__mpi_scale_only(gemm__mpi *x)
{
    double t0 = gemm__mpi_now();
    if (x->distributed) {
        if (x->cuda && !x->cuda_ready) gemm__mpi_cuda_init(x);
        gemm__mpi_scale(x, x->cuda, x->g.c.rows, x->g.c.cols, x->C, x->p.ldc);
    } else if (x->rank == x->o.root)
        gemm__mpi_scale(x, 0, x->p.m, x->p.n, x->C, x->p.ldc);
    x->t.compute_s += gemm__mpi_now() - t0;
}

/* The product on the plan's blocks: the blocks in place, the rounds, then
   C, written only when every rank's blocks are right. */
static void gemm__mpi_product(gemm__mpi *x)
{
    gemm_status s;
    if (gemm__mpi_streams(x)) gemm__mpi_stream(x);
    else {
        if (x->distributed) gemm__mpi_local_blocks(x);
        else gemm__mpi_distribute(x);
        if (x->o.algorithm == GEMM_MPI_FOX) gemm__mpi_fox(x);
        else gemm__mpi_cannon(x);
    }
    s = gemm__mpi_vote(x, x->comm, NULL, 0, NULL);
    if (s != GEMM_OK) gemm__mpi_agreed(x, s);
    else if (x->distributed) gemm__mpi_store_c(x);
    else gemm__mpi_gather(x);
}

/* Fills the options' outputs, when given, on every return. */
static void gemm__mpi_outputs(const gemm__mpi *x, const gemm_timing *max)
{
    if (x->o.timing) *x->o.timing = x->t;
    if (x->o.timing_max) *x->o.timing_max = *max;
    if (x->o.path_used) *x->o.path_used = x->path;
}

/* The times' maximum (every rank reduces, timing or not, so that ranks
   asking on some ranks only call the same collectives), then, unless a
   vote already agreed the outcome, the last vote: every rank returns the
   same status. gemm_timing is all doubles. */
static gemm_status gemm__mpi_close(gemm__mpi *x, double t_start, int final_vote)
{
    gemm_timing max;
    gemm_status s;
    x->t.total_s = gemm__mpi_now() - t_start;
    max = x->t;
    GEMM__MPI_DO(x, MPI_Allreduce(&x->t, &max, (int)(sizeof x->t / sizeof(double)), MPI_DOUBLE, MPI_MAX, x->comm));
    if (x->agreed || !final_vote) s = x->st == GEMM_OK ? GEMM_OK : gemm__fail(x->st, "%s", x->detail);
    else s = gemm__mpi_vote(x, x->comm, NULL, 0, NULL);
    if (s == GEMM_ERR_MPI) x->broken = 1; /* transfers may be pending: the plan cannot go on */
    gemm__mpi_outputs(x, &max);
    return s;
}

/* One execute: the form `form` (0 root-held, 1 distributed) on the data in
   `in` (the plan's shape with this call's scalars and pointers). */
static gemm_status gemm__mpi_execute(gemm__mpi *x, gemm_precision precision, int form, const gemm__mpi_args *in,
                                     const gemm_mpi_options *exec_options, double t_start)
{
    gemm__work work;
    x->distributed = form;
    x->chunk = 0;
    x->prelaunched = 0;
    if (x->st == GEMM_OK && precision != x->precision)
        gemm__mpi_keep(x, gemm__fail(GEMM_ERR_INVALID_ARG, "%s: the plan is for %s, this call for %s", x->func,
                                     gemm_precision_name(x->precision), gemm_precision_name(precision)));
    if (x->st == GEMM_OK) gemm__mpi_keep(x, gemm__mpi_check_exec_options(x, exec_options));
    work = gemm__mpi_agree(x, in);
    if (work == GEMM__WORK_SCALE) gemm__mpi_scale_only(x);
    else if (work == GEMM__WORK_FULL) {
        gemm__mpi_form(x, form);
        if (x->st == GEMM_OK) gemm__mpi_product(x);
    }
    return gemm__mpi_close(x, t_start, 1);
}
/* <<mpi execute */
/* >>mpi entry: src/mpi/entry.c */
/* ---- the entry points ------------------------------------------------------------ */

/* Outputs of a call that could not start (MPI not running, no communicator). */
static void gemm__mpi_outputs_early(const gemm_mpi_options *o)
{
    gemm_timing zero;
    memset(&zero, 0, sizeof zero);
    if (!o) return;
    if (o->timing) *o->timing = zero;
    if (o->timing_max) *o->timing_max = zero;
    if (o->path_used) *o->path_used = GEMM_MPI_PATH_HOST;
}

GEMM_DEF gemm_status gemm_mpi_plan_create(MPI_Comm comm, gemm_precision precision, gemm_layout layout,
                                          gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n,
                                          int64_t k, const gemm_mpi_options *options, gemm_mpi_plan **plan)
{
    static const char *func = "gemm_mpi_plan_create";
    gemm_mpi_plan *made = NULL;
    gemm__mpi x;
    gemm_status s;
    double t0;
    gemm__clear_error();
    if (!plan) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: plan is NULL", func);
    *plan = NULL;
    s = gemm__mpi_running(func);
    if (s != GEMM_OK) { gemm__mpi_outputs_early(options); return s; }
    t0 = gemm__mpi_now();
    gemm__mpi_init(&x, func, precision, -1, layout, transa, transb, m, n, k, options);
    s = gemm__mpi_begin(&x, comm, 1);
    if (x.comm == MPI_COMM_NULL) { gemm__mpi_outputs_early(options); return s; }
    if (s == GEMM_OK) gemm__mpi_setup(&x, -1);
    if (x.st == GEMM_OK && !(made = (gemm_mpi_plan *)GEMM_MALLOC(sizeof *made)))
        gemm__mpi_keep(&x, gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for the plan", func));
    if (!x.agreed) {
        s = gemm__mpi_vote(&x, x.comm, NULL, 0, NULL);
        if (s != GEMM_OK) gemm__mpi_agreed(&x, s);
    }
    x.t.setup_s = gemm__mpi_now() - t0;
    s = gemm__mpi_close(&x, t0, 0);
    x.o.timing = x.o.timing_max = NULL; /* the create's outputs, not the executes' */
    x.o.path_used = NULL;
    if (s != GEMM_OK) {
        GEMM_FREE(made);
        gemm__mpi_free_all(&x, 1);
        return gemm__fail(s, "%s", x.detail);
    }
    made->x = x;
    *plan = made;
    return GEMM_OK;
}

GEMM_DEF gemm_status gemm_mpi_plan_destroy(gemm_mpi_plan **plan)
{
    gemm_status s;
    gemm__clear_error();
    if (!plan) return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_mpi_plan_destroy: plan is NULL");
    if (!*plan) return GEMM_OK;
    (*plan)->x.func = "gemm_mpi_plan_destroy";
    s = gemm__mpi_free_all(&(*plan)->x, 1);
    GEMM_FREE(*plan);
    *plan = NULL;
    return s;
}

/* The one function behind the four plan executes. */
static gemm_status gemm__mpi_plan_call(gemm_mpi_plan *plan, const char *func, gemm_precision precision, int form,
                                       double alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                                       double beta, void *C, int64_t ldc, const gemm_mpi_options *options)
{
    gemm__mpi *x;
    gemm__mpi_args in;
    gemm_status s;
    gemm__clear_error();
    if (!plan) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: plan is NULL", func);
    x = &plan->x;
    s = gemm__mpi_running(func);
    if (s == GEMM_OK && x->broken)
        s = gemm__fail(GEMM_ERR_MPI, "%s: an MPI call failed in an earlier execute of this plan: destroy it", func);
    if (s != GEMM_OK) { gemm__mpi_outputs_early(options); return s; }
    x->func = func;
    x->st = GEMM_OK;
    x->agreed = 0;
    x->detail[0] = '\0';
    memset(&x->t, 0, sizeof x->t);
    x->o.timing = options ? options->timing : NULL;
    x->o.timing_max = options ? options->timing_max : NULL;
    x->o.path_used = options ? options->path_used : NULL;
    in.layout = x->layout; in.transa = x->transa; in.transb = x->transb;
    in.m = x->m; in.n = x->n; in.k = x->k;
    in.alpha = alpha; in.A = A; in.lda = lda; in.B = B; in.ldb = ldb; in.beta = beta; in.C = C; in.ldc = ldc;
    return gemm__mpi_execute(x, precision, form, &in, options, gemm__mpi_now());
}

GEMM_DEF gemm_status gemm_mpi_sgemm_plan(gemm_mpi_plan *plan, float alpha, const float *A, int64_t lda,
                                         const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                                         const gemm_mpi_options *options)
{
    return gemm__mpi_plan_call(plan, "gemm_mpi_sgemm_plan", GEMM_F32, 0, alpha, A, lda, B, ldb, beta, C, ldc,
                               options);
}

GEMM_DEF gemm_status gemm_mpi_dgemm_plan(gemm_mpi_plan *plan, double alpha, const double *A, int64_t lda,
                                         const double *B, int64_t ldb, double beta, double *C, int64_t ldc,
                                         const gemm_mpi_options *options)
{
    return gemm__mpi_plan_call(plan, "gemm_mpi_dgemm_plan", GEMM_F64, 0, alpha, A, lda, B, ldb, beta, C, ldc,
                               options);
}

GEMM_DEF gemm_status gemm_mpi_sgemm_plan_dist(gemm_mpi_plan *plan, float alpha, const float *A, int64_t lda,
                                              const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                                              const gemm_mpi_options *options)
{
    return gemm__mpi_plan_call(plan, "gemm_mpi_sgemm_plan_dist", GEMM_F32, 1, alpha, A, lda, B, ldb, beta, C, ldc,
                               options);
}

GEMM_DEF gemm_status gemm_mpi_dgemm_plan_dist(gemm_mpi_plan *plan, double alpha, const double *A, int64_t lda,
                                              const double *B, int64_t ldb, double beta, double *C, int64_t ldc,
                                              const gemm_mpi_options *options)
{
    return gemm__mpi_plan_call(plan, "gemm_mpi_dgemm_plan_dist", GEMM_F64, 1, alpha, A, lda, B, ldb, beta, C, ldc,
                               options);
}

/* A one-shot call: a plan made, executed once and freed, in one pass (the
   shape's vote is the execute's; the blocks are allocated only when there
   is a product to make, and freed after it). */
static gemm_status gemm__mpi_call(MPI_Comm comm, const char *func, gemm_precision precision, int form,
                                  const gemm__mpi_args *in, const gemm_mpi_options *options)
{
    gemm__mpi x;
    gemm_status s;
    double t0;
    gemm__clear_error();
    s = gemm__mpi_running(func);
    if (s != GEMM_OK) { gemm__mpi_outputs_early(options); return s; }
    t0 = gemm__mpi_now();
    gemm__mpi_init(&x, func, precision, form, in->layout, in->transa, in->transb, in->m, in->n, in->k, options);
    s = gemm__mpi_begin(&x, comm, 0);
    if (x.comm == MPI_COMM_NULL) {
        x.t.total_s = gemm__mpi_now() - t0;
        gemm__mpi_outputs(&x, &x.t);
        return s;
    }
    s = gemm__mpi_execute(&x, precision, form, in, NULL, t0);
    gemm__mpi_free_all(&x, x.path == GEMM_MPI_PATH_CUDA_IPC);
    return s;
}

GEMM_DEF gemm_status gemm_mpi_sgemm(MPI_Comm comm, gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                                    const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                                    const gemm_mpi_options *options)
{
    gemm__mpi_args in = {layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc};
    return gemm__mpi_call(comm, "gemm_mpi_sgemm", GEMM_F32, 0, &in, options);
}

GEMM_DEF gemm_status gemm_mpi_dgemm(MPI_Comm comm, gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                                    const double *B, int64_t ldb, double beta, double *C, int64_t ldc,
                                    const gemm_mpi_options *options)
{
    gemm__mpi_args in = {layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc};
    return gemm__mpi_call(comm, "gemm_mpi_dgemm", GEMM_F64, 0, &in, options);
}

GEMM_DEF gemm_status gemm_mpi_sgemm_dist(MPI_Comm comm, gemm_layout layout, gemm_transpose transa,
                                         gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                         const float *A, int64_t lda, const float *B, int64_t ldb, float beta,
                                         float *C, int64_t ldc, const gemm_mpi_options *options)
{
    gemm__mpi_args in = {layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc};
    return gemm__mpi_call(comm, "gemm_mpi_sgemm_dist", GEMM_F32, 1, &in, options);
}

GEMM_DEF gemm_status gemm_mpi_dgemm_dist(MPI_Comm comm, gemm_layout layout, gemm_transpose transa,
                                         gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                         const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                                         double *C, int64_t ldc, const gemm_mpi_options *options)
{
    gemm__mpi_args in = {layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc};
    return gemm__mpi_call(comm, "gemm_mpi_dgemm_dist", GEMM_F64, 1, &in, options);
}

#ifdef GEMM__TEST_HOOKS
GEMM_DEF void gemm__mpi_plan_counts(const gemm_mpi_plan *plan, long *allocations, long *mappings)
{
    *allocations = plan ? plan->x.allocations : 0;
    *mappings = plan ? plan->x.mappings : 0;
}
#endif
/* <<mpi entry */

#ifdef __cplusplus
}
#endif

#endif /* GEMM_IMPLEMENTATION */

/* ---- the public API: types, options and calls --------------------------------- */

/* What gemm_mpi.h declares for its users; the header's doc block tells how
   to use it. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include "../core/api.h" /* gemm_status, gemm_timing, gemm_layout, GEMM_DEF */
#include "system.h"      /* MPI_Comm */

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
    GEMM_MPI_PATH_CUDA_IPC = 4,   /* same node: copies from the peer's GPU memory */
    GEMM_MPI_PATH_ROOT_DEVICES = 5 /* root-held, same node: the root's gemm_cuda_?gemm_host drives every rank's
                                      GPU from its host memory, no message (AUTO's choice when the root can
                                      reach them) */
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
                                      ranks multiply this one; 1 = all before the rounds; 0 = chosen from the
                                      sizes (slabs about 4096 deep with the CUDA multiply, else 1) */
    int verify;                    /* 1: check the product with row and column checksums over the grid;
                                      GEMM_ERR_VERIFY on every rank when it fails them (a plan's create or
                                      any execute may ask) */
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

/* Complex, root-held: interleaved complex A, B, C (float or double pairs)
   on options->root, alpha and beta by pointer on every rank (the same
   values), op() in {GEMM_NO_TRANS, GEMM_TRANS, GEMM_CONJ_TRANS}. The
   root expands op(A) with alpha into a real matrix twice A's size (and
   copies a transposed B; with a complex beta, C too) and the ranks run
   the real call of 2m x n x 2k (Cannon or Fox, the CPU or the CUDA
   multiply, as options say): the same speed as the real calls at the
   complex flop count. */
GEMM_DEF gemm_status gemm_mpi_cgemm(MPI_Comm comm, gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda,
                                    const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
                                    const gemm_mpi_options *options);
GEMM_DEF gemm_status gemm_mpi_zgemm(MPI_Comm comm, gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda,
                                    const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
                                    const gemm_mpi_options *options);

/* Complex plans: gemm_mpi_plan_create's arguments (precision GEMM_F32 for
   cgemm, GEMM_F64 for zgemm; op() in {N, T, C}), executed by the calls
   below, root-held (as gemm_mpi_cgemm) or distributed (each rank's pieces
   of op(A), op(B) and C as gemm_mpi_blocks_of(P, rank, m, n, k) gives
   them, in complex elements, stored as the real _dist calls store theirs).
   alpha and beta may change from execute to execute. A complex plan is a
   real plan of the real form (2m x n x 2k column-major, m x 2n x 2k
   row-major) whose blocks keep each element's two reals together; an
   execute expands alpha*op(A) (row-major: alpha*op(B)) where the data
   is, into a buffer the plan keeps (a transposed other operand is copied,
   and with a complex beta C too), then runs the real plan: the real
   calls' speed at the complex flop count. The real executes refuse a
   complex plan and these a real one; gemm_mpi_plan_destroy frees both.
   The distributed form is host memory only (not with the CUDA multiply).
   options' timing is the real product's. */
GEMM_DEF gemm_status gemm_mpi_plan_create_complex(MPI_Comm comm, gemm_precision precision, gemm_layout layout,
                                                  gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n,
                                                  int64_t k, const gemm_mpi_options *options, gemm_mpi_plan **plan);
GEMM_DEF gemm_status gemm_mpi_cgemm_plan(gemm_mpi_plan *plan, const void *alpha, const void *A, int64_t lda,
                                         const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
                                         const gemm_mpi_options *options);
GEMM_DEF gemm_status gemm_mpi_zgemm_plan(gemm_mpi_plan *plan, const void *alpha, const void *A, int64_t lda,
                                         const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
                                         const gemm_mpi_options *options);
GEMM_DEF gemm_status gemm_mpi_cgemm_plan_dist(gemm_mpi_plan *plan, const void *alpha, const void *A, int64_t lda,
                                              const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
                                              const gemm_mpi_options *options);
GEMM_DEF gemm_status gemm_mpi_zgemm_plan_dist(gemm_mpi_plan *plan, const void *alpha, const void *A, int64_t lda,
                                              const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
                                              const gemm_mpi_options *options);

/* Complex, distributed, one shot: a complex plan made, executed on this
   rank's pieces and destroyed. */
GEMM_DEF gemm_status gemm_mpi_cgemm_dist(MPI_Comm comm, gemm_layout layout, gemm_transpose transa,
                                         gemm_transpose transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                         const void *A, int64_t lda, const void *B, int64_t ldb, const void *beta,
                                         void *C, int64_t ldc, const gemm_mpi_options *options);
GEMM_DEF gemm_status gemm_mpi_zgemm_dist(MPI_Comm comm, gemm_layout layout, gemm_transpose transa,
                                         gemm_transpose transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                         const void *A, int64_t lda, const void *B, int64_t ldb, const void *beta,
                                         void *C, int64_t ldc, const gemm_mpi_options *options);

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

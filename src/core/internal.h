/* What the backends share behind the public calls (gemm__ names, not for
   users): the canonical problem every entry point hands inward, the batch
   descriptions, the argument checks' declarations, the error detail, and
   the test hooks. */
#pragma once

#include "api.h" /* gemm_status, gemm_layout, gemm_transpose, GEMM_DEF */

#ifdef __cplusplus
extern "C" {
#endif

/* What a call has to do once its arguments are valid. */
typedef enum gemm__work {
    GEMM__WORK_NONE = 0,   /* m == 0, n == 0, or C = 1*C: return at once */
    GEMM__WORK_SCALE = 1,  /* alpha == 0 or k == 0: C = beta*C, A and B unread */
    GEMM__WORK_FULL = 2    /* the full product */
} gemm__work;

/* The one canonical form of a checked call, made by gemm__prepare and
   shared by every backend.

   C is column-major, m x n, element (i, j) at C[i + j*ldc]. A row-major
   call is the transposed problem C^T = op(B)^T op(A)^T on the same memory,
   so there the caller's A and B change places (swapped = 1) and so do m
   and n; "a" and "b" below name the operands after that swap. op(a) is
   m x k with element (i, p) at a[i*ars + p*acs]; op(b) is k x n with
   element (p, j) at b[p*brs + j*bcs]. a_trans and b_trans say whether the
   operand is read transposed in this column-major view: a_trans means
   op(a)'s K index is contiguous (acs == 1), !b_trans means op(b)'s is
   (brs == 1). Extents count the elements from the first to one past the
   last that the call may touch (0 for a matrix it does not touch); they
   were computed without overflow, so every offset below them fits. */
typedef struct gemm__problem {
    gemm__work work;
    int64_t m, n, k;
    int swapped;
    int a_trans, b_trans;
    int a_conj, b_conj; /* op() is the conjugate transpose (GEMM_CONJ_TRANS; then *_trans too): the
                           complex calls conjugate, the real ones ignore it */
    int64_t lda, ldb, ldc;
    int64_t ars, acs, brs, bcs;
    int64_t a_extent, b_extent, c_extent;
    int bad_arg; /* after a failed check: the argument at fault, by its position in the
                    call's list (cblas_?gemm's: layout = 1, ..., ldc = 14); else 0 */
} gemm__problem;

/* The checks of the contract, in argument order, then the canonical form.
   `func` names the caller in the error detail. Pointers are passed as
   "present" flags so one function serves every precision and memory space.
   On success returns GEMM_OK and fills *p; on failure sets the detail and
   leaves *p unspecified. */
GEMM_DEF gemm_status gemm__prepare(const char *func, gemm_layout layout, gemm_transpose transa,
                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                   int alpha_is_zero, int have_A, int64_t lda, int have_B, int64_t ldb,
                                   int beta_is_one, int have_C, int64_t ldc, gemm__problem *p);

/* The complex calls' checks: gemm__prepare's, with alpha and beta read
   from the caller's pointers (two floats for GEMM_F32, cgemm; two doubles
   for GEMM_F64, zgemm) into alpha_z and beta_z; a NULL alpha or beta is
   refused in its place in the list (7 and 12); every span must fit twice
   the bytes of a real element. p->a_conj / b_conj say which operand is
   conjugated. */
GEMM_DEF gemm_status gemm__prepare_complex(const char *func, gemm_precision precision, gemm_layout layout,
                                           gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n,
                                           int64_t k, const void *alpha, int have_A, int64_t lda, int have_B,
                                           int64_t ldb, const void *beta, int have_C, int64_t ldc,
                                           gemm__problem *p, double alpha_z[2], double beta_z[2]);

/* Batches: members that share one gemm__problem (the single call's checks,
   made once) and differ in where their operands are. The strided form
   steps each operand by a fixed stride; the pointer-array form lists each
   member's operands, read through the backend's gemm__batch_addr_fn, so
   one check serves host pointers, device pointers and buffer offsets. */

/* The byte address of member i of a list (0 for NULL). */
typedef uint64_t (*gemm__batch_addr_fn)(const void *list, int64_t i);

typedef struct gemm__batch {
    int64_t count;
    /* strided form: elements from one member's operand to the next, for
       the canonical a and b (swapped like the problem's) and C */
    int64_t stride_a, stride_b, stride_c;
    /* pointer-array form (NULL otherwise): the lists of the canonical a,
       b and of C, and how to read an address from them */
    const void *a_list, *b_list, *c_list;
    gemm__batch_addr_fn addr_ab, addr_c;
    int64_t bad_member; /* after a failed member check: the member at fault; else -1 */
} gemm__batch;

/* The checks of a strided batch: the single call's (strides and count
   aside, the same positions in *p's bad_arg: layout = 1, ..., A = 8,
   lda = 9; then stride_a = 10, B = 11, ldb = 12, stride_b = 13, beta = 14,
   C = 15, ldc = 16, stride_c = 17, batch_count = 18), strides >= 0, every
   member's span within 2^60 elements, and members that write C never
   writing one element twice. Fills *p and *bt on success. */
GEMM_DEF gemm_status gemm__prepare_strided(const char *func, gemm_layout layout, gemm_transpose transa,
                                           gemm_transpose transb, int64_t m, int64_t n, int64_t k, int alpha_is_zero,
                                           int have_A, int64_t lda, int64_t stride_a, int have_B, int64_t ldb,
                                           int64_t stride_b, int beta_is_one, int have_C, int64_t ldc,
                                           int64_t stride_c, int64_t batch_count, gemm__problem *p, gemm__batch *bt);

/* The checks of a pointer-array batch: the single call's (positions as in
   cblas_?gemm's list, batch_count = 15), a list and every member in it
   non-NULL where read or written (else bt->bad_member names the first bad
   one), and no two members writing one element of C (elements of
   elem_size bytes). A, B, C are the caller's lists; addr_ab reads A and B,
   addr_c reads C. Fills *p and *bt on success. */
GEMM_DEF gemm_status gemm__prepare_batched(const char *func, gemm_layout layout, gemm_transpose transa,
                                           gemm_transpose transb, int64_t m, int64_t n, int64_t k, int alpha_is_zero,
                                           const void *A, int64_t lda, const void *B, int64_t ldb, int beta_is_one,
                                           const void *C, int64_t ldc, int64_t batch_count,
                                           gemm__batch_addr_fn addr_ab, gemm__batch_addr_fn addr_c,
                                           size_t elem_size, gemm__problem *p, gemm__batch *bt);

/* One member's matrix as the overlap checks see it: column-major, m
   elements per column (contiguous), n columns ld apart, at byte address
   addr; kind 0 for a C (written), else the matrix read (1 = the caller's
   A, 2 = B). */
typedef struct gemm__batch_rect {
    uint64_t addr;
    int64_t m, n, ld;
    int64_t member;
    int kind;
} gemm__batch_rect;

/* Whether two of the count rectangles share a byte (elements of es bytes);
   sorts r by address. Returns 1 and the two members (*first < *second)
   when they do, else 0. Costs O(count log count) when the rectangles'
   spans are disjoint or nearly so, up to O(count^2) when many interleave. */
GEMM_DEF int gemm__batch_overlap(gemm__batch_rect *r, int64_t count, size_t es, int64_t *first, int64_t *second);

/* Whether a written rectangle (kind 0) shares a byte with a read one
   (kind != 0); sorts r by address. Returns 1 and their indices in the
   sorted r when they do, else 0; costs as gemm__batch_overlap. */
GEMM_DEF int gemm__batch_reads_overlap(gemm__batch_rect *r, int64_t count, size_t es, int64_t *written,
                                       int64_t *read);

/* C must share no element with A or B where the call reads them (p->work
   is GEMM__WORK_FULL): for backends whose A, B and C are addresses in one
   address space (the CPU, its batches, the reference, the CBLAS names;
   CUDA's host and device pointers; an MPI rank's matrices), after the
   checks above. A, B, C are the caller's, as byte
   addresses, elements of es bytes. Matrices whose spans (first to last
   byte) are apart pass at once (an inlined test, gemm__overlap_apart);
   spans that meet are tested element by element, so blocks of one matrix
   side by side, or columns interleaved, pass. Fails with
   GEMM_ERR_INVALID_ARG, "C overlaps A" in the detail, p->bad_arg = 13. */
GEMM_DEF gemm_status gemm__check_overlap(const char *func, gemm__problem *p, uint64_t A, uint64_t B, uint64_t C,
                                         size_t es);

/* The same where A and B hold elements of es_ab bytes and C of es_c (the
   mixed-precision calls): the matrices are compared byte by byte. */
GEMM_DEF gemm_status gemm__check_overlap_sized(const char *func, gemm__problem *p, uint64_t A, uint64_t B, uint64_t C,
                                               size_t es_ab, size_t es_c);

/* The decision both make, for matrices given as column-major rectangles
   at their byte addresses (the caller's A and B of es_ab-byte elements, C
   of es_c): whether C shares a byte with A, then with B; the refusal
   (GEMM_ERR_INVALID_ARG, "C overlaps A") when it does. For callers that
   hold pieces rather than a problem's matrices (the MPI backend's local
   blocks). */
GEMM_DEF gemm_status gemm__check_overlap_rects(const char *func, const gemm__batch_rect *a, const gemm__batch_rect *b,
                                               const gemm__batch_rect *c, size_t es_ab, size_t es_c);

/* The same for a checked batch: every member's C against every member's A
   and B (strided: A, B, C are the caller's bases; the pointer-array form
   reads bt's lists). Whole-batch spans apart pass at once; else the
   members are sorted and swept (gemm__batch_reads_overlap), which may
   fail with GEMM_ERR_OUT_OF_MEMORY. A refusal names the members
   ("member 3: C overlaps A", "member 3's C overlaps member 5's B"), sets
   bt->bad_member to the C's member and p->bad_arg to C's position (13;
   15 in the strided list). */
GEMM_DEF gemm_status gemm__check_batch_overlap(const char *func, gemm__problem *p, gemm__batch *bt, uint64_t A,
                                               uint64_t B, uint64_t C, size_t es);

/* The same with A and B of es_ab-byte elements and C of es_c (the mixed
   batches), compared byte by byte. */
GEMM_DEF gemm_status gemm__check_batch_overlap_sized(const char *func, gemm__problem *p, gemm__batch *bt, uint64_t A,
                                                     uint64_t B, uint64_t C, size_t es_ab, size_t es_c);

/* Elements a stored rows x cols column-major matrix with leading dimension
   ld spans: (cols-1)*ld + rows, 0 when it is empty; -1 when that does not
   fit in int64_t. */
GEMM_DEF int64_t gemm__extent(int64_t rows, int64_t cols, int64_t ld);

/* Records `status` with a printf-style detail for gemm_last_error_detail()
   and returns `status`, so `return gemm__fail(...)` reads naturally. */
GEMM_DEF gemm_status gemm__fail(gemm_status status, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Clears this thread's detail; each public entry point calls it first. */
GEMM_DEF void gemm__clear_error(void);

/* In a check that returns the position of the argument at fault (0: none):
   records the detail and returns that position (cblas_?gemm's list:
   layout = 1, ..., ldc = 14, or the batch call's own). */
#define GEMM__BAD_ARG(position, ...) return (gemm__fail(GEMM_ERR_INVALID_ARG, __VA_ARGS__), (position))

/* Test hooks. The test suite defines GEMM__TEST_HOOKS before it includes
   the headers to reach paths that real inputs reach only on huge problems,
   broken devices or other CPUs; without the macro none of this exists and
   GEMM__HOOK(field, value) is just `value`. Each backend reads its own
   fields; zero (NULL) means "no override". Not thread-safe against running
   calls: tests set them between calls. */
#ifdef GEMM__TEST_HOOKS
typedef struct gemm__hooks {
    const char *cpu_kernel;   /* CPU: run this micro-kernel ("avx512", "avx2", "neon", "scalar") */
    int cpu_mc, cpu_kc, cpu_nc; /* CPU: block sizes (rounded up to the kernel's MR / NR) */
    int cpu_groups;           /* CPU: column groups of the packed path (job.h) */
    int cpu_path;             /* CPU: 1 = every product takes the packed path, 2 = the direct one */
    int64_t cpu_complex_panel; /* CPU complex calls: bytes of the expanded panel of a (cpu/complex.c) */
    int cpu_complex_kb;       /* CPU complex calls: columns of a per panel */
    int cpu_strip_copy;       /* CPU direct path: 1 = copy op(a)'s aliasing rows on any CPU, 2 = never */
    int cpu_batch_ahead;      /* CPU batches: 1 = each member brings the next into cache whatever the size, 2 = never */
    int cl_break_kernel;      /* OpenCL: every tuned kernel computes a wrong result */
    int cl_fail_alloc;        /* OpenCL: the Nth host or device allocation from now fails, once (1 = the next) */
    size_t mpi_stage_bytes;   /* MPI: bytes per staged message chunk */
    size_t mpi_copy_parallel_bytes; /* MPI: host copies this large go to several threads */
    int cuda_host_tile;       /* CUDA host path: panels of this many rows and columns */
    size_t cuda_host_chunk_bytes; /* CUDA host path: bytes per staged copy */
    double cuda_device_flops; /* CUDA host path on several devices: flops each further device needs */
    int cuda_device_refuse;   /* CUDA host path: device (index + 1) whose plan fails, as if out of memory */
    int cuda_wgmma_group;     /* CUDA WGMMA: raster group of tile-rows (< 0: along N); bench sweeps */
    int cuda_wgmma_grid;      /* CUDA WGMMA: blocks (-1: one per work unit, not persistent); bench sweeps */
    int cuda_wgmma_epilogue;  /* CUDA WGMMA: 3 the copy engine's where it applies (default), 1 staged through shared memory, 2 from the registers; bench sweeps */
    int cuda_wgmma_reduce;    /* CUDA WGMMA split K: 1 a separate sum kernel (default), 2 the last part sums; bench sweeps */
    int mpi_poll_cols;        /* MPI: columns per panel of a CPU product polled between */
    int verify_flip_bit;      /* verified calls: after the product, flip bit (this - 1) of one element of C, */
    int64_t verify_flip_row, verify_flip_col; /*   at this row and column of the canonical (column-major) C */
    int64_t verify_drop_k;    /* verified calls: the product skips the last this many of k (a lost split-K slice) */
    int verify_fault_skip;    /* verified calls: these many products (batch members) run clean first */
    int cl_verify_kernels;    /* OpenCL verified calls: 1 = the sums' kernels even on a CPU device (else mapped, summed on the host) */
    int cuda_ozaki;           /* CUDA emulated products: 1 = never (native, 3xTF32); bench */
    int64_t cuda_nt_copy_min; /* CUDA fp32 / fp64 both-k-major calls: the larger side from which one operand is copied transposed; bench sweeps */
    int cuda_stream_k;        /* CUDA fp64 TMA kernel, fp32 128x64 / 64x128 blocks: -1 = never stream-K, n > 0 = stream-K on a grid of n blocks wherever the tiles are more */
    int cuda_s8_bm;           /* CUDA int8 WGMMA kernel: rows of C a block (128 or 256; 0 = the plan's); bench sweeps */
    int cuda_complex;         /* CUDA complex device calls: 1 = the real product on the expansion, 2-4 = the native kernel's configuration (host/complex_native.cuh) */
    int mpi_corrupt_shift;    /* MPI: the Nth block a blocking shift receives from now arrives with a bit flipped (1 = the next) */
} gemm__hooks;
GEMM_DEF gemm__hooks *gemm__test_hooks(void);
#define GEMM__HOOK(field, value) (gemm__test_hooks()->field ? gemm__test_hooks()->field : (value))
#else
#define GEMM__HOOK(field, value) (value)
#endif

#ifdef __cplusplus
}
#endif

/* gemm.h - dense matrix multiplication, header-only, for C99 and C++.

       C <- alpha * op(A) * op(B) + beta * C          op(X) = X or X^T

   Do this:
       #define GEMM_IMPLEMENTATION
   before you include this file in *one* C or C++ file to emit the function
   bodies. Every other file includes "gemm.h" as a plain header.

       #define GEMM_IMPLEMENTATION
       #include "gemm.h"
       ...
       gemm_status s = gemm_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS,
                                  m, n, k, 1.0f, A, k, B, n, 0.0f, C, n);
       if (s != GEMM_OK) fprintf(stderr, "%s: %s\n", gemm_strerror(s),
                                 gemm_last_error_detail());

   What is here
       gemm.h        types, status codes, argument checks, the fp64-accumulating
                     reference (gemm_ref_sgemm / gemm_ref_dgemm), and the umbrella
                     that pulls in the backends. The front door gemm_sgemm /
                     gemm_dgemm is declared here and runs on the CPU backend,
                     gemm_cpu.h, which this header always includes: copy both.
       gemm_cuda.cuh, gemm_cl.h, gemm_mpi.h
                     the other backends; each includes this header and can be
                     used on its own, or pulled in from here by a macro below.
       gemm_cblas.h  CBLAS's names (cblas_sgemm, ...) on the CPU backend, for
                     programs written against cblas.h (GEMM_CBLAS below).
   Batches of products that share their shape: gemm_sgemm_strided_batched /
   gemm_sgemm_batched (and d), declared here, run on the CPU backend too.

   One shape for every call
       gemm_<backend>_<s|d>gemm[_<variant>](handle, <CBLAS arguments>, options)
     - the backend's handle first where it has one: the CUDA stream, the
       OpenCL context, the MPI communicator; the CPU has none;
     - then cblas_?gemm's arguments in CBLAS order, with int64_t sizes;
     - last one const pointer to the backend's options struct
       (gemm_cpu_options, gemm_cuda_options, gemm_cl_options,
       gemm_mpi_options): NULL or all zeros means every default, so new
       fields never break a caller. Where a backend can time a call, the
       options hold a gemm_timing pointer, filled in seconds.
   gemm_sgemm / gemm_dgemm take exactly cblas_?gemm's arguments: the CPU
   call with default options. Element types are named by one enum,
   gemm_precision, in every backend.

   Arguments follow CBLAS's cblas_?gemm, with int64_t sizes and offsets, so a
   50,000 x 50,000 matrix works. The enum values equal CBLAS's.
     - m, n, k >= 0; each leading dimension covers its matrix in the given
       layout and transpose (and is >= 1); enums valid; a pointer may be NULL
       only where it is not referenced; the memory a matrix spans must be
       addressable in 64 bits. A failed check returns GEMM_ERR_INVALID_ARG
       and writes nothing.
     - m == 0 or n == 0: nothing to do. alpha == 0 or k == 0: A and B are not
       read and C = beta*C. beta == 0: C is not read (a NaN in C does not
       survive). beta == 1 and (alpha == 0 or k == 0): C is untouched.
     - Every function returns a gemm_status; gemm_strerror() turns it into a
       sentence and gemm_last_error_detail() tells this thread's last failure
       in detail (which argument, which runtime error). Nothing prints, nothing
       exits, every function may be called from several threads at once.

   Options (define before including)
       GEMM_IMPLEMENTATION    emit the function bodies (one translation unit)
       GEMM_STATIC            make every function static to the translation unit
       GEMM_ENABLE_OPENCL     pull in gemm_cl.h
       GEMM_ENABLE_MPI        pull in gemm_mpi.h
       GEMM_ENABLE_CUDA       pull in gemm_cuda.cuh (only when compiled by nvcc)
       GEMM_CBLAS             pull in gemm_cblas.h: with GEMM_IMPLEMENTATION,
                              also emit cblas_sgemm, cblas_dgemm and their
                              batch forms (for programs written for cblas.h)
       GEMM_MALLOC(size), GEMM_FREE(ptr)
                              replace malloc/free (define both or neither)
       GEMM_ASSERT(x)         replace assert() for internal invariants
       GEMM_VERBOSE           also print each failure's detail to stderr
       GEMM_NO_SIMD           CPU: portable scalar kernels only
       GEMM_NO_THREADS        CPU: single-threaded

   Tolerance of results: every backend passes the test suite's check
       max|C - C_ref| <= c * eps * k * max(|alpha|*max|A|*max|B|, |beta|*max|C0|)
   with eps of the precision and c = 2 (tests/battery.h); NaN never passes.

   For maintainers: this file is generated from src/ (src/gemm.h.in and the
   files it names; `make headers`). Edit those, not this file.

   LICENSE: MIT, see the end of this file.
*/

#ifndef GEMM_H_INCLUDED
#define GEMM_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

/* ====================================================================== */
/*  API                                                                    */
/* ====================================================================== */

/* >>core api: src/core/api.h */
/* The version of these headers; every header of one release carries the same. */
#define GEMM_VERSION_MAJOR 0
#define GEMM_VERSION_MINOR 4
#define GEMM_VERSION_PATCH 0
#define GEMM_VERSION_STRING "0.4.0"

#if defined(__GNUC__) || defined(__clang__)
#define GEMM__UNUSED __attribute__((unused))
#else
#define GEMM__UNUSED
#endif

/* Linkage of every function, public (gemm_*) and shared-internal (gemm__*). */
#ifdef GEMM_STATIC
#define GEMM_DEF static GEMM__UNUSED
#else
#define GEMM_DEF extern
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gemm_layout {
    GEMM_ROW_MAJOR = 101,
    GEMM_COL_MAJOR = 102
} gemm_layout;

typedef enum gemm_transpose {
    GEMM_NO_TRANS = 111,
    GEMM_TRANS = 112
} gemm_transpose;

/* Element types, one list for every backend. Zero is no type, so a
   zero-initialised field is never mistaken for one. */
typedef enum gemm_precision {
    GEMM_F32 = 1,  /* float */
    GEMM_F64 = 2,  /* double */
    GEMM_F16 = 3,  /* IEEE binary16 (CUDA's __half) */
    GEMM_BF16 = 4  /* bfloat16 (CUDA's __nv_bfloat16) */
} gemm_precision;

/* One list makes both the enum and the sentences of gemm_strerror(). */
#define GEMM_STATUS_LIST(X)                                                    \
    X(GEMM_OK, 0, "success")                                                   \
    X(GEMM_ERR_INVALID_ARG, 1, "an argument is invalid")                       \
    X(GEMM_ERR_OUT_OF_MEMORY, 2, "out of memory")                              \
    X(GEMM_ERR_UNAVAILABLE, 3, "backend not compiled in, or no device found")  \
    X(GEMM_ERR_DEVICE, 4, "the device runtime reported an error")              \
    X(GEMM_ERR_BUILD, 5, "a kernel failed to compile")                         \
    X(GEMM_ERR_MPI, 6, "an MPI call failed")                                   \
    X(GEMM_ERR_INTERNAL, 7, "internal error (a bug in gemm)")

#define GEMM__STATUS_ENUM(name, value, text) name = value,
typedef enum gemm_status { GEMM_STATUS_LIST(GEMM__STATUS_ENUM) GEMM__STATUS_END } gemm_status;
#undef GEMM__STATUS_ENUM

/* Where one call's time went, in seconds: the one timing shape of every
   backend that offers timing (a gemm_timing pointer in its options). A
   backend fills the fields that apply to it and leaves the others 0. */
typedef struct gemm_timing {
    double total_s;       /* the whole call, wall clock */
    double setup_s;       /* allocations, program builds, plans, before the work */
    double to_device_s;   /* host -> device copies not hidden behind compute */
    double compute_s;     /* the multiplies: kernels or local products */
    double from_device_s; /* device -> host copies not hidden behind compute */
    double distribute_s;  /* MPI: root -> ranks, or the initial skew */
    double shift_s;       /* MPI: shifts and broadcasts not hidden behind compute */
    double gather_s;      /* MPI: ranks -> root */
} gemm_timing;

/* A sentence for a status; never NULL. */
GEMM_DEF const char *gemm_strerror(gemm_status status);

/* This thread's detail of its last failure ("" when none). */
GEMM_DEF const char *gemm_last_error_detail(void);

/* Bytes of one element (4, 8, 2, 2), and a short name ("f32", "f64",
   "f16", "bf16"); 0 and "?" for a value that is no precision. */
GEMM_DEF size_t gemm_precision_size(gemm_precision precision);
GEMM_DEF const char *gemm_precision_name(gemm_precision precision);

/* The front door: exactly cblas_?gemm's arguments, on the CPU backend
   (gemm_cpu.h) with default options. */
GEMM_DEF gemm_status gemm_sgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                int64_t m, int64_t n, int64_t k,
                                float alpha, const float *A, int64_t lda,
                                const float *B, int64_t ldb,
                                float beta, float *C, int64_t ldc);
GEMM_DEF gemm_status gemm_dgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                int64_t m, int64_t n, int64_t k,
                                double alpha, const double *A, int64_t lda,
                                const double *B, int64_t ldb,
                                double beta, double *C, int64_t ldc);

/* The front door's batches, on the CPU backend with default options:
   batch_count products that share every argument but where the matrices
   are. Strided: member i's A, B, C start stride_a*i, stride_b*i,
   stride_c*i elements after A, B, C (a stride may be 0 for a shared A or
   B). Pointer arrays: member i's are A[i], B[i], C[i]. Each member has the
   single call's semantics; no two members may write one element of C; a
   refused batch writes nothing, and the detail names the member at fault.
   gemm_cpu.h has the full story (gemm_cpu_?gemm_strided_batched,
   gemm_cpu_?gemm_batched, with options). */
GEMM_DEF gemm_status gemm_sgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                int64_t m, int64_t n, int64_t k,
                                                float alpha, const float *A, int64_t lda, int64_t stride_a,
                                                const float *B, int64_t ldb, int64_t stride_b,
                                                float beta, float *C, int64_t ldc, int64_t stride_c,
                                                int64_t batch_count);
GEMM_DEF gemm_status gemm_dgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                int64_t m, int64_t n, int64_t k,
                                                double alpha, const double *A, int64_t lda, int64_t stride_a,
                                                const double *B, int64_t ldb, int64_t stride_b,
                                                double beta, double *C, int64_t ldc, int64_t stride_c,
                                                int64_t batch_count);
GEMM_DEF gemm_status gemm_sgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                        int64_t m, int64_t n, int64_t k,
                                        float alpha, const float *const A[], int64_t lda,
                                        const float *const B[], int64_t ldb,
                                        float beta, float *const C[], int64_t ldc, int64_t batch_count);
GEMM_DEF gemm_status gemm_dgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                        int64_t m, int64_t n, int64_t k,
                                        double alpha, const double *const A[], int64_t lda,
                                        const double *const B[], int64_t ldb,
                                        double beta, double *const C[], int64_t ldc, int64_t batch_count);

/* The reference: plain loops, fp64 accumulation, the same contract. Slow on
   purpose; it is the oracle of the tests. */
GEMM_DEF gemm_status gemm_ref_sgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    float alpha, const float *A, int64_t lda,
                                    const float *B, int64_t ldb,
                                    float beta, float *C, int64_t ldc);
GEMM_DEF gemm_status gemm_ref_dgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    double alpha, const double *A, int64_t lda,
                                    const double *B, int64_t ldb,
                                    double beta, double *C, int64_t ldc);

#ifdef __cplusplus
}
#endif
/* <<core api */

/* ====================================================================== */
/*  For backends: shared internals (gemm__ prefix, not for users)          */
/* ====================================================================== */

/* >>core internal: src/core/internal.h */
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

/* One member's C as the overlap check sees it: column-major, m elements
   per column (contiguous), n columns ld apart, at byte address addr. */
typedef struct gemm__batch_rect {
    uint64_t addr;
    int64_t m, n, ld;
    int64_t member;
} gemm__batch_rect;

/* Whether two of the count rectangles share a byte (elements of es bytes);
   sorts r by address. Returns 1 and the two members (*first < *second)
   when they do, else 0. Costs O(count log count) when the rectangles'
   spans are disjoint or nearly so, up to O(count^2) when many interleave. */
GEMM_DEF int gemm__batch_overlap(gemm__batch_rect *r, int64_t count, size_t es, int64_t *first, int64_t *second);

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
    int cpu_strip_copy;       /* CPU direct path: 1 = copy op(a)'s aliasing rows on any CPU, 2 = never */
    int cl_break_kernel;      /* OpenCL: every tuned kernel computes a wrong result */
    int cl_fail_alloc;        /* OpenCL: the Nth host or device allocation from now fails, once (1 = the next) */
    size_t mpi_stage_bytes;   /* MPI: bytes per staged message chunk */
    size_t mpi_copy_parallel_bytes; /* MPI: host copies this large go to several threads */
    int cuda_host_tile;       /* CUDA host path: panels of this many rows and columns */
    size_t cuda_host_chunk_bytes; /* CUDA host path: bytes per staged copy */
    int cuda_wgmma_group;     /* CUDA WGMMA: raster group of tile-rows (< 0: along N); bench sweeps */
    int cuda_wgmma_grid;      /* CUDA WGMMA: blocks (-1: one per work unit, not persistent); bench sweeps */
    int cuda_wgmma_epilogue;  /* CUDA WGMMA: 1 staged through shared memory (default), 2 from the registers; bench sweeps */
    int cuda_wgmma_reduce;    /* CUDA WGMMA split K: 1 a separate sum kernel (default), 2 the last part sums; bench sweeps */
    int mpi_poll_cols;        /* MPI: columns per panel of a CPU product polled between */
} gemm__hooks;
GEMM_DEF gemm__hooks *gemm__test_hooks(void);
#define GEMM__HOOK(field, value) (gemm__test_hooks()->field ? gemm__test_hooks()->field : (value))
#else
#define GEMM__HOOK(field, value) (value)
#endif

#ifdef __cplusplus
}
#endif
/* <<core internal */

#define GEMM__CORE_API_DONE
#endif /* GEMM_H_INCLUDED */

/* The backends. gemm_cpu.h is the front door's home, always there. */
#include "gemm_cpu.h"
#if defined(GEMM_ENABLE_OPENCL)
#include "gemm_cl.h"
#endif
#if defined(GEMM_ENABLE_MPI)
#include "gemm_mpi.h"
#endif
#if defined(GEMM_ENABLE_CUDA) && defined(__CUDACC__)
#include "gemm_cuda.cuh"
#endif
#if defined(GEMM_CBLAS)
#include "gemm_cblas.h"
#endif

/* ====================================================================== */
/*  IMPLEMENTATION                                                         */
/* ====================================================================== */

/* Emitted once, and only after the core API above is complete (the backend
   headers include this one, so it can be reached in the middle of theirs). */
#if defined(GEMM_IMPLEMENTATION) && defined(GEMM__CORE_API_DONE) && !defined(GEMM__CORE_IMPLEMENTED)
#define GEMM__CORE_IMPLEMENTED

/* >>core config: src/core/config.c */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h> /* qsort, for core/batch.c */
#include <string.h>

#if defined(GEMM_MALLOC) && !defined(GEMM_FREE)
#error "gemm.h: GEMM_MALLOC is defined but GEMM_FREE is not; define both or neither"
#endif
#if defined(GEMM_FREE) && !defined(GEMM_MALLOC)
#error "gemm.h: GEMM_FREE is defined but GEMM_MALLOC is not; define both or neither"
#endif
#ifndef GEMM_MALLOC
#include <stdlib.h>
#define GEMM_MALLOC(size) malloc(size)
#define GEMM_FREE(ptr) free(ptr)
#endif
#ifndef GEMM_ASSERT
#include <assert.h>
#define GEMM_ASSERT(x) assert(x)
#endif

#if defined(__cplusplus) && __cplusplus >= 201103L
#define GEMM__THREAD_LOCAL thread_local
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define GEMM__THREAD_LOCAL _Thread_local
#elif defined(_MSC_VER)
#define GEMM__THREAD_LOCAL __declspec(thread)
#else
#define GEMM__THREAD_LOCAL __thread
#endif
/* <<core config */

#ifdef __cplusplus
extern "C" {
#endif

/* >>core errors: src/core/errors.c */
static GEMM__THREAD_LOCAL char gemm__detail[1024];

GEMM_DEF const char *gemm_strerror(gemm_status status)
{
#define GEMM__STATUS_CASE(name, value, text) case name: return text;
    switch (status) {
        GEMM_STATUS_LIST(GEMM__STATUS_CASE)
    default: return "unknown gemm_status";
    }
#undef GEMM__STATUS_CASE
}

GEMM_DEF const char *gemm_last_error_detail(void) { return gemm__detail; }

GEMM_DEF void gemm__clear_error(void) { gemm__detail[0] = '\0'; }

GEMM_DEF gemm_status gemm__fail(gemm_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(gemm__detail, sizeof gemm__detail, fmt, ap);
    va_end(ap);
#ifdef GEMM_VERBOSE
    fprintf(stderr, "gemm: %s: %s\n", gemm_strerror(status), gemm__detail);
#endif
    return status;
}

GEMM_DEF size_t gemm_precision_size(gemm_precision precision)
{
    switch (precision) {
    case GEMM_F32: return 4;
    case GEMM_F64: return 8;
    case GEMM_F16:
    case GEMM_BF16: return 2;
    default: return 0;
    }
}

GEMM_DEF const char *gemm_precision_name(gemm_precision precision)
{
    switch (precision) {
    case GEMM_F32: return "f32";
    case GEMM_F64: return "f64";
    case GEMM_F16: return "f16";
    case GEMM_BF16: return "bf16";
    default: return "?";
    }
}

#ifdef GEMM__TEST_HOOKS
GEMM_DEF gemm__hooks *gemm__test_hooks(void)
{
    static gemm__hooks hooks;
    return &hooks;
}
#endif
/* <<core errors */
/* >>core problem: src/core/problem.c */
/* Smallest leading dimension that covers a stored rows x cols matrix. */
static int64_t gemm__min_ld(gemm_layout layout, int64_t rows, int64_t cols)
{
    int64_t need = layout == GEMM_ROW_MAJOR ? cols : rows;
    return need > 1 ? need : 1;
}

/* Records the detail of a failed check and returns the position of the
   argument at fault in the call's list (cblas_?gemm's: layout = 1, ...,
   ldc = 14); core/batch.c uses it too. */
#define GEMM__BAD_ARG(position, ...) return (gemm__fail(GEMM_ERR_INVALID_ARG, __VA_ARGS__), (position))

/* The checks of DESIGN.md, in argument order; sets *work on success and
   returns 0, else the position of the first bad argument. */
static int gemm__check_args(const char *func, gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                            int64_t m, int64_t n, int64_t k, int alpha_is_zero, int have_A, int64_t lda, int have_B,
                            int64_t ldb, int beta_is_one, int have_C, int64_t ldc, gemm__work *work)
{
    const char *lay = layout == GEMM_ROW_MAJOR ? "row-major" : "column-major";
    int64_t need;
    int reads_ab, touches_c;

    if (layout != GEMM_ROW_MAJOR && layout != GEMM_COL_MAJOR)
        GEMM__BAD_ARG(1, "%s: layout is %d, not GEMM_ROW_MAJOR or GEMM_COL_MAJOR", func, (int)layout);
    if (transa != GEMM_NO_TRANS && transa != GEMM_TRANS)
        GEMM__BAD_ARG(2, "%s: transa is %d, not GEMM_NO_TRANS or GEMM_TRANS", func, (int)transa);
    if (transb != GEMM_NO_TRANS && transb != GEMM_TRANS)
        GEMM__BAD_ARG(3, "%s: transb is %d, not GEMM_NO_TRANS or GEMM_TRANS", func, (int)transb);
    if (m < 0) GEMM__BAD_ARG(4, "%s: m = %lld is negative", func, (long long)m);
    if (n < 0) GEMM__BAD_ARG(5, "%s: n = %lld is negative", func, (long long)n);
    if (k < 0) GEMM__BAD_ARG(6, "%s: k = %lld is negative", func, (long long)k);

    reads_ab = m > 0 && n > 0 && k > 0 && !alpha_is_zero;
    touches_c = m > 0 && n > 0 && !(beta_is_one && (k == 0 || alpha_is_zero));

    if (!have_A && reads_ab) GEMM__BAD_ARG(8, "%s: A is NULL", func);
    need = transa == GEMM_NO_TRANS ? gemm__min_ld(layout, m, k) : gemm__min_ld(layout, k, m);
    if (lda < need)
        GEMM__BAD_ARG(9, "%s: lda = %lld is too small: %s %s A needs lda >= %lld", func, (long long)lda, lay,
                      transa == GEMM_NO_TRANS ? "untransposed" : "transposed", (long long)need);
    if (!have_B && reads_ab) GEMM__BAD_ARG(10, "%s: B is NULL", func);
    need = transb == GEMM_NO_TRANS ? gemm__min_ld(layout, k, n) : gemm__min_ld(layout, n, k);
    if (ldb < need)
        GEMM__BAD_ARG(11, "%s: ldb = %lld is too small: %s %s B needs ldb >= %lld", func, (long long)ldb, lay,
                      transb == GEMM_NO_TRANS ? "untransposed" : "transposed", (long long)need);
    if (!have_C && touches_c) GEMM__BAD_ARG(13, "%s: C is NULL", func);
    need = gemm__min_ld(layout, m, n);
    if (ldc < need)
        GEMM__BAD_ARG(14, "%s: ldc = %lld is too small: %s C needs ldc >= %lld", func, (long long)ldc, lay,
                      (long long)need);

    *work = !touches_c ? GEMM__WORK_NONE : reads_ab ? GEMM__WORK_FULL : GEMM__WORK_SCALE;
    return 0;
}

/* The largest extent accepted: its byte offset fits in int64_t for any
   element type up to 8 bytes. */
#define GEMM__MAX_EXTENT (INT64_MAX / 8)

GEMM_DEF int64_t gemm__extent(int64_t rows, int64_t cols, int64_t ld)
{
    if (rows <= 0 || cols <= 0) return 0;
    if (ld < 1) return -1;
    /* Below 2^31 each, the sum fits: no division (tens of cycles, three
       per call, when a small product costs a few hundred). */
    if ((rows | cols | ld) < ((int64_t)1 << 31)) return (cols - 1) * ld + rows;
    if (cols - 1 > (INT64_MAX - rows) / ld) return -1;
    return (cols - 1) * ld + rows;
}

/* Sets *extent to what `name` spans when `used`, 0 otherwise; fails when
   the span does not fit in 64-bit byte offsets. */
static gemm_status gemm__span(const char *func, const char *name, int used, int64_t rows, int64_t cols,
                              int64_t ld, int64_t *extent)
{
    *extent = used ? gemm__extent(rows, cols, ld) : 0;
    if (*extent < 0 || *extent > GEMM__MAX_EXTENT)
        return gemm__fail(GEMM_ERR_INVALID_ARG,
                          "%s: %s spans more than 2^60 elements (%lld x %lld with leading dimension %lld)", func,
                          name, (long long)rows, (long long)cols, (long long)ld);
    return GEMM_OK;
}

/* The common case's parts are inlined into every entry point that calls
   gemm__prepare_plain: each call of a small product pays for them. */
#if defined(__GNUC__) || defined(__clang__)
#define GEMM__INLINE __inline__ __attribute__((always_inline))
#else
#define GEMM__INLINE
#endif

/* Whether a call is valid and needs the full product, for the calls that
   make up nearly every real one: every size and leading dimension from 1
   to below 2^29, every pointer given, alpha != 0. Then the checks are a
   few comparisons and no extent can overflow (each is below 2^58); any
   other call, valid or not, takes gemm__check_args and gemm__span, so the
   statuses and details are theirs. (The whole preparation once cost more
   than a 2x2 product: three 64-bit divisions and two calls per matrix.) */
static GEMM__INLINE int gemm__plain_call(gemm_layout layout, gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n,
                            int64_t k, int alpha_is_zero, int have_A, int64_t lda, int have_B, int64_t ldb,
                            int have_C, int64_t ldc)
{
    const uint64_t below = ((uint64_t)1 << 29) - 1; /* x - 1 < below: 1 <= x < 2^29 */
    int row = layout == GEMM_ROW_MAJOR, an = transa == GEMM_NO_TRANS, bn = transb == GEMM_NO_TRANS;
    if ((!row && layout != GEMM_COL_MAJOR) || (!an && transa != GEMM_TRANS) || (!bn && transb != GEMM_TRANS))
        return 0;
    if ((uint64_t)(m - 1) >= below || (uint64_t)(n - 1) >= below || (uint64_t)(k - 1) >= below ||
        (uint64_t)(lda - 1) >= below || (uint64_t)(ldb - 1) >= below || (uint64_t)(ldc - 1) >= below)
        return 0;
    if (alpha_is_zero || !have_A || !have_B || !have_C) return 0;
    /* gemm__min_ld of each stored matrix, for sizes >= 1 */
    return lda >= (row == an ? k : m) && ldb >= (row == bn ? n : k) && ldc >= (row ? n : m);
}

/* The column-major view (DESIGN.md): a row-major call is the transposed
   problem, so there A and B change places and so do m and n. */
static GEMM__INLINE void gemm__canonical(gemm_layout layout, gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n,
                            int64_t k, int64_t lda, int64_t ldb, int64_t ldc, gemm__problem *p)
{
    p->swapped = layout == GEMM_ROW_MAJOR;
    p->m = p->swapped ? n : m;
    p->n = p->swapped ? m : n;
    p->k = k;
    p->a_trans = (p->swapped ? transb : transa) == GEMM_TRANS;
    p->b_trans = (p->swapped ? transa : transb) == GEMM_TRANS;
    p->lda = p->swapped ? ldb : lda;
    p->ldb = p->swapped ? lda : ldb;
    p->ldc = ldc;
    p->ars = p->a_trans ? p->lda : 1;
    p->acs = p->a_trans ? 1 : p->lda;
    p->brs = p->b_trans ? p->ldb : 1;
    p->bcs = p->b_trans ? 1 : p->ldb;
}

/* gemm__prepare for a plain call (gemm__plain_call): fills *p and returns
   1; returns 0 for any other call, which gemm__prepare then checks in
   full. Static, so a backend's entry point may call it first and have it
   inlined: a call of a few elements then costs little more than its
   arithmetic. */
static GEMM__INLINE int gemm__prepare_plain(gemm_layout layout, gemm_transpose transa, gemm_transpose transb, int64_t m,
                               int64_t n, int64_t k, int alpha_is_zero, int have_A, int64_t lda, int have_B,
                               int64_t ldb, int have_C, int64_t ldc, gemm__problem *p)
{
    if (!gemm__plain_call(layout, transa, transb, m, n, k, alpha_is_zero, have_A, lda, have_B, ldb, have_C, ldc))
        return 0;
    p->work = GEMM__WORK_FULL;
    p->bad_arg = 0;
    gemm__canonical(layout, transa, transb, m, n, k, lda, ldb, ldc, p);
    /* stored column-major: op(a) = a^T means a is k x m */
    p->a_extent = ((p->a_trans ? p->m : p->k) - 1) * p->lda + (p->a_trans ? p->k : p->m);
    p->b_extent = ((p->b_trans ? p->k : p->n) - 1) * p->ldb + (p->b_trans ? p->n : p->k);
    p->c_extent = (p->n - 1) * p->ldc + p->m;
    return 1;
}

GEMM_DEF gemm_status gemm__prepare(const char *func, gemm_layout layout, gemm_transpose transa,
                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                   int alpha_is_zero, int have_A, int64_t lda, int have_B, int64_t ldb,
                                   int beta_is_one, int have_C, int64_t ldc, gemm__problem *p)
{
    int reads;
    gemm_status s;
    if (gemm__prepare_plain(layout, transa, transb, m, n, k, alpha_is_zero, have_A, lda, have_B, ldb, have_C, ldc, p))
        return GEMM_OK;
    p->work = GEMM__WORK_NONE; /* set before the checks: a failed call leaves *p defined */
    p->bad_arg = gemm__check_args(func, layout, transa, transb, m, n, k, alpha_is_zero, have_A, lda, have_B, ldb,
                                  beta_is_one, have_C, ldc, &p->work);
    if (p->bad_arg) return GEMM_ERR_INVALID_ARG;
    gemm__canonical(layout, transa, transb, m, n, k, lda, ldb, ldc, p);
    reads = p->work == GEMM__WORK_FULL;
    /* Stored column-major: op(a) = a^T means a is k x m. A span too large
       is blamed on the leading dimension (lda = 9, ldb = 11, ldc = 14). */
    s = gemm__span(func, p->swapped ? "B" : "A", reads, p->a_trans ? p->k : p->m, p->a_trans ? p->m : p->k,
                   p->lda, &p->a_extent);
    if (s != GEMM_OK) {
        p->bad_arg = p->swapped ? 11 : 9;
        return s;
    }
    s = gemm__span(func, p->swapped ? "A" : "B", reads, p->b_trans ? p->n : p->k, p->b_trans ? p->k : p->n,
                   p->ldb, &p->b_extent);
    if (s != GEMM_OK) {
        p->bad_arg = p->swapped ? 9 : 11;
        return s;
    }
    s = gemm__span(func, "C", p->work != GEMM__WORK_NONE, p->m, p->n, p->ldc, &p->c_extent);
    if (s != GEMM_OK) p->bad_arg = 14;
    return s;
}
/* <<core problem */
/* >>core batch: src/core/batch.c */
/* Batches: the single call's checks once, then what only a batch can get
   wrong (a stride or a member pointer, two members writing one element of
   C), all before any member is computed, so a refused batch writes
   nothing. */

/* Whether two column-major rectangles x (at element 0) and y (at element
   e >= 0) share an element. Same shape: y's element (i', j') is x's
   (i, j) when e = (i - i') + (j - j')*ld with |i - i'| < m, |j - j'| < n;
   as ld >= m, only j - j' = e/ld or e/ld + 1 can work. Else each column
   of the narrower one is tested against the first column of the other
   that ends past its start. */
static int gemm__rects_meet(int64_t e, const gemm__batch_rect *x, const gemm__batch_rect *y)
{
    const gemm__batch_rect *w = x->n <= y->n ? x : y, *o = w == x ? y : x;
    int64_t w0 = w == x ? 0 : e, o0 = w == x ? e : 0, j;
    if (x->m == y->m && x->n == y->n && x->ld == y->ld) {
        int64_t q = e / x->ld, r = e % x->ld;
        return (r < x->m && q < x->n) || (x->ld - r < x->m && q + 1 < x->n);
    }
    for (j = 0; j < w->n; j++) {
        int64_t lo = w0 + j * w->ld, t = lo - o0 - o->m; /* o's column c ends past lo when c*ld > t */
        int64_t c = t < 0 ? 0 : t / o->ld + 1;
        if (c < o->n && o0 + c * o->ld < lo + w->m) return 1;
    }
    return 0;
}

/* Bytes from a rectangle's first element to one past its last. */
static uint64_t gemm__rect_bytes(const gemm__batch_rect *r, size_t es)
{
    return r->m > 0 && r->n > 0 ? (uint64_t)((r->n - 1) * r->ld + r->m) * es : 0;
}

static int gemm__rect_cmp(const void *x, const void *y)
{
    uint64_t a = ((const gemm__batch_rect *)x)->addr, b = ((const gemm__batch_rect *)y)->addr;
    return a < b ? -1 : a > b;
}

GEMM_DEF int gemm__batch_overlap(gemm__batch_rect *r, int64_t count, size_t es, int64_t *first, int64_t *second)
{
    int64_t i, j;
    qsort(r, (size_t)count, sizeof *r, gemm__rect_cmp);
    for (i = 0; i < count; i++) {
        uint64_t end = r[i].addr + gemm__rect_bytes(&r[i], es);
        for (j = i + 1; j < count && r[j].addr < end; j++) {
            uint64_t d = r[j].addr - r[i].addr;
            /* elements that do not line up overlap wherever their spans do */
            if (gemm__rect_bytes(&r[j], es) == 0) continue;
            if (d % es != 0 || gemm__rects_meet((int64_t)(d / es), &r[i], &r[j])) {
                *first = r[i].member < r[j].member ? r[i].member : r[j].member;
                *second = r[i].member < r[j].member ? r[j].member : r[i].member;
                return 1;
            }
        }
    }
    return 0;
}

/* The span of count members stepping `stride` elements, each `extent`
   long, fits in the 2^60 elements every offset is checked against. */
static int gemm__strided_fits(int64_t count, int64_t stride, int64_t extent)
{
    return count <= 1 || extent == 0 || stride == 0 || (count - 1) <= (GEMM__MAX_EXTENT - extent) / stride;
}

/* Strided C: member i and member i+d meet for every i when member 0 and
   member d do; only d with d*stride_c below C's extent can. Returns 0, or
   17 (stride_c's position) when two members would write one element. */
static int gemm__strided_c_disjoint(const char *func, const gemm__problem *p, int64_t stride_c, int64_t count,
                                    gemm__batch *bt)
{
    gemm__batch_rect c;
    int64_t d;
    c.m = p->m; c.n = p->n; c.ld = p->ldc; c.addr = 0; c.member = 0;
    if (p->work == GEMM__WORK_NONE || count < 2) return 0;
    if (stride_c == 0)
        GEMM__BAD_ARG(17, "%s: stride_c = 0, so all %lld members would write the same C", func, (long long)count);
    for (d = 1; d < count && d <= p->c_extent / stride_c; d++)
        if (gemm__rects_meet(d * stride_c, &c, &c)) {
            bt->bad_member = d;
            GEMM__BAD_ARG(17, "%s: stride_c = %lld is too small: members 0 and %lld would write the same "
                              "elements of C (%lld x %lld, ldc = %lld)", func, (long long)stride_c, (long long)d,
                          (long long)(p->swapped ? p->n : p->m), (long long)(p->swapped ? p->m : p->n),
                          (long long)p->ldc);
        }
    return 0;
}

/* The batch's own checks of a strided call, after the single call's;
   returns the position of the argument at fault, 0 when there is none. */
static int gemm__strided_checks(const char *func, const gemm__problem *p, int64_t stride_a, int64_t stride_b,
                                int64_t stride_c, int64_t count, gemm__batch *bt)
{
    /* p's a and b are the caller's B and A when row-major */
    int64_t ea = p->swapped ? p->b_extent : p->a_extent, eb = p->swapped ? p->a_extent : p->b_extent;
    if (stride_a < 0) GEMM__BAD_ARG(10, "%s: stride_a = %lld is negative", func, (long long)stride_a);
    if (stride_b < 0) GEMM__BAD_ARG(13, "%s: stride_b = %lld is negative", func, (long long)stride_b);
    if (stride_c < 0) GEMM__BAD_ARG(17, "%s: stride_c = %lld is negative", func, (long long)stride_c);
    if (!gemm__strided_fits(count, stride_a, ea))
        GEMM__BAD_ARG(10, "%s: %lld members stride_a = %lld apart span more than 2^60 elements", func,
                      (long long)count, (long long)stride_a);
    if (!gemm__strided_fits(count, stride_b, eb))
        GEMM__BAD_ARG(13, "%s: %lld members stride_b = %lld apart span more than 2^60 elements", func,
                      (long long)count, (long long)stride_b);
    if (!gemm__strided_fits(count, stride_c, p->c_extent))
        GEMM__BAD_ARG(17, "%s: %lld members stride_c = %lld apart span more than 2^60 elements", func,
                      (long long)count, (long long)stride_c);
    return gemm__strided_c_disjoint(func, p, stride_c, count, bt);
}

/* Positions in a strided call's list of the single call's arguments
   (cblas_?gemm's list, layout = 1 ... ldc = 14). */
static int gemm__strided_position(int single)
{
    static const int at[15] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 14, 15, 16};
    return single >= 0 && single <= 14 ? at[single] : 0;
}

GEMM_DEF gemm_status gemm__prepare_strided(const char *func, gemm_layout layout, gemm_transpose transa,
                                           gemm_transpose transb, int64_t m, int64_t n, int64_t k, int alpha_is_zero,
                                           int have_A, int64_t lda, int64_t stride_a, int have_B, int64_t ldb,
                                           int64_t stride_b, int beta_is_one, int have_C, int64_t ldc,
                                           int64_t stride_c, int64_t batch_count, gemm__problem *p, gemm__batch *bt)
{
    gemm_status s;
    memset(bt, 0, sizeof *bt);
    bt->bad_member = -1;
    /* no member, no operand read: NULL is fine then */
    s = gemm__prepare(func, layout, transa, transb, m, n, k, alpha_is_zero, have_A || batch_count == 0, lda,
                      have_B || batch_count == 0, ldb, beta_is_one, have_C || batch_count == 0, ldc, p);
    if (s != GEMM_OK) {
        p->bad_arg = gemm__strided_position(p->bad_arg);
        return s;
    }
    if (batch_count < 0) {
        p->bad_arg = 18;
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: batch_count = %lld is negative", func, (long long)batch_count);
    }
    p->bad_arg = gemm__strided_checks(func, p, stride_a, stride_b, stride_c, batch_count, bt);
    if (p->bad_arg) return GEMM_ERR_INVALID_ARG;
    bt->count = batch_count;
    bt->stride_a = p->swapped ? stride_b : stride_a;
    bt->stride_b = p->swapped ? stride_a : stride_b;
    bt->stride_c = stride_c;
    return GEMM_OK;
}

/* Every member's pointers, in member order: present where the call reads
   or writes them. Returns the position of the bad list (A = 8, B = 10,
   C = 13; bt->bad_member says which member when the list itself is
   there), else 0. */
static int gemm__members_present(const char *func, const gemm__problem *p, const void *A, const void *B,
                                 const void *C, int64_t count, gemm__batch *bt)
{
    int reads = p->work == GEMM__WORK_FULL, writes = p->work != GEMM__WORK_NONE;
    int64_t i;
    if (count == 0) return 0;
    if (reads && !A) GEMM__BAD_ARG(8, "%s: A (the list of member pointers) is NULL", func);
    if (reads && !B) GEMM__BAD_ARG(10, "%s: B (the list of member pointers) is NULL", func);
    if (writes && !C) GEMM__BAD_ARG(13, "%s: C (the list of member pointers) is NULL", func);
    for (i = 0; i < count && (reads || writes); i++) {
        int bad = reads && !bt->addr_ab(A, i)   ? 8
                  : reads && !bt->addr_ab(B, i) ? 10
                  : writes && !bt->addr_c(C, i) ? 13
                                                : 0;
        if (bad) {
            bt->bad_member = i;
            GEMM__BAD_ARG(bad, "%s: member %lld: %s[%lld] is NULL", func, (long long)i,
                          bad == 8 ? "A" : bad == 10 ? "B" : "C", (long long)i);
        }
    }
    return 0;
}

/* No two members write one element of C. The usual list (Cs in
   increasing or decreasing address order, each past the last) is seen in
   one pass; any other is sorted and swept. */
static gemm_status gemm__members_disjoint(const char *func, const gemm__problem *p, const void *C, int64_t count,
                                          size_t es, gemm__batch *bt)
{
    uint64_t bytes = (uint64_t)p->c_extent * es;
    int up = 1, down = 1, met;
    int64_t i, first = 0, second = 0;
    gemm__batch_rect *r;
    if (p->work == GEMM__WORK_NONE || count < 2) return GEMM_OK;
    for (i = 1; i < count && (up || down); i++) {
        uint64_t x = bt->addr_c(C, i - 1), y = bt->addr_c(C, i);
        up = up && y >= x && y - x >= bytes;
        down = down && x >= y && x - y >= bytes;
    }
    if (up || down) return GEMM_OK;
    r = (gemm__batch_rect *)GEMM_MALLOC(sizeof *r * (size_t)count);
    if (!r)
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory to check %lld members' C for overlaps", func,
                          (long long)count);
    for (i = 0; i < count; i++) {
        r[i].addr = bt->addr_c(C, i);
        r[i].m = p->m; r[i].n = p->n; r[i].ld = p->ldc; r[i].member = i;
    }
    met = gemm__batch_overlap(r, count, es, &first, &second);
    GEMM_FREE(r);
    if (!met) return GEMM_OK;
    bt->bad_member = second;
    return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: members %lld and %lld would write the same elements of C", func,
                      (long long)first, (long long)second);
}

GEMM_DEF gemm_status gemm__prepare_batched(const char *func, gemm_layout layout, gemm_transpose transa,
                                           gemm_transpose transb, int64_t m, int64_t n, int64_t k, int alpha_is_zero,
                                           const void *A, int64_t lda, const void *B, int64_t ldb, int beta_is_one,
                                           const void *C, int64_t ldc, int64_t batch_count,
                                           gemm__batch_addr_fn addr_ab, gemm__batch_addr_fn addr_c,
                                           size_t elem_size, gemm__problem *p, gemm__batch *bt)
{
    gemm_status s;
    memset(bt, 0, sizeof *bt);
    bt->bad_member = -1;
    bt->addr_ab = addr_ab;
    bt->addr_c = addr_c;
    /* the lists are checked below, member by member */
    s = gemm__prepare(func, layout, transa, transb, m, n, k, alpha_is_zero, 1, lda, 1, ldb, beta_is_one, 1, ldc, p);
    if (s != GEMM_OK) return s;
    if (batch_count < 0) {
        p->bad_arg = 15;
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: batch_count = %lld is negative", func, (long long)batch_count);
    }
    p->bad_arg = gemm__members_present(func, p, A, B, C, batch_count, bt);
    if (p->bad_arg) return GEMM_ERR_INVALID_ARG;
    s = gemm__members_disjoint(func, p, C, batch_count, elem_size, bt);
    if (s != GEMM_OK) {
        p->bad_arg = s == GEMM_ERR_INVALID_ARG ? 13 : 0;
        return s;
    }
    bt->count = batch_count;
    bt->a_list = p->swapped ? B : A;
    bt->b_list = p->swapped ? A : B;
    bt->c_list = C;
    return GEMM_OK;
}
/* <<core batch */
/* >>core reference: src/core/reference.c */
/* Element i of a float or double array, as a double. */
static double gemm__ref_load(gemm_precision precision, const void *x, int64_t i)
{
    return precision == GEMM_F32 ? (double)((const float *)x)[i] : ((const double *)x)[i];
}

/* The reference for both precisions: C = alpha*op(a)*op(b) + beta*C in the
   canonical form, each sum in double, rounded once to C's type. */
static void gemm__ref(const gemm__problem *p, gemm_precision precision, double alpha, const void *a,
                      const void *b, double beta, void *c)
{
    int64_t i, j, q;
    for (j = 0; j < p->n; j++)
        for (i = 0; i < p->m; i++) {
            int64_t at = i + j * p->ldc;
            double ab = 0, sum = 0, old = beta == 0 ? 0.0 : gemm__ref_load(precision, c, at);
            if (p->work == GEMM__WORK_FULL) {
                for (q = 0; q < p->k; q++)
                    sum += gemm__ref_load(precision, a, i * p->ars + q * p->acs) *
                           gemm__ref_load(precision, b, q * p->brs + j * p->bcs);
                ab = alpha * sum;
            }
            if (precision == GEMM_F32) ((float *)c)[at] = (float)(ab + beta * old);
            else ((double *)c)[at] = ab + beta * old;
        }
}

GEMM_DEF gemm_status gemm_ref_sgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                                    const float *B, int64_t ldb, float beta, float *C, int64_t ldc)
{
    gemm__problem p;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare("gemm_ref_sgemm", layout, transa, transb, m, n, k, alpha == 0, A != NULL, lda, B != NULL,
                      ldb, beta == 1, C != NULL, ldc, &p);
    if (s == GEMM_OK && p.work != GEMM__WORK_NONE)
        gemm__ref(&p, GEMM_F32, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C);
    return s;
}

GEMM_DEF gemm_status gemm_ref_dgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                                    const double *B, int64_t ldb, double beta, double *C, int64_t ldc)
{
    gemm__problem p;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare("gemm_ref_dgemm", layout, transa, transb, m, n, k, alpha == 0, A != NULL, lda, B != NULL,
                      ldb, beta == 1, C != NULL, ldc, &p);
    if (s == GEMM_OK && p.work != GEMM__WORK_NONE)
        gemm__ref(&p, GEMM_F64, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C);
    return s;
}
/* <<core reference */

#ifdef __cplusplus
}
#endif

#endif /* GEMM_IMPLEMENTATION */

/*
   Revision history
       0.4  CPU: batched and strided-batched calls (gemm_?gemm_batched,
            gemm_?gemm_strided_batched; each member bitwise the single
            call's), a direct path for tiny products, blocks sized from the
            CPU's caches, threads from the affinity mask; gemm_cblas.h
            (cblas_?gemm and cblas_?gemm_batch names under GEMM_CBLAS).
            CUDA: new exact kernels (warp-tiled SIMT fp32, TMA DMMA fp64)
            chosen per call from the shape and the device; the
            fp32-accurate mode (GEMM_CUDA_MATH_FP32_ACCURATE, 3xTF32); the
            host path pipelined through page-locked staging with copy
            threads, out of core under options.max_device_bytes
            (options.host_threads; gemm_cuda_release_scratch hands the
            contexts back). OpenCL: overflow-safe buffer checks, checked
            cache entries, bounded tuning files, the last tuning line wins.
            MPI: plans (gemm_mpi_plan_create / _plan / _plan_dist /
            _plan_destroy), root-held data streamed in k-slabs
            (options.slabs). A CMake target and a pkg-config file.
       0.3  breaking: one shape for every call: the backend's handle first
            (CUDA stream, OpenCL context, MPI communicator), then
            cblas_?gemm's arguments, then one options pointer (NULL or zero
            = defaults). gemm_cuda_?gemm_ex are gone (gemm_cuda_?gemm take
            the options); gemm_cuda_gemm_mixed is gemm_cuda_sgemm_mixed with
            each pointer's gemm_precision after it; gemm_cl_create takes
            gemm_cl_create_options and every OpenCL call a gemm_cl_options
            (events, timing); gemm_cpu_sgemm / _dgemm take gemm_cpu_options
            (threads). One gemm_timing (seconds) and one gemm_precision for
            every backend, replacing gemm_cuda_timing (milliseconds),
            gemm_cl_timing, gemm_mpi_timing, gemm_cuda_type and
            gemm_cl_precision. Test hooks exist only under GEMM__TEST_HOOKS.
            Arguments whose matrices would span more than 2^60 elements are
            refused. The exact CUDA kernels' tuning variants left the header.
            The headers are generated from small files in src/.
       0.2  CUDA: opt-in TF32, FP16 and BF16 on the tensor cores (wgmma and
            TMA on Hopper, mma.sync from sm_80)
       0.1  first release: the contract, the reference, and the CPU, CUDA,
            OpenCL and MPI backends

   LICENSE (MIT)
   Copyright (c) 2026 the gemm authors
   Permission is hereby granted, free of charge, to any person obtaining a copy
   of this software and associated documentation files (the "Software"), to
   deal in the Software without restriction, including without limitation the
   rights to use, copy, modify, merge, publish, distribute, sublicense, and/or
   sell copies of the Software, and to permit persons to whom the Software is
   furnished to do so, subject to the following conditions: The above copyright
   notice and this permission notice shall be included in all copies or
   substantial portions of the Software. THE SOFTWARE IS PROVIDED "AS IS",
   WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED.
*/

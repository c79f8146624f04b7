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
#define GEMM_VERSION_MINOR 3
#define GEMM_VERSION_PATCH 0
#define GEMM_VERSION_STRING "0.3.0"

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
    int cl_break_kernel;      /* OpenCL: every tuned kernel computes a wrong result */
    size_t mpi_stage_bytes;   /* MPI: bytes per staged message chunk */
    size_t mpi_copy_parallel_bytes; /* MPI: host copies this large go to several threads */
    int cuda_host_tile;       /* CUDA host path: panels of this many rows and columns */
    size_t cuda_host_chunk_bytes; /* CUDA host path: bytes per staged copy */
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

/* The checks of DESIGN.md, in argument order; sets *work on success. */
static gemm_status gemm__check_args(const char *func, gemm_layout layout, gemm_transpose transa,
                                    gemm_transpose transb, int64_t m, int64_t n, int64_t k, int alpha_is_zero,
                                    int have_A, int64_t lda, int have_B, int64_t ldb, int beta_is_one, int have_C,
                                    int64_t ldc, gemm__work *work)
{
    const char *lay = layout == GEMM_ROW_MAJOR ? "row-major" : "column-major";
    int64_t need;
    int reads_ab, touches_c;

    if (layout != GEMM_ROW_MAJOR && layout != GEMM_COL_MAJOR)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: layout is %d, not GEMM_ROW_MAJOR or GEMM_COL_MAJOR", func, (int)layout);
    if (transa != GEMM_NO_TRANS && transa != GEMM_TRANS)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: transa is %d, not GEMM_NO_TRANS or GEMM_TRANS", func, (int)transa);
    if (transb != GEMM_NO_TRANS && transb != GEMM_TRANS)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: transb is %d, not GEMM_NO_TRANS or GEMM_TRANS", func, (int)transb);
    if (m < 0) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: m = %lld is negative", func, (long long)m);
    if (n < 0) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: n = %lld is negative", func, (long long)n);
    if (k < 0) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: k = %lld is negative", func, (long long)k);

    reads_ab = m > 0 && n > 0 && k > 0 && !alpha_is_zero;
    touches_c = m > 0 && n > 0 && !(beta_is_one && (k == 0 || alpha_is_zero));

    if (!have_A && reads_ab) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: A is NULL", func);
    need = transa == GEMM_NO_TRANS ? gemm__min_ld(layout, m, k) : gemm__min_ld(layout, k, m);
    if (lda < need)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: lda = %lld is too small: %s %s A needs lda >= %lld",
                          func, (long long)lda, lay, transa == GEMM_NO_TRANS ? "untransposed" : "transposed", (long long)need);
    if (!have_B && reads_ab) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: B is NULL", func);
    need = transb == GEMM_NO_TRANS ? gemm__min_ld(layout, k, n) : gemm__min_ld(layout, n, k);
    if (ldb < need)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: ldb = %lld is too small: %s %s B needs ldb >= %lld",
                          func, (long long)ldb, lay, transb == GEMM_NO_TRANS ? "untransposed" : "transposed", (long long)need);
    if (!have_C && touches_c) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: C is NULL", func);
    need = gemm__min_ld(layout, m, n);
    if (ldc < need)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: ldc = %lld is too small: %s C needs ldc >= %lld",
                          func, (long long)ldc, lay, (long long)need);

    *work = !touches_c ? GEMM__WORK_NONE : reads_ab ? GEMM__WORK_FULL : GEMM__WORK_SCALE;
    return GEMM_OK;
}

/* The largest extent accepted: its byte offset fits in int64_t for any
   element type up to 8 bytes. */
#define GEMM__MAX_EXTENT (INT64_MAX / 8)

GEMM_DEF int64_t gemm__extent(int64_t rows, int64_t cols, int64_t ld)
{
    if (rows <= 0 || cols <= 0) return 0;
    if (ld < 1 || cols - 1 > (INT64_MAX - rows) / ld) return -1;
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

GEMM_DEF gemm_status gemm__prepare(const char *func, gemm_layout layout, gemm_transpose transa,
                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                   int alpha_is_zero, int have_A, int64_t lda, int have_B, int64_t ldb,
                                   int beta_is_one, int have_C, int64_t ldc, gemm__problem *p)
{
    int reads;
    gemm_status s;
    p->work = GEMM__WORK_NONE; /* set before the checks: a failed call leaves *p defined */
    s = gemm__check_args(func, layout, transa, transb, m, n, k, alpha_is_zero, have_A, lda, have_B,
                                     ldb, beta_is_one, have_C, ldc, &p->work);
    if (s != GEMM_OK) return s;
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
    reads = p->work == GEMM__WORK_FULL;
    /* Stored column-major: op(a) = a^T means a is k x m. */
    s = gemm__span(func, p->swapped ? "B" : "A", reads, p->a_trans ? p->k : p->m, p->a_trans ? p->m : p->k,
                   p->lda, &p->a_extent);
    if (s == GEMM_OK)
        s = gemm__span(func, p->swapped ? "A" : "B", reads, p->b_trans ? p->n : p->k, p->b_trans ? p->k : p->n,
                       p->ldb, &p->b_extent);
    if (s == GEMM_OK) s = gemm__span(func, "C", p->work != GEMM__WORK_NONE, p->m, p->n, p->ldc, &p->c_extent);
    return s;
}
/* <<core problem */
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

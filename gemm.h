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

   Arguments follow CBLAS's cblas_?gemm, with int64_t sizes and offsets, so a
   50,000 x 50,000 matrix works. The enum values equal CBLAS's.
     - m, n, k >= 0; each leading dimension covers its matrix in the given
       layout and transpose (and is >= 1); enums valid; a pointer may be NULL
       only where it is not referenced. A failed check returns
       GEMM_ERR_INVALID_ARG and writes nothing.
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

   LICENSE: MIT, see the end of this file.
*/

#ifndef GEMM_H_INCLUDED
#define GEMM_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

/* ====================================================================== */
/*  API                                                                    */
/* ====================================================================== */

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

/* A sentence for a status; never NULL. */
GEMM_DEF const char *gemm_strerror(gemm_status status);

/* This thread's detail of its last failure ("" when none). */
GEMM_DEF const char *gemm_last_error_detail(void);

/* The front door: runs on the CPU backend (gemm_cpu.h). */
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

/* ---- for backends: shared internals (gemm__ prefix, not for users) ---- */

/* What a call has to do once its arguments are valid. */
typedef enum gemm__work {
    GEMM__WORK_NONE = 0,   /* m == 0, n == 0, or C = 1*C: return at once */
    GEMM__WORK_SCALE = 1,  /* alpha == 0 or k == 0: C = beta*C, A and B unread */
    GEMM__WORK_FULL = 2    /* the full product */
} gemm__work;

/* The checks of the contract, in argument order, shared by every backend.
   `func` names the caller in the error detail. Pointers are passed as
   "present" flags so one function serves every precision and memory space.
   On success returns GEMM_OK and sets *work; on failure sets the detail. */
GEMM_DEF gemm_status gemm__check_args(const char *func, gemm_layout layout,
                                      gemm_transpose transa, gemm_transpose transb,
                                      int64_t m, int64_t n, int64_t k,
                                      int alpha_is_zero, int have_A, int64_t lda,
                                      int have_B, int64_t ldb,
                                      int beta_is_one, int have_C, int64_t ldc,
                                      gemm__work *work);

/* Records `status` with a printf-style detail for gemm_last_error_detail()
   and returns `status`, so `return gemm__fail(...)` reads naturally. */
GEMM_DEF gemm_status gemm__fail(gemm_status status, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Clears this thread's detail; each public entry point calls it first. */
GEMM_DEF void gemm__clear_error(void);

/* Strides of op(X) viewed as a rows x cols matrix: element (i, j) of op(X)
   sits at X[i*rs + j*cs]. Row- and column-major, transposed or not, are
   just stride choices. */
GEMM_DEF void gemm__op_strides(gemm_layout layout, gemm_transpose trans, int64_t ld,
                               int64_t *rs, int64_t *cs);

#ifdef __cplusplus
}
#endif

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

#ifdef __cplusplus
extern "C" {
#endif

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

GEMM_DEF void gemm__op_strides(gemm_layout layout, gemm_transpose trans, int64_t ld,
                               int64_t *rs, int64_t *cs)
{
    int row_major = layout == GEMM_ROW_MAJOR;
    int transposed = trans == GEMM_TRANS;
    /* Stored element (r, c) is at r*ld + c (row-major) or r + c*ld; a
       transpose swaps which index is r. */
    if (row_major != transposed) { *rs = ld; *cs = 1; }
    else                         { *rs = 1;  *cs = ld; }
}

/* Smallest leading dimension that covers a stored rows x cols matrix. */
static int64_t gemm__min_ld(gemm_layout layout, int64_t rows, int64_t cols)
{
    int64_t need = layout == GEMM_ROW_MAJOR ? cols : rows;
    return need > 1 ? need : 1;
}

GEMM_DEF gemm_status gemm__check_args(const char *func, gemm_layout layout,
                                      gemm_transpose transa, gemm_transpose transb,
                                      int64_t m, int64_t n, int64_t k,
                                      int alpha_is_zero, int have_A, int64_t lda,
                                      int have_B, int64_t ldb,
                                      int beta_is_one, int have_C, int64_t ldc,
                                      gemm__work *work)
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

/* The reference, written once for both precisions. Sums in double. */
#define GEMM__DEFINE_REF(NAME, T)                                                         \
    GEMM_DEF gemm_status NAME(gemm_layout layout, gemm_transpose transa, gemm_transpose transb, \
                              int64_t m, int64_t n, int64_t k,                            \
                              T alpha, const T *A, int64_t lda, const T *B, int64_t ldb,  \
                              T beta, T *C, int64_t ldc)                                  \
    {                                                                                     \
        int64_t ars, acs, brs, bcs, crs, ccs, i, j, p;                                    \
        gemm__work work;                                                                  \
        gemm_status s;                                                                    \
        gemm__clear_error();                                                              \
        s = gemm__check_args(#NAME, layout, transa, transb, m, n, k, alpha == 0, A != NULL, \
                             lda, B != NULL, ldb, beta == 1, C != NULL, ldc, &work);      \
        if (s != GEMM_OK || work == GEMM__WORK_NONE) return s;                            \
        gemm__op_strides(layout, transa, lda, &ars, &acs);                                \
        gemm__op_strides(layout, transb, ldb, &brs, &bcs);                                \
        gemm__op_strides(layout, GEMM_NO_TRANS, ldc, &crs, &ccs);                         \
        for (i = 0; i < m; i++)                                                           \
            for (j = 0; j < n; j++) {                                                     \
                T *c = &C[i * crs + j * ccs];                                             \
                double ab = 0, sum = 0;                                                   \
                if (work == GEMM__WORK_FULL) {                                            \
                    for (p = 0; p < k; p++)                                               \
                        sum += (double)A[i * ars + p * acs] * (double)B[p * brs + j * bcs]; \
                    ab = (double)alpha * sum;                                             \
                }                                                                         \
                *c = (T)(ab + (beta == 0 ? 0.0 : (double)beta * (double)*c));             \
            }                                                                             \
        return GEMM_OK;                                                                   \
    }
GEMM__DEFINE_REF(gemm_ref_sgemm, float)
GEMM__DEFINE_REF(gemm_ref_dgemm, double)
#undef GEMM__DEFINE_REF

#ifdef __cplusplus
}
#endif

#endif /* GEMM_IMPLEMENTATION */

/*
   Revision history
       0.1  first release: the contract, the reference, and the CPU, CUDA,
            OpenCL and MPI backends
       0.2  CUDA: opt-in TF32, FP16 and BF16 on the tensor cores (wgmma and
            TMA on Hopper, mma.sync from sm_80)

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

/* gemm_cpu.h - the CPU backend of gemm, and the home of gemm_sgemm/gemm_dgemm.

   Include "gemm.h" (which includes this file) rather than this file alone;
   define GEMM_IMPLEMENTATION in one translation unit, as gemm.h explains.

   How it works
       The problem is first turned into one shape: C is viewed column-major
       (a row-major C is the transposed problem C^T = op(B)^T op(A)^T), and
       op(A), op(B) are read through (row stride, column stride) pairs, so all
       eight layout/transpose cases share one code path. C is scaled by beta
       once, then alpha*A*B is accumulated block by block: a block of op(A)
       (MC x KC) is packed into a contiguous column-major buffer, whatever
       its layout, and the inner loop streams columns of C and of the packed
       block, which the compiler vectorises.

   Threads
       gemm_cpu_set_threads(n) sets how many threads a call may use (0 means
       automatic: the GEMM_NUM_THREADS environment variable, else the online
       CPU count).

   LICENSE: MIT, see the end of gemm.h.
*/

#ifndef GEMM_CPU_H_INCLUDED
#define GEMM_CPU_H_INCLUDED

#include "gemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Threads a CPU call may use; 0 = automatic. Returns GEMM_ERR_INVALID_ARG
   for a negative count. */
GEMM_DEF gemm_status gemm_cpu_set_threads(int threads);

/* The thread count a call made now would use (resolving "automatic"). */
GEMM_DEF int gemm_cpu_get_threads(void);

#ifdef __cplusplus
}
#endif

#define GEMM__CPU_API_DONE
#endif /* GEMM_CPU_H_INCLUDED */

/* ====================================================================== */
/*  IMPLEMENTATION                                                         */
/* ====================================================================== */

#if defined(GEMM_IMPLEMENTATION) && defined(GEMM__CPU_API_DONE) && !defined(GEMM__CPU_IMPLEMENTED)
#define GEMM__CPU_IMPLEMENTED

#include <stdlib.h>
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__) || defined(_MSC_VER)
#define GEMM__RESTRICT __restrict
#else
#define GEMM__RESTRICT
#endif

/* Block sizes: a packed MC x KC block of A stays in L2, a KC-long column of
   B and an MC-long column of C in L1. */
#define GEMM__CPU_MC 256
#define GEMM__CPU_KC 256

static int gemm__cpu_threads_requested; /* 0 = automatic */

GEMM_DEF gemm_status gemm_cpu_set_threads(int threads)
{
    gemm__clear_error();
    if (threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cpu_set_threads: threads = %d is negative", threads);
    gemm__cpu_threads_requested = threads;
    return GEMM_OK;
}

GEMM_DEF int gemm_cpu_get_threads(void)
{
    const char *env;
    long online = 1;
#ifdef GEMM_NO_THREADS
    return 1;
#endif
    if (gemm__cpu_threads_requested > 0) return gemm__cpu_threads_requested;
    env = getenv("GEMM_NUM_THREADS");
    if (env && atoi(env) > 0) return atoi(env);
#if defined(_SC_NPROCESSORS_ONLN)
    online = sysconf(_SC_NPROCESSORS_ONLN);
#endif
    return online > 0 ? (int)online : 1;
}

/* One body for both precisions. */
#define GEMM__CPU_DEFINE(NAME, T)                                                             \
    GEMM_DEF gemm_status NAME(gemm_layout layout, gemm_transpose transa, gemm_transpose transb, \
                              int64_t m, int64_t n, int64_t k,                                \
                              T alpha, const T *A, int64_t lda, const T *B, int64_t ldb,      \
                              T beta, T *C, int64_t ldc)                                      \
    {                                                                                         \
        int64_t ars, acs, brs, bcs, crs, ccs, i, j, p, ib, pb;                                \
        gemm__work work;                                                                      \
        T *pack;                                                                              \
        gemm_status s;                                                                        \
        gemm__clear_error();                                                                  \
        s = gemm__check_args(#NAME, layout, transa, transb, m, n, k, alpha == 0, A != NULL,   \
                             lda, B != NULL, ldb, beta == 1, C != NULL, ldc, &work);          \
        if (s != GEMM_OK || work == GEMM__WORK_NONE) return s;                                \
        gemm__op_strides(layout, transa, lda, &ars, &acs);                                    \
        gemm__op_strides(layout, transb, ldb, &brs, &bcs);                                    \
        gemm__op_strides(layout, GEMM_NO_TRANS, ldc, &crs, &ccs);                             \
        pack = NULL;                                                                          \
        if (work == GEMM__WORK_FULL) { /* allocate before C is written */                    \
            pack = (T *)GEMM_MALLOC(sizeof(T) * GEMM__CPU_MC * GEMM__CPU_KC);                  \
            if (!pack)                                                                        \
                return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for a %d x %d packing buffer", \
                                  #NAME, GEMM__CPU_MC, GEMM__CPU_KC);                         \
        }                                                                                     \
        for (j = 0; j < n; j++)                                                               \
            for (i = 0; i < m; i++) {                                                         \
                T *c = &C[i * crs + j * ccs];                                                 \
                *c = beta == 0 ? (T)0 : beta * *c;                                            \
            }                                                                                 \
        if (!pack) return GEMM_OK;                                                            \
        if (crs != 1) { /* row-major C: solve C^T = op(B)^T op(A)^T instead */                \
            const T *tp = A; int64_t t;                                                       \
            A = B; B = tp;                                                                    \
            t = m; m = n; n = t;                                                              \
            t = ars; ars = bcs; bcs = t;                                                      \
            t = acs; acs = brs; brs = t;                                                      \
            t = crs; crs = ccs; ccs = t;                                                      \
        }                                                                                     \
        for (pb = 0; pb < k; pb += GEMM__CPU_KC) {                                            \
            int64_t kc = k - pb < GEMM__CPU_KC ? k - pb : GEMM__CPU_KC;                        \
            for (ib = 0; ib < m; ib += GEMM__CPU_MC) {                                        \
                int64_t mc = m - ib < GEMM__CPU_MC ? m - ib : GEMM__CPU_MC;                    \
                for (p = 0; p < kc; p++)                                                      \
                    for (i = 0; i < mc; i++)                                                  \
                        pack[p * mc + i] = A[(ib + i) * ars + (pb + p) * acs];                \
                for (j = 0; j < n; j++) {                                                     \
                    T *GEMM__RESTRICT cj = &C[ib + j * ccs];                                  \
                    for (p = 0; p < kc; p++) {                                                \
                        const T *GEMM__RESTRICT ap = &pack[p * mc];                           \
                        T bpj = alpha * B[(pb + p) * brs + j * bcs];                          \
                        for (i = 0; i < mc; i++) cj[i] += ap[i] * bpj;                        \
                    }                                                                         \
                }                                                                             \
            }                                                                                 \
        }                                                                                     \
        GEMM_FREE(pack);                                                                      \
        return GEMM_OK;                                                                       \
    }
GEMM__CPU_DEFINE(gemm_sgemm, float)
GEMM__CPU_DEFINE(gemm_dgemm, double)
#undef GEMM__CPU_DEFINE

#ifdef __cplusplus
}
#endif

#endif /* GEMM_IMPLEMENTATION */

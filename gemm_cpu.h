/* gemm_cpu.h - the CPU backend of gemm, and the home of gemm_sgemm/gemm_dgemm.

   Include "gemm.h" (which includes this file) rather than this file alone;
   define GEMM_IMPLEMENTATION in one translation unit, as gemm.h explains.
   A plain `cc -O2` build is fast on any x86-64 or aarch64: the SIMD kernels
   carry their own target attributes and are picked once, at run time, from
   what the CPU says it supports.

   The calls
       gemm_cpu_sgemm / gemm_cpu_dgemm(<cblas_?gemm's arguments>, options)
       gemm_sgemm / gemm_dgemm(<cblas_?gemm's arguments>)   the same, options NULL
       gemm_cpu_?gemm_strided_batched(..., A, lda, stride_a, B, ldb, stride_b,
                                      beta, C, ldc, stride_c, batch_count, options)
       gemm_cpu_?gemm_batched(..., A[], lda, B[], ldb, beta, C[], ldc,
                              batch_count, options)          (see Batches)

       gemm_cpu_options o = {0};         NULL or all zeros = every default
       o.threads = 4;
       gemm_cpu_sgemm(GEMM_ROW_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, m, n, k,
                      1.0f, A, k, B, n, 0.0f, C, n, &o);

   Options (gemm_cpu_options)
       threads   the threads this call may use. 0: what gemm_cpu_get_threads()
                 says (gemm_cpu_set_threads(), else GEMM_NUM_THREADS, else
                 the online CPU count); more than 64 means 64; negative is
                 GEMM_ERR_INVALID_ARG, reported after the checks of the CBLAS
                 arguments. The count never changes the result's bits, and
                 small problems still run on one thread (see Threads).

   How it works (the Goto/BLIS structure)
       C is viewed column-major (a row-major C is the transposed problem
       C^T = op(B)^T op(A)^T) and op(A), op(B) are read through (row stride,
       column stride) pairs, so the 8 layout/transpose cases are one path:

         for jc in steps of NC         columns of C and op(B)
           for pc in steps of KC       the k dimension, never split
             pack op(B)[pc, jc] into KC x NR micro-panels   (L3 / L2)
             for ic in steps of MC     rows of C and op(A)
               pack op(A)[ic, pc] into MR x KC micro-panels (L2)
               for jr in steps of NR, ir in steps of MR:
                 micro-kernel: C[MR x NR] = alpha*A*B + beta*C  (B panel in L1)

       One driver serves both precisions: it moves bytes (the element size
       and the precision's micro-kernel come from a table), and the only
       typed arithmetic is in the micro-kernels. alpha and beta travel as
       double, which holds every float exactly.

       Packing absorbs layouts and transposes. A panel of op(A) is stored
       column by column (MR contiguous elements per k, vector copies when
       op(A)'s columns are contiguous, a scalar transpose otherwise). A panel
       of op(B) is stored row by row (NR elements per k) when op(B)'s rows
       are contiguous, else column by column with plain copies, which the
       kernel's strided variant reads: neither case transposes element by
       element. Panels are zero-padded, so the micro-kernel always computes a
       full MR x NR tile; a tile that sticks out of C is computed into a small
       local tile and copied back, so the user's matrices are never padded or
       copied whole. KC is chosen so that a B micro-panel fills half of L1, MC
       so that the packed A block fills half of L2, NC so that the packed B
       panel is about 4 MiB (L1d / L2 sizes from sysconf, else 32 KiB / 1 MiB).

   Micro-kernels
       x86-64:  avx512 (fp32 32x8, fp64 16x8), avx2 (AVX2+FMA: 16x6, 8x6),
                scalar (2x6)
       aarch64: neon (fp32 8x12, fp64 4x12), scalar
       others:  scalar
       MR is two vectors and NR broadcasts of B; on AVX-512, NR = 8 (16
       accumulators are enough to hide FMA latency) divides the usual sizes,
       where 12 wasted a third of the last tile at n = 64. The best kernel
       the CPU supports is picked at the first call (__builtin_cpu_supports,
       which also checks that the OS saves the registers); GEMM_NO_SIMD
       leaves only scalar. Every kernel, with its strided-B variant and its
       A-packing routine, is one template over a small table of vector
       operations, with one signature for every ISA and precision
       (gemm__cpu_ukernel_fn).

   Small matrices
       When m*n*k <= 128^3 (measured on AVX-512: up to there packing costs
       more than it saves), B is read in place, and A too when its columns
       are contiguous; only a tail narrower than a micro-panel is packed.

   Threads
       gemm_cpu_set_threads(n) sets how many threads a call may use (0 means
       automatic: the GEMM_NUM_THREADS environment variable, else the online
       CPU count, read once; at most 64); a call's options.threads overrides
       it for that call. A persistent pool of pthreads is started at
       the first call that wants more than one thread and is stopped and
       joined at exit (atexit); a child made by fork() starts with a fresh,
       empty pool (pthread_atfork). The caller's thread works too.
       C is cut into a grid of rectangles over M and N (never K); the
       threads take them from a shared counter (4 per thread when the
       problem is large enough), so a thread the OS runs late costs one
       rectangle rather than half the call, and when the caller has taken
       the last one it waits only for workers already inside. Rectangles
       start at multiples of MR and NR, and each is computed with the same
       kernel and the same k order, so results are bitwise identical for
       any thread count. Problems below 2 * 56^3 flops run on one thread.
       Policy against oversubscription: one call at a time owns the pool;
       a call made while another user thread's call holds it runs on its
       own thread alone, so k concurrent callers use at most
       threads + k - 1 threads. Idle workers spin for a few tens of
       microseconds after a call, then poll for a few milliseconds with
       sched_yield() (which gives the core to any other runnable thread),
       then sleep on a condition variable: back-to-back calls find them
       awake and on their own cores.

   Batches
       batch_count products that share every argument but where their
       matrices are: strided (member i's A, B, C start stride_a*i,
       stride_b*i, stride_c*i elements in; 0 shares an A or B) or pointer
       arrays (A[i], B[i], C[i]); gemm_?gemm_*batched in gemm.h are these
       with NULL options. Each member is the single call on it, bit for bit,
       for any thread count. Everything is checked first (gemm.h's batch
       checks: strides, counts, member pointers, no two members writing one
       element of C), so a refused batch writes nothing and the detail
       names the member. One job serves every member: kernels and block
       sizes chosen once, one workspace per thread. Members below the
       threading threshold go whole to the threads, a few at a time from a
       shared counter; bigger ones go whole in full rounds of the threads,
       and the last partial round is cut like single calls. Up to 28^3 a
       member skips packing and edge tiles: a masked AVX-512 or AVX2 kernel
       (one vector of rows by up to 8 columns) reads A, B and C in place,
       with the micro-kernels' arithmetic.

   Memory
       Each call allocates (GEMM_MALLOC) one workspace per thread, bounded
       by the block sizes (about MC*KC + KC*NC elements, never m*n*k), before
       C is touched; failure returns GEMM_ERR_OUT_OF_MEMORY with C unchanged.

   Test hooks
       Only when the test suite defines GEMM__TEST_HOOKS: the fields
       cpu_kernel (force a micro-kernel by name; a call refuses a name this
       build or CPU cannot run with GEMM_ERR_UNAVAILABLE) and cpu_mc, cpu_kc,
       cpu_nc (block sizes, so small tests cross every block edge) of
       gemm.h's gemm__hooks, and gemm__cpu_kernels() / gemm__cpu_kernel()
       (the kernels this CPU can run; the one calls use now). Without the
       macro none of them exists.

   For maintainers: this file is generated from src/ (src/gemm_cpu.h.in and
   the files it names, in reading order; `make headers`). Edit those.

   LICENSE: MIT, see the end of gemm.h.
*/

#ifndef GEMM_CPU_H_INCLUDED
#define GEMM_CPU_H_INCLUDED

#include "gemm.h"

/* >>cpu api: src/cpu/api.h */
#ifdef __cplusplus
extern "C" {
#endif

/* Options of one CPU call. NULL or all zeros means every default, so a
   field added later never changes what an old caller gets. */
typedef struct gemm_cpu_options {
    int threads; /* threads this call may use; 0 = gemm_cpu_set_threads(), else GEMM_NUM_THREADS, else automatic */
} gemm_cpu_options;

/* C = alpha*op(A)*op(B) + beta*C on the CPU: cblas_?gemm's arguments, then
   the options (may be NULL). gemm_sgemm / gemm_dgemm are these with NULL. */
GEMM_DEF gemm_status gemm_cpu_sgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    float alpha, const float *A, int64_t lda,
                                    const float *B, int64_t ldb,
                                    float beta, float *C, int64_t ldc, const gemm_cpu_options *options);
GEMM_DEF gemm_status gemm_cpu_dgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    double alpha, const double *A, int64_t lda,
                                    const double *B, int64_t ldb,
                                    double beta, double *C, int64_t ldc, const gemm_cpu_options *options);

/* Threads a CPU call may use; 0 = automatic. Returns GEMM_ERR_INVALID_ARG
   for a negative count. */
GEMM_DEF gemm_status gemm_cpu_set_threads(int threads);

/* The thread count a call made now would use (resolving "automatic"). */
GEMM_DEF int gemm_cpu_get_threads(void);

#ifdef GEMM__TEST_HOOKS
/* For the tests only (the kernel and block sizes are forced through
   gemm__hooks): the names of the micro-kernels this CPU can run, best first
   ("avx512", "avx2", "neon", "scalar"), and how many (at most max are
   written); and the kernel calls use now (NULL when gemm__hooks.cpu_kernel
   names one this build or CPU cannot run). */
GEMM_DEF int gemm__cpu_kernels(const char **names, int max);
GEMM_DEF const char *gemm__cpu_kernel(void);
#endif

#ifdef __cplusplus
}
#endif
/* <<cpu api */
/* >>cpu batch_api: src/cpu/batch_api.h */
#ifdef __cplusplus
extern "C" {
#endif

/* Batches on the CPU: batch_count products C_i = alpha*op(A_i)*op(B_i) +
   beta*C_i that share every argument but where their matrices are, in
   cblas_?gemm's order with each matrix's batch argument after its leading
   dimension (as cublas?gemmStridedBatched / cublas?gemmBatched), then the
   count, then the options (may be NULL). gemm_?gemm_strided_batched /
   gemm_?gemm_batched (gemm.h) are these with NULL.

   Strided: member i's A, B, C start stride_a*i, stride_b*i, stride_c*i
   elements after A, B, C. Pointer arrays: member i's are A[i], B[i], C[i]. */
GEMM_DEF gemm_status gemm_cpu_sgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                    int64_t m, int64_t n, int64_t k,
                                                    float alpha, const float *A, int64_t lda, int64_t stride_a,
                                                    const float *B, int64_t ldb, int64_t stride_b,
                                                    float beta, float *C, int64_t ldc, int64_t stride_c,
                                                    int64_t batch_count, const gemm_cpu_options *options);
GEMM_DEF gemm_status gemm_cpu_dgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                    int64_t m, int64_t n, int64_t k,
                                                    double alpha, const double *A, int64_t lda, int64_t stride_a,
                                                    const double *B, int64_t ldb, int64_t stride_b,
                                                    double beta, double *C, int64_t ldc, int64_t stride_c,
                                                    int64_t batch_count, const gemm_cpu_options *options);
GEMM_DEF gemm_status gemm_cpu_sgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                            int64_t m, int64_t n, int64_t k,
                                            float alpha, const float *const A[], int64_t lda,
                                            const float *const B[], int64_t ldb,
                                            float beta, float *const C[], int64_t ldc,
                                            int64_t batch_count, const gemm_cpu_options *options);
GEMM_DEF gemm_status gemm_cpu_dgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                            int64_t m, int64_t n, int64_t k,
                                            double alpha, const double *const A[], int64_t lda,
                                            const double *const B[], int64_t ldb,
                                            double beta, double *const C[], int64_t ldc,
                                            int64_t batch_count, const gemm_cpu_options *options);

#ifdef __cplusplus
}
#endif
/* <<cpu batch_api */

#define GEMM__CPU_API_DONE
#endif /* GEMM_CPU_H_INCLUDED */

/* ====================================================================== */
/*  IMPLEMENTATION                                                         */
/* ====================================================================== */

#if defined(GEMM_IMPLEMENTATION) && defined(GEMM__CPU_API_DONE) && !defined(GEMM__CPU_IMPLEMENTED)
#define GEMM__CPU_IMPLEMENTED

/* >>cpu platform: src/cpu/platform.h */
#include <stdlib.h>
#include <string.h>
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

/* SIMD needs GCC-style target attributes and builtins (gcc, clang, and
   nvcc's host pass, which uses gcc); nvcc's device pass never sees it. */
#if !defined(GEMM_NO_SIMD) && !defined(__CUDA_ARCH__) && (defined(__GNUC__) || defined(__clang__))
#if defined(__x86_64__)
#define GEMM__CPU_X86 1
#include <immintrin.h>
#elif defined(__aarch64__)
#define GEMM__CPU_NEON 1
#include <arm_neon.h>
#endif
#endif

#if !defined(GEMM_NO_THREADS) && (defined(__unix__) || defined(__APPLE__)) && (defined(__GNUC__) || defined(__clang__))
#define GEMM__CPU_THREADS 1
#include <pthread.h>
#include <sched.h>
#endif

#if defined(__GNUC__) || defined(__clang__)
#define GEMM__CPU_LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define GEMM__CPU_TAKE(x) __atomic_fetch_add(&(x), 1, __ATOMIC_RELAXED)
#define GEMM__CPU_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#define GEMM__CPU_PREFETCH(p) __builtin_prefetch(p, 1)
#else
#define GEMM__CPU_LOAD(x) (x)
#define GEMM__CPU_TAKE(x) ((x)++)
#define GEMM__CPU_STORE(x, v) ((x) = (v))
#define GEMM__CPU_PREFETCH(p) ((void)0)
#endif

#if defined(__GNUC__) || defined(__clang__) || defined(_MSC_VER)
#define GEMM__RESTRICT __restrict
#else
#define GEMM__RESTRICT
#endif
/* <<cpu platform */

#ifdef __cplusplus
extern "C" {
#endif

/* >>cpu ukernel_template: src/cpu/ukernel_template.h */
/* The micro-kernels: one signature for every ISA and both precisions, so
   the driver that calls them is written once.

   void kernel(k, a, as, b, bp, bj, alpha, beta, c, ldc):
       C[0:MR, 0:NR] = alpha * A * B + beta * C   (beta == 0: C is not read)
   A is MR x k, column p at a + p*as (as = MR when packed, the column stride
   when read in place); element (p, j) of B is at b[p*bp + j*bj]: the packed
   variant ignores bp, bj and reads (NR, 1), the strided variant reads them
   (a panel stored column by column, or B in place); C is column-major with
   leading dimension ldc. The tile is always full. Strides count elements of
   the kernel's precision; alpha and beta come as double (exact for a
   float) and are turned back into the kernel's type before any arithmetic.

   void pack_a(kc, s, ps, nx, d): packs the nx rows (a multiple of MR) of a
   block of A whose columns are contiguous (column p at s + p*ps) into
   MR x kc panels with vector moves, walking each source column once (long
   runs for the hardware prefetcher: such a block often streams from memory). */
typedef void (*gemm__cpu_ukernel_fn)(int64_t k, const void *a, int64_t as, const void *b, int64_t bp, int64_t bj,
                                     double alpha, double beta, void *c, int64_t ldc);
typedef void (*gemm__cpu_pack_a_fn)(int64_t kc, const void *s, int64_t ps, int64_t nx, void *d);

/* One template, instantiated per ISA and precision from a table P of
   vector operations (P##_T element, P##_V vector of P##_VL elements, LOAD,
   STORE, SET1, FMA(a, b, c) = a*b + c, MUL, ADD, ZERO): MR = 2 vectors,
   NR = the count of the REP macro. The accumulators are named variables,
   not an array, so they stay in registers at any optimisation level. */

#define GEMM__CPU_REP6(X, P) X(0, P) X(1, P) X(2, P) X(3, P) X(4, P) X(5, P)
#define GEMM__CPU_REP8(X, P) GEMM__CPU_REP6(X, P) X(6, P) X(7, P)
#define GEMM__CPU_REP12(X, P) GEMM__CPU_REP8(X, P) X(8, P) X(9, P) X(10, P) X(11, P)

#define GEMM__CPU_UK_DECL(j, P) P##_V c0_##j = P##_ZERO(), c1_##j = P##_ZERO();
#define GEMM__CPU_UK_STEP(j, P)                                                                    \
    {                                                                                              \
        P##_V bv = P##_SET1(b[(j) * bjs]);                                                         \
        c0_##j = P##_FMA(a0, bv, c0_##j);                                                          \
        c1_##j = P##_FMA(a1, bv, c1_##j);                                                          \
    }
#define GEMM__CPU_UK_PUT0(j, P)                                                                    \
    P##_STORE(c + (j) * ldc, P##_MUL(c0_##j, va));                                                 \
    P##_STORE(c + (j) * ldc + P##_VL, P##_MUL(c1_##j, va));
/* beta*C + alpha*sum with one FMA, beta == 1 included (1*c + x rounds
   once, as c + x does): the product alpha*sum only ever feeds an FMA, so
   no compiler contracts it into one (g++ and -std=gnu* would contract an
   add, by heuristics), and the bits do not depend on the language mode. */
#define GEMM__CPU_UK_PUTB(j, P)                                                                    \
    P##_STORE(c + (j) * ldc, P##_FMA(vb, P##_LOAD(c + (j) * ldc), P##_MUL(c0_##j, va)));           \
    P##_STORE(c + (j) * ldc + P##_VL, P##_FMA(vb, P##_LOAD(c + (j) * ldc + P##_VL), P##_MUL(c1_##j, va)));

/* BP, BJ: the B strides the body uses; constants (NR, 1) for the packed
   variant, the arguments bp, bj for the strided one. */
#define GEMM__CPU_UKERNEL(NAME, ATTR, P, REP, BP, BJ)                                              \
    static ATTR void NAME(int64_t k, const void *a_in, int64_t as, const void *b_in, int64_t bp,    \
                          int64_t bj, double alpha_in, double beta_in, void *c_in, int64_t ldc)     \
    {                                                                                              \
        const P##_T *GEMM__RESTRICT a = (const P##_T *)a_in;                                       \
        const P##_T *GEMM__RESTRICT b = (const P##_T *)b_in;                                       \
        P##_T *GEMM__RESTRICT c = (P##_T *)c_in;                                                   \
        const P##_T alpha = (P##_T)alpha_in, beta = (P##_T)beta_in;                                \
        int64_t p;                                                                                 \
        const int64_t bjs = BJ; /* read by GEMM__CPU_UK_STEP */                                    \
        REP(GEMM__CPU_UK_DECL, P)                                                                  \
        (void)bp;                                                                                  \
        (void)bj;                                                                                  \
        for (p = 0; p < k; p++) {                                                                  \
            P##_V a0 = P##_LOAD(a), a1 = P##_LOAD(a + P##_VL);                                     \
            REP(GEMM__CPU_UK_STEP, P)                                                              \
            a += as;                                                                               \
            b += BP;                                                                               \
        }                                                                                          \
        {                                                                                          \
            P##_V va = P##_SET1(alpha), vb = P##_SET1(beta);                                       \
            if (beta == 0) { REP(GEMM__CPU_UK_PUT0, P) }                                           \
            else { REP(GEMM__CPU_UK_PUTB, P) }                                                     \
        }                                                                                          \
    }

/* Both variants of one kernel (NAME reads packed B, NAME_strided reads B
   through strides) and its A packer NAME_pack. */
#define GEMM__CPU_UKERNELS(NAME, ATTR, P, REP, NR)                                                 \
    GEMM__CPU_UKERNEL(NAME, ATTR, P, REP, NR, 1)                                                   \
    GEMM__CPU_UKERNEL(NAME##_strided, ATTR, P, REP, bp, bj)                                        \
    static ATTR void NAME##_pack(int64_t kc, const void *s_in, int64_t ps, int64_t nx, void *d_in) \
    {                                                                                              \
        const P##_T *GEMM__RESTRICT s = (const P##_T *)s_in;                                       \
        P##_T *GEMM__RESTRICT d = (P##_T *)d_in;                                                   \
        int64_t p, x0;                                                                             \
        for (p = 0; p < kc; p++, s += ps, d += 2 * P##_VL)                                         \
            for (x0 = 0; x0 < nx; x0 += 2 * P##_VL) {                                              \
                P##_STORE(d + x0 * kc, P##_LOAD(s + x0));                                          \
                P##_STORE(d + x0 * kc + P##_VL, P##_LOAD(s + x0 + P##_VL));                        \
            }                                                                                      \
    }
/* <<cpu ukernel_template */
/* >>cpu ukernel_scalar: src/cpu/ukernel_scalar.h */
/* Portable: one-element "vectors", MR = 2, NR = 6 (15 of 16 FP registers). */
#define GEMM__CPU_SCAL_S_T float
#define GEMM__CPU_SCAL_S_V float
#define GEMM__CPU_SCAL_S_VL 1
#define GEMM__CPU_SCAL_S_ZERO() 0.0f
#define GEMM__CPU_SCAL_S_LOAD(p) (*(p))
#define GEMM__CPU_SCAL_S_STORE(p, v) (*(p) = (v))
#define GEMM__CPU_SCAL_S_SET1(x) (x)
#define GEMM__CPU_SCAL_S_FMA(a, b, c) ((a) * (b) + (c))
#define GEMM__CPU_SCAL_S_MUL(a, b) ((a) * (b))
#define GEMM__CPU_SCAL_S_ADD(a, b) ((a) + (b))
#define GEMM__CPU_SCAL_D_T double
#define GEMM__CPU_SCAL_D_V double
#define GEMM__CPU_SCAL_D_VL 1
#define GEMM__CPU_SCAL_D_ZERO() 0.0
#define GEMM__CPU_SCAL_D_LOAD GEMM__CPU_SCAL_S_LOAD
#define GEMM__CPU_SCAL_D_STORE GEMM__CPU_SCAL_S_STORE
#define GEMM__CPU_SCAL_D_SET1 GEMM__CPU_SCAL_S_SET1
#define GEMM__CPU_SCAL_D_FMA GEMM__CPU_SCAL_S_FMA
#define GEMM__CPU_SCAL_D_MUL GEMM__CPU_SCAL_S_MUL
#define GEMM__CPU_SCAL_D_ADD GEMM__CPU_SCAL_S_ADD
GEMM__CPU_UKERNELS(gemm__cpu_scalar_s, , GEMM__CPU_SCAL_S, GEMM__CPU_REP6, 6)
GEMM__CPU_UKERNELS(gemm__cpu_scalar_d, , GEMM__CPU_SCAL_D, GEMM__CPU_REP6, 6)

/* Every CPU runs it; also the only kernel of a GEMM_NO_SIMD build. */
static int gemm__cpu_has_scalar(void) { return 1; }
/* <<cpu ukernel_scalar */
/* >>cpu ukernel_x86: src/cpu/ukernel_x86.h */
#if defined(GEMM__CPU_X86)
/* AVX-512: 16 zmm accumulators (MR = 2 vectors, NR = 8), 2 for A, 1 broadcast of B. */
#define GEMM__CPU_Z_S_T float
#define GEMM__CPU_Z_S_V __m512
#define GEMM__CPU_Z_S_VL 16
#define GEMM__CPU_Z_S_ZERO() _mm512_setzero_ps()
#define GEMM__CPU_Z_S_LOAD(p) _mm512_loadu_ps(p)
#define GEMM__CPU_Z_S_STORE(p, v) _mm512_storeu_ps(p, v)
#define GEMM__CPU_Z_S_SET1(x) _mm512_set1_ps(x)
#define GEMM__CPU_Z_S_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define GEMM__CPU_Z_S_MUL(a, b) _mm512_mul_ps(a, b)
#define GEMM__CPU_Z_S_ADD(a, b) _mm512_add_ps(a, b)
#define GEMM__CPU_Z_D_T double
#define GEMM__CPU_Z_D_V __m512d
#define GEMM__CPU_Z_D_VL 8
#define GEMM__CPU_Z_D_ZERO() _mm512_setzero_pd()
#define GEMM__CPU_Z_D_LOAD(p) _mm512_loadu_pd(p)
#define GEMM__CPU_Z_D_STORE(p, v) _mm512_storeu_pd(p, v)
#define GEMM__CPU_Z_D_SET1(x) _mm512_set1_pd(x)
#define GEMM__CPU_Z_D_FMA(a, b, c) _mm512_fmadd_pd(a, b, c)
#define GEMM__CPU_Z_D_MUL(a, b) _mm512_mul_pd(a, b)
#define GEMM__CPU_Z_D_ADD(a, b) _mm512_add_pd(a, b)
/* AVX2 + FMA: 12 ymm accumulators, 2 for A, 1 broadcast (15 of 16). */
#define GEMM__CPU_Y_S_T float
#define GEMM__CPU_Y_S_V __m256
#define GEMM__CPU_Y_S_VL 8
#define GEMM__CPU_Y_S_ZERO() _mm256_setzero_ps()
#define GEMM__CPU_Y_S_LOAD(p) _mm256_loadu_ps(p)
#define GEMM__CPU_Y_S_STORE(p, v) _mm256_storeu_ps(p, v)
#define GEMM__CPU_Y_S_SET1(x) _mm256_set1_ps(x)
#define GEMM__CPU_Y_S_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define GEMM__CPU_Y_S_MUL(a, b) _mm256_mul_ps(a, b)
#define GEMM__CPU_Y_S_ADD(a, b) _mm256_add_ps(a, b)
#define GEMM__CPU_Y_D_T double
#define GEMM__CPU_Y_D_V __m256d
#define GEMM__CPU_Y_D_VL 4
#define GEMM__CPU_Y_D_ZERO() _mm256_setzero_pd()
#define GEMM__CPU_Y_D_LOAD(p) _mm256_loadu_pd(p)
#define GEMM__CPU_Y_D_STORE(p, v) _mm256_storeu_pd(p, v)
#define GEMM__CPU_Y_D_SET1(x) _mm256_set1_pd(x)
#define GEMM__CPU_Y_D_FMA(a, b, c) _mm256_fmadd_pd(a, b, c)
#define GEMM__CPU_Y_D_MUL(a, b) _mm256_mul_pd(a, b)
#define GEMM__CPU_Y_D_ADD(a, b) _mm256_add_pd(a, b)
#define GEMM__CPU_AVX512 __attribute__((target("avx512f")))
#define GEMM__CPU_AVX2 __attribute__((target("avx2,fma")))
GEMM__CPU_UKERNELS(gemm__cpu_avx512_s, GEMM__CPU_AVX512, GEMM__CPU_Z_S, GEMM__CPU_REP8, 8)
GEMM__CPU_UKERNELS(gemm__cpu_avx512_d, GEMM__CPU_AVX512, GEMM__CPU_Z_D, GEMM__CPU_REP8, 8)
GEMM__CPU_UKERNELS(gemm__cpu_avx2_s, GEMM__CPU_AVX2, GEMM__CPU_Y_S, GEMM__CPU_REP6, 6)
GEMM__CPU_UKERNELS(gemm__cpu_avx2_d, GEMM__CPU_AVX2, GEMM__CPU_Y_D, GEMM__CPU_REP6, 6)
/* __builtin_cpu_init: a first call from a constructor may run before
   libgcc's own, which would otherwise leave every feature "absent". */
static int gemm__cpu_has_avx512(void) { __builtin_cpu_init(); return __builtin_cpu_supports("avx512f"); }
static int gemm__cpu_has_avx2(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif
/* <<cpu ukernel_x86 */
/* >>cpu ukernel_neon: src/cpu/ukernel_neon.h */

#if defined(GEMM__CPU_NEON)
/* NEON (always there on aarch64): 24 q accumulators of 32. */
#define GEMM__CPU_N_S_T float
#define GEMM__CPU_N_S_V float32x4_t
#define GEMM__CPU_N_S_VL 4
#define GEMM__CPU_N_S_ZERO() vdupq_n_f32(0.0f)
#define GEMM__CPU_N_S_LOAD(p) vld1q_f32(p)
#define GEMM__CPU_N_S_STORE(p, v) vst1q_f32(p, v)
#define GEMM__CPU_N_S_SET1(x) vdupq_n_f32(x)
#define GEMM__CPU_N_S_FMA(a, b, c) vfmaq_f32(c, a, b)
#define GEMM__CPU_N_S_MUL(a, b) vmulq_f32(a, b)
#define GEMM__CPU_N_S_ADD(a, b) vaddq_f32(a, b)
#define GEMM__CPU_N_D_T double
#define GEMM__CPU_N_D_V float64x2_t
#define GEMM__CPU_N_D_VL 2
#define GEMM__CPU_N_D_ZERO() vdupq_n_f64(0.0)
#define GEMM__CPU_N_D_LOAD(p) vld1q_f64(p)
#define GEMM__CPU_N_D_STORE(p, v) vst1q_f64(p, v)
#define GEMM__CPU_N_D_SET1(x) vdupq_n_f64(x)
#define GEMM__CPU_N_D_FMA(a, b, c) vfmaq_f64(c, a, b)
#define GEMM__CPU_N_D_MUL(a, b) vmulq_f64(a, b)
#define GEMM__CPU_N_D_ADD(a, b) vaddq_f64(a, b)
GEMM__CPU_UKERNELS(gemm__cpu_neon_s, , GEMM__CPU_N_S, GEMM__CPU_REP12, 12)
GEMM__CPU_UKERNELS(gemm__cpu_neon_d, , GEMM__CPU_N_D, GEMM__CPU_REP12, 12)
static int gemm__cpu_has_neon(void) { return 1; }
#endif
/* <<cpu ukernel_neon */
/* >>cpu batch_tiny: src/cpu/batch_tiny.c */
/* Tiny members of a batch (up to GEMM__CPU_TINY flops): no packing, no
   edge tiles. A kernel computes mw <= VL rows (one vector, masked) by nw
   <= 8 columns of C in place: A's columns read with masked loads, B's
   elements broadcast through its strides, C's columns loaded and stored
   with masks. Per element it does what the micro-kernels do (sums in k
   order from zero with FMAs, one per KC block, then alpha*sum, then
   + C or beta*C + ... in the same instructions), so a member's bits are the
   single call's. Only x86 has the masks: elsewhere tiny members take the
   packed path. */
/* Measured on AVX-512 (1 thread, members of n^3): n = 8..28 take 0.3 to
   0.65 of the packed path's time; at n = 32 the packed path, which then
   has no edge tiles and reads A and B in place, is faster. */
#define GEMM__CPU_TINY (2.0 * 28.0 * 28.0 * 28.0)

/* C[0:mw, 0:nw] = alpha*A*B + beta*C; A is mw x k, column p at a + p*as;
   B's element (p, j) at b[p*bp + j*bj]; C column-major with ldc. */
typedef void (*gemm__cpu_tiny_fn)(int64_t k, const void *a, int64_t as, const void *b, int64_t bp, int64_t bj,
                                  double alpha, double beta, void *c, int64_t ldc, int mw);

#define GEMM__CPU_TREP1(X, P) X(0, P)
#define GEMM__CPU_TREP2(X, P) GEMM__CPU_TREP1(X, P) X(1, P)
#define GEMM__CPU_TREP3(X, P) GEMM__CPU_TREP2(X, P) X(2, P)
#define GEMM__CPU_TREP4(X, P) GEMM__CPU_TREP3(X, P) X(3, P)
#define GEMM__CPU_TREP5(X, P) GEMM__CPU_TREP4(X, P) X(4, P)
#define GEMM__CPU_TREP6(X, P) GEMM__CPU_TREP5(X, P) X(5, P)
#define GEMM__CPU_TREP7(X, P) GEMM__CPU_TREP6(X, P) X(6, P)
#define GEMM__CPU_TREP8(X, P) GEMM__CPU_TREP7(X, P) X(7, P)

#define GEMM__CPU_TK_DECL(j, P) P##_V c_##j = P##_ZERO();
#define GEMM__CPU_TK_STEP(j, P) c_##j = P##_FMA(av, P##_SET1(bk[(j) * bj]), c_##j);
/* The micro-kernels' epilogue: alpha*sum, plus beta*C by one FMA unless
   beta == 0. */
#define GEMM__CPU_TK_PUT0(j, P) P##_MSTORE(c + (j) * ldc, mask, P##_MUL(c_##j, va));
#define GEMM__CPU_TK_PUTB(j, P)                                                                    \
    P##_MSTORE(c + (j) * ldc, mask, P##_FMA(vb, P##_MLOAD(c + (j) * ldc, mask), P##_MUL(c_##j, va)));

/* One kernel for nw = N columns; P is a vector table of ukernel_x86.h
   with P##_MASK(mw), P##_MLOAD(p, mask), P##_MSTORE(p, mask, v) added. */
#define GEMM__CPU_TINY_KERNEL(NAME, ATTR, P, N)                                                    \
    static ATTR void NAME##_##N(int64_t k, const void *a_in, int64_t as, const void *b_in, int64_t bp, \
                                int64_t bj, double alpha_in, double beta_in, void *c_in, int64_t ldc, int mw) \
    {                                                                                              \
        const P##_T *GEMM__RESTRICT a = (const P##_T *)a_in;                                       \
        const P##_T *GEMM__RESTRICT bk = (const P##_T *)b_in;                                      \
        P##_T *GEMM__RESTRICT c = (P##_T *)c_in;                                                   \
        const P##_T alpha = (P##_T)alpha_in, beta = (P##_T)beta_in;                                \
        P##_MASK_T mask = P##_MASK(mw);                                                            \
        int64_t p;                                                                                 \
        GEMM__CPU_TREP##N(GEMM__CPU_TK_DECL, P)                                                    \
        for (p = 0; p < k; p++, a += as, bk += bp) {                                               \
            P##_V av = P##_MLOAD(a, mask);                                                         \
            GEMM__CPU_TREP##N(GEMM__CPU_TK_STEP, P)                                                \
        }                                                                                          \
        {                                                                                          \
            P##_V va = P##_SET1(alpha), vb = P##_SET1(beta);                                       \
            if (beta == 0) { GEMM__CPU_TREP##N(GEMM__CPU_TK_PUT0, P) }                             \
            else { GEMM__CPU_TREP##N(GEMM__CPU_TK_PUTB, P) }                                       \
        }                                                                                          \
    }

/* The kernels for nw = 1..8 and their table NAME[nw - 1]. */
#define GEMM__CPU_TINY_KERNELS(NAME, ATTR, P)                                                      \
    GEMM__CPU_TINY_KERNEL(NAME, ATTR, P, 1) GEMM__CPU_TINY_KERNEL(NAME, ATTR, P, 2)                \
    GEMM__CPU_TINY_KERNEL(NAME, ATTR, P, 3) GEMM__CPU_TINY_KERNEL(NAME, ATTR, P, 4)                \
    GEMM__CPU_TINY_KERNEL(NAME, ATTR, P, 5) GEMM__CPU_TINY_KERNEL(NAME, ATTR, P, 6)                \
    GEMM__CPU_TINY_KERNEL(NAME, ATTR, P, 7) GEMM__CPU_TINY_KERNEL(NAME, ATTR, P, 8)                \
    static const gemm__cpu_tiny_fn NAME[8] = {NAME##_1, NAME##_2, NAME##_3, NAME##_4,              \
                                              NAME##_5, NAME##_6, NAME##_7, NAME##_8};

/* One instruction set's tiny kernels: the rows a kernel takes (VL), per precision. */
typedef struct gemm__cpu_tiny_set {
    const char *isa; /* the name in gemm__cpu_isas */
    int vl_s, vl_d;
    const gemm__cpu_tiny_fn *s, *d;
} gemm__cpu_tiny_set;

#if defined(GEMM__CPU_X86)
#define GEMM__CPU_Z_S_MASK_T __mmask16
#define GEMM__CPU_Z_S_MASK(mw) ((__mmask16)((1u << (mw)) - 1u))
#define GEMM__CPU_Z_S_MLOAD(p, mask) _mm512_maskz_loadu_ps(mask, p)
#define GEMM__CPU_Z_S_MSTORE(p, mask, v) _mm512_mask_storeu_ps(p, mask, v)
#define GEMM__CPU_Z_D_MASK_T __mmask8
#define GEMM__CPU_Z_D_MASK(mw) ((__mmask8)((1u << (mw)) - 1u))
#define GEMM__CPU_Z_D_MLOAD(p, mask) _mm512_maskz_loadu_pd(mask, p)
#define GEMM__CPU_Z_D_MSTORE(p, mask, v) _mm512_mask_storeu_pd(p, mask, v)
#define GEMM__CPU_Y_S_MASK_T __m256i
#define GEMM__CPU_Y_S_MASK(mw) _mm256_cmpgt_epi32(_mm256_set1_epi32(mw), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
#define GEMM__CPU_Y_S_MLOAD(p, mask) _mm256_maskload_ps(p, mask)
#define GEMM__CPU_Y_S_MSTORE(p, mask, v) _mm256_maskstore_ps(p, mask, v)
#define GEMM__CPU_Y_D_MASK_T __m256i
#define GEMM__CPU_Y_D_MASK(mw) _mm256_cmpgt_epi64(_mm256_set1_epi64x(mw), _mm256_setr_epi64x(0, 1, 2, 3))
#define GEMM__CPU_Y_D_MLOAD(p, mask) _mm256_maskload_pd(p, mask)
#define GEMM__CPU_Y_D_MSTORE(p, mask, v) _mm256_maskstore_pd(p, mask, v)
GEMM__CPU_TINY_KERNELS(gemm__cpu_tiny_avx512_s, GEMM__CPU_AVX512, GEMM__CPU_Z_S)
GEMM__CPU_TINY_KERNELS(gemm__cpu_tiny_avx512_d, GEMM__CPU_AVX512, GEMM__CPU_Z_D)
GEMM__CPU_TINY_KERNELS(gemm__cpu_tiny_avx2_s, GEMM__CPU_AVX2, GEMM__CPU_Y_S)
GEMM__CPU_TINY_KERNELS(gemm__cpu_tiny_avx2_d, GEMM__CPU_AVX2, GEMM__CPU_Y_D)
static const gemm__cpu_tiny_set gemm__cpu_tiny_sets[] = {
    {"avx512", 16, 8, gemm__cpu_tiny_avx512_s, gemm__cpu_tiny_avx512_d},
    {"avx2", 8, 4, gemm__cpu_tiny_avx2_s, gemm__cpu_tiny_avx2_d},
};
#define GEMM__CPU_NTINY 2
#else
static const gemm__cpu_tiny_set gemm__cpu_tiny_sets[1] = {{"", 0, 0, NULL, NULL}};
#define GEMM__CPU_NTINY 0
#endif
/* <<cpu batch_tiny */
/* >>cpu kernel_select: src/cpu/kernel_select.c */
/* One precision's micro-kernel: its tile (mr x nr), the variant that reads
   packed B, the one that reads B through strides, and its A packer. */
typedef struct gemm__cpu_microkernel {
    int mr, nr;
    gemm__cpu_ukernel_fn packed_b, strided_b;
    gemm__cpu_pack_a_fn pack_a;
} gemm__cpu_microkernel;

/* An instruction set's kernels for both precisions. */
typedef struct gemm__cpu_isa {
    const char *name;
    int (*available)(void);
    gemm__cpu_microkernel f32, f64;
} gemm__cpu_isa;

#define GEMM__CPU_ISA(NAME, SMR, SNR, DMR, DNR)                                                     \
    {#NAME, gemm__cpu_has_##NAME,                                                                   \
     {SMR, SNR, gemm__cpu_##NAME##_s, gemm__cpu_##NAME##_s_strided, gemm__cpu_##NAME##_s_pack},    \
     {DMR, DNR, gemm__cpu_##NAME##_d, gemm__cpu_##NAME##_d_strided, gemm__cpu_##NAME##_d_pack}}

/* Best first; the first available one is the default. */
static const gemm__cpu_isa gemm__cpu_isas[] = {
#if defined(GEMM__CPU_X86)
    GEMM__CPU_ISA(avx512, 32, 8, 16, 8),
    GEMM__CPU_ISA(avx2, 16, 6, 8, 6),
#endif
#if defined(GEMM__CPU_NEON)
    GEMM__CPU_ISA(neon, 8, 12, 4, 12),
#endif
    GEMM__CPU_ISA(scalar, 2, 6, 2, 6),
};
#define GEMM__CPU_NISA ((int)(sizeof gemm__cpu_isas / sizeof gemm__cpu_isas[0]))

static int gemm__cpu_isa_best = -1; /* index into gemm__cpu_isas, found at the first call */

/* The best kernels this CPU runs (racing first calls all find the same). */
static const gemm__cpu_isa *gemm__cpu_best_isa(void)
{
    int i = GEMM__CPU_LOAD(gemm__cpu_isa_best);
    if (i < 0) {
        for (i = 0; i < GEMM__CPU_NISA - 1 && !gemm__cpu_isas[i].available(); i++) {}
        GEMM__CPU_STORE(gemm__cpu_isa_best, i);
    }
    return &gemm__cpu_isas[i];
}

/* The kernels called `name`, when this build has them and this CPU runs
   them; NULL otherwise. */
static const gemm__cpu_isa *gemm__cpu_isa_named(const char *name)
{
    int i;
    for (i = 0; i < GEMM__CPU_NISA; i++)
        if (strcmp(gemm__cpu_isas[i].name, name) == 0) return gemm__cpu_isas[i].available() ? &gemm__cpu_isas[i] : NULL;
    return NULL;
}

/* The kernels a call runs: the best, unless a test forces others through
   gemm__hooks.cpu_kernel (NULL when those cannot run here). */
static const gemm__cpu_isa *gemm__cpu_isa_for_call(void)
{
    const char *forced = GEMM__HOOK(cpu_kernel, (const char *)NULL);
    return forced ? gemm__cpu_isa_named(forced) : gemm__cpu_best_isa();
}

#ifdef GEMM__TEST_HOOKS
GEMM_DEF int gemm__cpu_kernels(const char **names, int max)
{
    int i, n = 0;
    for (i = 0; i < GEMM__CPU_NISA; i++)
        if (gemm__cpu_isas[i].available()) {
            if (n < max) names[n] = gemm__cpu_isas[i].name;
            n++;
        }
    return n;
}

GEMM_DEF const char *gemm__cpu_kernel(void)
{
    const gemm__cpu_isa *isa = gemm__cpu_isa_for_call();
    return isa ? isa->name : NULL;
}
#endif
/* <<cpu kernel_select */
/* >>cpu threads: src/cpu/threads.c */
#define GEMM__CPU_MAX_THREADS 64 /* the pool's size limit */

static int gemm__cpu_threads_requested; /* by gemm_cpu_set_threads; 0 = automatic */

GEMM_DEF gemm_status gemm_cpu_set_threads(int threads)
{
    gemm__clear_error();
    if (threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "gemm_cpu_set_threads: threads = %d is negative", threads);
    GEMM__CPU_STORE(gemm__cpu_threads_requested, threads);
    return GEMM_OK;
}

GEMM_DEF int gemm_cpu_get_threads(void)
{
#if !defined(GEMM__CPU_THREADS)
    return 1;
#else
    static long online; /* read once: sysconf reads a file, ~2 us, every call */
    const char *env;
    long n = GEMM__CPU_LOAD(gemm__cpu_threads_requested);
    if (n <= 0 && (env = getenv("GEMM_NUM_THREADS")) != NULL) n = atol(env);
    if (n <= 0 && (n = GEMM__CPU_LOAD(online)) == 0) {
#if defined(_SC_NPROCESSORS_ONLN)
        n = sysconf(_SC_NPROCESSORS_ONLN);
#endif
        GEMM__CPU_STORE(online, n > 0 ? n : 1);
    }
    return n <= 0 ? 1 : n > GEMM__CPU_MAX_THREADS ? GEMM__CPU_MAX_THREADS : (int)n;
#endif
}

/* The threads a call with these options may use, before the size of the
   problem has its say; options->threads is not negative here. */
static int gemm__cpu_threads_for_call(const gemm_cpu_options *options)
{
#if !defined(GEMM__CPU_THREADS)
    (void)options;
    return 1;
#else
    int n = options ? options->threads : 0;
    if (n == 0) return gemm_cpu_get_threads();
    return n > GEMM__CPU_MAX_THREADS ? GEMM__CPU_MAX_THREADS : n;
#endif
}
/* <<cpu threads */
/* >>cpu cache_blocking: src/cpu/cache_blocking.c */
/* Arithmetic on sizes, used by every part below. */
static int64_t gemm__cpu_round_up(int64_t x, int64_t unit) { return (x + unit - 1) / unit * unit; }
static int64_t gemm__cpu_min(int64_t a, int64_t b) { return a < b ? a : b; }

/* Bytes of one core's L1d (level 1) or L2 (level 2); 0 when unknown. */
static long gemm__cpu_cache_bytes(int level)
{
    static long cached[2] = {-1, -1};
    long v = GEMM__CPU_LOAD(cached[level - 1]);
    if (v >= 0) return v;
    v = 0;
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
    v = sysconf(level == 1 ? _SC_LEVEL1_DCACHE_SIZE : _SC_LEVEL2_CACHE_SIZE);
    if (v < 0) v = 0;
#endif
    GEMM__CPU_STORE(cached[level - 1], v);
    return v;
}

/* Block sizes for a kernel of mr x nr elements of `size` bytes; a test may
   force them (gemm__hooks.cpu_mc, cpu_kc, cpu_nc; mc and nc rounded up to
   whole micro-panels). */
static void gemm__cpu_blocking(int mr, int nr, int size, int64_t *mc, int64_t *kc, int64_t *nc)
{
    long l1 = gemm__cpu_cache_bytes(1), l2 = gemm__cpu_cache_bytes(2);
    int64_t o;
    if (l1 < 16384 || l1 > 1048576) l1 = 32768;
    if (l2 < 131072 || l2 > 67108864) l2 = 1048576;
    /* B micro-panel (kc x nr) in half of L1, next to the A and C streams. */
    *kc = (int64_t)(l1 / 2) / (nr * size) / 8 * 8;
    if (*kc < 64) *kc = 64;
    if (*kc > 1024) *kc = 1024;
    /* packed A block (mc x kc) in half of L2. */
    *mc = (int64_t)(l2 / 2) / (*kc * size) / mr * mr;
    if (*mc < mr) *mc = mr;
    /* packed B panel (kc x nc) of about 4 MiB. */
    *nc = (int64_t)4194304 / (*kc * size) / nr * nr;
    if (*nc < nr) *nc = nr;
    if ((o = GEMM__HOOK(cpu_mc, 0)) > 0) *mc = gemm__cpu_round_up(o, mr);
    if ((o = GEMM__HOOK(cpu_kc, 0)) > 0) *kc = o;
    if ((o = GEMM__HOOK(cpu_nc, 0)) > 0) *nc = gemm__cpu_round_up(o, nr);
}
/* <<cpu cache_blocking */
/* >>cpu job: src/cpu/job.h */
/* One call's work, shared by its threads: the canonical problem, the
   operands as bytes, the precision's kernels, the block sizes, and how the
   work is cut over the threads. Read-only while the threads run, except
   `next`, the counter they take chunks from. */
typedef struct gemm__cpu_job {
    const gemm__problem *p;          /* m, n, k, strides, ldc (column-major view) */
    const char *a, *b;               /* op(a), op(b): the caller's A and B, swapped when row-major */
    char *c;
    int64_t es;                      /* bytes of one element: 4 or 8 */
    double alpha, beta;
    const gemm__cpu_microkernel *uk; /* the precision's micro-kernel, mr, nr */
    int64_t mc, kc, nc;              /* block sizes */
    int direct_a, direct_b;          /* small problem: read a (contiguous columns) and b in place */
    int tm, tn;                      /* the grid of chunks over (m, n) */
    int threads;                     /* threads with a workspace */
    int next;                        /* the next chunk to take */
    char *ws;                        /* the workspaces, 64-byte aligned */
    size_t ws_a, ws_stride;          /* bytes: packed A, then packed B, per thread */
} gemm__cpu_job;

/* Where one thread's loops are: the current blocks, and its buffers. Each
   loop fills its fields and hands the struct inward. */
typedef struct gemm__cpu_blocks {
    char *pa, *pb;        /* this thread's packed A block and B panel */
    char *tile;           /* a local MR x NR tile for the edges of C */
    int tile_clean;       /* the tile was zeroed (its padding is read, never used) */
    int b_xmajor;         /* B's columns are contiguous: its panel is packed column by column */
    int64_t jc, nc;       /* jc loop: columns jc..jc+nc of C */
    int64_t b_inplace;    /* ... of which the first b_inplace are read in place */
    int64_t pc, kc;       /* pc loop: k from pc to pc+kc */
    double beta;          /* the call's beta at the first pc block, then 1 */
    const char *b0;       /* op(b)[pc, jc] */
    int64_t ic, mc;       /* ic loop: rows ic..ic+mc of C */
    int64_t a_inplace;    /* ... of which the first a_inplace are read in place */
    const char *a0;       /* op(a)[ic, pc] */
} gemm__cpu_blocks;

/* One NR-wide micro-panel of op(b) where the kernel reads it. */
typedef struct gemm__cpu_bpanel {
    const char *ptr;
    int64_t bp, bj;            /* element strides along k and along n */
    gemm__cpu_ukernel_fn kern; /* the kernel variant that reads it so */
    int64_t nw;                /* its columns inside C: nr, fewer at the edge */
} gemm__cpu_bpanel;
/* <<cpu job */
/* >>cpu packing: src/cpu/packing.c */
/* d[i*dstep] = s[i*sstep] for i < n, elements of es bytes. A copy moves
   bits; typed loads and stores just keep the strided loops short. */
static void gemm__cpu_copy(char *GEMM__RESTRICT d, int64_t dstep, const char *GEMM__RESTRICT s, int64_t sstep,
                           int64_t n, int64_t es)
{
    int64_t i;
    if (dstep == 1 && sstep == 1) {
        memcpy(d, s, (size_t)(n * es));
    } else if (es == (int64_t)sizeof(float)) {
        float *df = (float *)d;
        const float *sf = (const float *)s;
        for (i = 0; i < n; i++) df[i * dstep] = sf[i * sstep];
    } else {
        double *dd = (double *)d;
        const double *sd = (const double *)s;
        for (i = 0; i < n; i++) dd[i * dstep] = sd[i * sstep];
    }
}

/* Packs nx rows of A (or columns of B) of length kc into w-wide panels;
   element (x, p) of the source is at s[x*xs + p*ps] (elements of es bytes).
   A panel is p-major (d[p*w + x], what the packed kernel reads) or, when
   xmajor, x-major (d[x*kc + p], read by the strided kernel with bp = 1,
   bj = kc); the last one is zero-padded to w. Copies follow the source's
   contiguous dimension: only a p-major pack of a source contiguous along p
   (A of a transposed-A call) is a scalar transpose. vpack, when given, is
   the kernel's vector packer for the whole panels of a source with xs == 1. */
static void gemm__cpu_pack(char *d, const char *s, int64_t xs, int64_t ps, int64_t nx, int64_t kc, int w,
                           int xmajor, gemm__cpu_pack_a_fn vpack, int64_t es)
{
    int64_t x0, x, p, full = nx / w * w, tail = nx - full;
    if (xmajor) {
        for (x = 0; x < nx; x++) gemm__cpu_copy(d + x * kc * es, 1, s + x * xs * es, ps, kc, es);
        if (tail) memset(d + nx * kc * es, 0, (size_t)((w - tail) * kc * es));
        return;
    }
    if (xs == 1) {
        if (vpack && full > 0) vpack(kc, s, ps, full, d);
        for (p = 0; p < kc; p++) {
            const char *sp = s + p * ps * es;
            char *dt = d + (full * kc + p * w) * es; /* this k's row of the tail panel */
            for (x0 = 0; x0 < full && !vpack; x0 += w)
                memcpy(d + (x0 * kc + p * w) * es, sp + x0 * es, (size_t)(w * es));
            if (tail) {
                memcpy(dt, sp + full * es, (size_t)(tail * es));
                memset(dt + tail * es, 0, (size_t)((w - tail) * es));
            }
        }
        return;
    }
    for (x0 = 0; x0 < nx; x0 += w, d += w * kc * es) {
        int64_t xw = gemm__cpu_min(w, nx - x0);
        if (xw < w) memset(d, 0, (size_t)(w * kc * es));
        for (x = 0; x < xw; x++) gemm__cpu_copy(d + x * es, w, s + (x0 + x) * xs * es, ps, kc, es);
    }
}
/* <<cpu packing */
/* >>cpu small_path: src/cpu/small_path.c */
/* Small problems: up to m*n*k = 128^3 (measured on AVX-512) packing costs
   more than it saves, so B is read in place, and A too when its columns
   are contiguous (the kernel then reads them with as = acs). Only a tail
   narrower than a micro-panel is still packed: the kernel reads whole
   micro-panels, which would run past the user's matrix. */
#define GEMM__CPU_SMALL (128.0 * 128.0 * 128.0)

static void gemm__cpu_plan_in_place(gemm__cpu_job *jb)
{
    double flops = 2.0 * (double)jb->p->m * (double)jb->p->n * (double)jb->p->k;
    jb->direct_b = flops <= 2.0 * GEMM__CPU_SMALL;
    jb->direct_a = jb->direct_b && jb->p->ars == 1;
}

/* Of a block of mc rows of op(a), the first ones the kernel reads in place. */
static int64_t gemm__cpu_a_rows_in_place(const gemm__cpu_job *jb, int64_t mc)
{
    return jb->direct_a ? mc / jb->uk->mr * jb->uk->mr : 0;
}

/* Of a block of nc columns of op(b), the first ones the kernel reads in place. */
static int64_t gemm__cpu_b_cols_in_place(const gemm__cpu_job *jb, int64_t nc)
{
    return jb->direct_b ? nc / jb->uk->nr * jb->uk->nr : 0;
}
/* <<cpu small_path */
/* >>cpu loops: src/cpu/loops.c */
/* The five loops around the micro-kernel, outermost last: jc (NC columns
   of C), pc (KC of k; pack B), ic (MC rows; pack A), jr (NR), ir (MR). */

#define GEMM__CPU_TILE_MAX (32 * 8) /* elements: the largest MR*NR of any kernel (avx512 fp32) */

/* An mw x nw tile at the edge of C: the same kernel on a local full tile,
   copied in (unless beta == 0: C is not read) and back, so edge results
   have the arithmetic of full tiles and C is never written past its end. */
static void gemm__cpu_edge_tile(const gemm__cpu_job *jb, gemm__cpu_blocks *bl, const gemm__cpu_bpanel *b,
                                const char *ap, int64_t as, char *c, int64_t mw)
{
    int64_t j, mr = jb->uk->mr, es = jb->es, ldc = jb->p->ldc;
    if (!bl->tile_clean) {
        memset(bl->tile, 0, sizeof(double) * GEMM__CPU_TILE_MAX);
        bl->tile_clean = 1;
    }
    if (bl->beta != 0)
        for (j = 0; j < b->nw; j++) memcpy(bl->tile + j * mr * es, c + j * ldc * es, (size_t)(mw * es));
    b->kern(bl->kc, ap, as, b->ptr, b->bp, b->bj, jb->alpha, bl->beta, bl->tile, mr);
    for (j = 0; j < b->nw; j++) memcpy(c + j * ldc * es, bl->tile + j * mr * es, (size_t)(mw * es));
}

/* ir: one B micro-panel against each MR-row micro-panel of the A block
   (packed, or in place); c is C[ic, jc + jr]. */
static void gemm__cpu_loop_ir(const gemm__cpu_job *jb, gemm__cpu_blocks *bl, const gemm__cpu_bpanel *b, char *c)
{
    const gemm__problem *p = jb->p;
    int64_t ir, j, mr = jb->uk->mr, nr = jb->uk->nr, es = jb->es, ldc = p->ldc;
    for (ir = 0; ir < bl->mc; ir += mr, c += mr * es) {
        int64_t mw = gemm__cpu_min(mr, bl->mc - ir);
        int in_place = ir < bl->a_inplace;
        const char *ap = in_place ? bl->a0 + ir * p->ars * es : bl->pa + (ir - bl->a_inplace) * bl->kc * es;
        int64_t as = in_place ? p->acs : mr;
        if (mw < mr || b->nw < nr) {
            gemm__cpu_edge_tile(jb, bl, b, ap, as, c, mw);
            continue;
        }
        for (j = 0; j < nr; j++) { /* here, not in the kernel: its registers are full */
            GEMM__CPU_PREFETCH(c + j * ldc * es);
            GEMM__CPU_PREFETCH(c + (j * ldc + mr - 1) * es);
        }
        b->kern(bl->kc, ap, as, b->ptr, b->bp, b->bj, jb->alpha, bl->beta, c, ldc);
    }
}

/* jr: each NR-wide micro-panel of the B panel, with the kernel variant
   that reads it where it is: in place (small problems) or packed column
   by column (strided variant), or packed row by row (packed variant). */
static void gemm__cpu_loop_jr(const gemm__cpu_job *jb, gemm__cpu_blocks *bl)
{
    const gemm__problem *p = jb->p;
    int64_t jr, nr = jb->uk->nr, es = jb->es;
    char *c = jb->c + (bl->ic + bl->jc * p->ldc) * es;
    for (jr = 0; jr < bl->nc; jr += nr) {
        gemm__cpu_bpanel b;
        int direct = jr < bl->b_inplace;
        b.ptr = direct ? bl->b0 + jr * p->bcs * es : bl->pb + (jr - bl->b_inplace) * bl->kc * es;
        b.kern = direct || bl->b_xmajor ? jb->uk->strided_b : jb->uk->packed_b;
        b.bp = direct ? p->brs : bl->b_xmajor ? 1 : nr;
        b.bj = direct ? p->bcs : bl->b_xmajor ? bl->kc : 1;
        b.nw = gemm__cpu_min(nr, bl->nc - jr);
        gemm__cpu_loop_ir(jb, bl, &b, c + jr * p->ldc * es);
    }
}

/* ic: rows m0..m1 of C in MC blocks; each block of op(a) is packed into
   MR-row micro-panels (it stays in L2), unless read in place. */
static void gemm__cpu_loop_ic(const gemm__cpu_job *jb, gemm__cpu_blocks *bl, int64_t m0, int64_t m1)
{
    const gemm__problem *p = jb->p;
    int64_t es = jb->es;
    for (bl->ic = m0; bl->ic < m1; bl->ic += jb->mc) {
        bl->mc = gemm__cpu_min(jb->mc, m1 - bl->ic);
        bl->a0 = jb->a + (bl->ic * p->ars + bl->pc * p->acs) * es;
        bl->a_inplace = gemm__cpu_a_rows_in_place(jb, bl->mc);
        if (bl->a_inplace < bl->mc)
            gemm__cpu_pack(bl->pa, bl->a0 + bl->a_inplace * p->ars * es, p->ars, p->acs, bl->mc - bl->a_inplace,
                           bl->kc, jb->uk->mr, 0, jb->uk->pack_a, es);
        gemm__cpu_loop_jr(jb, bl);
    }
}

/* pc: k in KC steps, in order and never split across threads (the same
   sums in the same order for any thread count); each step packs its B
   panel once for every row block, and only the first applies beta. */
static void gemm__cpu_loop_pc(const gemm__cpu_job *jb, gemm__cpu_blocks *bl, int64_t m0, int64_t m1)
{
    const gemm__problem *p = jb->p;
    int64_t es = jb->es;
    for (bl->pc = 0; bl->pc < p->k; bl->pc += jb->kc) {
        bl->kc = gemm__cpu_min(jb->kc, p->k - bl->pc);
        bl->beta = bl->pc == 0 ? jb->beta : 1.0;
        bl->b0 = jb->b + (bl->pc * p->brs + bl->jc * p->bcs) * es;
        if (bl->b_inplace < bl->nc)
            gemm__cpu_pack(bl->pb, bl->b0 + bl->b_inplace * p->bcs * es, p->bcs, p->brs, bl->nc - bl->b_inplace,
                           bl->kc, jb->uk->nr, bl->b_xmajor, NULL, es);
        gemm__cpu_loop_ic(jb, bl, m0, m1);
    }
}

/* jc: C[m0:m1, n0:n1], one thread's rectangle, in NC-column steps, with
   that thread's packing buffers pa and pb. */
static void gemm__cpu_loop_jc(const gemm__cpu_job *jb, int64_t m0, int64_t m1, int64_t n0, int64_t n1, char *pa,
                              char *pb)
{
    double tile[GEMM__CPU_TILE_MAX];
    gemm__cpu_blocks bl;
    memset(&bl, 0, sizeof bl);
    bl.pa = pa;
    bl.pb = pb;
    bl.tile = (char *)tile;
    bl.b_xmajor = jb->p->bcs != 1; /* B's columns are contiguous: copy them whole */
    for (bl.jc = n0; bl.jc < n1; bl.jc += jb->nc) {
        bl.nc = gemm__cpu_min(jb->nc, n1 - bl.jc);
        bl.b_inplace = gemm__cpu_b_cols_in_place(jb, bl.nc);
        gemm__cpu_loop_pc(jb, &bl, m0, m1);
    }
}
/* <<cpu loops */
/* >>cpu thread_pool: src/cpu/thread_pool.c */
/* The thread pool: persistent workers that run a task beside the caller.
   gemm__cpu_pool_acquire takes the pool for one call (or says to run
   alone), gemm__cpu_pool_run runs task(arg, tid) on the caller (tid 0) and
   on every worker that wakes in time, gemm__cpu_pool_release gives it back. */
typedef void (*gemm__cpu_task_fn)(void *arg, int tid);

#if defined(GEMM__CPU_THREADS)
#if defined(__x86_64__) || defined(__i386__)
#define GEMM__CPU_PAUSE() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define GEMM__CPU_PAUSE() __asm__ __volatile__("yield")
#else
#define GEMM__CPU_PAUSE() ((void)0)
#endif
#define GEMM__CPU_SPINS 4000   /* pauses: a few tens of microseconds */
#define GEMM__CPU_YIELDS 40000 /* sched_yield() calls: a few milliseconds, then sleep */

static pthread_mutex_t gemm__cpu_pool_owner = PTHREAD_MUTEX_INITIALIZER; /* held by the call using the pool */
static pthread_mutex_t gemm__cpu_pool_lock = PTHREAD_MUTEX_INITIALIZER;  /* guards the sleeps below */
static pthread_cond_t gemm__cpu_pool_wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t gemm__cpu_pool_done = PTHREAD_COND_INITIALIZER;
static pthread_t gemm__cpu_pool_threads[GEMM__CPU_MAX_THREADS];
static unsigned gemm__cpu_pool_seen0[GEMM__CPU_MAX_THREADS]; /* job generation when each worker started */
static int gemm__cpu_pool_started;  /* workers running (ids 1..started) */
static int gemm__cpu_pool_exiting;  /* set once at exit; the pool never restarts */
static unsigned gemm__cpu_pool_gen; /* bumped for every job */
static int gemm__cpu_pool_state;    /* GEMM__CPU_CLOSED | workers inside the job */
#define GEMM__CPU_CLOSED 0x40000000
static gemm__cpu_task_fn gemm__cpu_pool_task;
static void *gemm__cpu_pool_arg;

static void *gemm__cpu_worker(void *param)
{
    int id = (int)(intptr_t)param, spins, state;
    unsigned seen = gemm__cpu_pool_seen0[id], gen;
    for (;;) {
        for (spins = 0; (gen = GEMM__CPU_LOAD(gemm__cpu_pool_gen)) == seen && spins < GEMM__CPU_SPINS; spins++)
            GEMM__CPU_PAUSE();
        /* Then poll while yielding: a sleeping worker woken by the next call
           is often placed on the caller's own core when another process's
           thread holds the other one (measured: 2 threads at 1-thread speed
           next to OpenBLAS's spinning workers); a polling one is already on
           its core, and gives it up to anything else runnable. */
        for (spins = 0; (gen = GEMM__CPU_LOAD(gemm__cpu_pool_gen)) == seen && spins < GEMM__CPU_YIELDS; spins++)
            sched_yield();
        if (gen == seen) {
            pthread_mutex_lock(&gemm__cpu_pool_lock);
            while ((gen = GEMM__CPU_LOAD(gemm__cpu_pool_gen)) == seen && !gemm__cpu_pool_exiting)
                pthread_cond_wait(&gemm__cpu_pool_wake, &gemm__cpu_pool_lock);
            pthread_mutex_unlock(&gemm__cpu_pool_lock);
        }
        if (gen == seen) return NULL; /* exiting */
        seen = gen;
        /* Check in, unless the caller has closed the job: it took every
           chunk itself and must not wait for a worker that woke up late. */
        state = GEMM__CPU_LOAD(gemm__cpu_pool_state);
        while (!(state & GEMM__CPU_CLOSED) &&
               !__atomic_compare_exchange_n(&gemm__cpu_pool_state, &state, state + 1, 1, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {}
        if (state & GEMM__CPU_CLOSED) continue;
        gemm__cpu_pool_task(gemm__cpu_pool_arg, id);
        if (__atomic_sub_fetch(&gemm__cpu_pool_state, 1, __ATOMIC_ACQ_REL) == GEMM__CPU_CLOSED) {
            pthread_mutex_lock(&gemm__cpu_pool_lock);
            pthread_cond_signal(&gemm__cpu_pool_done);
            pthread_mutex_unlock(&gemm__cpu_pool_lock);
        }
    }
}

static void gemm__cpu_pool_stop(void)
{
    int i;
    pthread_mutex_lock(&gemm__cpu_pool_owner); /* lets a running call finish */
    pthread_mutex_lock(&gemm__cpu_pool_lock);
    gemm__cpu_pool_exiting = 1;
    pthread_cond_broadcast(&gemm__cpu_pool_wake);
    pthread_mutex_unlock(&gemm__cpu_pool_lock);
    for (i = 1; i <= gemm__cpu_pool_started; i++) pthread_join(gemm__cpu_pool_threads[i], NULL);
    gemm__cpu_pool_started = 0;
    pthread_mutex_unlock(&gemm__cpu_pool_owner);
}

/* A forked child has none of the workers (and maybe a lock some other
   thread of the parent held): it starts with a fresh, empty pool. */
static void gemm__cpu_pool_forked(void)
{
    pthread_mutex_init(&gemm__cpu_pool_owner, NULL);
    pthread_mutex_init(&gemm__cpu_pool_lock, NULL);
    pthread_cond_init(&gemm__cpu_pool_wake, NULL);
    pthread_cond_init(&gemm__cpu_pool_done, NULL);
    gemm__cpu_pool_started = 0;
}

/* Takes the pool for a call that wants `want` threads; returns how many it
   may use (1 = run alone: the pool is busy, stopped, or wants == 1). */
static int gemm__cpu_pool_acquire(int want)
{
    static int registered; /* 1: exit and fork handlers in place; -1: they could not be, so no pool */
    if (want <= 1 || pthread_mutex_trylock(&gemm__cpu_pool_owner) != 0) return 1;
    if (!registered && !gemm__cpu_pool_exiting)
        registered = atexit(gemm__cpu_pool_stop) == 0 && pthread_atfork(NULL, NULL, gemm__cpu_pool_forked) == 0 ? 1 : -1;
    if (registered != 1 || gemm__cpu_pool_exiting) { pthread_mutex_unlock(&gemm__cpu_pool_owner); return 1; }
    while (gemm__cpu_pool_started < want - 1) {
        int id = gemm__cpu_pool_started + 1;
        gemm__cpu_pool_seen0[id] = gemm__cpu_pool_gen;
        if (pthread_create(&gemm__cpu_pool_threads[id], NULL, gemm__cpu_worker, (void *)(intptr_t)id) != 0) break;
        gemm__cpu_pool_started = id;
    }
    if (gemm__cpu_pool_started == 0) { pthread_mutex_unlock(&gemm__cpu_pool_owner); return 1; }
    return gemm__cpu_pool_started + 1 < want ? gemm__cpu_pool_started + 1 : want;
}

static void gemm__cpu_pool_release(void) { pthread_mutex_unlock(&gemm__cpu_pool_owner); }

/* Runs task(arg, tid) here (tid 0) and on the workers (tid 1..started)
   that wake up before the caller's own task returns; the task takes its
   chunks of work from a shared counter, so whoever is awake does them. */
static void gemm__cpu_pool_run(gemm__cpu_task_fn task, void *arg)
{
    int spins;
    gemm__cpu_pool_task = task;
    gemm__cpu_pool_arg = arg;
    GEMM__CPU_STORE(gemm__cpu_pool_state, 0);
    pthread_mutex_lock(&gemm__cpu_pool_lock);
    GEMM__CPU_STORE(gemm__cpu_pool_gen, gemm__cpu_pool_gen + 1);
    pthread_cond_broadcast(&gemm__cpu_pool_wake);
    pthread_mutex_unlock(&gemm__cpu_pool_lock);
    task(arg, 0);
    /* every chunk is taken: close the job, wait for the workers inside it */
    if (__atomic_fetch_or(&gemm__cpu_pool_state, GEMM__CPU_CLOSED, __ATOMIC_ACQ_REL) == 0) return;
    for (spins = 0; GEMM__CPU_LOAD(gemm__cpu_pool_state) != GEMM__CPU_CLOSED && spins < GEMM__CPU_SPINS; spins++)
        GEMM__CPU_PAUSE();
    pthread_mutex_lock(&gemm__cpu_pool_lock);
    while (GEMM__CPU_LOAD(gemm__cpu_pool_state) != GEMM__CPU_CLOSED)
        pthread_cond_wait(&gemm__cpu_pool_done, &gemm__cpu_pool_lock);
    pthread_mutex_unlock(&gemm__cpu_pool_lock);
}
#else
static int gemm__cpu_pool_acquire(int want) { (void)want; return 1; }
static void gemm__cpu_pool_release(void) {}
static void gemm__cpu_pool_run(gemm__cpu_task_fn task, void *arg) { task(arg, 0); }
#endif
/* <<cpu thread_pool */
/* >>cpu work_split: src/cpu/work_split.c */
/* Threads run one call by taking chunks (rectangles of C) from a shared
   counter until none is left. Below GEMM__CPU_THREADED flops a call runs
   on one thread; from GEMM__CPU_CHUNKY there are 4 chunks per thread, so a
   thread the OS runs late costs a chunk, not half the call. */
#define GEMM__CPU_THREADED (2.0 * 56.0 * 56.0 * 56.0)
#define GEMM__CPU_CHUNKY (2.0 * 256.0 * 256.0 * 256.0)

/* Part i of `parts` of [0, len), cut at multiples of unit, so every thread
   sees the same tiles whatever the thread count. */
static void gemm__cpu_split(int64_t len, int parts, int i, int unit, int64_t *lo, int64_t *hi)
{
    int64_t units = (len + unit - 1) / unit;
    *lo = gemm__cpu_min(units * i / parts * unit, len);
    *hi = gemm__cpu_min(units * (i + 1) / parts * unit, len);
}

/* A grid tm x tn of `chunks` rectangles over (m, n): the most square ones
   (the least packing repeated across chunks), splitting N on a tie. */
static void gemm__cpu_grid(int chunks, int64_t m, int64_t n, int mr, int nr, int *tm, int *tn)
{
    int c, t;
    double best = -1;
    *tm = *tn = 1;
    for (c = chunks; c > 1 && best < 0; c--) /* fewer chunks when C has fewer tiles */
        for (t = 1; t <= c; t++) {
            int u = c / t;
            double rm = (double)m / t, rn = (double)n / u, score = rm < rn ? rm / rn : rn / rm;
            if (c % t || t > (m + mr - 1) / mr || u > (n + nr - 1) / nr || score <= best) continue;
            best = score;
            *tm = t;
            *tn = u;
        }
}

/* How many threads the job runs on (taking the pool when more than one;
   the caller releases it) and its grid of chunks. */
static void gemm__cpu_plan_threads(gemm__cpu_job *jb, int want)
{
    const gemm__problem *p = jb->p;
    double flops = 2.0 * (double)p->m * (double)p->n * (double)p->k;
    int threads = flops < GEMM__CPU_THREADED ? 1 : gemm__cpu_pool_acquire(want);
    gemm__cpu_grid(threads * (threads > 1 && flops >= GEMM__CPU_CHUNKY ? 4 : 1), p->m, p->n, jb->uk->mr, jb->uk->nr,
                   &jb->tm, &jb->tn);
    jb->threads = threads;
}

/* One thread's share of the job: chunks taken until none is left, each
   computed with this thread's workspace. */
static void gemm__cpu_task(void *arg, int tid)
{
    gemm__cpu_job *jb = (gemm__cpu_job *)arg;
    int64_t m0, m1, n0, n1;
    char *w;
    int c;
    if (tid >= jb->threads) return; /* a worker this call has no workspace for */
    w = jb->ws + (size_t)tid * jb->ws_stride;
    while ((c = GEMM__CPU_TAKE(jb->next)) < jb->tm * jb->tn) {
        gemm__cpu_split(jb->p->m, jb->tm, c % jb->tm, jb->uk->mr, &m0, &m1);
        gemm__cpu_split(jb->p->n, jb->tn, c / jb->tm, jb->uk->nr, &n0, &n1);
        if (m0 < m1 && n0 < n1) gemm__cpu_loop_jc(jb, m0, m1, n0, n1, w, w + jb->ws_a);
    }
}
/* <<cpu work_split */
/* >>cpu driver: src/cpu/driver.c */
/* C = beta*C, when A and B are not read (alpha == 0 or k == 0), in the
   order C is stored. */
static void gemm__cpu_scale_c(const gemm__problem *p, gemm_precision precision, double beta, void *C)
{
    int64_t i, j;
    for (j = 0; j < p->n; j++) {
        if (precision == GEMM_F32) {
            float *c = (float *)C + j * p->ldc, b = (float)beta;
            for (i = 0; i < p->m; i++) c[i] = b == 0 ? 0.0f : b * c[i];
        } else {
            double *c = (double *)C + j * p->ldc;
            for (i = 0; i < p->m; i++) c[i] = beta == 0 ? 0.0 : beta * c[i];
        }
    }
}

/* Allocates the job's workspaces, one per thread: packed A (mc x kc), then
   packed B (kc x nc), each 64-byte aligned and no larger than the problem
   needs. Returns the block to GEMM_FREE (NULL: no memory). */
static char *gemm__cpu_workspace(gemm__cpu_job *jb)
{
    const gemm__problem *p = jb->p;
    int64_t mcw = gemm__cpu_min(jb->mc, gemm__cpu_round_up(p->m, jb->uk->mr));
    int64_t ncw = gemm__cpu_min(jb->nc, gemm__cpu_round_up(p->n, jb->uk->nr));
    int64_t kcw = gemm__cpu_min(jb->kc, p->k);
    char *raw;
    jb->ws_a = (size_t)gemm__cpu_round_up(mcw * kcw * jb->es, 64);
    jb->ws_stride = jb->ws_a + (size_t)gemm__cpu_round_up(ncw * kcw * jb->es, 64);
    raw = (char *)GEMM_MALLOC(jb->ws_stride * (size_t)jb->threads + 64);
    if (raw) jb->ws = raw + (64 - (uintptr_t)raw % 64);
    return raw;
}

/* The one driver behind both precisions: p is gemm__prepare's problem, a
   and b its operands (the caller's A and B, swapped when row-major), alpha
   and beta the caller's scalars (exact in double), func the public name
   for error details. */
static gemm_status gemm__cpu_gemm(const char *func, const gemm__problem *p, gemm_precision precision, double alpha,
                                  const void *a, const void *b, double beta, void *C,
                                  const gemm_cpu_options *options)
{
    const gemm__cpu_isa *isa;
    gemm__cpu_job jb;
    char *raw;
    if (options && options->threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options->threads = %d is negative", func, options->threads);
    if (p->work == GEMM__WORK_NONE) return GEMM_OK;
    if (p->work == GEMM__WORK_SCALE) {
        gemm__cpu_scale_c(p, precision, beta, C);
        return GEMM_OK;
    }
    if (!(isa = gemm__cpu_isa_for_call()))
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the test hook forces kernel \"%s\", which this build or CPU cannot run",
                          func, GEMM__HOOK(cpu_kernel, "?"));
    memset(&jb, 0, sizeof jb);
    jb.p = p;
    jb.a = (const char *)a;
    jb.b = (const char *)b;
    jb.c = (char *)C;
    jb.es = (int64_t)gemm_precision_size(precision);
    jb.alpha = alpha;
    jb.beta = beta;
    jb.uk = precision == GEMM_F32 ? &isa->f32 : &isa->f64;
    gemm__cpu_blocking(jb.uk->mr, jb.uk->nr, (int)jb.es, &jb.mc, &jb.kc, &jb.nc);
    gemm__cpu_plan_in_place(&jb);
    gemm__cpu_plan_threads(&jb, gemm__cpu_threads_for_call(options));
    if (!(raw = gemm__cpu_workspace(&jb))) {
        if (jb.threads > 1) gemm__cpu_pool_release();
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for %d packing workspace(s) of %llu bytes", func,
                          jb.threads, (unsigned long long)jb.ws_stride);
    }
    if (jb.threads > 1) {
        gemm__cpu_pool_run(gemm__cpu_task, &jb);
        gemm__cpu_pool_release();
    } else {
        gemm__cpu_task(&jb, 0);
    }
    GEMM_FREE(raw);
    return GEMM_OK;
}
/* <<cpu driver */
/* >>cpu entry_points: src/cpu/entry_points.c */
/* The public calls: gemm__prepare's checks and canonical problem, then the
   one driver. */

GEMM_DEF gemm_status gemm_cpu_sgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    float alpha, const float *A, int64_t lda,
                                    const float *B, int64_t ldb,
                                    float beta, float *C, int64_t ldc, const gemm_cpu_options *options)
{
    gemm__problem p;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare("gemm_cpu_sgemm", layout, transa, transb, m, n, k, alpha == 0, A != NULL, lda, B != NULL, ldb,
                      beta == 1, C != NULL, ldc, &p);
    if (s != GEMM_OK) return s;
    return gemm__cpu_gemm("gemm_cpu_sgemm", &p, GEMM_F32, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C,
                          options);
}

GEMM_DEF gemm_status gemm_cpu_dgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    double alpha, const double *A, int64_t lda,
                                    const double *B, int64_t ldb,
                                    double beta, double *C, int64_t ldc, const gemm_cpu_options *options)
{
    gemm__problem p;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare("gemm_cpu_dgemm", layout, transa, transb, m, n, k, alpha == 0, A != NULL, lda, B != NULL, ldb,
                      beta == 1, C != NULL, ldc, &p);
    if (s != GEMM_OK) return s;
    return gemm__cpu_gemm("gemm_cpu_dgemm", &p, GEMM_F64, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C,
                          options);
}

/* The front door, declared in gemm.h: the CPU with default options. */
GEMM_DEF gemm_status gemm_sgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                int64_t m, int64_t n, int64_t k,
                                float alpha, const float *A, int64_t lda,
                                const float *B, int64_t ldb,
                                float beta, float *C, int64_t ldc)
{
    return gemm_cpu_sgemm(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, NULL);
}

GEMM_DEF gemm_status gemm_dgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                int64_t m, int64_t n, int64_t k,
                                double alpha, const double *A, int64_t lda,
                                const double *B, int64_t ldb,
                                double beta, double *C, int64_t ldc)
{
    return gemm_cpu_dgemm(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, NULL);
}
/* <<cpu entry_points */
/* >>cpu batch: src/cpu/batch.c */
/* Batches: one gemm__problem (checked once, gemm__prepare_strided or
   gemm__prepare_batched) for every member, one job set up once (kernels,
   block sizes, a workspace per thread), then the members. Small members go
   whole to the threads, which take shares of them from a shared counter;
   members big enough to be worth cutting are cut like a single call when
   there are too few of them to go round. Either way a member is
   computed exactly as the single call computes it (the same kernel, tiles
   and k order), so the result is bitwise the single call's, whatever the
   thread count. */

/* The tiny kernels of the job's precision and instruction set (NULL:
   none), and how many rows each takes. */
static const gemm__cpu_tiny_fn *gemm__cpu_tiny_for(const gemm__cpu_isa *isa, gemm_precision precision, int *vl)
{
    int i;
    for (i = 0; i < GEMM__CPU_NTINY; i++)
        if (strcmp(gemm__cpu_tiny_sets[i].isa, isa->name) == 0) {
            *vl = precision == GEMM_F32 ? gemm__cpu_tiny_sets[i].vl_s : gemm__cpu_tiny_sets[i].vl_d;
            return precision == GEMM_F32 ? gemm__cpu_tiny_sets[i].s : gemm__cpu_tiny_sets[i].d;
        }
    return NULL;
}

/* One tiny member: k in the job's KC blocks (only the first applies beta,
   as in the packed path), A packed column by column into `pack` when its
   columns are not contiguous, the tiles of C in any order. */
static void gemm__cpu_tiny_member(const gemm__cpu_job *jb, const gemm__cpu_tiny_fn *kern, int vl, char *pack)
{
    const gemm__problem *p = jb->p;
    int64_t es = jb->es, pc, kc, i0, j0, x;
    for (pc = 0; pc < p->k; pc += jb->kc) {
        const char *a = jb->a + pc * p->acs * es, *b = jb->b + pc * p->brs * es;
        int64_t as = p->acs;
        double beta = pc == 0 ? jb->beta : 1.0;
        kc = gemm__cpu_min(jb->kc, p->k - pc);
        if (p->ars != 1) { /* a's rows are contiguous: transpose the block into m x kc */
            for (x = 0; x < p->m; x++) gemm__cpu_copy(pack + x * es, p->m, a + x * p->ars * es, p->acs, kc, es);
            a = pack;
            as = p->m;
        }
        for (j0 = 0; j0 < p->n; j0 += 8)
            for (i0 = 0; i0 < p->m; i0 += vl)
                kern[gemm__cpu_min(8, p->n - j0) - 1](kc, a + i0 * es, as, b + j0 * p->bcs * es, p->brs, p->bcs,
                                                      jb->alpha, beta, jb->c + (i0 + j0 * p->ldc) * es, p->ldc,
                                                      (int)gemm__cpu_min(vl, p->m - i0));
    }
}

/* The batch's threads and where its members are; read-only while the
   threads run, except `next`. */
typedef struct gemm__cpu_batch {
    gemm__cpu_job job;     /* the members' shared job; its a, b, c are member 0's (strided) */
    const gemm__batch *bt; /* where each member's operands are */
    const gemm__cpu_tiny_fn *tiny; /* tiny members: their kernels (NULL: the packed path) */
    int vl;                /* ... and the rows one takes */
    int64_t whole;         /* members [0, whole) go whole to threads; the rest are cut */
    int64_t group;         /* the fewest members taken at a time */
    int64_t next;          /* the next member to take */
} gemm__cpu_batch;

/* Points jb at member i's operands. */
static void gemm__cpu_member(const gemm__cpu_batch *cb, int64_t i, gemm__cpu_job *jb)
{
    const gemm__batch *bt = cb->bt;
    int64_t es = cb->job.es;
    if (bt->c_list) { /* the lists of A and B may be NULL when alpha == 0 or k == 0 */
        jb->a = bt->a_list ? (const char *)(uintptr_t)bt->addr_ab(bt->a_list, i) : NULL;
        jb->b = bt->b_list ? (const char *)(uintptr_t)bt->addr_ab(bt->b_list, i) : NULL;
        jb->c = (char *)(uintptr_t)bt->addr_c(bt->c_list, i);
    } else {
        jb->a = cb->job.a + i * bt->stride_a * es;
        jb->b = cb->job.b + i * bt->stride_b * es;
        jb->c = cb->job.c + i * bt->stride_c * es;
    }
}

#if defined(__GNUC__) || defined(__clang__)
#define GEMM__CPU_TAKE_N(x, n) __atomic_fetch_add(&(x), (n), __ATOMIC_RELAXED)
#else
#define GEMM__CPU_TAKE_N(x, n) (((x) += (n)) - (n))
#endif

/* The next members [*first, *end) for a thread: a share of what is left
   that shrinks as the batch ends (guided scheduling: a thread that starts
   its last share late, or runs slowly beside another process, leaves the
   others little to wait for), never fewer than cb->group. Returns 0 when
   none is left. */
static int gemm__cpu_batch_take(gemm__cpu_batch *cb, int64_t *first, int64_t *end)
{
    int64_t left = cb->whole - GEMM__CPU_LOAD(cb->next), n = left / ((int64_t)cb->job.threads * 4);
    if (n < cb->group) n = cb->group;
    *first = GEMM__CPU_TAKE_N(cb->next, n);
    *end = gemm__cpu_min(*first + n, cb->whole);
    return *first < cb->whole;
}

/* One thread's share of the whole members: taken until none is left, each
   member computed like a single call on one thread. */
static void gemm__cpu_batch_task(void *arg, int tid)
{
    gemm__cpu_batch *cb = (gemm__cpu_batch *)arg;
    gemm__cpu_job jb = cb->job; /* this thread's copy: only a, b, c change */
    int64_t i, end;
    char *w;
    if (tid >= cb->job.threads) return;
    w = cb->job.ws + (size_t)tid * cb->job.ws_stride;
    while (gemm__cpu_batch_take(cb, &i, &end)) {
        for (; i < end; i++) {
            gemm__cpu_member(cb, i, &jb);
            if (cb->tiny) gemm__cpu_tiny_member(&jb, cb->tiny, cb->vl, w);
            else gemm__cpu_loop_jc(&jb, 0, jb.p->m, 0, jb.p->n, w, w + jb.ws_a);
        }
    }
}

/* The members past `whole`, one after the other, each cut over the
   threads as a single call is. */
static void gemm__cpu_batch_cut(gemm__cpu_batch *cb)
{
    gemm__cpu_job jb = cb->job;
    int64_t i;
    for (i = cb->whole; i < cb->bt->count; i++) {
        gemm__cpu_member(cb, i, &jb);
        jb.next = 0;
        if (jb.threads > 1) gemm__cpu_pool_run(gemm__cpu_task, &jb);
        else gemm__cpu_task(&jb, 0);
    }
}

/* How the batch runs: its threads (taking the pool when more than one;
   the caller releases it), which members go whole, how many a thread
   takes at a time, and the grid a cut member is split by. Members below
   the single call's threading threshold always go whole; bigger ones go
   whole in full rounds of the threads, and the last partial round is cut. */
static void gemm__cpu_batch_plan(gemm__cpu_batch *cb, int want)
{
    gemm__cpu_job *jb = &cb->job;
    const gemm__problem *p = jb->p;
    int64_t count = cb->bt->count;
    double flops = 2.0 * (double)p->m * (double)p->n * (double)p->k;
    int threads = flops * (double)count < GEMM__CPU_THREADED ? 1 : gemm__cpu_pool_acquire(want);
    cb->whole = flops < GEMM__CPU_THREADED ? count : count / threads * threads;
    /* a take covers at least ~64K flops (about a microsecond), so tiny
       members do not queue on the shared counter */
    cb->group = flops >= 65536.0 ? 1 : (int64_t)(65536.0 / (flops > 1 ? flops : 1));
    if (cb->group > 64) cb->group = 64;
    gemm__cpu_grid(threads * (threads > 1 && flops >= GEMM__CPU_CHUNKY ? 4 : 1), p->m, p->n, jb->uk->mr, jb->uk->nr,
                   &jb->tm, &jb->tn);
    jb->threads = threads;
}

/* C_i = beta*C_i for every member (alpha == 0 or k == 0). */
static void gemm__cpu_batch_scale(gemm__cpu_batch *cb, gemm_precision precision, double beta)
{
    gemm__cpu_job jb = cb->job;
    int64_t i;
    for (i = 0; i < cb->bt->count; i++) {
        gemm__cpu_member(cb, i, &jb);
        gemm__cpu_scale_c(jb.p, precision, beta, jb.c);
    }
}

/* The one batch driver behind both precisions and both forms: p and bt
   from the batch checks, a and b member 0's canonical operands (strided;
   NULL for the pointer-array form), alpha and beta the caller's scalars. */
static gemm_status gemm__cpu_batch_gemm(const char *func, const gemm__problem *p, const gemm__batch *bt,
                                        gemm_precision precision, double alpha, const void *a, const void *b,
                                        double beta, void *C, const gemm_cpu_options *options)
{
    const gemm__cpu_isa *isa;
    gemm__cpu_batch cb;
    char *raw;
    if (options && options->threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options->threads = %d is negative", func, options->threads);
    if (p->work == GEMM__WORK_NONE || bt->count == 0) return GEMM_OK;
    if (!(isa = gemm__cpu_isa_for_call()))
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the test hook forces kernel \"%s\", which this build or CPU cannot run",
                          func, GEMM__HOOK(cpu_kernel, "?"));
    memset(&cb, 0, sizeof cb);
    cb.bt = bt;
    cb.job.p = p;
    cb.job.a = (const char *)a;
    cb.job.b = (const char *)b;
    cb.job.c = (char *)C;
    cb.job.es = (int64_t)gemm_precision_size(precision);
    cb.job.alpha = alpha;
    cb.job.beta = beta;
    if (p->work == GEMM__WORK_SCALE) {
        gemm__cpu_batch_scale(&cb, precision, beta);
        return GEMM_OK;
    }
    cb.job.uk = precision == GEMM_F32 ? &isa->f32 : &isa->f64;
    gemm__cpu_blocking(cb.job.uk->mr, cb.job.uk->nr, (int)cb.job.es, &cb.job.mc, &cb.job.kc, &cb.job.nc);
    gemm__cpu_plan_in_place(&cb.job);
    /* tiny members skip packing; their A, when transposed, fits in the A workspace */
    if (2.0 * (double)p->m * (double)p->n * (double)p->k <= GEMM__CPU_TINY && p->m <= cb.job.mc)
        cb.tiny = gemm__cpu_tiny_for(isa, precision, &cb.vl);
    gemm__cpu_batch_plan(&cb, gemm__cpu_threads_for_call(options));
    if (!(raw = gemm__cpu_workspace(&cb.job))) {
        if (cb.job.threads > 1) gemm__cpu_pool_release();
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for %d packing workspace(s) of %llu bytes", func,
                          cb.job.threads, (unsigned long long)cb.job.ws_stride);
    }
    if (cb.job.threads > 1 && cb.whole > 0) gemm__cpu_pool_run(gemm__cpu_batch_task, &cb);
    else gemm__cpu_batch_task(&cb, 0);
    gemm__cpu_batch_cut(&cb);
    if (cb.job.threads > 1) gemm__cpu_pool_release();
    GEMM_FREE(raw);
    return GEMM_OK;
}

/* Member addresses of the pointer-array form, read with the lists' own types. */
static uint64_t gemm__cpu_addr_cs(const void *list, int64_t i) { return (uintptr_t)((const float *const *)list)[i]; }
static uint64_t gemm__cpu_addr_s(const void *list, int64_t i) { return (uintptr_t)((float *const *)list)[i]; }
static uint64_t gemm__cpu_addr_cd(const void *list, int64_t i) { return (uintptr_t)((const double *const *)list)[i]; }
static uint64_t gemm__cpu_addr_d(const void *list, int64_t i) { return (uintptr_t)((double *const *)list)[i]; }

GEMM_DEF gemm_status gemm_cpu_sgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                    int64_t m, int64_t n, int64_t k,
                                                    float alpha, const float *A, int64_t lda, int64_t stride_a,
                                                    const float *B, int64_t ldb, int64_t stride_b,
                                                    float beta, float *C, int64_t ldc, int64_t stride_c,
                                                    int64_t batch_count, const gemm_cpu_options *options)
{
    const char *fn = "gemm_cpu_sgemm_strided_batched";
    gemm__problem p;
    gemm__batch bt;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare_strided(fn, layout, transa, transb, m, n, k, alpha == 0, A != NULL, lda, stride_a, B != NULL,
                              ldb, stride_b, beta == 1, C != NULL, ldc, stride_c, batch_count, &p, &bt);
    if (s != GEMM_OK) return s;
    return gemm__cpu_batch_gemm(fn, &p, &bt, GEMM_F32, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C, options);
}

GEMM_DEF gemm_status gemm_cpu_dgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                    int64_t m, int64_t n, int64_t k,
                                                    double alpha, const double *A, int64_t lda, int64_t stride_a,
                                                    const double *B, int64_t ldb, int64_t stride_b,
                                                    double beta, double *C, int64_t ldc, int64_t stride_c,
                                                    int64_t batch_count, const gemm_cpu_options *options)
{
    const char *fn = "gemm_cpu_dgemm_strided_batched";
    gemm__problem p;
    gemm__batch bt;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare_strided(fn, layout, transa, transb, m, n, k, alpha == 0, A != NULL, lda, stride_a, B != NULL,
                              ldb, stride_b, beta == 1, C != NULL, ldc, stride_c, batch_count, &p, &bt);
    if (s != GEMM_OK) return s;
    return gemm__cpu_batch_gemm(fn, &p, &bt, GEMM_F64, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C, options);
}

GEMM_DEF gemm_status gemm_cpu_sgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                            int64_t m, int64_t n, int64_t k,
                                            float alpha, const float *const A[], int64_t lda,
                                            const float *const B[], int64_t ldb,
                                            float beta, float *const C[], int64_t ldc,
                                            int64_t batch_count, const gemm_cpu_options *options)
{
    const char *fn = "gemm_cpu_sgemm_batched";
    gemm__problem p;
    gemm__batch bt;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare_batched(fn, layout, transa, transb, m, n, k, alpha == 0, A, lda, B, ldb, beta == 1, C, ldc,
                              batch_count, gemm__cpu_addr_cs, gemm__cpu_addr_s, sizeof(float), &p, &bt);
    if (s != GEMM_OK) return s;
    return gemm__cpu_batch_gemm(fn, &p, &bt, GEMM_F32, alpha, NULL, NULL, beta, NULL, options);
}

GEMM_DEF gemm_status gemm_cpu_dgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                            int64_t m, int64_t n, int64_t k,
                                            double alpha, const double *const A[], int64_t lda,
                                            const double *const B[], int64_t ldb,
                                            double beta, double *const C[], int64_t ldc,
                                            int64_t batch_count, const gemm_cpu_options *options)
{
    const char *fn = "gemm_cpu_dgemm_batched";
    gemm__problem p;
    gemm__batch bt;
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare_batched(fn, layout, transa, transb, m, n, k, alpha == 0, A, lda, B, ldb, beta == 1, C, ldc,
                              batch_count, gemm__cpu_addr_cd, gemm__cpu_addr_d, sizeof(double), &p, &bt);
    if (s != GEMM_OK) return s;
    return gemm__cpu_batch_gemm(fn, &p, &bt, GEMM_F64, alpha, NULL, NULL, beta, NULL, options);
}

/* The front door's batches, declared in gemm.h: the CPU with default options. */
GEMM_DEF gemm_status gemm_sgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                int64_t m, int64_t n, int64_t k,
                                                float alpha, const float *A, int64_t lda, int64_t stride_a,
                                                const float *B, int64_t ldb, int64_t stride_b,
                                                float beta, float *C, int64_t ldc, int64_t stride_c,
                                                int64_t batch_count)
{
    return gemm_cpu_sgemm_strided_batched(layout, transa, transb, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b,
                                          beta, C, ldc, stride_c, batch_count, NULL);
}

GEMM_DEF gemm_status gemm_dgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                int64_t m, int64_t n, int64_t k,
                                                double alpha, const double *A, int64_t lda, int64_t stride_a,
                                                const double *B, int64_t ldb, int64_t stride_b,
                                                double beta, double *C, int64_t ldc, int64_t stride_c,
                                                int64_t batch_count)
{
    return gemm_cpu_dgemm_strided_batched(layout, transa, transb, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b,
                                          beta, C, ldc, stride_c, batch_count, NULL);
}

GEMM_DEF gemm_status gemm_sgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                        int64_t m, int64_t n, int64_t k,
                                        float alpha, const float *const A[], int64_t lda,
                                        const float *const B[], int64_t ldb,
                                        float beta, float *const C[], int64_t ldc, int64_t batch_count)
{
    return gemm_cpu_sgemm_batched(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, batch_count,
                                  NULL);
}

GEMM_DEF gemm_status gemm_dgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                        int64_t m, int64_t n, int64_t k,
                                        double alpha, const double *const A[], int64_t lda,
                                        const double *const B[], int64_t ldb,
                                        double beta, double *const C[], int64_t ldc, int64_t batch_count)
{
    return gemm_cpu_dgemm_batched(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, batch_count,
                                  NULL);
}
/* <<cpu batch */

#ifdef __cplusplus
}
#endif

#endif /* GEMM_IMPLEMENTATION */

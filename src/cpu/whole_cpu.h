/* gemm_cpu.h - the CPU backend of gemm, and the home of gemm_sgemm/gemm_dgemm.

   Include "gemm.h" (which includes this file) rather than this file alone;
   define GEMM_IMPLEMENTATION in one translation unit, as gemm.h explains.
   A plain `cc -O2` build is fast on any x86-64 or aarch64: the SIMD kernels
   carry their own target attributes and are picked once, at run time, from
   what the CPU says it supports.

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
       operations, with one signature (gemm__cpu_ukernel_s / _d).

   Small matrices
       When m*n*k <= 128^3 (measured on AVX-512: up to there packing costs
       more than it saves), B is read in place, and A too when its columns
       are contiguous; only a tail narrower than a micro-panel is packed.
       Such calls stay on one thread.

   Threads
       gemm_cpu_set_threads(n) sets how many threads a call may use (0 means
       automatic: the GEMM_NUM_THREADS environment variable, else the online
       CPU count, read once; at most 64). A persistent pool of pthreads is started at
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

   Memory
       Each call allocates (GEMM_MALLOC) one workspace per thread, bounded
       by the block sizes (about MC*KC + KC*NC elements, never m*n*k), before
       C is touched; failure returns GEMM_ERR_OUT_OF_MEMORY with C unchanged.

   Test hooks (internal, gemm__cpu_*; not for users): list the kernels this
   CPU can run, force one, and shrink the block sizes so small tests cross
   every block edge.

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

/* ---- test hooks: internal, may change; not thread-safe against running calls ---- */

/* Names of the micro-kernels this CPU can run, best first ("avx512", "avx2",
   "neon", "scalar"); returns how many (at most max are written). */
GEMM_DEF int gemm__cpu_kernels(const char **names, int max);

/* Force one kernel by name for every later call; NULL = automatic (the
   best). GEMM_ERR_UNAVAILABLE when this CPU or build lacks it. */
GEMM_DEF gemm_status gemm__cpu_use_kernel(const char *name);

/* The kernel calls use now. */
GEMM_DEF const char *gemm__cpu_kernel(void);

/* Override the block sizes (rounded up to the kernel's MR / NR); 0 keeps
   the cache-derived value. */
GEMM_DEF void gemm__cpu_set_blocking(int mc, int kc, int nc);

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

#ifdef __cplusplus
extern "C" {
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

#define GEMM__CPU_MAX_THREADS 64
#define GEMM__CPU_TILE_MAX (32 * 8) /* largest MR*NR of any kernel (avx512 fp32) */
#define GEMM__CPU_SMALL (128.0 * 128.0 * 128.0)
#define GEMM__CPU_THREADED (2.0 * 56.0 * 56.0 * 56.0) /* flops: below, one thread */
#define GEMM__CPU_CHUNKY (2.0 * 256.0 * 256.0 * 256.0)  /* flops: above, 4 chunks per thread */

/* ---- micro-kernels --------------------------------------------------------

   void kernel(k, a, as, b, bp, bj, alpha, beta, c, ldc):
       C[0:MR, 0:NR] = alpha * A * B + beta * C   (beta == 0: C is not read)
   A is MR x k, column p at a + p*as (as = MR when packed, the column stride
   when read in place); element (p, j) of B is at b[p*bp + j*bj]: the packed
   variant ignores bp, bj and reads (NR, 1), the strided variant reads them
   (a panel stored column by column, or B in place); C is column-major with
   leading dimension ldc. The tile is always full.

   One template, instantiated per ISA from a table P of vector operations
   (P##_T element, P##_V vector of P##_VL elements, LOAD, STORE, SET1,
   FMA(a, b, c) = a*b + c, MUL, ADD, ZERO): MR = 2 vectors, NR = the count
   of the REP macro. The accumulators are named variables, not an array,
   so they stay in registers at any optimisation level. */

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
#define GEMM__CPU_UK_PUT1(j, P)                                                                    \
    P##_STORE(c + (j) * ldc, P##_ADD(P##_LOAD(c + (j) * ldc), P##_MUL(c0_##j, va)));               \
    P##_STORE(c + (j) * ldc + P##_VL, P##_ADD(P##_LOAD(c + (j) * ldc + P##_VL), P##_MUL(c1_##j, va)));
#define GEMM__CPU_UK_PUTB(j, P)                                                                    \
    P##_STORE(c + (j) * ldc, P##_FMA(vb, P##_LOAD(c + (j) * ldc), P##_MUL(c0_##j, va)));           \
    P##_STORE(c + (j) * ldc + P##_VL, P##_FMA(vb, P##_LOAD(c + (j) * ldc + P##_VL), P##_MUL(c1_##j, va)));

/* BP, BJ: the B strides the body uses; constants (NR, 1) for the packed
   variant, the arguments bp, bj for the strided one. */
#define GEMM__CPU_UKERNEL(NAME, ATTR, P, REP, BP, BJ)                                              \
    static ATTR void NAME(int64_t k, const P##_T *GEMM__RESTRICT a, int64_t as,                    \
                          const P##_T *GEMM__RESTRICT b, int64_t bp, int64_t bj,                   \
                          P##_T alpha, P##_T beta, P##_T *GEMM__RESTRICT c, int64_t ldc)           \
    {                                                                                              \
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
            else if (beta == 1) { REP(GEMM__CPU_UK_PUT1, P) }                                      \
            else { REP(GEMM__CPU_UK_PUTB, P) }                                                     \
        }                                                                                          \
    }

/* Both variants of one kernel (NAME reads packed B, NAME_strided reads B in
   place), and NAME_pack, which packs the nx rows (a multiple of MR) of a
   block of A whose columns are contiguous (column p at s + p*ps) into MR x kc
   panels with vector moves, walking each source column once (long runs
   for the hardware prefetcher: such a block often streams from memory). */
#define GEMM__CPU_UKERNELS(NAME, ATTR, P, REP, NR)                                                 \
    GEMM__CPU_UKERNEL(NAME, ATTR, P, REP, NR, 1)                                                   \
    GEMM__CPU_UKERNEL(NAME##_strided, ATTR, P, REP, bp, bj)                                        \
    static ATTR void NAME##_pack(int64_t kc, const P##_T *GEMM__RESTRICT s, int64_t ps,            \
                                 int64_t nx, P##_T *GEMM__RESTRICT d)                              \
    {                                                                                              \
        int64_t p, x0;                                                                             \
        for (p = 0; p < kc; p++, s += ps, d += 2 * P##_VL)                                         \
            for (x0 = 0; x0 < nx; x0 += 2 * P##_VL) {                                              \
                P##_STORE(d + x0 * kc, P##_LOAD(s + x0));                                          \
                P##_STORE(d + x0 * kc + P##_VL, P##_LOAD(s + x0 + P##_VL));                        \
            }                                                                                      \
    }

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

static int gemm__cpu_always(void) { return 1; }

typedef void (*gemm__cpu_ukernel_s)(int64_t k, const float *a, int64_t as, const float *b, int64_t bp, int64_t bj,
                                    float alpha, float beta, float *c, int64_t ldc);
typedef void (*gemm__cpu_ukernel_d)(int64_t k, const double *a, int64_t as, const double *b, int64_t bp,
                                    int64_t bj, double alpha, double beta, double *c, int64_t ldc);

typedef void (*gemm__cpu_packa_s)(int64_t kc, const float *s, int64_t ps, int64_t nx, float *d);
typedef void (*gemm__cpu_packa_d)(int64_t kc, const double *s, int64_t ps, int64_t nx, double *d);

typedef struct gemm__cpu_isa {
    const char *name;
    int (*available)(void);
    int smr, snr;
    gemm__cpu_ukernel_s skern, skern_strided;
    gemm__cpu_packa_s spack;
    int dmr, dnr;
    gemm__cpu_ukernel_d dkern, dkern_strided;
    gemm__cpu_packa_d dpack;
} gemm__cpu_isa;

/* Best first; the first available one is the default. */
#define GEMM__CPU_ISA(NAME, AVAILABLE, SMR, SNR, DMR, DNR)                                           \
    {#NAME, AVAILABLE,                                                                              \
     SMR, SNR, gemm__cpu_##NAME##_s, gemm__cpu_##NAME##_s_strided, gemm__cpu_##NAME##_s_pack,      \
     DMR, DNR, gemm__cpu_##NAME##_d, gemm__cpu_##NAME##_d_strided, gemm__cpu_##NAME##_d_pack}
static const gemm__cpu_isa gemm__cpu_isas[] = {
#if defined(GEMM__CPU_X86)
    GEMM__CPU_ISA(avx512, gemm__cpu_has_avx512, 32, 8, 16, 8),
    GEMM__CPU_ISA(avx2, gemm__cpu_has_avx2, 16, 6, 8, 6),
#endif
#if defined(GEMM__CPU_NEON)
    GEMM__CPU_ISA(neon, gemm__cpu_has_neon, 8, 12, 4, 12),
#endif
    GEMM__CPU_ISA(scalar, gemm__cpu_always, 2, 6, 2, 6),
};
#define GEMM__CPU_NISA ((int)(sizeof gemm__cpu_isas / sizeof gemm__cpu_isas[0]))

/* ---- configuration: written by the setters, read by every call ---- */

static int gemm__cpu_threads_requested;  /* 0 = automatic */
static int gemm__cpu_isa_forced = -1;    /* index into gemm__cpu_isas, -1 = automatic */
static int gemm__cpu_isa_best = -1;      /* found at the first call */
static int gemm__cpu_block_override[3];  /* mc, kc, nc; 0 = from the caches */

static const gemm__cpu_isa *gemm__cpu_current(void)
{
    int i = GEMM__CPU_LOAD(gemm__cpu_isa_forced);
    if (i >= 0) return &gemm__cpu_isas[i];
    i = GEMM__CPU_LOAD(gemm__cpu_isa_best);
    if (i < 0) { /* racing first calls all find the same answer */
        for (i = 0; i < GEMM__CPU_NISA - 1 && !gemm__cpu_isas[i].available(); i++) {}
        GEMM__CPU_STORE(gemm__cpu_isa_best, i);
    }
    return &gemm__cpu_isas[i];
}

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

GEMM_DEF gemm_status gemm__cpu_use_kernel(const char *name)
{
    int i;
    gemm__clear_error();
    if (!name) { GEMM__CPU_STORE(gemm__cpu_isa_forced, -1); return GEMM_OK; }
    for (i = 0; i < GEMM__CPU_NISA; i++)
        if (strcmp(gemm__cpu_isas[i].name, name) == 0) {
            if (!gemm__cpu_isas[i].available())
                return gemm__fail(GEMM_ERR_UNAVAILABLE, "gemm__cpu_use_kernel: this CPU cannot run \"%s\"", name);
            GEMM__CPU_STORE(gemm__cpu_isa_forced, i);
            return GEMM_OK;
        }
    return gemm__fail(GEMM_ERR_UNAVAILABLE, "gemm__cpu_use_kernel: no kernel \"%s\" in this build", name);
}

GEMM_DEF const char *gemm__cpu_kernel(void) { return gemm__cpu_current()->name; }

GEMM_DEF void gemm__cpu_set_blocking(int mc, int kc, int nc)
{
    GEMM__CPU_STORE(gemm__cpu_block_override[0], mc > 0 ? mc : 0);
    GEMM__CPU_STORE(gemm__cpu_block_override[1], kc > 0 ? kc : 0);
    GEMM__CPU_STORE(gemm__cpu_block_override[2], nc > 0 ? nc : 0);
}

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

static int64_t gemm__cpu_round_up(int64_t x, int64_t unit) { return (x + unit - 1) / unit * unit; }
static int64_t gemm__cpu_min(int64_t a, int64_t b) { return a < b ? a : b; }

/* Block sizes for a kernel of mr x nr elements of `size` bytes. */
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
    if ((o = GEMM__CPU_LOAD(gemm__cpu_block_override[0])) > 0) *mc = gemm__cpu_round_up(o, mr);
    if ((o = GEMM__CPU_LOAD(gemm__cpu_block_override[1])) > 0) *kc = o;
    if ((o = GEMM__CPU_LOAD(gemm__cpu_block_override[2])) > 0) *nc = gemm__cpu_round_up(o, nr);
}

/* Part i of `parts` of [0, len), cut at multiples of unit, so every thread
   sees the same tiles whatever the thread count. */
static void gemm__cpu_split(int64_t len, int parts, int i, int unit, int64_t *lo, int64_t *hi)
{
    int64_t units = (len + unit - 1) / unit;
    *lo = gemm__cpu_min(units * i / parts * unit, len);
    *hi = gemm__cpu_min(units * (i + 1) / parts * unit, len);
}

/* ---- the thread pool ------------------------------------------------------ */

typedef void (*gemm__cpu_task)(void *arg, int tid);

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
static gemm__cpu_task gemm__cpu_pool_task;
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
static void gemm__cpu_pool_run(gemm__cpu_task task, void *arg)
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
static void gemm__cpu_pool_run(gemm__cpu_task task, void *arg) { task(arg, 0); }
#endif

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

/* ---- the driver, written once for both precisions ------------------------ */

#define GEMM__CPU_DEFINE(T, X)                                                                     \
    typedef struct gemm__cpu_job_##X {                                                             \
        int64_t m, n, k, ars, acs, brs, bcs, ldc, mc, kc, nc;                                      \
        const T *A;                                                                                \
        const T *B;                                                                                \
        T *C;                                                                                      \
        T alpha, beta;                                                                             \
        int mr, nr, tm, tn, direct_a, direct_b, threads, next;                                     \
        gemm__cpu_ukernel_##X kern, kern_strided;                                                  \
        gemm__cpu_packa_##X packa;                                                                 \
        char *ws;                                                                                  \
        size_t ws_a, ws_stride; /* bytes: packed A, then packed B, per thread */                   \
    } gemm__cpu_job_##X;                                                                           \
                                                                                                   \
    /* Packs nx rows of A (or columns of B) of length kc into w-wide panels;                       \
       element (x, p) of the source is at s[x*xs + p*ps]. A panel is p-major                       \
       (d[p*w + x], what the packed kernel reads) or, when xmajor, x-major                         \
       (d[x*kc + p], read by the strided kernel with bp = 1, bj = kc); the                         \
       last one is zero-padded to w. Copies follow the source's contiguous                         \
       dimension: only a p-major pack of a source contiguous along p (A of                         \
       a transposed-A call) is a scalar transpose. */                                              \
    static void gemm__cpu_pack_##X(T *GEMM__RESTRICT d, const T *GEMM__RESTRICT s, int64_t xs,     \
                                   int64_t ps, int64_t nx, int64_t kc, int w, int xmajor,          \
                                   gemm__cpu_packa_##X vpack)                                      \
    {                                                                                              \
        int64_t x0, x, p, full = nx / w * w;                                                       \
        if (xmajor) {                                                                              \
            for (x = 0; x < nx; x++) {                                                             \
                T *dx = d + x * kc;                                                                \
                if (ps == 1) memcpy(dx, s + x * xs, sizeof(T) * (size_t)kc);                       \
                else for (p = 0; p < kc; p++) dx[p] = s[x * xs + p * ps];                          \
            }                                                                                      \
            if (full < nx) memset(d + nx * kc, 0, sizeof(T) * (size_t)((w - nx % w) * kc));            \
            return;                                                                                \
        }                                                                                          \
        if (xs == 1) {                                                                             \
            if (vpack && full > 0) vpack(kc, s, ps, full, d);                                      \
            for (p = 0; p < kc; p++) {                                                             \
                const T *sp = s + p * ps;                                                          \
                for (x0 = 0; x0 < full && !vpack; x0 += w)                                         \
                    memcpy(d + x0 * kc + p * w, sp + x0, sizeof(T) * (size_t)w);                   \
                for (x = full; x < nx; x++) d[full * kc + p * w + x - full] = sp[x];               \
                for (; x < full + w && full < nx; x++) d[full * kc + p * w + x - full] = 0;        \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (x0 = 0; x0 < nx; x0 += w, d += w * kc) {                                              \
            int64_t xw = gemm__cpu_min(w, nx - x0);                                                \
            const T *s0 = s + x0 * xs;                                                             \
            for (x = 0; x < xw; x++)                                                               \
                for (p = 0; p < kc; p++) d[p * w + x] = s0[x * xs + p * ps];                       \
            for (; x < w; x++)                                                                     \
                for (p = 0; p < kc; p++) d[p * w + x] = 0;                                         \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* C[m0:m1, n0:n1] of the job, with this thread's workspace. A small                           \
       problem reads B, and A when its columns are contiguous, in place: only                      \
       a tail narrower than a micro-panel is packed (the kernel reads whole                        \
       micro-panels, which would run past the user's matrix). */                                   \
    static void gemm__cpu_rect_##X(const gemm__cpu_job_##X *jb, int64_t m0, int64_t m1, int64_t n0, \
                                   int64_t n1, T *pa, T *pb)                                       \
    {                                                                                              \
        int64_t jc, pc, ic, jr, ir, i, j, mr = jb->mr, nr = jb->nr, ldc = jb->ldc;                 \
        T tile[GEMM__CPU_TILE_MAX];                                                                \
        int tile_clean = 0; /* cleared at the first edge tile: its padding is read, never used */  \
        for (jc = n0; jc < n1; jc += jb->nc) {                                                     \
            int64_t nc = gemm__cpu_min(jb->nc, n1 - jc);                                           \
            int64_t b_inplace = jb->direct_b ? nc / nr * nr : 0; /* columns read unpacked */       \
            int b_xmajor = jb->bcs != 1; /* B's columns are contiguous: copy them whole */         \
            for (pc = 0; pc < jb->k; pc += jb->kc) {                                               \
                int64_t kc = gemm__cpu_min(jb->kc, jb->k - pc);                                    \
                T beta = pc == 0 ? jb->beta : (T)1;                                                \
                const T *b0 = jb->B + pc * jb->brs + jc * jb->bcs;                                 \
                if (b_inplace < nc)                                                                \
                    gemm__cpu_pack_##X(pb, b0 + b_inplace * jb->bcs, jb->bcs, jb->brs, nc - b_inplace, \
                                       kc, (int)nr, b_xmajor, (gemm__cpu_packa_##X)0);             \
                for (ic = m0; ic < m1; ic += jb->mc) {                                             \
                    int64_t mc = gemm__cpu_min(jb->mc, m1 - ic);                                   \
                    const T *a0 = jb->A + ic * jb->ars + pc * jb->acs;                             \
                    int64_t a_inplace = jb->direct_a ? mc / mr * mr : 0; /* rows read unpacked */  \
                    if (a_inplace < mc)                                                            \
                        gemm__cpu_pack_##X(pa, a0 + a_inplace * jb->ars, jb->ars, jb->acs,         \
                                           mc - a_inplace, kc, (int)mr, 0, jb->packa);             \
                    for (jr = 0; jr < nc; jr += nr) {                                              \
                        int64_t nw = gemm__cpu_min(nr, nc - jr);                                   \
                        int b_direct = jr < b_inplace;                                             \
                        const T *bp = b_direct ? b0 + jr * jb->bcs : pb + (jr - b_inplace) * kc;   \
                        gemm__cpu_ukernel_##X kern = b_direct || b_xmajor ? jb->kern_strided : jb->kern; \
                        int64_t bps = b_direct ? jb->brs : b_xmajor ? 1 : nr;                      \
                        int64_t bjs = b_direct ? jb->bcs : b_xmajor ? kc : 1;                      \
                        for (ir = 0; ir < mc; ir += mr) {                                          \
                            int64_t mw = gemm__cpu_min(mr, mc - ir);                               \
                            T *c = jb->C + (ic + ir) + (jc + jr) * ldc;                            \
                            const T *ap = ir < a_inplace ? a0 + ir * jb->ars : pa + (ir - a_inplace) * kc; \
                            int64_t as = ir < a_inplace ? jb->acs : mr;                            \
                            if (mw == mr && nw == nr) {                                            \
                                for (j = 0; j < nr; j++) { /* here, not in the kernel: its registers are full */ \
                                    GEMM__CPU_PREFETCH(c + j * ldc);                               \
                                    GEMM__CPU_PREFETCH(c + j * ldc + mr - 1);                      \
                                }                                                                  \
                                kern(kc, ap, as, bp, bps, bjs, jb->alpha, beta, c, ldc);           \
                                continue;                                                          \
                            }                                                                      \
                            /* an edge tile: the same kernel on a local copy */                    \
                            if (!tile_clean) memset(tile, 0, sizeof tile), tile_clean = 1;         \
                            if (beta != 0)                                                         \
                                for (j = 0; j < nw; j++)                                           \
                                    for (i = 0; i < mw; i++) tile[i + j * mr] = c[i + j * ldc];    \
                            kern(kc, ap, as, bp, bps, bjs, jb->alpha, beta, tile, mr);             \
                            for (j = 0; j < nw; j++)                                               \
                                for (i = 0; i < mw; i++) c[i + j * ldc] = tile[i + j * mr];        \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* One thread's share: chunks of the grid, taken until none is left. */                        \
    static void gemm__cpu_task_##X(void *arg, int tid)                                             \
    {                                                                                              \
        gemm__cpu_job_##X *jb = (gemm__cpu_job_##X *)arg;                                          \
        int64_t m0, m1, n0, n1;                                                                    \
        char *w;                                                                                   \
        int c;                                                                                     \
        if (tid >= jb->threads) return; /* a worker this call has no workspace for */              \
        w = jb->ws + (size_t)tid * jb->ws_stride;                                                  \
        while ((c = GEMM__CPU_TAKE(jb->next)) < jb->tm * jb->tn) {                                 \
            gemm__cpu_split(jb->m, jb->tm, c % jb->tm, jb->mr, &m0, &m1);                          \
            gemm__cpu_split(jb->n, jb->tn, c / jb->tm, jb->nr, &n0, &n1);                          \
            if (m0 < m1 && n0 < n1) gemm__cpu_rect_##X(jb, m0, m1, n0, n1, (T *)w, (T *)(w + jb->ws_a)); \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    GEMM_DEF gemm_status gemm_##X##gemm(gemm_layout layout, gemm_transpose transa,                 \
                                        gemm_transpose transb, int64_t m, int64_t n, int64_t k,    \
                                        T alpha, const T *A, int64_t lda, const T *B, int64_t ldb, \
                                        T beta, T *C, int64_t ldc)                                 \
    {                                                                                              \
        gemm__cpu_job_##X jb;                                                                      \
        const gemm__cpu_isa *isa;                                                                  \
        int64_t crs, ccs, i, j, mcw, ncw, kcw;                                                     \
        double flops;                                                                              \
        char *raw;                                                                                 \
        int threads;                                                                               \
        gemm__work work;                                                                           \
        gemm_status s;                                                                             \
        gemm__clear_error();                                                                       \
        s = gemm__check_args("gemm_" #X "gemm", layout, transa, transb, m, n, k, alpha == 0,       \
                             A != NULL, lda, B != NULL, ldb, beta == 1, C != NULL, ldc, &work);    \
        if (s != GEMM_OK || work == GEMM__WORK_NONE) return s;                                     \
        gemm__op_strides(layout, GEMM_NO_TRANS, ldc, &crs, &ccs);                                  \
        if (work == GEMM__WORK_SCALE) { /* walk C in storage order */                             \
            int64_t outer = crs == 1 ? n : m, inner = crs == 1 ? m : n, ld = crs == 1 ? ccs : crs; \
            for (j = 0; j < outer; j++)                                                            \
                for (i = 0; i < inner; i++) {                                                      \
                    T *c = &C[j * ld + i];                                                         \
                    *c = beta == 0 ? (T)0 : beta * *c;                                             \
                }                                                                                  \
            return GEMM_OK;                                                                        \
        }                                                                                          \
        memset(&jb, 0, sizeof jb);                                                                 \
        gemm__op_strides(layout, transa, lda, &jb.ars, &jb.acs);                                   \
        gemm__op_strides(layout, transb, ldb, &jb.brs, &jb.bcs);                                   \
        jb.A = A; jb.B = B; jb.C = C; jb.m = m; jb.n = n; jb.k = k;                                \
        jb.alpha = alpha; jb.beta = beta; jb.ldc = crs == 1 ? ccs : crs;                           \
        if (crs != 1) { /* row-major C: solve C^T = op(B)^T op(A)^T instead */                     \
            int64_t t;                                                                             \
            jb.A = B; jb.B = A; jb.m = n; jb.n = m;                                                \
            t = jb.ars; jb.ars = jb.bcs; jb.bcs = t;                                               \
            t = jb.acs; jb.acs = jb.brs; jb.brs = t;                                               \
        }                                                                                          \
        isa = gemm__cpu_current();                                                                 \
        jb.mr = isa->X##mr; jb.nr = isa->X##nr; jb.kern = isa->X##kern; jb.kern_strided = isa->X##kern_strided; \
        jb.packa = isa->X##pack;                                                                   \
        gemm__cpu_blocking(jb.mr, jb.nr, (int)sizeof(T), &jb.mc, &jb.kc, &jb.nc);                  \
        flops = 2.0 * (double)m * (double)n * (double)k;                                           \
        jb.direct_b = flops <= 2.0 * GEMM__CPU_SMALL;                                              \
        jb.direct_a = jb.direct_b && jb.ars == 1;                                                  \
        threads = flops < GEMM__CPU_THREADED ? 1 : gemm__cpu_pool_acquire(gemm_cpu_get_threads()); \
        /* more chunks than threads when there is enough work: a thread that                       \
           the OS runs late then costs a chunk, not half the call */                               \
        gemm__cpu_grid(threads * (threads > 1 && flops >= GEMM__CPU_CHUNKY ? 4 : 1), jb.m, jb.n,   \
                       jb.mr, jb.nr, &jb.tm, &jb.tn);                                              \
        jb.threads = threads;                                                                      \
        /* workspace: packed A (mc x kc) and B (kc x nc) per thread, 64-byte aligned */            \
        mcw = gemm__cpu_min(jb.mc, gemm__cpu_round_up(jb.m, jb.mr));                               \
        ncw = gemm__cpu_min(jb.nc, gemm__cpu_round_up(jb.n, jb.nr));                               \
        kcw = gemm__cpu_min(jb.kc, jb.k);                                                          \
        jb.ws_a = (size_t)gemm__cpu_round_up(mcw * kcw * (int64_t)sizeof(T), 64);                  \
        jb.ws_stride = jb.ws_a + (size_t)gemm__cpu_round_up(ncw * kcw * (int64_t)sizeof(T), 64);   \
        raw = (char *)GEMM_MALLOC(jb.ws_stride * (size_t)threads + 64);                            \
        if (!raw) {                                                                                \
            if (threads > 1) gemm__cpu_pool_release();                                             \
            return gemm__fail(GEMM_ERR_OUT_OF_MEMORY,                                              \
                              "gemm_" #X "gemm: no memory for %d packing workspace(s) of %llu bytes", \
                              threads, (unsigned long long)jb.ws_stride);                          \
        }                                                                                          \
        jb.ws = raw + (64 - (uintptr_t)raw % 64);                                                  \
        if (threads > 1) {                                                                         \
            gemm__cpu_pool_run(gemm__cpu_task_##X, &jb);                                           \
            gemm__cpu_pool_release();                                                              \
        } else {                                                                                   \
            gemm__cpu_task_##X(&jb, 0);                                                            \
        }                                                                                          \
        GEMM_FREE(raw);                                                                            \
        return GEMM_OK;                                                                            \
    }
GEMM__CPU_DEFINE(float, s)
GEMM__CPU_DEFINE(double, d)
#undef GEMM__CPU_DEFINE

#ifdef __cplusplus
}
#endif

#endif /* GEMM_IMPLEMENTATION */

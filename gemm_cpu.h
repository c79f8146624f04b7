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
                 the CPUs this process may run on); more than 64 means 64;
                 negative is GEMM_ERR_INVALID_ARG, reported after the checks
                 of the CBLAS arguments. The count never changes the
                 result's bits, and small problems still run on one thread
                 (see Threads).

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
       copied whole.

   Block sizes
       From the caches the CPU reports, read once: cpuid (leaf 4 on Intel,
       0x8000001D on AMD), else Linux's sysfs, else sysconf, else 32 KiB L1d
       and 1 MiB L2. KC: a B micro-panel (KC x NR) fills half of L1d; MC: the
       packed A block (MC x KC) half of L2; NC: the packed B panel a quarter
       of L3, 2 to 8 MiB (4 MiB when L3 is unknown). Only KC changes the
       arithmetic (the k order of a sum), and it depends on the CPU alone.

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
       leaves only scalar. Every kernel, with its strided-B variant, its
       direct variant (below) and its A-packing routine, is one template
       over a small table of vector operations, with one signature for every
       ISA and precision (gemm__cpu_ukernel_fn). No address is formed
       outside a matrix, even with a leading dimension near INT64_MAX.

   Small products: the direct path
       Up to m*n*k = 128^3 the kernel runs on the caller's matrices where
       they are, tile by tile, with no packing, no blocking of k and no
       allocation (a transposed op(A) is copied, MR rows at a time, into a
       panel on the stack); a tile at the edge of C uses masked or narrower
       vector moves. A product of one tile calls the kernel directly, and
       one of at most 8 multiply-adds (2x2x2) is a plain loop: the fixed
       cost of a call is the argument checks (an inlined common case) and
       little more, so LAPACK-style callers making millions of them pay
       about what their own loop would. The choice depends on the shape
       alone, never on the thread count.

   alpha = Inf or NaN
       The result is what the reference computes, alpha * (the whole sum)
       + beta*C under IEEE rules: +-Inf where the sum is non-zero, NaN where
       it is zero or NaN. Such a call takes the direct path (each tile sums
       all of k before alpha multiplies it); blocked k with alpha applied per
       block would give Inf - Inf = NaN where partial sums change sign. A
       finite alpha is applied per KC block, as BLAS libraries do: only an
       alpha*partial-sum beyond the largest finite value tells the two apart.

   Threads
       gemm_cpu_set_threads(n) sets how many threads a call may use (0 means
       automatic: the GEMM_NUM_THREADS environment variable, else the CPUs
       this process may run on, its affinity mask, so `taskset -c 0` or
       `mpirun --bind-to core` gives one thread per process; at most 64); a
       call's options.threads overrides it for that call. A persistent pool
       of pthreads is started at the first call that wants more than one
       thread and is stopped and joined at exit (atexit: calls made from
       then on run alone, and idle workers notice at once); a child made by
       fork() starts with a fresh, empty pool (pthread_atfork). The caller's
       thread works too. A call uses one thread per 2*56^3 flops, up to its
       count.
       The work is cut over M and N, never K. On the packed path the columns
       of C form a few groups; each group walks its (NC, KC) steps in order,
       its threads packing the step's B panel together (each NR-wide
       micro-panel taken from a counter) and then taking row blocks of the
       step from another counter, each packing its own A block. Two B
       buffers alternate, so the next step's packing overlaps this one's
       computing, and a thread done with its group helps the next. Nothing
       waits for a particular thread, only for work already taken, and no
       phase runs on one thread. The direct path cuts C into rectangles
       taken from a counter. Tiles start at multiples of MR and NR and each
       sees its k blocks in order, so results are bitwise identical for any
       thread count.
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
       names the member; a member that fails while it runs (no memory for
       its workspace) fails the batch with a detail naming the member and
       keeping its single call's cause. The single call's path (the tiny
       loops, one direct tile, the direct path, packing) is chosen once for
       every member, and a member runs without the single call's checks.
       Members a single call runs on one thread go whole to the threads, a
       share at a time from a shared counter; so do bigger ones when there
       are at least 4 per thread; fewer big ones run one after the other,
       each cut over the threads as a single call is. A member of more than
       16 KiB on the direct path (no packing: up to 128^3) brings the next
       one into cache a few lines per tile while it is computed.

   Memory
       The direct path allocates nothing (but for alpha = Inf or NaN with
       a transposed op(A) and a very deep k: an MR x k panel per thread).
       The packed path needs one workspace per call: per thread a packed A
       block, per column group two B panels and its counters, bounded by the
       block sizes (about threads * MC*KC + groups * 2*KC*NC elements, never
       m*n*k). A call alone allocates it (GEMM_MALLOC) and frees it; a
       threaded call uses the pool's, which is kept from call to call (a
       fresh one of tens of MiB costs a page fault per 4 KiB every call),
       grows only when a call needs more, and is freed at exit. Either way
       it is had before C is touched: failure returns GEMM_ERR_OUT_OF_MEMORY
       with C unchanged.

   Test hooks
       Only when the test suite defines GEMM__TEST_HOOKS: the fields
       cpu_kernel (force a micro-kernel by name; a call refuses a name this
       build or CPU cannot run with GEMM_ERR_UNAVAILABLE), cpu_path (1: every
       product takes the packed path, 2: the direct one), cpu_mc, cpu_kc,
       cpu_nc (block sizes, so small tests cross every block edge),
       cpu_groups (column groups) and cpu_strip_copy (1: the direct path
       copies rows of A whose leading dimension aliases in L1 on any CPU,
       not only on Intel's; 2: never) of gemm.h's gemm__hooks, and
       gemm__cpu_kernels() / gemm__cpu_kernel() (the kernels this CPU can
       run; the one calls use now) and gemm__cpu_last_threads() (the threads
       the last product ran on). Without the macro none of them exists.

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
   names one this build or CPU cannot run); the threads the last call that
   computed a product ran on. */
GEMM_DEF int gemm__cpu_kernels(const char **names, int max);
GEMM_DEF const char *gemm__cpu_kernel(void);
/* The threads the last call that computed a product ran on. */
GEMM_DEF int gemm__cpu_last_threads(void);
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
   elements after A, B, C. Pointer arrays: member i's are A[i], B[i], C[i].
   Each member's result is bitwise the single call's. Bad arguments (of
   any member) are refused before any C is written; running out of memory
   (GEMM_ERR_OUT_OF_MEMORY) can stop a batch part-way: each member takes
   the workspace its single call takes, and members finished before the
   failing one keep their results. */
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
#include <cpuid.h>
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
#define GEMM__CPU_DONE(x) __atomic_fetch_add(&(x), 1, __ATOMIC_RELEASE)
#define GEMM__CPU_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#define GEMM__CPU_PREFETCH(p) __builtin_prefetch(p, 1)
#else
#define GEMM__CPU_LOAD(x) (x)
#define GEMM__CPU_TAKE(x) ((x)++)
#define GEMM__CPU_DONE(x) ((x)++)
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
   A is MR x k, column p at a + p*as (as = MR: a packed panel); element
   (p, j) of B is at b[p*bp + j*bj]: the packed variant ignores bp, bj and
   reads (NR, 1), the strided variant reads them (a panel stored column by
   column); C is column-major with leading dimension ldc. The tile is
   always full. Strides count elements of the kernel's precision; alpha and
   beta come as double (exact for a float) and are turned back into the
   kernel's type before any arithmetic.

   void direct(k, a, as, b, bp, bj, alpha, beta, c, ldc, mw, nw): the same
   product on the caller's matrices where they are (no packing), for a tile
   of mw <= MR rows and nw <= NR columns: rows past mw are neither read nor
   written (masked or partial vector moves), columns past nw re-read column
   nw-1 of B and are not stored. A's rows must be contiguous (element (i, p)
   at a[i + p*as]). Its arithmetic is the packed kernel's, term for term,
   so a tile has the same bits whichever path computes it with the same k.

   void pack_a(kc, s, ps, nx, d): packs the nx rows (a multiple of MR) of a
   block of A whose columns are contiguous (column p at s + p*ps) into
   MR x kc panels with vector moves, walking each source column once (long
   runs for the hardware prefetcher: such a block often streams from memory).

   Addresses are formed from indices that stay inside the matrices: no
   pointer ever steps past the last element it reads (a stride may be near
   INT64_MAX / 8 when k = 1). */
typedef void (*gemm__cpu_ukernel_fn)(int64_t k, const void *a, int64_t as, const void *b, int64_t bp, int64_t bj,
                                     double alpha, double beta, void *c, int64_t ldc);
typedef void (*gemm__cpu_direct_fn)(int64_t k, const void *a, int64_t as, const void *b, int64_t bp, int64_t bj,
                                    double alpha, double beta, void *c, int64_t ldc, int64_t mw, int64_t nw);
typedef void (*gemm__cpu_pack_a_fn)(int64_t kc, const void *s, int64_t ps, int64_t nx, void *d);

/* One template, instantiated per ISA and precision from a table P of
   vector operations (P##_T element, P##_V vector of P##_VL elements, LOAD,
   STORE, SET1, FMA(a, b, c) = a*b + c, MUL, ADD, ZERO, and LOADN / STOREN,
   which move only the first n lanes, 1 <= n <= VL, and read zeros into the
   others; LOADM is LOADN for A, in the inner loop, where a plain mask is
   cheapest): MR = 2 vectors, NR = the count of the REP macro. The
   accumulators are named variables, not an array, so they stay in
   registers at any optimisation level. */

#define GEMM__CPU_REP6(X, P) X(0, P) X(1, P) X(2, P) X(3, P) X(4, P) X(5, P)
#define GEMM__CPU_REP8(X, P) GEMM__CPU_REP6(X, P) X(6, P) X(7, P)
#define GEMM__CPU_REP12(X, P) GEMM__CPU_REP8(X, P) X(8, P) X(9, P) X(10, P) X(11, P)

#define GEMM__CPU_UK_DECL(j, P) P##_V c0_##j = P##_ZERO(), c1_##j = P##_ZERO();
#define GEMM__CPU_UK_STEP(j, P)                                                                    \
    {                                                                                              \
        P##_V bv = P##_SET1(b[q + (j) * bjs]);                                                     \
        c0_##j = P##_FMA(a0, bv, c0_##j);                                                          \
        c1_##j = P##_FMA(a1, bv, c1_##j);                                                          \
    }
/* C = alpha*acc (beta == 0), C + alpha*acc (beta == 1), beta*C + alpha*acc. */
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
        int64_t p, q;                                                                              \
        const int64_t bjs = BJ; /* read by GEMM__CPU_UK_STEP */                                    \
        REP(GEMM__CPU_UK_DECL, P)                                                                  \
        (void)bp;                                                                                  \
        (void)bj;                                                                                  \
        for (p = 0, q = 0; p < k; p++, q += BP) {                                                  \
            P##_V a0 = P##_LOAD(a + p * as), a1 = P##_LOAD(a + p * as + P##_VL);                   \
            REP(GEMM__CPU_UK_STEP, P)                                                              \
        }                                                                                          \
        {                                                                                          \
            P##_V va = P##_SET1(alpha), vb = P##_SET1(beta);                                       \
            if (beta == 0) { REP(GEMM__CPU_UK_PUT0, P) }                                           \
            else { REP(GEMM__CPU_UK_PUTB, P) }                                                     \
        }                                                                                          \
    }

/* The direct kernel's parts: column j of B through its own pointer (the
   last real column repeated past nw; the running pointer stops there, so
   it never leaves B), one or two vectors of A per k. */
#define GEMM__CPU_DK_COL(j, P) const P##_T *b##j = bcol; bcol += (j) + 1 < nw ? bj : 0;
#define GEMM__CPU_DK_STEP2(j, P)                                                                   \
    {                                                                                              \
        P##_V bv = P##_SET1(b##j[q]);                                                              \
        c0_##j = P##_FMA(a0, bv, c0_##j);                                                          \
        c1_##j = P##_FMA(a1, bv, c1_##j);                                                          \
    }
#define GEMM__CPU_DK_STEP1(j, P) c0_##j = P##_FMA(a0, P##_SET1(b##j[q]), c0_##j);
/* Stores column j (when j < nw): the first vector whole when two are in
   use (m1 > 0 lanes in the second), else only its m0 lanes. */
#define GEMM__CPU_DK_PUT(j, P)                                                                     \
    if ((j) < nw) {                                                                                \
        P##_T *cj = c + (j) * ldc;                                                                 \
        P##_V r0 = P##_MUL(c0_##j, va), r1 = P##_MUL(c1_##j, va);                                  \
        if (m1 > 0) {                                                                              \
            if (beta == 1) r0 = P##_ADD(P##_LOAD(cj), r0);                                         \
            else if (beta != 0) r0 = P##_FMA(vb, P##_LOAD(cj), r0);                                \
            P##_STORE(cj, r0);                                                                     \
            if (beta == 1) r1 = P##_ADD(P##_LOADN(cj + P##_VL, m1), r1);                           \
            else if (beta != 0) r1 = P##_FMA(vb, P##_LOADN(cj + P##_VL, m1), r1);                  \
            P##_STOREN(cj + P##_VL, r1, m1);                                                       \
        } else {                                                                                   \
            if (beta == 1) r0 = P##_ADD(P##_LOADN(cj, m0), r0);                                    \
            else if (beta != 0) r0 = P##_FMA(vb, P##_LOADN(cj, m0), r0);                           \
            P##_STOREN(cj, r0, m0);                                                                \
        }                                                                                          \
    }

#define GEMM__CPU_DIRECT(NAME, ATTR, P, REP)                                                       \
    static ATTR void NAME(int64_t k, const void *a_in, int64_t as, const void *b_in, int64_t bp,    \
                          int64_t bj, double alpha_in, double beta_in, void *c_in, int64_t ldc,     \
                          int64_t mw, int64_t nw)                                                  \
    {                                                                                              \
        const P##_T *GEMM__RESTRICT a = (const P##_T *)a_in;                                       \
        const P##_T *GEMM__RESTRICT b = (const P##_T *)b_in;                                       \
        P##_T *GEMM__RESTRICT c = (P##_T *)c_in;                                                   \
        const P##_T alpha = (P##_T)alpha_in, beta = (P##_T)beta_in;                                \
        const int64_t m1 = mw - P##_VL, m0 = mw < P##_VL ? mw : P##_VL;                            \
        int64_t p, q;                                                                              \
        const P##_T *bcol = b; /* the columns' pointers: adds, no multiplies */                   \
        REP(GEMM__CPU_UK_DECL, P)                                                                  \
        REP(GEMM__CPU_DK_COL, P)                                                                   \
        (void)m0; /* unused where a "vector" is one element */                                    \
        if (m1 > 0) {                                                                              \
            for (p = 0, q = 0; p < k; p++, q += bp) {                                              \
                P##_V a0 = P##_LOAD(a + p * as), a1 = P##_LOADM(a + p * as + P##_VL, m1);          \
                REP(GEMM__CPU_DK_STEP2, P)                                                         \
            }                                                                                      \
        } else {                                                                                   \
            for (p = 0, q = 0; p < k; p++, q += bp) {                                              \
                P##_V a0 = P##_LOADM(a + p * as, m0);                                              \
                REP(GEMM__CPU_DK_STEP1, P)                                                         \
            }                                                                                      \
        }                                                                                          \
        {                                                                                          \
            P##_V va = P##_SET1(alpha), vb = P##_SET1(beta);                                       \
            REP(GEMM__CPU_DK_PUT, P)                                                               \
        }                                                                                          \
    }

/* Both variants of one kernel (NAME reads packed B, NAME_strided reads B
   through strides), its direct kernel NAME_direct and its A packer NAME_pack. */
#define GEMM__CPU_UKERNELS(NAME, ATTR, P, REP, NR)                                                 \
    GEMM__CPU_UKERNEL(NAME, ATTR, P, REP, NR, 1)                                                   \
    GEMM__CPU_UKERNEL(NAME##_strided, ATTR, P, REP, bp, bj)                                        \
    GEMM__CPU_DIRECT(NAME##_direct, ATTR, P, REP)                                                  \
    static ATTR void NAME##_pack(int64_t kc, const void *s_in, int64_t ps, int64_t nx, void *d_in) \
    {                                                                                              \
        const P##_T *GEMM__RESTRICT s = (const P##_T *)s_in;                                       \
        P##_T *GEMM__RESTRICT d = (P##_T *)d_in;                                                   \
        int64_t p, x0;                                                                             \
        for (p = 0; p < kc; p++)                                                                   \
            for (x0 = 0; x0 < nx; x0 += 2 * P##_VL) {                                              \
                P##_STORE(d + x0 * kc + p * 2 * P##_VL, P##_LOAD(s + p * ps + x0));                \
                P##_STORE(d + x0 * kc + p * 2 * P##_VL + P##_VL, P##_LOAD(s + p * ps + x0 + P##_VL)); \
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
#define GEMM__CPU_SCAL_S_LOADN(p, n) (*(p)) /* n is 1 */
#define GEMM__CPU_SCAL_S_LOADM GEMM__CPU_SCAL_S_LOADN
#define GEMM__CPU_SCAL_S_STOREN(p, v, n) (*(p) = (v))
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
#define GEMM__CPU_SCAL_D_LOADN GEMM__CPU_SCAL_S_LOADN
#define GEMM__CPU_SCAL_D_LOADM GEMM__CPU_SCAL_S_LOADN
#define GEMM__CPU_SCAL_D_STOREN GEMM__CPU_SCAL_S_STOREN
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
#define GEMM__CPU_Z_S_LOADM(p, n) _mm512_maskz_loadu_ps((__mmask16)((1u << (unsigned)(n)) - 1u), p)
#define GEMM__CPU_Z_S_LOADN(p, n) gemm__cpu_z_loadn_s(p, n)
#define GEMM__CPU_Z_S_STOREN(p, v, n) gemm__cpu_z_storen_s(p, v, n)
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
#define GEMM__CPU_Z_D_LOADM(p, n) _mm512_maskz_loadu_pd((__mmask8)((1u << (unsigned)(n)) - 1u), p)
#define GEMM__CPU_Z_D_LOADN(p, n) gemm__cpu_z_loadn_d(p, n)
#define GEMM__CPU_Z_D_STOREN(p, v, n) gemm__cpu_z_storen_d(p, v, n)
/* AVX2 + FMA: 12 ymm accumulators, 2 for A, 1 broadcast (15 of 16). The
   partial moves take their lane mask from a window of these tables. */
static const int32_t gemm__cpu_mask32[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
static const int64_t gemm__cpu_mask64[8] = {-1, -1, -1, -1, 0, 0, 0, 0};
#define GEMM__CPU_Y_MASK32(n) _mm256_loadu_si256((const __m256i *)(gemm__cpu_mask32 + 8 - (n)))
#define GEMM__CPU_Y_MASK64(n) _mm256_loadu_si256((const __m256i *)(gemm__cpu_mask64 + 4 - (n)))
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
#define GEMM__CPU_Y_S_LOADM(p, n) _mm256_maskload_ps(p, GEMM__CPU_Y_MASK32(n))
#define GEMM__CPU_Y_S_LOADN(p, n) gemm__cpu_y_loadn_s(p, n)
#define GEMM__CPU_Y_S_STOREN(p, v, n) gemm__cpu_y_storen_s(p, v, n)
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
#define GEMM__CPU_Y_D_LOADM(p, n) _mm256_maskload_pd(p, GEMM__CPU_Y_MASK64(n))
#define GEMM__CPU_Y_D_LOADN(p, n) gemm__cpu_y_loadn_d(p, n)
#define GEMM__CPU_Y_D_STOREN(p, v, n) gemm__cpu_y_storen_d(p, v, n)
#define GEMM__CPU_AVX512 __attribute__((target("avx512f")))
#define GEMM__CPU_AVX2 __attribute__((target("avx2,fma")))

/* g++ 12 warns "'__Y' is used uninitialized" inside its own AVX-512
   casts and inserts (GCC bug 105593, fixed in 13): silenced for the
   AVX-512 kernels only. */
#if defined(__cplusplus) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#define GEMM__CPU_GXX12_PUSH 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/* The partial moves of the direct kernel. A whole vector, a half, a
   quarter or a single element goes through a plain move of that width: a masked store followed by a
   load of the same place (the next small call updating the same C) cannot
   be forwarded, which costs tens of cycles per column on some CPUs
   (measured: an 8x8x8 fp32 update took 65 ns through masks, 25 ns so).
   Other widths use the masks. Lanes past n are zero after a load: the zext
   casts define them (a plain cast leaves them undefined) and compile to the
   bare load. */
static GEMM__CPU_AVX512 __m512d gemm__cpu_z_loadn_d(const double *p, int64_t n)
{
    if (n == 8) return _mm512_loadu_pd(p);
    if (n == 4) return _mm512_zextpd256_pd512(_mm256_loadu_pd(p));
    if (n == 2) return _mm512_zextpd128_pd512(_mm_loadu_pd(p));
    if (n == 1) return _mm512_zextpd128_pd512(_mm_load_sd(p));
    return _mm512_maskz_loadu_pd((__mmask8)((1u << (unsigned)n) - 1u), p);
}
static GEMM__CPU_AVX512 void gemm__cpu_z_storen_d(double *p, __m512d v, int64_t n)
{
    if (n == 8) _mm512_storeu_pd(p, v);
    else if (n == 4) _mm256_storeu_pd(p, _mm512_castpd512_pd256(v));
    else if (n == 2) _mm_storeu_pd(p, _mm512_castpd512_pd128(v));
    else if (n == 1) _mm_store_sd(p, _mm512_castpd512_pd128(v));
    else _mm512_mask_storeu_pd(p, (__mmask8)((1u << (unsigned)n) - 1u), v);
}
static GEMM__CPU_AVX512 __m512 gemm__cpu_z_loadn_s(const float *p, int64_t n)
{
    if (n == 16) return _mm512_loadu_ps(p);
    if (n == 8) return _mm512_zextps256_ps512(_mm256_loadu_ps(p));
    if (n == 4) return _mm512_zextps128_ps512(_mm_loadu_ps(p));
    if (n == 1) return _mm512_zextps128_ps512(_mm_load_ss(p));
    return _mm512_maskz_loadu_ps((__mmask16)((1u << (unsigned)n) - 1u), p);
}
static GEMM__CPU_AVX512 void gemm__cpu_z_storen_s(float *p, __m512 v, int64_t n)
{
    if (n == 16) _mm512_storeu_ps(p, v);
    else if (n == 8) _mm256_storeu_ps(p, _mm512_castps512_ps256(v));
    else if (n == 4) _mm_storeu_ps(p, _mm512_castps512_ps128(v));
    else if (n == 1) _mm_store_ss(p, _mm512_castps512_ps128(v));
    else _mm512_mask_storeu_ps(p, (__mmask16)((1u << (unsigned)n) - 1u), v);
}
static GEMM__CPU_AVX2 __m256d gemm__cpu_y_loadn_d(const double *p, int64_t n)
{
    if (n == 4) return _mm256_loadu_pd(p);
    if (n == 2) return _mm256_insertf128_pd(_mm256_setzero_pd(), _mm_loadu_pd(p), 0);
    if (n == 1) return _mm256_insertf128_pd(_mm256_setzero_pd(), _mm_load_sd(p), 0);
    return _mm256_maskload_pd(p, GEMM__CPU_Y_MASK64(n));
}
static GEMM__CPU_AVX2 void gemm__cpu_y_storen_d(double *p, __m256d v, int64_t n)
{
    if (n == 4) _mm256_storeu_pd(p, v);
    else if (n == 2) _mm_storeu_pd(p, _mm256_castpd256_pd128(v));
    else if (n == 1) _mm_store_sd(p, _mm256_castpd256_pd128(v));
    else _mm256_maskstore_pd(p, GEMM__CPU_Y_MASK64(n), v);
}
static GEMM__CPU_AVX2 __m256 gemm__cpu_y_loadn_s(const float *p, int64_t n)
{
    if (n == 8) return _mm256_loadu_ps(p);
    if (n == 4) return _mm256_insertf128_ps(_mm256_setzero_ps(), _mm_loadu_ps(p), 0);
    if (n == 1) return _mm256_insertf128_ps(_mm256_setzero_ps(), _mm_load_ss(p), 0);
    return _mm256_maskload_ps(p, GEMM__CPU_Y_MASK32(n));
}
static GEMM__CPU_AVX2 void gemm__cpu_y_storen_s(float *p, __m256 v, int64_t n)
{
    if (n == 8) _mm256_storeu_ps(p, v);
    else if (n == 4) _mm_storeu_ps(p, _mm256_castps256_ps128(v));
    else if (n == 1) _mm_store_ss(p, _mm256_castps256_ps128(v));
    else _mm256_maskstore_ps(p, GEMM__CPU_Y_MASK32(n), v);
}
GEMM__CPU_UKERNELS(gemm__cpu_avx512_s, GEMM__CPU_AVX512, GEMM__CPU_Z_S, GEMM__CPU_REP8, 8)
GEMM__CPU_UKERNELS(gemm__cpu_avx512_d, GEMM__CPU_AVX512, GEMM__CPU_Z_D, GEMM__CPU_REP8, 8)
#ifdef GEMM__CPU_GXX12_PUSH
#pragma GCC diagnostic pop
#undef GEMM__CPU_GXX12_PUSH
#endif
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
/* NEON (always there on aarch64): 24 q accumulators of 32. It has no
   masked moves: a partial one goes through a small array. */
static float32x4_t gemm__cpu_neon_loadn_s(const float *p, int64_t n)
{
    float t[4] = {0, 0, 0, 0};
    memcpy(t, p, (size_t)n * sizeof(float));
    return vld1q_f32(t);
}
static void gemm__cpu_neon_storen_s(float *p, float32x4_t v, int64_t n)
{
    float t[4];
    vst1q_f32(t, v);
    memcpy(p, t, (size_t)n * sizeof(float));
}
static float64x2_t gemm__cpu_neon_loadn_d(const double *p, int64_t n)
{
    double t[2] = {0, 0};
    memcpy(t, p, (size_t)n * sizeof(double));
    return vld1q_f64(t);
}
static void gemm__cpu_neon_storen_d(double *p, float64x2_t v, int64_t n)
{
    double t[2];
    vst1q_f64(t, v);
    memcpy(p, t, (size_t)n * sizeof(double));
}
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
#define GEMM__CPU_N_S_LOADN(p, n) gemm__cpu_neon_loadn_s(p, n)
#define GEMM__CPU_N_S_LOADM GEMM__CPU_N_S_LOADN
#define GEMM__CPU_N_S_STOREN(p, v, n) gemm__cpu_neon_storen_s(p, v, n)
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
#define GEMM__CPU_N_D_LOADN(p, n) gemm__cpu_neon_loadn_d(p, n)
#define GEMM__CPU_N_D_LOADM GEMM__CPU_N_D_LOADN
#define GEMM__CPU_N_D_STOREN(p, v, n) gemm__cpu_neon_storen_d(p, v, n)
GEMM__CPU_UKERNELS(gemm__cpu_neon_s, , GEMM__CPU_N_S, GEMM__CPU_REP12, 12)
GEMM__CPU_UKERNELS(gemm__cpu_neon_d, , GEMM__CPU_N_D, GEMM__CPU_REP12, 12)
static int gemm__cpu_has_neon(void) { return 1; }
#endif
/* <<cpu ukernel_neon */
/* >>cpu kernel_select: src/cpu/kernel_select.c */
/* One precision's micro-kernel: its tile (mr x nr), the variant that reads
   packed B, the one that reads B through strides, the direct kernel for
   partial tiles of unpacked operands, and its A packer. */
typedef struct gemm__cpu_microkernel {
    int mr, nr;
    gemm__cpu_ukernel_fn packed_b, strided_b;
    gemm__cpu_direct_fn direct;
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
     {SMR, SNR, gemm__cpu_##NAME##_s, gemm__cpu_##NAME##_s_strided, gemm__cpu_##NAME##_s_direct,   \
      gemm__cpu_##NAME##_s_pack},                                                                   \
     {DMR, DNR, gemm__cpu_##NAME##_d, gemm__cpu_##NAME##_d_strided, gemm__cpu_##NAME##_d_direct,   \
      gemm__cpu_##NAME##_d_pack}}

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

#if defined(GEMM__CPU_THREADS) && defined(__linux__)
/* libc's sched_getaffinity under a name of our own: its declaration and
   cpu_set_t exist only with _GNU_SOURCE, which the program including this
   header may not define (glibc and musl both have the function). */
extern int gemm__cpu_sched_getaffinity(int pid, size_t bytes, unsigned long *mask) __asm__("sched_getaffinity");
#endif

#if defined(GEMM__CPU_THREADS)
/* The CPUs this process may run on: its affinity mask (what taskset,
   numactl, mpirun --bind-to and cgroup cpusets leave it), else the online
   count. A system call (~0.2 us), made only by calls that may use threads. */
static long gemm__cpu_usable_cpus(void)
{
    long n = 0;
#if defined(__linux__)
    unsigned long mask[128]; /* 8192 CPUs: the kernel refuses a mask shorter than its own */
    int i;
    memset(mask, 0, sizeof mask);
    if (gemm__cpu_sched_getaffinity(0, sizeof mask, mask) == 0)
        for (i = 0; i < (int)(sizeof mask / sizeof mask[0]); i++) n += __builtin_popcountl(mask[i]);
#endif
#if defined(_SC_NPROCESSORS_ONLN)
    if (n <= 0) n = sysconf(_SC_NPROCESSORS_ONLN);
#endif
    return n > 0 ? n : 1;
}
#endif

GEMM_DEF int gemm_cpu_get_threads(void)
{
#if !defined(GEMM__CPU_THREADS)
    return 1;
#else
    const char *env;
    long n = GEMM__CPU_LOAD(gemm__cpu_threads_requested);
    if (n <= 0 && (env = getenv("GEMM_NUM_THREADS")) != NULL) n = atol(env);
    if (n <= 0) n = gemm__cpu_usable_cpus();
    return n > GEMM__CPU_MAX_THREADS ? GEMM__CPU_MAX_THREADS : (int)n;
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
/* >>cpu cache_info: src/cpu/cache_info.c */
/* The data caches of one core, as the CPU reports them: cpuid (leaf 4 on
   Intel, 0x8000001D on AMD: the deterministic cache parameters), else
   Linux's sysfs (every architecture), else sysconf (glibc), else nothing
   (the blocking then uses defaults). Read once; a virtual machine reports
   what its hypervisor passes through, which is what it runs on. */
typedef struct gemm__cpu_caches {
    long l1d, l2, l3; /* bytes; 0 = unknown */
} gemm__cpu_caches;

#if defined(GEMM__CPU_X86)
/* One cpuid cache leaf (4 or 0x8000001D), subleaf by subleaf. */
static void gemm__cpu_caches_cpuid_leaf(unsigned leaf, gemm__cpu_caches *out)
{
    unsigned i, a, b, c, d;
    for (i = 0; i < 16; i++) {
        unsigned type, level;
        long bytes;
        __cpuid_count(leaf, i, a, b, c, d);
        type = a & 31; /* 0: no more caches, 1: data, 2: instruction, 3: unified */
        level = (a >> 5) & 7;
        if (type == 0) break;
        if (type == 2) continue;
        bytes = (long)((b >> 22) + 1) * (long)(((b >> 12) & 0x3ff) + 1) * (long)((b & 0xfff) + 1) * (long)(c + 1);
        if (level == 1) out->l1d = bytes;
        else if (level == 2) out->l2 = bytes;
        else if (level == 3) out->l3 = bytes;
    }
    (void)d;
}

/* Intel and Hygon describe their caches in leaf 4; AMD leaves it zero and
   uses 0x8000001D (same format) when it reports TOPOEXT. */
static void gemm__cpu_caches_cpuid(gemm__cpu_caches *out)
{
    unsigned a, b, c, d;
    if ((unsigned)__get_cpuid_max(0, NULL) >= 4) gemm__cpu_caches_cpuid_leaf(4, out);
    if (!out->l1d && (unsigned)__get_cpuid_max(0x80000000u, NULL) >= 0x8000001Du &&
        __get_cpuid(0x80000001u, &a, &b, &c, &d) && ((c >> 22) & 1))
        gemm__cpu_caches_cpuid_leaf(0x8000001Du, out);
}
#endif

#if defined(__linux__)
/* A number from a sysfs file of cpu0's cache `index` ("48K", "2048K", "3"),
   and its first letter in *first when asked ("Data", "Instruction",
   "Unified"). Returns -1 when the file is missing. */
static long gemm__cpu_sysfs_value(int index, const char *name, char *first)
{
    char path[96], text[64];
    FILE *f;
    long v = -1;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/%s", index, name);
    if (!(f = fopen(path, "r"))) return -1;
    if (fgets(text, sizeof text, f)) {
        if (first) *first = text[0];
        v = atol(text);
        if (strchr(text, 'K')) v *= 1024;
        else if (strchr(text, 'M')) v *= 1048576;
    }
    fclose(f);
    return v;
}

static void gemm__cpu_caches_sysfs(gemm__cpu_caches *out)
{
    int i;
    for (i = 0; i < 16; i++) {
        char type = '?';
        long level = gemm__cpu_sysfs_value(i, "level", NULL), bytes = gemm__cpu_sysfs_value(i, "size", NULL);
        if (level < 0) break;
        gemm__cpu_sysfs_value(i, "type", &type);
        if (type == 'I' || bytes <= 0) continue; /* Instruction */
        if (level == 1 && !out->l1d) out->l1d = bytes;
        else if (level == 2 && !out->l2) out->l2 = bytes;
        else if (level == 3 && !out->l3) out->l3 = bytes;
    }
}
#endif

/* Fills what the sources before it left unknown. */
static void gemm__cpu_caches_sysconf(gemm__cpu_caches *out)
{
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
    long v;
    if (!out->l1d && (v = sysconf(_SC_LEVEL1_DCACHE_SIZE)) > 0) out->l1d = v;
    if (!out->l2 && (v = sysconf(_SC_LEVEL2_CACHE_SIZE)) > 0) out->l2 = v;
    if (!out->l3 && (v = sysconf(_SC_LEVEL3_CACHE_SIZE)) > 0) out->l3 = v;
#else
    (void)out;
#endif
}

static long gemm__cpu_cache_bytes[3] = {-1, -1, -1}; /* L1d, L2, L3 once read; 0 = unknown */

/* The sizes, read at the first call (racing first calls read the same). */
static gemm__cpu_caches gemm__cpu_cache_sizes(void)
{
    gemm__cpu_caches c;
    if (GEMM__CPU_LOAD(gemm__cpu_cache_bytes[2]) >= 0) {
        c.l1d = GEMM__CPU_LOAD(gemm__cpu_cache_bytes[0]);
        c.l2 = GEMM__CPU_LOAD(gemm__cpu_cache_bytes[1]);
        c.l3 = GEMM__CPU_LOAD(gemm__cpu_cache_bytes[2]);
        return c;
    }
    memset(&c, 0, sizeof c);
#if defined(GEMM__CPU_X86)
    gemm__cpu_caches_cpuid(&c);
#endif
#if defined(__linux__)
    if (!c.l1d || !c.l2) gemm__cpu_caches_sysfs(&c);
#endif
    gemm__cpu_caches_sysconf(&c);
    GEMM__CPU_STORE(gemm__cpu_cache_bytes[0], c.l1d);
    GEMM__CPU_STORE(gemm__cpu_cache_bytes[1], c.l2);
    GEMM__CPU_STORE(gemm__cpu_cache_bytes[2], c.l3); /* last: the others are there when it is */
    return c;
}
/* <<cpu cache_info */
/* >>cpu cache_blocking: src/cpu/cache_blocking.c */
/* Arithmetic on sizes, used by every part below. */
static int64_t gemm__cpu_round_up(int64_t x, int64_t unit) { return (x + unit - 1) / unit * unit; }
static int64_t gemm__cpu_min(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t gemm__cpu_max(int64_t a, int64_t b) { return a > b ? a : b; }

/* Block sizes for a kernel of mr x nr elements of `size` bytes, from the
   caches the CPU reports (defaults 32 KiB L1d, 1 MiB L2, no L3 known);
   a test may force them (gemm__hooks.cpu_mc, cpu_kc, cpu_nc; mc and nc
   rounded up to whole micro-panels). kc alone changes the arithmetic (the
   k order of each sum); it depends on the CPU and precision, never on the
   problem or the thread count. */
static void gemm__cpu_blocking(int mr, int nr, int size, int64_t *mc, int64_t *kc, int64_t *nc)
{
    gemm__cpu_caches c = gemm__cpu_cache_sizes();
    long l1 = c.l1d, l2 = c.l2, panel;
    int64_t o;
    if (l1 < 16384 || l1 > 1048576) l1 = 32768;
    if (l2 < 131072 || l2 > 67108864) l2 = 1048576;
    /* B micro-panel (kc x nr), reused by every A micro-panel of a block,
       in half of L1, next to the A and C streams. */
    *kc = (int64_t)(l1 / 2) / (nr * size) / 8 * 8;
    *kc = gemm__cpu_max(64, gemm__cpu_min(*kc, 1024));
    /* packed A block (mc x kc) in half of L2. */
    *mc = gemm__cpu_max(mr, (int64_t)(l2 / 2) / (*kc * size) / mr * mr);
    /* packed B panel (kc x nc), read by every row block of a step, in a
       quarter of L3 (2 to 8 MiB), or 4 MiB when L3 is unknown. */
    panel = c.l3 >= 4194304 ? c.l3 / 4 : 4194304;
    panel = panel < 2097152 ? 2097152 : panel > 8388608 ? 8388608 : panel;
    *nc = gemm__cpu_max(nr, (int64_t)panel / (*kc * size) / nr * nr);
    if ((o = GEMM__HOOK(cpu_mc, 0)) > 0) *mc = gemm__cpu_round_up(o, mr);
    if ((o = GEMM__HOOK(cpu_kc, 0)) > 0) *kc = o;
    if ((o = GEMM__HOOK(cpu_nc, 0)) > 0) *nc = gemm__cpu_round_up(o, nr);
}
/* <<cpu cache_blocking */
/* >>cpu job: src/cpu/job.h */
/* How the threads of one call share its work (the packed path).

   The columns of C are cut into groups; a group walks its steps in order,
   step s being one NC-wide block of its columns (jc) times one KC-deep
   block of k (pc). In each step the B panel (kc x nc) is packed once, by
   whichever threads are in the group, each taking NR-wide micro-panels
   from a counter; then the threads take the step's row blocks ("items",
   MC rows each) from another counter, each packing its own A block and
   running the micro-kernel over the shared panel. A thread that has no
   work left in its group helps the next one. Nothing waits for a given
   thread, only for work already taken, so a thread the OS runs late costs
   little, and no phase runs on one thread while the others wait.
   Two B buffers alternate between steps, so packing step s+1 overlaps the
   computing of step s; step s+2 may overwrite a buffer once every item of
   step s is done. A row block's items run in step order (its progress
   counter), so each tile of C sees its k blocks in order: the same sums
   in the same order for any thread count. */
typedef struct gemm__cpu_step {
    int pack_next, pack_done;  /* B micro-panels taken / packed */
    int item_next, items_done; /* row blocks taken / done */
} gemm__cpu_step;

typedef struct gemm__cpu_group {
    int64_t n0, n1;        /* its columns of C */
    int64_t kblocks;       /* pc blocks per jc block */
    int64_t steps;         /* jc blocks x kblocks */
    gemm__cpu_step *step;  /* [steps] */
    int *progress;         /* [items]: steps done on each row block */
    char *pb[2];           /* the B panels of even and odd steps */
} gemm__cpu_group;

/* Lines of a later product to bring into cache while this one runs
   (direct.c; a batch's next member), NULL for a single call. */
typedef struct gemm__cpu_ahead gemm__cpu_ahead;

/* One call's work, shared by its threads: the canonical problem, the
   operands as bytes, the precision's kernels, the block sizes, and how the
   work is cut over the threads. Read-only while the threads run, except
   the counters. */
typedef struct gemm__cpu_job {
    const gemm__problem *p;          /* m, n, k, strides, ldc (column-major view) */
    const char *a, *b;               /* op(a), op(b): the caller's A and B, swapped when row-major */
    char *c;
    int64_t es;                      /* bytes of one element: 4 or 8 */
    double alpha, beta;
    const gemm__cpu_microkernel *uk; /* the precision's micro-kernels, mr, nr */
    int64_t mc, kc, nc;              /* rows of an item; block sizes */
    int threads;                     /* threads with a workspace */
    int b_xmajor;                    /* B's columns are contiguous: its panel is packed column by column */
    char *ws;                        /* per-thread buffers (packed A block, or A panel copy), 64-byte aligned */
    size_t ws_a;                     /* bytes of one */
    /* the direct path: rectangles of C (tm x tn of them) taken from `next` */
    int tm, tn, next;
    gemm__cpu_ahead *ahead;          /* lines to prefetch, a few per tile (NULL: none) */
    /* the packed path */
    int groups;
    int64_t items;                   /* row blocks of mc rows */
    gemm__cpu_group *group;          /* [groups] */
} gemm__cpu_job;

/* One item of one step, as the inner loops see it. */
typedef struct gemm__cpu_block {
    const char *pa, *pb;  /* packed A block (mc x kc), packed B panel (kc x nc) */
    int64_t mc, nc, kc;
    double beta;          /* the call's beta in the first k block, then 1 */
    char *c;              /* C[ic, jc] */
    char *tile;           /* a local MR x NR tile for the edges of C */
    int tile_clean;       /* the tile was zeroed (its padding is read, never used) */
} gemm__cpu_block;
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
    for (x0 = 0; x0 < nx; x0 += w) {
        int64_t xw = gemm__cpu_min(w, nx - x0);
        char *dp = d + x0 * kc * es;
        if (xw < w) memset(dp, 0, (size_t)(w * kc * es));
        for (x = 0; x < xw; x++) gemm__cpu_copy(dp + x * es, w, s + (x0 + x) * xs * es, ps, kc, es);
    }
}
/* <<cpu packing */
/* >>cpu direct: src/cpu/direct.c */
/* The direct path: the micro-kernel on the caller's matrices where they
   are, tile by tile over C, without packing, blocking or allocation. Small
   products take it (up to m*n*k = 128^3, measured: below that packing
   costs more than it saves, and at a few elements the fixed costs are all
   there is), and so does any call whose alpha is Inf or NaN: each tile
   then sums all of k before alpha multiplies it, as the reference does, so
   alpha = Inf gives +-Inf where the sum is non-zero, not Inf - Inf = NaN
   from k blocks of opposite signs. The kernel reads op(a) by columns of
   contiguous rows; a transposed op(a) is first copied, MR rows at a time,
   into a panel (on the stack, or from the workspace for a very deep k).
   An op(a) read in place is copied too when its leading dimension would
   make its MR rows evict themselves from L1 (gemm__cpu_direct_aliases). */
#define GEMM__CPU_DIRECT_MAX (128.0 * 128.0 * 128.0)
#define GEMM__CPU_PANEL_BYTES 16384 /* the stack panel: MR x 128 in either precision on AVX-512 */

static int gemm__cpu_finite(double x) { return x - x == 0; }

/* Whether a call takes the direct path: from its shape and alpha alone,
   never the thread count, so the result's bits do not depend on it. */
static int gemm__cpu_plan_direct(const gemm__problem *p, const gemm__cpu_microkernel *uk, int64_t es, double alpha)
{
    int forced = GEMM__HOOK(cpu_path, 0); /* tests: 1 packed, 2 direct */
    if (!gemm__cpu_finite(alpha) || forced == 2) return 1;
    if (forced == 1) return 0;
    if ((double)p->m * (double)p->n * (double)p->k > GEMM__CPU_DIRECT_MAX) return 0;
    return p->ars == 1 || uk->mr * p->k * es <= GEMM__CPU_PANEL_BYTES;
}

/* Products of at most GEMM__CPU_TINY multiply-adds (2 x 2 x 2): plain
   loops through the strides. A vector kernel's fixed cost (a dozen
   pointers and accumulators, masked moves) is several times theirs, and
   a caller making millions of 1x1 or 2x2 products (LAPACK's inner
   blocks) pays it every time. Each sum in k order, then
   C = alpha*sum + beta*C (beta == 0: C not read), as everywhere. */
#define GEMM__CPU_TINY 8

static void gemm__cpu_tiny_f32(const gemm__problem *p, float alpha, const float *a, const float *b, float beta,
                               float *c)
{
    int64_t i, j, q;
    for (j = 0; j < p->n; j++)
        for (i = 0; i < p->m; i++) {
            float sum = 0, *cij = c + i + j * p->ldc;
            for (q = 0; q < p->k; q++) sum += a[i * p->ars + q * p->acs] * b[q * p->brs + j * p->bcs];
            *cij = beta == 0 ? alpha * sum : alpha * sum + beta * *cij;
        }
}

static void gemm__cpu_tiny_f64(const gemm__problem *p, double alpha, const double *a, const double *b, double beta,
                               double *c)
{
    int64_t i, j, q;
    for (j = 0; j < p->n; j++)
        for (i = 0; i < p->m; i++) {
            double sum = 0, *cij = c + i + j * p->ldc;
            for (q = 0; q < p->k; q++) sum += a[i * p->ars + q * p->acs] * b[q * p->brs + j * p->bcs];
            *cij = beta == 0 ? alpha * sum : alpha * sum + beta * *cij;
        }
}

/* Bytes of A panel a thread needs beyond its stack panel (0: none). */
static size_t gemm__cpu_direct_panel_bytes(const gemm__problem *p, const gemm__cpu_microkernel *uk, int64_t es)
{
    int64_t bytes = uk->mr * p->k * es;
    return p->ars == 1 || bytes <= GEMM__CPU_PANEL_BYTES ? 0 : (size_t)gemm__cpu_round_up(bytes, 64);
}

/* A batch's next member, brought into cache a few lines per tile while
   the direct path computes the current one. A batch's members stream from
   memory (10,000 products of 32^3 fp64 are 240 MiB), and the kernel walks
   op(a) by columns and op(b) by 8 columns at once, which the hardware
   prefetchers follow late: on the 2-core EPYC a member from memory took
   1.7x (32^3 fp64) and 1.5x (128^3) the time of the same member in cache.
   Prefetches change no arithmetic. Up to three rectangles (op(a), op(b),
   C), each `runs` contiguous runs of `len` bytes `step` bytes apart,
   walked line by line from a cursor. */
struct gemm__cpu_ahead {
    uintptr_t base[3];
    int64_t len[3], runs[3], step[3];
    int write[3], parts;
    int part;          /* the cursor: rectangle, run (`at` bytes from its base), bytes past the run's first line */
    int64_t run, off;
    uintptr_t at;
    int64_t per_tile;  /* lines each tile of the current member prefetches */
};

#if defined(__GNUC__) || defined(__clang__)
#define GEMM__CPU_PREFETCH_AHEAD(p, w) ((w) ? __builtin_prefetch(p, 1, 2) : __builtin_prefetch(p, 0, 2))
#else
#define GEMM__CPU_PREFETCH_AHEAD(p, w) ((void)(p), (void)(w))
#endif

/* Adds a rectangle of elements (i, j) at base + (i*is + j*js)*es, rows x
   cols, to the lines ahead; one of its strides is 1 (the canonical form). */
static void gemm__cpu_ahead_add(gemm__cpu_ahead *ah, const void *base, int64_t rows, int64_t cols, int64_t is,
                                int64_t js, int64_t es, int write)
{
    int x = ah->parts;
    if (!base || rows <= 0 || cols <= 0 || (is != 1 && js != 1)) return;
    if (is != 1) { /* rows contiguous: runs are rows */
        int64_t t = rows;
        rows = cols;
        cols = t;
        js = is;
    }
    if (js * es == rows * es) { /* dense: one run */
        rows *= cols;
        cols = 1;
    }
    ah->base[x] = (uintptr_t)base;
    ah->len[x] = rows * es;
    ah->runs[x] = cols;
    ah->step[x] = js * es;
    ah->write[x] = write;
    ah->parts = x + 1;
}

/* Prefetches the next `lines` lines ahead (none once all are done). */
static void gemm__cpu_prefetch_ahead(gemm__cpu_ahead *ah, int64_t lines)
{
    while (lines > 0 && ah->part < ah->parts) {
        int x = ah->part;
        uintptr_t first = ah->base[x] + ah->at, line = (first & ~(uintptr_t)63) + (uintptr_t)ah->off;
        uintptr_t end = first + (uintptr_t)ah->len[x];
        uintptr_t stop = (end - line) / 64 < (uintptr_t)lines ? end : line + 64 * (uintptr_t)lines;
        if (ah->write[x])
            for (; line < stop; line += 64) GEMM__CPU_PREFETCH_AHEAD((const void *)line, 1);
        else
            for (; line < stop; line += 64) GEMM__CPU_PREFETCH_AHEAD((const void *)line, 0);
        lines -= (int64_t)((line - (first & ~(uintptr_t)63) - (uintptr_t)ah->off) / 64);
        ah->off = (int64_t)(line - (first & ~(uintptr_t)63));
        if (line >= end) { /* past the run's last line: the next run */
            ah->off = 0;
            ah->at += (uintptr_t)ah->step[x];
            if (++ah->run == ah->runs[x]) {
                ah->run = 0;
                ah->at = 0;
                ah->part++;
            }
        }
    }
}

/* Whether MR rows of an op(a) read in place, k columns ld elements of es
   bytes apart, miss L1 on their own: the tiles of a row of C read them
   again and again, and a stride of a multiple of 512 bytes puts all k
   columns in a few of L1's 64 sets (the Xeon's 48 KiB of 12 ways and the
   EPYC's 32 KiB of 8 ways both have 64), where more lines than the ways
   evict each other. Such rows are copied into the stack panel (when they fit and
   serve more than one tile), which changes no arithmetic: the kernel reads
   the same values. Only on Intel's cores, where the misses cost: 128^3
   fp64 batches on the Xeon, lda = 128, ran at 47 GFLOP/s per thread in
   place and 54 with lda = 136 or the rows copied. The EPYC (Zen 4) ran
   lda = 128 and 136 alike, and the copy cost it 4-5% at 128^3; copying
   where nothing aliases cost it up to a quarter at 16^3. */
static int gemm__cpu_direct_aliases(int64_t ld, int64_t es, int64_t k, int64_t row_bytes)
{
    int64_t lines = (row_bytes + 63) / 64, step, sets = 64;
    if (k < 2 || ld > ((int64_t)1 << 40)) return 0; /* one column (any ld is legal), or no product fits */
    if (ld * es % 64) return 0;                /* a stride off the lines walks through every set */
    step = ld * es / 64;
    while (sets > 1 && step % 2 == 0) {        /* the sets the columns start in: 64 / gcd(step, 64) */
        step /= 2;
        sets /= 2;
    }
    return k * lines > gemm__cpu_min(64, sets * lines) * 8; /* more lines than 8 ways of their sets hold */
}

/* Whether this CPU's direct path copies aliasing rows (read once). */
static int gemm__cpu_direct_copies_strips(void)
{
    static int intel = -1;
    int forced = GEMM__HOOK(cpu_strip_copy, 0); /* tests: 1 on any CPU, 2 never */
    if (forced) return forced == 1;
    if (GEMM__CPU_LOAD(intel) < 0) {
#if defined(GEMM__CPU_X86)
        __builtin_cpu_init();
        GEMM__CPU_STORE(intel, __builtin_cpu_is("intel") ? 1 : 0);
#else
        GEMM__CPU_STORE(intel, 0);
#endif
    }
    return GEMM__CPU_LOAD(intel);
}

/* C[m0:m1, n0:n1] of the job, tile by tile; panel holds MR x k elements. */
static void gemm__cpu_direct_rect(const gemm__cpu_job *jb, int64_t m0, int64_t m1, int64_t n0, int64_t n1,
                                  char *panel)
{
    const gemm__problem *p = jb->p;
    int64_t i0, j0, i, mr = jb->uk->mr, nr = jb->uk->nr, es = jb->es;
    int copy_strips = p->ars == 1 && n1 - n0 > nr && mr * p->k * es <= GEMM__CPU_PANEL_BYTES &&
                      gemm__cpu_direct_copies_strips() && gemm__cpu_direct_aliases(p->acs, es, p->k, mr * es);
    for (i0 = m0; i0 < m1; i0 += mr) {
        int64_t mw = gemm__cpu_min(mr, m1 - i0), as = mr;
        const char *ap = panel;
        if (p->ars == 1 && !copy_strips) {
            ap = jb->a + i0 * es;
            as = p->acs;
        } else if (p->ars == 1) { /* the packed path's A panel: panel[q*mr + i] = op(a)[i0 + i, q] */
            gemm__cpu_pack(panel, jb->a + i0 * es, 1, p->acs, mw, p->k, (int)mr, 0, jb->uk->pack_a, es);
        } else { /* rows of op(a) are contiguous (acs == 1): panel[q*mr + i] = op(a)[i0 + i, q] */
            for (i = 0; i < mw; i++) gemm__cpu_copy(panel + i * es, mr, jb->a + (i0 + i) * p->ars * es, 1, p->k, es);
        }
        for (j0 = n0; j0 < n1; j0 += nr) {
            if (jb->ahead) gemm__cpu_prefetch_ahead(jb->ahead, jb->ahead->per_tile);
            jb->uk->direct(p->k, ap, as, jb->b + j0 * p->bcs * es, p->brs, p->bcs, jb->alpha, jb->beta,
                           jb->c + (i0 + j0 * p->ldc) * es, p->ldc, mw, gemm__cpu_min(nr, n1 - j0));
        }
    }
}
/* <<cpu direct */
/* >>cpu loops: src/cpu/loops.c */
/* The packed path's inner loops, for one item of one step: the row block
   C[ic:ic+mc, jc:jc+nc] += alpha * (packed A block) * (packed B panel),
   jr over the NR-wide micro-panels of B (each stays in L1), ir over the
   MR-row micro-panels of A (the block stays in L2). */

#define GEMM__CPU_TILE_MAX (32 * 8) /* elements: the largest MR*NR of any kernel (avx512 fp32) */

/* An mw x nw tile at the edge of C: the same kernel on a local full tile,
   copied in (unless beta == 0: C is not read) and back, so edge results
   have the arithmetic of full tiles and C is never written past its end. */
static void gemm__cpu_edge_tile(const gemm__cpu_job *jb, gemm__cpu_block *bl, gemm__cpu_ukernel_fn kern,
                                const char *ap, const char *bp, int64_t bps, int64_t bjs, char *c, int64_t mw,
                                int64_t nw)
{
    int64_t j, mr = jb->uk->mr, es = jb->es, ldc = jb->p->ldc;
    if (!bl->tile_clean) {
        memset(bl->tile, 0, sizeof(double) * GEMM__CPU_TILE_MAX);
        bl->tile_clean = 1;
    }
    if (bl->beta != 0)
        for (j = 0; j < nw; j++) memcpy(bl->tile + j * mr * es, c + j * ldc * es, (size_t)(mw * es));
    kern(bl->kc, ap, mr, bp, bps, bjs, jb->alpha, bl->beta, bl->tile, mr);
    for (j = 0; j < nw; j++) memcpy(c + j * ldc * es, bl->tile + j * mr * es, (size_t)(mw * es));
}

/* ir: one B micro-panel (columns jr..jr+nw of the block) against each A
   micro-panel; the kernel variant reads the panel row by row (packed) or
   column by column (strided, bps = 1, bjs = kc). */
static void gemm__cpu_loop_ir(const gemm__cpu_job *jb, gemm__cpu_block *bl, int64_t jr, int64_t nw)
{
    int64_t ir, j, mr = jb->uk->mr, nr = jb->uk->nr, es = jb->es, ldc = jb->p->ldc;
    const char *bp = bl->pb + jr * bl->kc * es;
    gemm__cpu_ukernel_fn kern = jb->b_xmajor ? jb->uk->strided_b : jb->uk->packed_b;
    int64_t bps = jb->b_xmajor ? 1 : nr, bjs = jb->b_xmajor ? bl->kc : 1;
    for (ir = 0; ir < bl->mc; ir += mr) {
        int64_t mw = gemm__cpu_min(mr, bl->mc - ir);
        const char *ap = bl->pa + ir * bl->kc * es;
        char *c = bl->c + (ir + jr * ldc) * es;
        if (mw < mr || nw < nr) {
            gemm__cpu_edge_tile(jb, bl, kern, ap, bp, bps, bjs, c, mw, nw);
            continue;
        }
        for (j = 0; j < nr; j++) { /* here, not in the kernel: its registers are full */
            GEMM__CPU_PREFETCH(c + j * ldc * es);
            GEMM__CPU_PREFETCH(c + (j * ldc + mr - 1) * es);
        }
        kern(bl->kc, ap, mr, bp, bps, bjs, jb->alpha, bl->beta, c, ldc);
    }
}

/* jr: every micro-panel of the B panel. */
static void gemm__cpu_loop_jr(const gemm__cpu_job *jb, gemm__cpu_block *bl)
{
    int64_t jr, nr = jb->uk->nr;
    for (jr = 0; jr < bl->nc; jr += nr) gemm__cpu_loop_ir(jb, bl, jr, gemm__cpu_min(nr, bl->nc - jr));
}

/* Where step s of group g is: columns jc..jc+nc of C, k from pc to pc+kc. */
static void gemm__cpu_step_extent(const gemm__cpu_job *jb, const gemm__cpu_group *g, int64_t s, int64_t *jc,
                                  int64_t *nc, int64_t *pc, int64_t *kc)
{
    *jc = g->n0 + s / g->kblocks * jb->nc;
    *nc = gemm__cpu_min(jb->nc, g->n1 - *jc);
    *pc = s % g->kblocks * jb->kc;
    *kc = gemm__cpu_min(jb->kc, jb->p->k - *pc);
}

/* Packs micro-panel u (columns u*NR.. of the step's panel) of step s's B
   panel; the last one is zero-padded to NR columns. */
static void gemm__cpu_pack_b_unit(const gemm__cpu_job *jb, const gemm__cpu_group *g, int64_t s, int64_t u)
{
    const gemm__problem *p = jb->p;
    int64_t jc, nc, pc, kc, es = jb->es, nr = jb->uk->nr, x0 = u * nr;
    gemm__cpu_step_extent(jb, g, s, &jc, &nc, &pc, &kc);
    gemm__cpu_pack(g->pb[s & 1] + x0 * kc * es, jb->b + (pc * p->brs + (jc + x0) * p->bcs) * es, p->bcs, p->brs,
                   gemm__cpu_min(nr, nc - x0), kc, (int)nr, jb->b_xmajor, NULL, es);
}

/* Item i of step s of group g: packs rows i*MC.. of op(a)'s k block into
   pa, then runs them against the step's B panel. */
static void gemm__cpu_item(const gemm__cpu_job *jb, const gemm__cpu_group *g, int64_t s, int64_t i, char *pa)
{
    const gemm__problem *p = jb->p;
    double tile[GEMM__CPU_TILE_MAX];
    gemm__cpu_block bl;
    int64_t jc, pc, es = jb->es, ic = i * jb->mc;
    gemm__cpu_step_extent(jb, g, s, &jc, &bl.nc, &pc, &bl.kc);
    bl.mc = gemm__cpu_min(jb->mc, p->m - ic);
    bl.pa = pa;
    bl.pb = g->pb[s & 1];
    bl.beta = pc == 0 ? jb->beta : 1.0;
    bl.c = jb->c + (ic + jc * p->ldc) * es;
    bl.tile = (char *)tile;
    bl.tile_clean = 0;
    gemm__cpu_pack(pa, jb->a + (ic * p->ars + pc * p->acs) * es, p->ars, p->acs, bl.mc, bl.kc, jb->uk->mr, 0,
                   p->ars == 1 ? jb->uk->pack_a : NULL, es);
    gemm__cpu_loop_jr(jb, &bl);
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
static char *gemm__cpu_pool_ws;      /* the workspace of the call that holds the pool, kept */
static size_t gemm__cpu_pool_ws_bytes;

/* Whether the process is exiting (gemm__cpu_pool_stop runs): every wait
   loop of a worker looks, so exit() never waits for a spin or yield phase
   to run out (under load each sched_yield can give away a whole time slice). */
static int gemm__cpu_pool_leaving(void) { return GEMM__CPU_LOAD(gemm__cpu_pool_exiting); }

static void *gemm__cpu_worker(void *param)
{
    int id = (int)(intptr_t)param, spins, state;
    unsigned seen = gemm__cpu_pool_seen0[id], gen;
    for (;;) {
        for (spins = 0; (gen = GEMM__CPU_LOAD(gemm__cpu_pool_gen)) == seen && spins < GEMM__CPU_SPINS &&
                        !gemm__cpu_pool_leaving();
             spins++)
            GEMM__CPU_PAUSE();
        /* Then poll while yielding: a sleeping worker woken by the next call
           is often placed on the caller's own core when another process's
           thread holds the other one (measured: 2 threads at 1-thread speed
           next to OpenBLAS's spinning workers); a polling one is already on
           its core, and gives it up to anything else runnable. */
        for (spins = 0; (gen = GEMM__CPU_LOAD(gemm__cpu_pool_gen)) == seen && spins < GEMM__CPU_YIELDS &&
                        !gemm__cpu_pool_leaving();
             spins++)
            sched_yield();
        if (gen == seen) {
            pthread_mutex_lock(&gemm__cpu_pool_lock);
            while ((gen = GEMM__CPU_LOAD(gemm__cpu_pool_gen)) == seen && !gemm__cpu_pool_leaving())
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

/* At exit: from now on calls run alone; a call still running finishes;
   then the workers are woken and joined. */
static void gemm__cpu_pool_stop(void)
{
    int i;
    GEMM__CPU_STORE(gemm__cpu_pool_exiting, 1);
    pthread_mutex_lock(&gemm__cpu_pool_owner);
    pthread_mutex_lock(&gemm__cpu_pool_lock);
    pthread_cond_broadcast(&gemm__cpu_pool_wake);
    pthread_mutex_unlock(&gemm__cpu_pool_lock);
    for (i = 1; i <= gemm__cpu_pool_started; i++) pthread_join(gemm__cpu_pool_threads[i], NULL);
    gemm__cpu_pool_started = 0;
    GEMM_FREE(gemm__cpu_pool_ws);
    gemm__cpu_pool_ws = NULL;
    gemm__cpu_pool_ws_bytes = 0;
    pthread_mutex_unlock(&gemm__cpu_pool_owner);
}

/* A workspace of `bytes` for the call that holds the pool (NULL: no
   memory). It is kept for the next threaded call: a fresh one of tens of
   MiB (16 threads' packed blocks and panels) takes a page fault per 4 KiB
   at every call, milliseconds where the product takes a few. Only a
   larger need replaces it; exit frees it. */
static char *gemm__cpu_pool_workspace(size_t bytes)
{
    if (gemm__cpu_pool_ws_bytes >= bytes) return gemm__cpu_pool_ws;
    GEMM_FREE(gemm__cpu_pool_ws);
    gemm__cpu_pool_ws_bytes = (gemm__cpu_pool_ws = (char *)GEMM_MALLOC(bytes)) ? bytes : 0;
    return gemm__cpu_pool_ws;
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
    if (want <= 1 || gemm__cpu_pool_leaving() || pthread_mutex_trylock(&gemm__cpu_pool_owner) != 0) return 1;
    if (!registered && !gemm__cpu_pool_leaving())
        registered = atexit(gemm__cpu_pool_stop) == 0 && pthread_atfork(NULL, NULL, gemm__cpu_pool_forked) == 0 ? 1 : -1;
    if (registered != 1 || gemm__cpu_pool_leaving()) { pthread_mutex_unlock(&gemm__cpu_pool_owner); return 1; }
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

/* Waits until *x >= v, while other threads of the call finish work they
   have taken (a packed micro-panel, a row block: microseconds): spins a
   little, then yields the core, which costs a system call when nothing
   else wants the core and hands it over when the thread we wait for is
   waiting for one (more threads than cores, or valgrind's one at a time). */
#define GEMM__CPU_WAIT_SPINS 200
static void gemm__cpu_wait_for(const int *x, int v)
{
    int spins;
    for (spins = 0; GEMM__CPU_LOAD(*x) < v; spins++) {
        if (spins < GEMM__CPU_WAIT_SPINS) GEMM__CPU_PAUSE();
        else sched_yield();
    }
}
#else
/* One thread does all the work in order: nothing is ever outstanding. */
static char *gemm__cpu_pool_workspace(size_t bytes) { (void)bytes; return NULL; }
static void gemm__cpu_wait_for(const int *x, int v) { (void)x; (void)v; }
static int gemm__cpu_pool_acquire(int want) { (void)want; return 1; }
static void gemm__cpu_pool_release(void) {}
static void gemm__cpu_pool_run(gemm__cpu_task_fn task, void *arg) { task(arg, 0); }
#endif
/* <<cpu thread_pool */
/* >>cpu schedule: src/cpu/schedule.c */
/* How many threads a call uses, and how they share its work. */

/* Flops each thread must have for a call to use it: a thread's share below
   this costs more in wake-ups and hand-overs than it saves. */
#define GEMM__CPU_THREAD_FLOPS (2.0 * 56.0 * 56.0 * 56.0)

/* The threads a call of `flops` runs on, of the `want` it may use. */
static int gemm__cpu_threads_for_flops(double flops, int want)
{
    double most = flops / GEMM__CPU_THREAD_FLOPS;
    return most < 2 ? 1 : most < want ? (int)most : want;
}

/* Part i of `parts` of [0, len), cut at multiples of unit, so every thread
   sees the same tiles whatever the thread count. */
static void gemm__cpu_split(int64_t len, int parts, int i, int unit, int64_t *lo, int64_t *hi)
{
    int64_t units = (len + unit - 1) / unit;
    *lo = gemm__cpu_min(units * i / parts * unit, len);
    *hi = gemm__cpu_min(units * (i + 1) / parts * unit, len);
}

/* ---- the direct path: rectangles of C taken from a counter ---- */

/* A grid tm x tn of `chunks` rectangles over (m, n): the most square ones,
   splitting N on a tie. */
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

static void gemm__cpu_direct_task(void *arg, int tid)
{
    gemm__cpu_job *jb = (gemm__cpu_job *)arg;
    double stack_panel[GEMM__CPU_PANEL_BYTES / sizeof(double)];
    char *panel = jb->ws ? jb->ws + (size_t)tid * jb->ws_a : (char *)stack_panel;
    int64_t m0, m1, n0, n1;
    int c;
    if (tid >= jb->threads) return; /* a worker this call has no panel for */
    while ((c = GEMM__CPU_TAKE(jb->next)) < jb->tm * jb->tn) {
        gemm__cpu_split(jb->p->m, jb->tm, c % jb->tm, jb->uk->mr, &m0, &m1);
        gemm__cpu_split(jb->p->n, jb->tn, c / jb->tm, jb->uk->nr, &n0, &n1);
        if (m0 < m1 && n0 < n1) gemm__cpu_direct_rect(jb, m0, m1, n0, n1, panel);
    }
}

/* ---- the packed path: column groups, steps and items (job.h) ---- */

/* Groups and items for `threads` threads: few groups (each packs A again,
   but B is packed once whatever their number), enough of them that every
   thread has about two items per step, items of at least 4 micro-panels. */
static void gemm__cpu_plan_groups(gemm__cpu_job *jb)
{
    const gemm__problem *p = jb->p;
    int64_t mr = jb->uk->mr, nr = jb->uk->nr, rows_min = 4 * mr;
    int64_t most_items = gemm__cpu_max(1, (p->m + rows_min - 1) / rows_min), want_items = 2 * (int64_t)jb->threads;
    int64_t groups = jb->threads == 1 ? 1 : (want_items + most_items - 1) / most_items, per_group;
    groups = gemm__cpu_max(1, gemm__cpu_min(groups, gemm__cpu_min(jb->threads, (p->n + nr - 1) / nr)));
    if (GEMM__HOOK(cpu_groups, 0) > 0) groups = gemm__cpu_min(GEMM__HOOK(cpu_groups, 0), (p->n + nr - 1) / nr);
    per_group = (want_items + groups - 1) / groups;
    if (jb->threads > 1) /* smaller row blocks share the work; never above the cache's MC */
        jb->mc = gemm__cpu_min(jb->mc, gemm__cpu_max(rows_min, gemm__cpu_round_up((p->m + per_group - 1) / per_group, mr)));
    jb->groups = (int)groups;
    jb->items = (p->m + jb->mc - 1) / jb->mc;
}

/* Walks group g's steps: packs B micro-panels while some are left, waits
   for the panel, runs items while some are left (each after its row
   block's previous step), then the next step. */
static void gemm__cpu_run_group(gemm__cpu_job *jb, gemm__cpu_group *g, char *pa)
{
    int64_t s, jc, nc, pc, kc;
    int u, i, units;
    for (s = 0; s < g->steps; s++) {
        gemm__cpu_step *st = &g->step[s];
        gemm__cpu_step_extent(jb, g, s, &jc, &nc, &pc, &kc);
        units = (int)((nc + jb->uk->nr - 1) / jb->uk->nr);
        if (GEMM__CPU_LOAD(st->pack_next) < units) {
            if (s >= 2) gemm__cpu_wait_for(&g->step[s - 2].items_done, (int)jb->items); /* its buffer is free */
            while ((u = GEMM__CPU_TAKE(st->pack_next)) < units) {
                gemm__cpu_pack_b_unit(jb, g, s, u);
                GEMM__CPU_DONE(st->pack_done);
            }
        }
        gemm__cpu_wait_for(&st->pack_done, units);
        while ((i = GEMM__CPU_TAKE(st->item_next)) < jb->items) {
            gemm__cpu_wait_for(&g->progress[i], (int)s);
            gemm__cpu_item(jb, g, s, i, pa);
            GEMM__CPU_STORE(g->progress[i], (int)s + 1);
            GEMM__CPU_DONE(st->items_done);
        }
    }
}

/* One thread's share: its own group first, then it helps the others. */
static void gemm__cpu_packed_task(void *arg, int tid)
{
    gemm__cpu_job *jb = (gemm__cpu_job *)arg;
    int g;
    if (tid >= jb->threads) return; /* a worker this call has no buffer for */
    for (g = 0; g < jb->groups; g++)
        gemm__cpu_run_group(jb, &jb->group[(tid + g) % jb->groups], jb->ws + (size_t)tid * jb->ws_a);
}
/* <<cpu schedule */
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

#ifdef GEMM__TEST_HOOKS
static int gemm__cpu_threads_used;
GEMM_DEF int gemm__cpu_last_threads(void) { return GEMM__CPU_LOAD(gemm__cpu_threads_used); }
#define GEMM__CPU_RECORD_THREADS(n) GEMM__CPU_STORE(gemm__cpu_threads_used, n)
#else
#define GEMM__CPU_RECORD_THREADS(n) ((void)0)
#endif

/* Runs the job's task on its threads: through the pool (then given back)
   or here alone. */
static void gemm__cpu_run(gemm__cpu_task_fn task, gemm__cpu_job *jb)
{
    GEMM__CPU_RECORD_THREADS(jb->threads);
    if (jb->threads > 1) {
        gemm__cpu_pool_run(task, jb);
        gemm__cpu_pool_release();
    } else {
        task(jb, 0);
    }
}

static gemm_status gemm__cpu_no_memory(const char *func, const gemm__cpu_job *jb, size_t bytes)
{
    if (jb->threads > 1) gemm__cpu_pool_release();
    return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for the workspace of %d thread(s), %llu bytes", func,
                      jb->threads, (unsigned long long)bytes);
}

/* The direct path (direct.c): a small call runs here at once, with no
   allocation; a larger one shares its rectangles of C over the pool. */
static gemm_status gemm__cpu_run_direct(const char *func, gemm__cpu_job *jb, const gemm_cpu_options *options)
{
    const gemm__problem *p = jb->p;
    double flops = 2.0 * (double)p->m * (double)p->n * (double)p->k;
    size_t panel = gemm__cpu_direct_panel_bytes(p, jb->uk, jb->es);
    int want = flops < 2 * GEMM__CPU_THREAD_FLOPS ? 1 : gemm__cpu_threads_for_call(options);
    char *raw = NULL;
    if (want == 1 && !panel) {
        double stack_panel[GEMM__CPU_PANEL_BYTES / sizeof(double)];
        GEMM__CPU_RECORD_THREADS(1);
        gemm__cpu_direct_rect(jb, 0, p->m, 0, p->n, (char *)stack_panel);
        return GEMM_OK;
    }
    want = gemm__cpu_threads_for_flops(flops, want);
    jb->threads = want > 1 ? gemm__cpu_pool_acquire(want) : 1;
    gemm__cpu_grid(jb->threads * 4, p->m, p->n, jb->uk->mr, jb->uk->nr, &jb->tm, &jb->tn);
    if (panel) {
        if (!(raw = (char *)GEMM_MALLOC(panel * (size_t)jb->threads + 64)))
            return gemm__cpu_no_memory(func, jb, panel * (size_t)jb->threads + 64);
        jb->ws = raw + (64 - (uintptr_t)raw % 64);
        jb->ws_a = panel;
    }
    gemm__cpu_run(gemm__cpu_direct_task, jb);
    GEMM_FREE(raw);
    return GEMM_OK;
}

/* The packed path's workspace, in one block 64-byte aligned (NULL: no
   memory; *bytes says how much): per thread a packed A block (mc x kc),
   per group its two B panels (kc x nc; one when a thread works alone) and
   its counters, each part 64-byte aligned. A threaded call uses the pool's
   kept block (*raw stays NULL), a call alone allocates its own (*raw). */
static char *gemm__cpu_packed_workspace(gemm__cpu_job *jb, size_t *bytes, char **raw)
{
    const gemm__problem *p = jb->p;
    int64_t es = jb->es, nr = jb->uk->nr, kcw = gemm__cpu_min(jb->kc, p->k), kblocks = (p->k + jb->kc - 1) / jb->kc;
    int64_t mcw = gemm__cpu_min(jb->mc, gemm__cpu_round_up(p->m, jb->uk->mr)), n0, n1;
    size_t at = (size_t)gemm__cpu_round_up((int64_t)sizeof(gemm__cpu_group) * jb->groups, 64), b_bytes[2];
    char *ws = NULL, *block;
    int g, pass;
    jb->ws_a = (size_t)gemm__cpu_round_up(mcw * kcw * es, 64);
    *raw = NULL;
    for (pass = 0; pass < 2; pass++) { /* sizes, then the same walk assigning them */
        size_t off = at + jb->ws_a * (size_t)jb->threads;
        for (g = 0; g < jb->groups; g++) {
            gemm__cpu_group *gr = pass ? &jb->group[g] : NULL;
            int64_t steps, ncw;
            gemm__cpu_split(p->n, jb->groups, g, (int)nr, &n0, &n1);
            ncw = gemm__cpu_min(jb->nc, gemm__cpu_round_up(n1 - n0, nr));
            steps = (n1 - n0 + jb->nc - 1) / jb->nc * kblocks;
            b_bytes[0] = (size_t)gemm__cpu_round_up(kcw * ncw * es, 64);
            b_bytes[1] = jb->threads > 1 ? b_bytes[0] : 0; /* one thread: one panel serves every step */
            if (gr) {
                gr->n0 = n0;
                gr->n1 = n1;
                gr->kblocks = kblocks;
                gr->steps = steps;
                gr->pb[0] = ws + off;
                gr->pb[1] = b_bytes[1] ? ws + off + b_bytes[0] : gr->pb[0];
                gr->step = (gemm__cpu_step *)(ws + off + b_bytes[0] + b_bytes[1]);
                gr->progress = (int *)(gr->step + steps);
                memset(gr->step, 0, sizeof(gemm__cpu_step) * (size_t)steps + sizeof(int) * (size_t)jb->items);
            }
            off += b_bytes[0] + b_bytes[1] + (size_t)gemm__cpu_round_up((int64_t)sizeof(gemm__cpu_step) * steps +
                                                                        (int64_t)sizeof(int) * jb->items, 64);
        }
        if (pass == 0) {
            *bytes = off + 64;
            block = jb->threads > 1 ? gemm__cpu_pool_workspace(*bytes) : (*raw = (char *)GEMM_MALLOC(*bytes));
            if (!block) return NULL;
            ws = block + (64 - (uintptr_t)block % 64);
            jb->group = (gemm__cpu_group *)ws;
            jb->ws = ws + at;
        }
    }
    return ws;
}

/* The packed path (job.h): the blocks, the threads and their groups, the
   workspace, then the work. */
static gemm_status gemm__cpu_run_packed(const char *func, gemm__cpu_job *jb, const gemm_cpu_options *options)
{
    const gemm__problem *p = jb->p;
    double flops = 2.0 * (double)p->m * (double)p->n * (double)p->k;
    int want = gemm__cpu_threads_for_flops(flops, gemm__cpu_threads_for_call(options));
    size_t bytes = 0;
    char *raw = NULL;
    gemm__cpu_blocking(jb->uk->mr, jb->uk->nr, (int)jb->es, &jb->mc, &jb->kc, &jb->nc);
    if ((p->n + jb->nc - 1) / jb->nc * ((p->k + jb->kc - 1) / jb->kc) >= 0x40000000) /* int counters */
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: k = %lld needs more k blocks than the counters hold", func,
                          (long long)p->k);
    jb->threads = want > 1 ? gemm__cpu_pool_acquire(want) : 1;
    jb->b_xmajor = p->bcs != 1; /* B's columns are contiguous: copy them whole */
    gemm__cpu_plan_groups(jb);
    if (!gemm__cpu_packed_workspace(jb, &bytes, &raw)) return gemm__cpu_no_memory(func, jb, bytes);
    gemm__cpu_run(gemm__cpu_packed_task, jb);
    GEMM_FREE(raw);
    return GEMM_OK;
}

/* The paths a product takes, chosen by gemm__cpu_path. */
enum { GEMM__CPU_PATH_TINY, GEMM__CPU_PATH_TILE, GEMM__CPU_PATH_DIRECT, GEMM__CPU_PATH_PACKED };

/* The path of a product that does work (p->work == GEMM__WORK_FULL): from
   its shape and alpha alone, never the thread count, so a batch picks it
   once for all its members and each member gets the single call's bits. */
static int gemm__cpu_path(const gemm__problem *p, const gemm__cpu_microkernel *uk, int64_t es, double alpha)
{
    if ((double)p->m * (double)p->n * (double)p->k <= GEMM__CPU_TINY && !GEMM__HOOK(cpu_path, 0))
        return GEMM__CPU_PATH_TINY;
    if (p->m <= uk->mr && p->n <= uk->nr && (p->ars == 1 || p->m == 1) && gemm__cpu_finite(alpha) &&
        GEMM__HOOK(cpu_path, 0) != 1) /* one tile: the direct kernel alone, the whole cost of a tiny call */
        return GEMM__CPU_PATH_TILE;
    return gemm__cpu_plan_direct(p, uk, es, alpha) ? GEMM__CPU_PATH_DIRECT : GEMM__CPU_PATH_PACKED;
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
    const gemm__cpu_microkernel *uk;
    gemm__cpu_job jb;
    int path;
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
    uk = precision == GEMM_F32 ? &isa->f32 : &isa->f64;
    jb.es = precision == GEMM_F32 ? (int64_t)sizeof(float) : (int64_t)sizeof(double);
    path = gemm__cpu_path(p, uk, jb.es, alpha);
    if (path == GEMM__CPU_PATH_TINY) {
        if (precision == GEMM_F32)
            gemm__cpu_tiny_f32(p, (float)alpha, (const float *)a, (const float *)b, (float)beta, (float *)C);
        else
            gemm__cpu_tiny_f64(p, alpha, (const double *)a, (const double *)b, beta, (double *)C);
        GEMM__CPU_RECORD_THREADS(1);
        return GEMM_OK;
    }
    if (path == GEMM__CPU_PATH_TILE) {
        uk->direct(p->k, a, p->acs, b, p->brs, p->bcs, alpha, beta, C, p->ldc, p->m, p->n);
        GEMM__CPU_RECORD_THREADS(1);
        return GEMM_OK;
    }
    jb.p = p;
    jb.a = (const char *)a;
    jb.b = (const char *)b;
    jb.c = (char *)C;
    jb.alpha = alpha;
    jb.beta = beta;
    jb.uk = uk;
    jb.threads = 1;
    jb.ws = NULL;
    jb.ws_a = 0;
    jb.next = 0;
    jb.ahead = NULL;
    if (path == GEMM__CPU_PATH_DIRECT) return gemm__cpu_run_direct(func, &jb, options);
    return gemm__cpu_run_packed(func, &jb, options);
}
/* <<cpu driver */
/* >>cpu entry_points: src/cpu/entry_points.c */
/* The public calls: thin typed wrappers over one function that makes
   gemm__prepare's checks and canonical problem (its inlined common case
   first, gemm__prepare_plain) and calls the driver; func is the name the
   user called, for the error detail. */

static gemm_status gemm__cpu_entry(const char *func, gemm_precision precision, gemm_layout layout,
                                   gemm_transpose transa, gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                   double alpha, const void *A, int64_t lda, const void *B, int64_t ldb, double beta,
                                   void *C, int64_t ldc, const gemm_cpu_options *options)
{
    gemm__problem p;
    gemm_status s;
    gemm__clear_error();
    if (!gemm__prepare_plain(layout, transa, transb, m, n, k, alpha == 0, A != NULL, lda, B != NULL, ldb, C != NULL,
                             ldc, &p)) { /* the rest: gemm__prepare's full checks (same problem when valid) */
        s = gemm__prepare(func, layout, transa, transb, m, n, k, alpha == 0, A != NULL, lda, B != NULL, ldb,
                          beta == 1, C != NULL, ldc, &p);
        if (s != GEMM_OK) return s;
    }
    return gemm__cpu_gemm(func, &p, precision, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C, options);
}

GEMM_DEF gemm_status gemm_cpu_sgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    float alpha, const float *A, int64_t lda,
                                    const float *B, int64_t ldb,
                                    float beta, float *C, int64_t ldc, const gemm_cpu_options *options)
{
    return gemm__cpu_entry("gemm_cpu_sgemm", GEMM_F32, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta,
                           C, ldc, options);
}

GEMM_DEF gemm_status gemm_cpu_dgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                    int64_t m, int64_t n, int64_t k,
                                    double alpha, const double *A, int64_t lda,
                                    const double *B, int64_t ldb,
                                    double beta, double *C, int64_t ldc, const gemm_cpu_options *options)
{
    return gemm__cpu_entry("gemm_cpu_dgemm", GEMM_F64, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta,
                           C, ldc, options);
}

/* The front door, declared in gemm.h: the CPU with default options. */
GEMM_DEF gemm_status gemm_sgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                int64_t m, int64_t n, int64_t k,
                                float alpha, const float *A, int64_t lda,
                                const float *B, int64_t ldb,
                                float beta, float *C, int64_t ldc)
{
    return gemm__cpu_entry("gemm_sgemm", GEMM_F32, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
                           ldc, NULL);
}

GEMM_DEF gemm_status gemm_dgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                int64_t m, int64_t n, int64_t k,
                                double alpha, const double *A, int64_t lda,
                                const double *B, int64_t ldb,
                                double beta, double *C, int64_t ldc)
{
    return gemm__cpu_entry("gemm_dgemm", GEMM_F64, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
                           ldc, NULL);
}
/* <<cpu entry_points */
/* >>cpu batch: src/cpu/batch.c */
/* Batches: one gemm__problem (checked once, gemm__prepare_strided or
   gemm__prepare_batched) for every member, then each member through the
   single call's own driver (gemm__cpu_gemm), so its result is bitwise the
   single call's whatever the thread count (the single call's sums do not
   depend on its threads). Members that a single call runs on one thread
   go whole to the threads, which take shares of them from a shared
   counter, each member on one thread; so do bigger members when there are
   at least 4 per thread; fewer big ones run one after the other, each cut
   over the threads as a single call is. A thread running whole members
   takes the single call's path (chosen once for the batch: it depends on
   the shape and alpha alone) without its per-call checks, and brings the
   next member into cache while it computes the current one. */

/* The batch's members and threads; read-only while the threads run,
   except `next` and `status`. */
typedef struct gemm__cpu_batch {
    const char *func;
    const gemm__problem *p;
    const gemm__batch *bt; /* where each member's operands are */
    gemm_precision precision;
    double alpha, beta;
    const char *a, *b;     /* member 0's canonical a and b, and C (strided form) */
    char *c;
    int64_t es;            /* bytes of one element */
    int threads;           /* threads taking whole members */
    int64_t group;         /* the fewest members taken at a time */
    const gemm__cpu_microkernel *uk; /* the precision's kernels */
    int path;              /* every member's path (gemm__cpu_path) */
    int prefetch;          /* the path walks tiles that can bring the next member in */
    int64_t tiles;         /* a member's MR x NR tiles (the direct path) */
    int64_t next;          /* the next member to take */
    int status;            /* the first failure of a member (gemm_status), else GEMM_OK */
    int64_t failed;        /* that member */
    int claimed;           /* 1 once a failing member has claimed `detail` */
    char detail[512];      /* its single call's detail, past the function's name */
} gemm__cpu_batch;

/* Member i's operands. */
static void gemm__cpu_member(const gemm__cpu_batch *cb, int64_t i, const char **a, const char **b, char **c)
{
    const gemm__batch *bt = cb->bt;
    if (bt->c_list) { /* the lists of A and B may be NULL when alpha == 0 or k == 0 */
        *a = bt->a_list ? (const char *)(uintptr_t)bt->addr_ab(bt->a_list, i) : NULL;
        *b = bt->b_list ? (const char *)(uintptr_t)bt->addr_ab(bt->b_list, i) : NULL;
        *c = (char *)(uintptr_t)bt->addr_c(bt->c_list, i);
    } else {
        *a = cb->a ? cb->a + i * bt->stride_a * cb->es : NULL;
        *b = cb->b ? cb->b + i * bt->stride_b * cb->es : NULL;
        *c = cb->c + i * bt->stride_c * cb->es;
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
    int64_t count = cb->bt->count, left = count - GEMM__CPU_LOAD(cb->next), n = left / ((int64_t)cb->threads * 4);
    if (n < cb->group) n = cb->group;
    *first = GEMM__CPU_TAKE_N(cb->next, n);
    *end = gemm__cpu_min(*first + n, count);
    return *first < count;
}

/* Keeps the first failing member's status and its single call's detail
   (written on this thread), for the batch's own detail. */
static void gemm__cpu_batch_failed(gemm__cpu_batch *cb, int64_t i, gemm_status s)
{
    const char *d = gemm_last_error_detail();
    size_t skip = strlen(cb->func), len;
#if defined(__GNUC__) || defined(__clang__)
    int none = 0;
    if (!__atomic_compare_exchange_n(&cb->claimed, &none, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return;
#else
    if (cb->claimed) return; /* no threads without GCC-style atomics */
    cb->claimed = 1;
#endif
    if (strncmp(d, cb->func, skip) == 0 && d[skip] == ':') d += skip + 1 + (d[skip + 1] == ' ');
    len = strlen(d) < sizeof cb->detail ? strlen(d) : sizeof cb->detail - 1;
    memcpy(cb->detail, d, len);
    cb->detail[len] = '\0';
    cb->failed = i;
    GEMM__CPU_STORE(cb->status, (int)s);
}

/* The batch's status: a failed member's, with its index and its single
   call's detail. */
static gemm_status gemm__cpu_batch_status(const gemm__cpu_batch *cb)
{
    if (cb->status == GEMM_OK) return GEMM_OK;
    return gemm__fail((gemm_status)cb->status, "%s: member %lld of %lld failed: %s", cb->func, (long long)cb->failed,
                      (long long)cb->bt->count, cb->detail);
}

/* Member i on this thread, as the single call computes it; `next` (NULL:
   none) is brought into cache meanwhile. jb: this thread's direct job. */
static gemm_status gemm__cpu_batch_one(gemm__cpu_batch *cb, gemm__cpu_job *jb, const char *a, const char *b, char *c,
                                       gemm__cpu_ahead *next)
{
    const gemm__problem *p = cb->p;
    gemm_cpu_options alone = {0};
    if (cb->path == GEMM__CPU_PATH_TILE) {
        cb->uk->direct(p->k, a, p->acs, b, p->brs, p->bcs, cb->alpha, cb->beta, c, p->ldc, p->m, p->n);
        return GEMM_OK;
    }
    if (cb->path == GEMM__CPU_PATH_DIRECT && !gemm__cpu_direct_panel_bytes(p, cb->uk, cb->es)) {
        double stack_panel[GEMM__CPU_PANEL_BYTES / sizeof(double)];
        jb->a = a;
        jb->b = b;
        jb->c = c;
        jb->ahead = next;
        if (next) next->per_tile = (next->per_tile + cb->tiles - 1) / cb->tiles;
        gemm__cpu_direct_rect(jb, 0, p->m, 0, p->n, (char *)stack_panel);
        return GEMM_OK;
    }
    alone.threads = 1; /* the tiny loops, the packed path, C = beta*C, a direct path with a panel to allocate */
    return gemm__cpu_gemm(cb->func, p, cb->precision, cb->alpha, a, b, cb->beta, c, &alone);
}

/* The lines of member i's operands (op(a), op(b), C), with per_tile
   holding how many there are. */
static void gemm__cpu_batch_ahead(const gemm__cpu_batch *cb, int64_t i, gemm__cpu_ahead *ah)
{
    const gemm__problem *p = cb->p;
    const char *a, *b;
    char *c;
    int x;
    gemm__cpu_member(cb, i, &a, &b, &c);
    memset(ah, 0, sizeof *ah);
    gemm__cpu_ahead_add(ah, a, p->m, p->k, p->ars, p->acs, cb->es, 0);
    gemm__cpu_ahead_add(ah, b, p->k, p->n, p->brs, p->bcs, cb->es, 0);
    gemm__cpu_ahead_add(ah, c, p->m, p->n, 1, p->ldc, cb->es, 1);
    for (x = 0; x < ah->parts; x++) ah->per_tile += ah->runs[x] * (ah->len[x] / 64 + 2);
}

/* One thread's share of the members: taken until none is left, each
   computed as the single call computes it on this thread alone. */
static void gemm__cpu_batch_task(void *arg, int tid)
{
    gemm__cpu_batch *cb = (gemm__cpu_batch *)arg;
    gemm__cpu_job jb;
    gemm__cpu_ahead ahead;
    const char *a, *b;
    char *c;
    int64_t i, end;
    gemm_status s;
    if (tid >= cb->threads) return;
    memset(&jb, 0, sizeof jb);
    jb.p = cb->p;
    jb.es = cb->es;
    jb.alpha = cb->alpha;
    jb.beta = cb->beta;
    jb.uk = cb->uk;
    jb.threads = 1;
    while (gemm__cpu_batch_take(cb, &i, &end)) {
        for (; i < end; i++) {
            gemm__cpu_member(cb, i, &a, &b, &c);
            if (cb->prefetch && i + 1 < end) gemm__cpu_batch_ahead(cb, i + 1, &ahead);
            s = gemm__cpu_batch_one(cb, &jb, a, b, c, cb->prefetch && i + 1 < end ? &ahead : NULL);
            if (s != GEMM_OK) gemm__cpu_batch_failed(cb, i, s);
        }
    }
}

/* The members one after the other, each cut over the threads as a single
   call with the caller's options is. */
static gemm_status gemm__cpu_batch_each(gemm__cpu_batch *cb, const gemm_cpu_options *options)
{
    const char *a, *b;
    char *c;
    int64_t i;
    gemm_status s;
    for (i = 0; i < cb->bt->count; i++) {
        gemm__cpu_member(cb, i, &a, &b, &c);
        if ((s = gemm__cpu_gemm(cb->func, cb->p, cb->precision, cb->alpha, a, b, cb->beta, c, options)) != GEMM_OK) {
            gemm__cpu_batch_failed(cb, i, s);
            return gemm__cpu_batch_status(cb);
        }
    }
    return GEMM_OK;
}

/* The one batch driver behind both precisions and both forms: p and bt
   from the batch checks, a and b member 0's canonical operands (strided;
   NULL for the pointer-array form), alpha and beta the caller's scalars.
   A member that runs out of memory fails the batch; members computed
   before it keep their results (a whole batch's workspace is not taken up
   front: each member takes what its single call takes). */
static gemm_status gemm__cpu_batch_gemm(const char *func, const gemm__problem *p, const gemm__batch *bt,
                                        gemm_precision precision, double alpha, const void *a, const void *b,
                                        double beta, void *C, const gemm_cpu_options *options)
{
    gemm__cpu_batch cb;
    const gemm__cpu_isa *isa;
    double flops = 2.0 * (double)p->m * (double)p->n * (double)p->k;
    int want;
    if (options && options->threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options->threads = %d is negative", func, options->threads);
    if (p->work == GEMM__WORK_NONE || bt->count == 0) return GEMM_OK;
    if (!(isa = gemm__cpu_isa_for_call()))
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the test hook forces kernel \"%s\", which this build or CPU cannot run",
                          func, GEMM__HOOK(cpu_kernel, "?"));
    memset(&cb, 0, sizeof cb);
    cb.uk = precision == GEMM_F32 ? &isa->f32 : &isa->f64;
    cb.func = func;
    cb.p = p;
    cb.bt = bt;
    cb.precision = precision;
    cb.alpha = alpha;
    cb.beta = beta;
    cb.a = (const char *)a;
    cb.b = (const char *)b;
    cb.c = (char *)C;
    cb.es = (int64_t)gemm_precision_size(precision);
    cb.path = p->work == GEMM__WORK_FULL ? gemm__cpu_path(p, cb.uk, cb.es, alpha) : GEMM__CPU_PATH_PACKED;
    /* members of more than 16 KiB (A, B and C): below that the prefetches
       cost more than they save (measured on the 2-core EPYC, one thread:
       fp32 32^3 (12 KiB) 7.0 -> 9.9 ms per 10,000; fp64 32^3 22.4 -> 18.5;
       fp64 64^3 x 2000 36.3 -> 26.9; 128^3 x 1000 fp32 60 -> 46, fp64 125 -> 88) */
    cb.prefetch = cb.path == GEMM__CPU_PATH_DIRECT && !gemm__cpu_direct_panel_bytes(p, cb.uk, cb.es) &&
                  ((double)p->m * (double)p->k + (double)p->k * (double)p->n + (double)p->m * (double)p->n) * (double)cb.es > 16384.0;
    cb.tiles = ((p->m + cb.uk->mr - 1) / cb.uk->mr) * ((p->n + cb.uk->nr - 1) / cb.uk->nr);
    want = gemm__cpu_threads_for_call(options);
    /* members a single call cuts over threads run one after the other only
       when there are too few to give every thread whole ones: a member per
       thread packs and syncs nothing with the others (128^3 x 1000 on 2
       threads: about 1.2x faster than cutting each on the 2-core machine) */
    if (p->work == GEMM__WORK_FULL && gemm__cpu_threads_for_flops(flops, want) > 1 && bt->count < 4 * (int64_t)want)
        return gemm__cpu_batch_each(&cb, options);
    want = gemm__cpu_threads_for_flops(flops * (double)bt->count, want);
    cb.threads = want > 1 ? gemm__cpu_pool_acquire(want) : 1;
    /* a take covers at least ~64K flops (about a microsecond), so tiny
       members do not queue on the shared counter */
    cb.group = flops >= 65536.0 ? 1 : (int64_t)(65536.0 / (flops > 1 ? flops : 1));
    if (cb.group > 64) cb.group = 64;
    if (cb.threads > 1) {
        gemm__cpu_pool_run(gemm__cpu_batch_task, &cb);
        gemm__cpu_pool_release();
    } else {
        gemm__cpu_batch_task(&cb, 0);
    }
    return gemm__cpu_batch_status(&cb);
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

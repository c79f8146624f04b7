/* The small products' way in.

   Tiny products: a call of at most GEMM__CPU_TINY multiply-adds
   (2 x 2 x 2) that passes the inlined common-case checks runs its plain
   loops straight from the public function, typed, before the shared entry
   (gemm__cpu_entry) and the driver. A 1x1x1 call cost 13-15 ns against a
   plain loop's 4 on the 2-core EPYC: the call into the untyped entry with
   its 17 arguments, alpha and beta widened to double and back, the
   options, the kernel table's lookup and the path's choice in double
   arithmetic, for one multiply-add. The same problems take the same loops
   as through the driver (gemm__cpu_path's tiny path), so the bits are the
   same either way; any other call, and any call that fails a check, goes
   on to gemm__cpu_entry, whose statuses and details are the only ones. */
#pragma once

#include <stdint.h>           /* uintptr_t */
#include "../core/internal.h" /* gemm__problem, gemm__clear_error, GEMM__HOOK */
#include "../core/overlap.c"  /* gemm__overlap_apart */
#include "../core/problem.c"  /* gemm__prepare_plain, GEMM__INLINE */
#include "api.h"              /* gemm_cpu_options */
#include "direct.c"           /* GEMM__CPU_TINY, gemm__cpu_tiny_f32, gemm__cpu_tiny_f64, gemm__cpu_direct_rect, gemm__cpu_direct_swaps */
#include "driver.c"           /* GEMM__CPU_RECORD_THREADS, gemm__cpu_path */
#include "job.h"              /* gemm__cpu_job */
#include "kernel_select.c"    /* gemm__cpu_isa_for_call */

/* Tests only: whether a hook takes the call off these paths: a forced
   path, or a forced kernel this CPU cannot run (the entry refuses the
   call). A kernel it can run is the one they use, so the batteries run
   for each kernel cover them. */
#ifdef GEMM__TEST_HOOKS
#define GEMM__CPU_TINY_HOOKED() (GEMM__HOOK(cpu_path, 0) || !gemm__cpu_isa_for_call())
#else
#define GEMM__CPU_TINY_HOOKED() 0
#endif

/* Whether the call was a tiny product and is done (1), or goes on to the
   entry (0): sizes 1..8 whose product is at most GEMM__CPU_TINY, options
   absent or valid and not verifying, no test hook steering it elsewhere, the
   common-case checks passed (gemm__prepare_plain: valid, alpha != 0) and
   C apart from A and B. */
#define GEMM__CPU_TINY_CALL(NAME, T, LOOPS)                                                                        \
    static GEMM__INLINE int NAME(gemm_layout layout, gemm_transpose transa, gemm_transpose transb, int64_t m,     \
                                 int64_t n, int64_t k, T alpha, const T *A, int64_t lda, const T *B, int64_t ldb, \
                                 T beta, T *C, int64_t ldc, const gemm_cpu_options *options)                       \
    {                                                                                                              \
        gemm__problem p;                                                                                           \
        if ((uint64_t)m - 1 >= GEMM__CPU_TINY || (uint64_t)n - 1 >= GEMM__CPU_TINY ||                              \
            (uint64_t)k - 1 >= GEMM__CPU_TINY || m * n * k > GEMM__CPU_TINY)                                       \
            return 0;                                                                                              \
        if ((options && (options->threads < 0 || options->verify)) || GEMM__CPU_TINY_HOOKED())                   \
            return 0;                                                                                              \
        if (!gemm__prepare_plain(layout, transa, transb, m, n, k, alpha == 0, A != NULL, lda, B != NULL, ldb,     \
                                 C != NULL, ldc, &p) ||                                                            \
            !gemm__overlap_apart(&p, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, sizeof(T)))                        \
            return 0;                                                                                              \
        gemm__clear_error();                                                                                       \
        LOOPS(&p, alpha, p.swapped ? B : A, p.swapped ? A : B, beta, C);                                           \
        GEMM__CPU_RECORD_THREADS(1);                                                                               \
        return 1;                                                                                                  \
    }

GEMM__CPU_TINY_CALL(gemm__cpu_tiny_call_f32, float, gemm__cpu_tiny_f32)
GEMM__CPU_TINY_CALL(gemm__cpu_tiny_call_f64, double, gemm__cpu_tiny_f64)

/* Small products: up to GEMM__CPU_SMALL multiply-adds (64^3, all on one
   thread: below 2 * GEMM__CPU_THREAD_FLOPS the driver never takes more)
   that take the single tile or the direct path without a workspace run
   here, from the public function, with the driver's kernels and loops in
   the driver's order (so the bits are the driver's), skipping its layers:
   the entry's untyped call, the options, the job's set-up for threads. At
   16^3 fp32 those layers were a quarter of the call (20 of 78 ns on the
   EPYC). Returns 1 when the call is done, 0 when it goes on to the entry
   (any other call, and every call that fails a check). */
#define GEMM__CPU_SMALL 262144

static int gemm__cpu_small_call(gemm_precision precision, gemm_layout layout, gemm_transpose transa,
                                gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha, const void *A,
                                int64_t lda, const void *B, int64_t ldb, double beta, void *C, int64_t ldc,
                                const gemm_cpu_options *options)
{
    gemm__problem p;
    gemm__cpu_job jb;
    const gemm__cpu_microkernel *uk;
    int64_t es = precision == GEMM_F32 ? (int64_t)sizeof(float) : (int64_t)sizeof(double);
    int path;
    const gemm__cpu_isa *isa;
    if ((options && (options->threads < 0 || options->verify)) || GEMM__CPU_TINY_HOOKED()) return 0;
    if (!gemm__prepare_plain(layout, transa, transb, m, n, k, alpha == 0, A != NULL, lda, B != NULL, ldb, C != NULL,
                             ldc, &p) ||
        !gemm__overlap_apart(&p, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, (size_t)es))
        return 0;
    isa = gemm__cpu_isa_for_call(); /* the best; in the tests, the one they force (it runs here: not hooked) */
    uk = precision == GEMM_F32 ? &isa->f32 : &isa->f64;
    path = gemm__cpu_path(&p, uk, es, alpha);
    if (path == GEMM__CPU_PATH_TILE) {
        gemm__clear_error();
        uk->direct(p.k, p.swapped ? B : A, p.acs, p.swapped ? A : B, p.brs, p.bcs, alpha, beta, C, p.ldc, p.m, p.n);
    } else if (path == GEMM__CPU_PATH_DIRECT && p.n <= uk->mr && p.m <= uk->nr && gemm__cpu_direct_swaps(&p, uk, es)) {
        /* both transposed, one tile of C^T: gemm__cpu_direct_rect_t's one call, without its layers */
        gemm__clear_error();
        uk->direct_t(p.k, p.swapped ? A : B, p.brs, p.swapped ? B : A, p.acs, p.ars, alpha, beta, C, p.ldc, p.n, p.m);
    } else if (path == GEMM__CPU_PATH_DIRECT && !gemm__cpu_direct_panel_bytes(&p, uk, es)) {
        double stack_panel[GEMM__CPU_PANEL_BYTES / sizeof(double)];
        gemm__clear_error();
        jb.p = &p;
        jb.a = (const char *)(p.swapped ? B : A);
        jb.b = (const char *)(p.swapped ? A : B);
        jb.c = (char *)C;
        jb.es = es;
        jb.alpha = alpha;
        jb.beta = beta;
        jb.uk = uk;
        jb.ahead = NULL;
        gemm__cpu_direct_rect(&jb, 0, p.m, 0, p.n, (char *)stack_panel);
    } else {
        return 0;
    }
    GEMM__CPU_RECORD_THREADS(1);
    return 1;
}

/* Whether a call is small enough for gemm__cpu_small_call: each size below
   2^12 (no product overflows) and their product at most GEMM__CPU_SMALL. */
#define GEMM__CPU_IS_SMALL(m, n, k)                                                                               \
    ((uint64_t)(m) - 1 < 4096 && (uint64_t)(n) - 1 < 4096 && (uint64_t)(k) - 1 < 4096 &&                       \
     (m) * (n) * (k) <= GEMM__CPU_SMALL)

/* gemm_cpu_sbgemm: bf16 A and B, fp32 scalars and C, on one of two paths.

   Native (the CPU has AVX512-BF16 and is not Intel's, where it measured
   slower than the widening: gemm__cpu_bf16_native_pays; ukernel_bf16.c):
   the packed driver
   with the bf16 kernel and its packing in k pairs (packing_bf16.c); the
   threads, blocks and schedule are the fp32 path's. Products up to
   64 x 64 x 64 skip the driver (sbgemm_small.c), with the same bits. Each
   product of two bf16 values is exact in fp32; vdpbf16ps adds them in its
   own order and flushes bf16 denormal inputs and denormal fp32 results to
   zero, so the result is an fp32 sum of the exact products, within
   gemm_cpu_sgemm's bound, but not its bits.

   Widening (any other CPU, Intel's included): a bf16 value is the top half of an fp32 one,
   so widening is a shift and exact. A and B are widened once into compact
   fp32 copies (no padding, whatever the leading dimensions) and the fp32
   driver computes the product on them: the result is gemm_cpu_sgemm's on
   the widened matrices, bit for bit (the same path, kernel and order: they
   depend on the shape and alpha alone). The copies, m*k + k*n floats, are
   had before C is touched.

   A call whose alpha is Inf or NaN widens too, so that each element sums
   all of k before alpha multiplies it, as gemm_cpu_sgemm does.

   A test forces either through gemm__hooks.cpu_kernel: "avx512bf16" the
   native path (GEMM_ERR_UNAVAILABLE where the CPU lacks it), an fp32
   kernel's name the widening on that kernel. */
#pragma once

#include <stdint.h>           /* uint16_t, uint32_t, uintptr_t */
#include <string.h>           /* memcpy, strcmp */
#include "../core/config.h"   /* GEMM_MALLOC, GEMM_FREE */
#include "../core/internal.h" /* gemm__problem, gemm__fail, gemm__clear_error */
#include "../core/overlap.c"  /* gemm__spans_apart */
#include "../core/problem.c"  /* gemm__prepare */
#include "direct.c"           /* gemm__cpu_finite */
#include "driver.c"           /* gemm__cpu_gemm, gemm__cpu_job_init, gemm__cpu_run_packed */
#include "packing_bf16.c"     /* gemm__cpu_bf16_pack_a, gemm__cpu_bf16_pack_b */
#include "sbgemm_api.h"
#include "sbgemm_small.c"     /* gemm__cpu_bf16_small_fits, gemm__cpu_bf16_small */
#include "thread_pool.c"      /* gemm__cpu_pool_acquire, gemm__cpu_pool_run, gemm__cpu_pool_release */
#include "threads.c"          /* gemm__cpu_threads_for_call */
#include "ukernel_bf16.c"     /* gemm__cpu_avx512bf16, gemm__cpu_has_avx512bf16 */

/* The fp32 value of a bf16 one: its 16 bits above 16 zero bits. */
static float gemm__cpu_bf16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* d = the rows x cols bf16 matrix at s (column-major, leading dimension
   ld) widened to fp32, compact (leading dimension rows): columns c0..c1-1. */
static void gemm__cpu_widen_bf16(float *d, const uint16_t *s, int64_t rows, int64_t c0, int64_t c1, int64_t ld)
{
    int64_t i, j;
    for (j = c0; j < c1; j++)
        for (i = 0; i < rows; i++) d[i + j * rows] = gemm__cpu_bf16_to_f32(s[i + j * ld]);
}

/* Both operands' widening as one run of columns (a's, then b's), taken in
   chunks from a shared counter by the pool's threads: on 16 threads of a
   Xeon one thread's widening took about a third of a 4096^3 call. The
   copies' bits do not depend on who writes them. */
typedef struct gemm__cpu_widen_job {
    float *wa, *wb;
    const uint16_t *a, *b;
    int64_t ar, ac, lda, br, bc, ldb, chunk, next;
} gemm__cpu_widen_job;

static void gemm__cpu_widen_task(void *arg, int tid)
{
    gemm__cpu_widen_job *j = (gemm__cpu_widen_job *)arg;
    int64_t c0, c1, total = j->ac + j->bc;
    (void)tid;
    while ((c0 = __atomic_fetch_add(&j->next, j->chunk, __ATOMIC_RELAXED)) < total) {
        c1 = c0 + j->chunk < total ? c0 + j->chunk : total;
        if (c0 < j->ac) gemm__cpu_widen_bf16(j->wa, j->a, j->ar, c0, c1 < j->ac ? c1 : j->ac, j->lda);
        if (c1 > j->ac) gemm__cpu_widen_bf16(j->wb, j->b, j->br, (c0 > j->ac ? c0 : j->ac) - j->ac, c1 - j->ac, j->ldb);
    }
}

/* Widenings of at least this many elements take the pool's threads (2^20:
   a few hundred microseconds alone). */
#define GEMM__CPU_WIDEN_THREADED ((int64_t)1 << 20)

static void gemm__cpu_widen_both(gemm__cpu_widen_job *j, const gemm_cpu_options *options)
{
    int threads = gemm__cpu_threads_for_call(options);
    int64_t total = j->ac + j->bc;
    j->next = 0;
    j->chunk = total;
    if (threads > 1 && j->ar * j->ac + j->br * j->bc >= GEMM__CPU_WIDEN_THREADED && total >= 4 * (int64_t)threads &&
        (threads = gemm__cpu_pool_acquire(threads)) > 1) {
        j->chunk = (total + 4 * (int64_t)threads - 1) / (4 * (int64_t)threads);
        gemm__cpu_pool_run(gemm__cpu_widen_task, j);
        gemm__cpu_pool_release();
        return;
    }
    gemm__cpu_widen_task(j, 0);
}

/* Whether the native path is the default where the CPU has it. On AMD's
   cores (the 2-core EPYC, family 26) it ran at about twice the widening's
   speed; on an Intel Xeon with AVX512-BF16 and AMX (the GPU machines'
   16-core host, 2026-11-28, bench_sbgemm) at 0.71-0.81 of our fp32 path
   on pre-widened data on 1 thread and 0.58-0.70 on 16, n = 1024..4096
   (one core: 59-74 against 74-105 GFLOP/s), so
   Intel's cores widen unless a test forces the kernel. Decided by the
   vendor, fixed for a machine: the two paths' bits differ, and a call's
   bits must not depend on a timing. */
static int gemm__cpu_bf16_native_pays(void)
{
#if defined(GEMM__CPU_X86)
    __builtin_cpu_init();
    return !__builtin_cpu_is("intel");
#else
    return 0;
#endif
}

/* Whether this call takes the native path: the CPU has it, it pays there
   and no test forces another kernel; -1 when a test forces it where it
   cannot run. */
static int gemm__cpu_sbgemm_native(void)
{
    const char *forced = GEMM__HOOK(cpu_kernel, (const char *)NULL);
    if (!forced) return gemm__cpu_has_avx512bf16() && gemm__cpu_bf16_native_pays();
    if (strcmp(forced, "avx512bf16") != 0) return 0;
    return gemm__cpu_has_avx512bf16() ? 1 : -1;
}

#ifdef GEMM__TEST_HOOKS
GEMM_DEF const char *gemm__cpu_sbgemm_kernel(void)
{
    int native = gemm__cpu_sbgemm_native();
    return native > 0 ? "avx512bf16" : native < 0 ? NULL : gemm__cpu_kernel();
}
#endif

/* The native path: the packed driver on the bf16 kernel, whose k counts
   pairs of the operands' elements (p->k of them, the last one padded when
   odd). */
static gemm_status gemm__cpu_sbgemm_pairs(const char *func, const gemm__problem *p, float alpha, const uint16_t *a,
                                          const uint16_t *b, float beta, float *C, const gemm_cpu_options *options)
{
#if defined(GEMM__CPU_X86)
    gemm__problem pairs = *p;
    gemm__cpu_job jb;
    if (gemm__cpu_bf16_small_fits(p)) {
        gemm__cpu_bf16_small(p, alpha, a, b, beta, C);
        GEMM__CPU_RECORD_THREADS(1);
        return GEMM_OK;
    }
    pairs.k = (p->k + 1) / 2;
    gemm__cpu_job_init(&jb, &pairs, &gemm__cpu_avx512bf16, (int64_t)sizeof(float), alpha, a, b, beta, C);
    jb.k_elems = p->k;
    jb.pack_a_block = gemm__cpu_bf16_pack_a;
    jb.pack_b_block = gemm__cpu_bf16_pack_b;
    jb.l1_parts = GEMM__CPU_BF16_L1_PARTS;
    jb.l2_parts = GEMM__CPU_BF16_L2_PARTS;
    jb.l3_parts = GEMM__CPU_BF16_L3_PARTS;
    return gemm__cpu_run_packed(func, &jb, options);
#else
    (void)p; (void)alpha; (void)a; (void)b; (void)beta; (void)C; (void)options;
    return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: this build has no bf16 kernel", func);
#endif
}

GEMM_DEF gemm_status gemm_cpu_sbgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                     int64_t m, int64_t n, int64_t k,
                                     float alpha, const uint16_t *A, int64_t lda,
                                     const uint16_t *B, int64_t ldb,
                                     float beta, float *C, int64_t ldc, const gemm_cpu_options *options)
{
    const char *func = "gemm_cpu_sbgemm";
    const uint16_t *a, *b;
    gemm__problem p, w; /* the caller's problem; the same on the compact fp32 copies */
    int64_t ar, ac, br, bc;
    float *wa, *wb;
    gemm__cpu_widen_job wj;
    gemm_status s;
    int native;
    gemm__clear_error();
    s = gemm__prepare(func, layout, transa, transb, m, n, k, alpha == 0, A != NULL, lda, B != NULL, ldb, beta == 1,
                      C != NULL, ldc, &p);
    if (s != GEMM_OK) return s;
    a = p.swapped ? B : A;
    b = p.swapped ? A : B;
    if (p.work == GEMM__WORK_FULL) { /* A and B are read: C's bytes apart from theirs */
        uint64_t cb = (uint64_t)p.c_extent * sizeof(float);
        const char *name = !gemm__spans_apart((uintptr_t)C, cb, (uintptr_t)A, (uint64_t)(p.swapped ? p.b_extent : p.a_extent) * 2)
                               ? "A"
                           : !gemm__spans_apart((uintptr_t)C, cb, (uintptr_t)B, (uint64_t)(p.swapped ? p.a_extent : p.b_extent) * 2)
                               ? "B"
                               : NULL;
        if (name)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: C overlaps %s: C's bytes meet those %s spans, and C is "
                              "written while %s is read", func, name, name, name);
    }
    if (options && options->threads < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options->threads = %d is negative", func, options->threads);
    if (p.work != GEMM__WORK_FULL) /* C = beta*C or nothing: A and B are not read */
        return gemm__cpu_gemm(func, &p, GEMM_F32, alpha, NULL, NULL, beta, C, options);
    native = gemm__cpu_sbgemm_native();
    if (native < 0)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the test hook forces kernel \"avx512bf16\", which this build "
                          "or CPU cannot run", func);
    /* alpha Inf or NaN: the fp32 path sums all of k before alpha multiplies
       (direct.c), where the packed k blocks would give Inf - Inf = NaN */
    if (native && gemm__cpu_finite(alpha)) return gemm__cpu_sbgemm_pairs(func, &p, alpha, a, b, beta, C, options);
    /* the canonical a and b as stored (op(a) = a^T: a is k x m), widened */
    ar = p.a_trans ? p.k : p.m;
    ac = p.a_trans ? p.m : p.k;
    br = p.b_trans ? p.n : p.k;
    bc = p.b_trans ? p.k : p.n;
    wa = (float *)GEMM_MALLOC(sizeof(float) * (size_t)(ar * ac + br * bc));
    if (!wa)
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for A and B widened to fp32, %llu bytes", func,
                          (unsigned long long)(sizeof(float) * (size_t)(ar * ac + br * bc)));
    wb = wa + ar * ac;
    wj.wa = wa, wj.wb = wb, wj.a = a, wj.b = b;
    wj.ar = ar, wj.ac = ac, wj.lda = p.lda, wj.br = br, wj.bc = bc, wj.ldb = p.ldb;
    gemm__cpu_widen_both(&wj, options);
    w = p;
    w.lda = ar;
    w.ldb = br;
    w.ars = p.a_trans ? w.lda : 1;
    w.acs = p.a_trans ? 1 : w.lda;
    w.brs = p.b_trans ? w.ldb : 1;
    w.bcs = p.b_trans ? 1 : w.ldb;
    w.a_extent = ar * ac;
    w.b_extent = br * bc;
    s = gemm__cpu_gemm(func, &w, GEMM_F32, alpha, wa, wb, beta, C, options);
    GEMM_FREE(wa);
    return s;
}

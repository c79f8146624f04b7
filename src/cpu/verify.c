/* The CPU's verified product (the `verify` option, core/verify.h): the
   checksums' sums of the operands and of C0 before the product, the
   product as the call would compute it, the sums of C after, then the
   shared comparison. The sums are O(mk + kn + mn) against the product's
   O(mnk); passes of a million elements or more share the pool's threads
   (the call's count) as the product does. */
#pragma once

#include <float.h>               /* FLT_MAX, DBL_MAX */
#include "../core/config.h"      /* GEMM_MALLOC, GEMM_FREE */
#include "../core/internal.h"    /* gemm__problem, gemm__fail, GEMM__HOOK */
#include "../core/verify.c"      /* gemm__verify_compare */
#include "verify_sums.c"       /* gemm__verify_host_before, gemm__verify_host_after */
#include "api.h"                 /* gemm_cpu_options */
#include "driver.c"              /* gemm__cpu_gemm_lent */
#include "threads.c"             /* gemm__cpu_threads_for_call */

#ifdef GEMM__TEST_HOOKS
/* Whether this verified product gets the faults the tests inject
   (gemm__hooks): verify_fault_skip products run clean first. */
static int gemm__cpu_verify_faulty(void)
{
    gemm__hooks *h = gemm__test_hooks();
    if (!h->verify_flip_bit && !h->verify_drop_k) return 0;
    if (h->verify_fault_skip > 0) {
        h->verify_fault_skip--;
        return 0;
    }
    return 1;
}

/* One bit of one element of C flipped after the product. */
static void gemm__cpu_verify_flip(const gemm__problem *p, gemm_precision precision, void *C)
{
    const gemm__hooks *h = gemm__test_hooks();
    int64_t i = h->verify_flip_row, j = h->verify_flip_col;
    if (!h->verify_flip_bit || i < 0 || i >= p->m || j < 0 || j >= p->n) return;
    if (precision == GEMM_F32) {
        uint32_t *e = (uint32_t *)((float *)C + i + j * p->ldc);
        *e ^= (uint32_t)1 << (h->verify_flip_bit - 1);
    } else {
        uint64_t *e = (uint64_t *)((double *)C + i + j * p->ldc);
        *e ^= (uint64_t)1 << (h->verify_flip_bit - 1);
    }
}
#endif

/* The product of gemm__cpu_gemm_lent, verified. vws: gemm__verify_doubles
   doubles lent (a batch thread's), or NULL to allocate them here; member:
   the batch member for the detail (-1: a single call). A refusal for want
   of memory comes before C is touched. */
static gemm_status gemm__cpu_verified(const char *func, const gemm__problem *p, gemm_precision precision,
                                      double alpha, const void *a, const void *b, double beta, void *C,
                                      const gemm_cpu_options *options, char *lent, size_t lent_bytes, double *vws,
                                      int64_t member)
{
    gemm__verify_sums v;
    gemm__problem q = *p;
    double *own = NULL;
#ifdef GEMM__TEST_HOOKS
    int faulty;
#endif
    gemm_status s;
    size_t doubles = gemm__verify_doubles(p->m, p->n, p->k);
    int threads;
    if ((options && options->threads < 0) || p->work == GEMM__WORK_NONE) /* refused, or C = 1*C: nothing to check */
        return gemm__cpu_gemm_lent(func, p, precision, alpha, a, b, beta, C, options, lent, lent_bytes);
    threads = gemm__cpu_threads_for_call(options); /* the sums' large passes share the pool as the product does */
    if (!vws && !(vws = own = (double *)GEMM_MALLOC(doubles * sizeof(double))))
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for the verification's sums, %llu bytes", func,
                          (unsigned long long)(doubles * sizeof(double)));
    gemm__verify_host_before(p, precision, alpha, a, b, beta, C, vws, &v, threads);
#ifdef GEMM__TEST_HOOKS
    faulty = gemm__cpu_verify_faulty();
    if (faulty && gemm__test_hooks()->verify_drop_k > 0 && q.work == GEMM__WORK_FULL) { /* a split K that loses its last slice */
        q.k -= gemm__test_hooks()->verify_drop_k < q.k ? gemm__test_hooks()->verify_drop_k : q.k;
        if (q.k == 0) q.work = GEMM__WORK_SCALE;
    }
#endif
    s = gemm__cpu_gemm_lent(func, &q, precision, alpha, a, b, beta, C, options, lent, lent_bytes);
    if (s == GEMM_OK) {
#ifdef GEMM__TEST_HOOKS
        if (faulty) gemm__cpu_verify_flip(p, precision, C);
#endif
        gemm__verify_host_after(p, precision, C, &v, threads);
        s = gemm__verify_compare(func, &v, p->m, p->n, p->k, gemm__verify_unit(precision, 0),
                                 precision == GEMM_F32 ? FLT_MAX : DBL_MAX, p->swapped, member);
    }
    GEMM_FREE(own);
    return s;
}

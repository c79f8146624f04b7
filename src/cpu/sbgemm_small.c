/* Small bf16 products on the native kernel, past the packed driver.

   Up to 64 x 64 x 64 the packed driver's fixed costs (block sizes, the
   workspace and its counters, the schedule) were most of a call: about
   170 ns at 2^3 against 60 ns for OpenBLAS's small kernels, on the 2-core
   EPYC. Here A and B are packed whole, in k pairs (packing_bf16.c), into
   panels on the stack, and the kernel runs tile by tile on one thread;
   a tile at the edge of C goes through a local full tile, as loops.c
   does. k <= 64 is 32 pairs, never more than one k block of the packed
   path (kc >= 64 pairs, cache_blocking.c), so each tile is the same
   kernel call on the same panels there and here: the same bits on either
   path, for any thread count. */
#pragma once

#include <stdint.h>           /* uint16_t, uint32_t */
#include <string.h>           /* memcpy */
#include "../core/internal.h" /* gemm__problem, GEMM__HOOK */
#include "cache_blocking.c"   /* gemm__cpu_min */
#include "packing_bf16.c"     /* gemm__cpu_bf16_pack */
#include "platform.h"         /* GEMM__CPU_X86, GEMM__CPU_NOINLINE */
#include "ukernel_bf16.c"     /* gemm__cpu_avx512bf16_s */

#if defined(GEMM__CPU_X86)
#define GEMM__CPU_BF16_SMALL_MN 64 /* m and n at most this */
#define GEMM__CPU_BF16_SMALL_K 64  /* k at most this: 32 pairs */

/* Whether a product takes the small path: from its shape alone (tests
   force the packed path with gemm__hooks.cpu_path = 1). */
static int gemm__cpu_bf16_small_fits(const gemm__problem *p)
{
    return p->m <= GEMM__CPU_BF16_SMALL_MN && p->n <= GEMM__CPU_BF16_SMALL_MN && p->k <= GEMM__CPU_BF16_SMALL_K &&
           GEMM__HOOK(cpu_path, 0) != 1;
}

/* C = alpha*op(a)*op(b) + beta*C for a product that fits (p: the
   canonical problem, its k in elements; a, b its operands). The panels,
   2 x 8 KiB, live in this function's frame, not in its caller's. */
static GEMM__CPU_NOINLINE void gemm__cpu_bf16_small(const gemm__problem *p, float alpha, const uint16_t *a,
                                                    const uint16_t *b, float beta, float *C)
{
    uint32_t pa[GEMM__CPU_BF16_SMALL_MN * GEMM__CPU_BF16_SMALL_K / 2];
    uint32_t pb[GEMM__CPU_BF16_SMALL_MN * GEMM__CPU_BF16_SMALL_K / 2];
    float tile[32 * 8] = {0}; /* its rows and columns past C's edge are read, never stored */
    int64_t kp = (p->k + 1) / 2, i, j, x;
    gemm__cpu_bf16_pack((char *)pa, a, p->ars, p->acs, p->m, 0, kp, p->k, 32);
    gemm__cpu_bf16_pack((char *)pb, b, p->bcs, p->brs, p->n, 0, kp, p->k, 8);
    for (j = 0; j < p->n; j += 8)
        for (i = 0; i < p->m; i += 32) {
            int64_t mw = gemm__cpu_min(32, p->m - i), nw = gemm__cpu_min(8, p->n - j);
            float *c = C + i + j * p->ldc;
            if (mw == 32 && nw == 8) {
                gemm__cpu_avx512bf16_s(kp, pa + i * kp, 32, pb + j * kp, 8, 1, alpha, beta, c, p->ldc);
                continue;
            }
            if (beta != 0)
                for (x = 0; x < nw; x++) memcpy(tile + x * 32, c + x * p->ldc, sizeof(float) * (size_t)mw);
            gemm__cpu_avx512bf16_s(kp, pa + i * kp, 32, pb + j * kp, 8, 1, alpha, beta, tile, 32);
            for (x = 0; x < nw; x++) memcpy(c + x * p->ldc, tile + x * 32, sizeof(float) * (size_t)mw);
        }
}
#endif

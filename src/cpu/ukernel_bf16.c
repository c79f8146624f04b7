/* The bf16 micro-kernel (gemm_cpu_sbgemm on AVX512-BF16): fp32 C tiles
   from bf16 panels packed in k pairs (packing_bf16.c), with vdpbf16ps.

   Its tile is the fp32 AVX-512 kernel's, 32 x 8 (two zmm of C rows, eight
   broadcasts of B, 16 accumulators, enough to hide the instruction's
   latency), and it keeps that kernel's signature and edge handling, so the
   packed driver runs it unchanged: its k counts pairs, the packed element
   is a 32-bit pair, and C, alpha and beta are fp32. Each step multiplies
   two k at once: lane i of an accumulator gets a[i][2q]*b[2q][j] +
   a[i][2q+1]*b[2q+1][j]. Each product of two bf16 values is exact, but
   the instruction adds them in its own order and, whatever MXCSR says,
   reads bf16 denormals as zero and flushes denormal fp32 results to zero
   (rounding to nearest even): OpenBLAS's Cooperlake and Sapphire Rapids
   sbgemm kernels compute the same. alpha and beta are applied as the fp32
   kernel applies them (beta == 0: C is not read).

   The CPU has it when cpuid says AVX512-BF16 (leaf 7, sub-leaf 1, EAX bit
   5) and the OS saves the AVX-512 registers (__builtin_cpu_supports, as
   kernel_select.c asks for avx512f; valgrind's CPU has no AVX-512, so
   under valgrind this kernel is never chosen). */
#pragma once

#include <stdint.h>           /* uint32_t */
#include "packing_bf16.c"     /* GEMM__CPU_AVX512BF16 */
#include "platform.h"         /* GEMM__CPU_X86, <cpuid.h>, <immintrin.h>, GEMM__CPU_LOAD */
#include "ukernel_template.h" /* gemm__cpu_microkernel, GEMM__CPU_REP8, GEMM__CPU_UK_PUT0/PUTB */
#include "ukernel_x86.c"      /* GEMM__CPU_Z_S: the fp32 AVX-512 vector operations */

#if defined(GEMM__CPU_X86)
/* g++ 12 warns "'__Y' is used uninitialized" inside its own AVX-512
   casts (GCC bug 105593, fixed in 13), as in ukernel_x86.c. */
#if defined(__cplusplus) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#define GEMM__CPU_BF16_GXX12_PUSH 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

/* Whether the CPU and OS run the kernel (asked once: cpuid serialises the
   core, and in a VM it traps to the hypervisor). */
static int gemm__cpu_bf16_known = -1;
static int gemm__cpu_has_avx512bf16(void)
{
    int known = GEMM__CPU_LOAD(gemm__cpu_bf16_known);
    if (known < 0) {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        __builtin_cpu_init();
        known = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512vl") && __get_cpuid_max(0, NULL) >= 7 &&
                __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax >> 5 & 1u);
        GEMM__CPU_STORE(gemm__cpu_bf16_known, known);
    }
    return known;
}

#define GEMM__CPU_BF16_DECL(j, P) __m512 c0_##j = _mm512_setzero_ps(), c1_##j = _mm512_setzero_ps();
#define GEMM__CPU_BF16_STEP(j, P)                                                                  \
    {                                                                                              \
        __m512bh bv = (__m512bh)_mm512_set1_epi32((int)b[q * 8 + (j)]);                            \
        c0_##j = _mm512_dpbf16_ps(c0_##j, a0, bv);                                                 \
        c1_##j = _mm512_dpbf16_ps(c1_##j, a1, bv);                                                 \
    }

/* C[0:32, 0:8] = alpha * A * B + beta * C (gemm__cpu_ukernel_fn): A a
   packed panel of k pairs (32 per pair, as = 32), B one of 8 per pair (bp
   and bj ignored: the bf16 panels are always packed pair by pair). */
static GEMM__CPU_AVX512BF16 void gemm__cpu_avx512bf16_s(int64_t k, const void *a_in, int64_t as, const void *b_in,
                                                        int64_t bp, int64_t bj, double alpha_in, double beta_in,
                                                        void *c_in, int64_t ldc)
{
    const uint32_t *GEMM__RESTRICT a = (const uint32_t *)a_in;
    const uint32_t *GEMM__RESTRICT b = (const uint32_t *)b_in;
    float *GEMM__RESTRICT c = (float *)c_in;
    const float alpha = (float)alpha_in, beta = (float)beta_in;
    int64_t q;
    GEMM__CPU_REP8(GEMM__CPU_BF16_DECL, GEMM__CPU_Z_S)
    (void)bp;
    (void)bj;
    for (q = 0; q < k; q++) {
        __m512bh a0 = (__m512bh)_mm512_loadu_si512((const void *)(a + q * as));
        __m512bh a1 = (__m512bh)_mm512_loadu_si512((const void *)(a + q * as + 16));
        GEMM__CPU_REP8(GEMM__CPU_BF16_STEP, GEMM__CPU_Z_S)
    }
    {
        __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
        if (beta == 0) { GEMM__CPU_REP8(GEMM__CPU_UK_PUT0, GEMM__CPU_Z_S) }
        else { GEMM__CPU_REP8(GEMM__CPU_UK_PUTB, GEMM__CPU_Z_S) }
    }
}
#undef GEMM__CPU_BF16_DECL
#undef GEMM__CPU_BF16_STEP

/* Its blocks: a B micro-panel (kc pairs x 8) in a third of L1d, the
   packed A block in a quarter of L2 and the packed B panel in an eighth
   of L3 (at least 2 MiB), where the fp32 kernels take a half, a half and
   a quarter. On the 2-core EPYC (48 KiB L1d, 1 MiB L2, 32 MiB L3 shared
   with other machines' cores) that is kc = 512 pairs, mc = 128, nc = 2048
   against 768, 160 and 2728. Measured there, interleaved A/B: kc and mc
   as fast or up to 7% faster at n = 2048 and 4096 on 1 and 2 threads
   (within 1% at 1024); the 8 MiB panel of
   the fp32 shares ran 4096^3 on 1 thread at 418 GFLOP/s where 2 MiB ran
   at 485 while other work filled the L3, and 4 MiB ran 1-3% ahead of 2 MiB
   when the machine was quiet (1 and 2 threads). */
#define GEMM__CPU_BF16_L1_PARTS 3
#define GEMM__CPU_BF16_L2_PARTS 4
#define GEMM__CPU_BF16_L3_PARTS 8

/* The driver's view of it: packed path only (no direct or small kernel:
   the operands must be repacked in pairs whatever the size). */
static const gemm__cpu_microkernel gemm__cpu_avx512bf16 = {32, 8, gemm__cpu_avx512bf16_s, gemm__cpu_avx512bf16_s,
                                                           NULL, NULL, NULL, NULL, NULL, NULL};
#ifdef GEMM__CPU_BF16_GXX12_PUSH
#pragma GCC diagnostic pop
#undef GEMM__CPU_BF16_GXX12_PUSH
#endif
#else
static int gemm__cpu_has_avx512bf16(void) { return 0; }
#endif

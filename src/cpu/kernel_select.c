/* Which micro-kernels a call runs: the instruction sets this build has,
   best first, and the first the CPU supports (or the one a test forces).

       x86-64:  avx512 (fp32 32x8, fp64 16x8), avx2 (AVX2+FMA: 16x6, 8x6),
                scalar (2x6)
       aarch64: neon (fp32 8x12, fp64 4x12), scalar
       others:  scalar

   MR is two vectors and NR broadcasts of B; on AVX-512, NR = 8 (16
   accumulators are enough to hide FMA latency) divides the usual sizes,
   where 12 wasted a third of the last tile at n = 64. The best kernel the
   CPU supports is picked at the first call (__builtin_cpu_supports, which
   also checks that the OS saves the registers); GEMM_NO_SIMD leaves only
   scalar. Every kernel, with its strided-B variant, its direct variant and
   its A-packing routine, is one template over a small table of vector
   operations (ukernel_template.h). */
#pragma once

#include <string.h>            /* strcmp */
#include "../core/internal.h"  /* GEMM__HOOK */
#include "api.h"               /* the test hooks' declarations */
#include "packing.c"           /* gemm__cpu_copy_rows */
#include "platform.h"          /* GEMM__CPU_LOAD, GEMM__CPU_STORE */
#include "ukernel_template.h"  /* gemm__cpu_microkernel */
#include "ukernel_scalar.c"
#include "ukernel_x86.c"
#include "ukernel_neon.c"
#include "small_kernels.c"

/* An instruction set's kernels for both precisions. */
typedef struct gemm__cpu_isa {
    const char *name;
    int (*available)(void);
    gemm__cpu_microkernel f32, f64;
} gemm__cpu_isa;

#define GEMM__CPU_ISA(NAME, SMR, SNR, DMR, DNR)                                                     \
    {#NAME, gemm__cpu_has_##NAME,                                                                   \
     {SMR, SNR, gemm__cpu_##NAME##_s, gemm__cpu_##NAME##_s_strided, gemm__cpu_##NAME##_s_direct,   \
      gemm__cpu_##NAME##_s_pack, gemm__cpu_##NAME##_s_rows, gemm__cpu_##NAME##_s_small,             \
      gemm__cpu_##NAME##_s_direct_t, gemm__cpu_##NAME##_s_direct_wide},                              \
     {DMR, DNR, gemm__cpu_##NAME##_d, gemm__cpu_##NAME##_d_strided, gemm__cpu_##NAME##_d_direct,   \
      gemm__cpu_##NAME##_d_pack, gemm__cpu_##NAME##_d_rows, gemm__cpu_##NAME##_d_small,             \
      gemm__cpu_##NAME##_d_direct_t, gemm__cpu_##NAME##_d_direct_wide}}

/* A transposed op(a)'s copy into a panel: AVX-512 transposes in registers
   (ukernel_x86.c); the others copy element by element, four rows at once. */
#define gemm__cpu_avx2_s_rows gemm__cpu_copy_rows
#define gemm__cpu_avx2_d_rows gemm__cpu_copy_rows
#define gemm__cpu_neon_s_rows gemm__cpu_copy_rows
#define gemm__cpu_neon_d_rows gemm__cpu_copy_rows
#define gemm__cpu_scalar_s_rows gemm__cpu_copy_rows
#define gemm__cpu_scalar_d_rows gemm__cpu_copy_rows

/* Whole small products in one kernel (small_kernels.c): AVX-512 has them;
   the others run such products on the direct path. */
#define gemm__cpu_avx2_s_small NULL
#define gemm__cpu_avx2_d_small NULL
#define gemm__cpu_neon_s_small NULL
#define gemm__cpu_neon_d_small NULL
#define gemm__cpu_scalar_s_small NULL
#define gemm__cpu_scalar_d_small NULL

/* The direct kernel that stores its tile transposed (both operands read
   in place when both are transposed, direct.c): AVX-512 has it; the
   others copy the transposed op(a) into a panel. */
#define gemm__cpu_avx2_s_direct_t NULL
#define gemm__cpu_avx2_d_direct_t NULL
#define gemm__cpu_neon_s_direct_t NULL
#define gemm__cpu_neon_d_direct_t NULL
#define gemm__cpu_scalar_s_direct_t NULL
#define gemm__cpu_scalar_d_direct_t NULL
#define gemm__cpu_avx2_s_direct_wide NULL
#define gemm__cpu_avx2_d_direct_wide NULL
#define gemm__cpu_neon_s_direct_wide NULL
#define gemm__cpu_neon_d_direct_wide NULL
#define gemm__cpu_scalar_s_direct_wide NULL
#define gemm__cpu_scalar_d_direct_wide NULL

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

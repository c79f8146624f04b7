/* The portable micro-kernels, from the template with one-element
   "vectors": every CPU runs them, and a GEMM_NO_SIMD build has only them. */
#pragma once

#include "ukernel_template.h" /* GEMM__CPU_UKERNELS */

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

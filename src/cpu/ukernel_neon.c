/* The aarch64 micro-kernels (NEON), from the template. */
#pragma once

#include <stdint.h>
#include <string.h>           /* memcpy */
#include "platform.h"         /* GEMM__CPU_NEON, <arm_neon.h> */
#include "ukernel_template.h" /* GEMM__CPU_UKERNELS */

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

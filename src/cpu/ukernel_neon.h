
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

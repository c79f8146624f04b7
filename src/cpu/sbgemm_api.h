/* The CPU's bf16 product: bf16 A and B, fp32 scalars and C. */
#pragma once

#include <stdint.h> /* uint16_t */
#include "api.h"    /* gemm_cpu_options */

#ifdef __cplusplus
extern "C" {
#endif

/* C = alpha*op(A)*op(B) + beta*C with A and B in bfloat16 (each element
   the top 16 bits of an IEEE fp32, as uint16_t), alpha, beta and C in
   fp32: cblas_?gemm's arguments in OpenBLAS's cblas_sbgemm order, then the
   options (may be NULL). Each product of two bf16 values is exact in fp32
   and the sums are fp32 sums: the result is bitwise gemm_cpu_sgemm's on A
   and B widened to fp32. Checks and statuses are gemm_cpu_sgemm's; C's
   bytes must also be apart from those A and B span (the element types
   differ, so sharing bytes is sharing elements). */
GEMM_DEF gemm_status gemm_cpu_sbgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                     int64_t m, int64_t n, int64_t k,
                                     float alpha, const uint16_t *A, int64_t lda,
                                     const uint16_t *B, int64_t ldb,
                                     float beta, float *C, int64_t ldc, const gemm_cpu_options *options);

#ifdef __cplusplus
}
#endif

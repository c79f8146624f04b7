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
   and the sums are fp32 sums. Where the CPU has AVX512-BF16 and is AMD's
   (on Intel's Xeons it ran slower than the widening below), vdpbf16ps
   computes them: it adds the products of k and k+1 to the sum in its own
   order, reads bf16 denormals in A and B as zero and flushes denormal fp32
   results to zero (whatever MXCSR says; OpenBLAS's sbgemm on such CPUs
   does the same), so the result is within the fp32 bound of the exact
   product, not bitwise gemm_cpu_sgemm's. Elsewhere, and for an alpha of
   Inf or NaN, the result is bitwise gemm_cpu_sgemm's on A and B widened to
   fp32 (which is how it runs there). Checks and statuses are gemm_cpu_sgemm's; C's bytes must also
   be apart from those A and B span (the element types differ, so sharing
   bytes is sharing elements). */
GEMM_DEF gemm_status gemm_cpu_sbgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                     int64_t m, int64_t n, int64_t k,
                                     float alpha, const uint16_t *A, int64_t lda,
                                     const uint16_t *B, int64_t ldb,
                                     float beta, float *C, int64_t ldc, const gemm_cpu_options *options);

#ifdef GEMM__TEST_HOOKS
/* For the tests only: the kernel gemm_cpu_sbgemm runs now, "avx512bf16"
   (native) or the fp32 kernel it widens A and B for; NULL when
   gemm__hooks.cpu_kernel forces one this CPU cannot run. */
GEMM_DEF const char *gemm__cpu_sbgemm_kernel(void);
#endif

#ifdef __cplusplus
}
#endif

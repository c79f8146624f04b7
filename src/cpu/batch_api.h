/* The CPU backend's batch calls, strided and pointer-array. */
#pragma once

#include "api.h" /* gemm_cpu_options */

#ifdef __cplusplus
extern "C" {
#endif

/* Batches on the CPU: batch_count products C_i = alpha*op(A_i)*op(B_i) +
   beta*C_i that share every argument but where their matrices are, in
   cblas_?gemm's order with each matrix's batch argument after its leading
   dimension (as cublas?gemmStridedBatched / cublas?gemmBatched), then the
   count, then the options (may be NULL). gemm_?gemm_strided_batched /
   gemm_?gemm_batched (gemm.h) are these with NULL.

   Strided: member i's A, B, C start stride_a*i, stride_b*i, stride_c*i
   elements after A, B, C. Pointer arrays: member i's are A[i], B[i], C[i].
   Each member's result is bitwise the single call's. Bad arguments (of
   any member) are refused before any C is written. Running out of memory
   (GEMM_ERR_OUT_OF_MEMORY) stops a batch at the member that could not get
   its workspace: the members before it are written, it and those after
   it are not, and gemm_last_error_detail() names it and says so. */
GEMM_DEF gemm_status gemm_cpu_sgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                    int64_t m, int64_t n, int64_t k,
                                                    float alpha, const float *A, int64_t lda, int64_t stride_a,
                                                    const float *B, int64_t ldb, int64_t stride_b,
                                                    float beta, float *C, int64_t ldc, int64_t stride_c,
                                                    int64_t batch_count, const gemm_cpu_options *options);
GEMM_DEF gemm_status gemm_cpu_dgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                    int64_t m, int64_t n, int64_t k,
                                                    double alpha, const double *A, int64_t lda, int64_t stride_a,
                                                    const double *B, int64_t ldb, int64_t stride_b,
                                                    double beta, double *C, int64_t ldc, int64_t stride_c,
                                                    int64_t batch_count, const gemm_cpu_options *options);
GEMM_DEF gemm_status gemm_cpu_sgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                            int64_t m, int64_t n, int64_t k,
                                            float alpha, const float *const A[], int64_t lda,
                                            const float *const B[], int64_t ldb,
                                            float beta, float *const C[], int64_t ldc,
                                            int64_t batch_count, const gemm_cpu_options *options);
GEMM_DEF gemm_status gemm_cpu_dgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                            int64_t m, int64_t n, int64_t k,
                                            double alpha, const double *const A[], int64_t lda,
                                            const double *const B[], int64_t ldb,
                                            double beta, double *const C[], int64_t ldc,
                                            int64_t batch_count, const gemm_cpu_options *options);

/* Complex strided batches: gemm_cpu_cgemm / zgemm's arguments (interleaved
   complex, alpha and beta by pointer, op() N, T or C) with the strided
   batch's (strides in complex elements). Checked as the real strided
   batches are (a NULL alpha is refused as argument 7, a NULL beta as 14),
   then the members run one after another, each as the single complex
   call on the call's threads: each member's bits are the single call's.
   Running out of memory stops the batch at that member (the detail says
   which; the members before it are written). The pointer-array form
   (member i's are A[i], B[i], C[i]) is checked as the real one is (NULL
   alpha 7, NULL beta 12, lists 8, 10, 13, batch_count 15; no two members
   writing one element of C, no member's C over any member's A or B), all
   before any member runs. */
GEMM_DEF gemm_status gemm_cpu_cgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                    int64_t m, int64_t n, int64_t k,
                                                    const void *alpha, const void *A, int64_t lda, int64_t stride_a,
                                                    const void *B, int64_t ldb, int64_t stride_b,
                                                    const void *beta, void *C, int64_t ldc, int64_t stride_c,
                                                    int64_t batch_count, const gemm_cpu_options *options);
GEMM_DEF gemm_status gemm_cpu_zgemm_strided_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                    int64_t m, int64_t n, int64_t k,
                                                    const void *alpha, const void *A, int64_t lda, int64_t stride_a,
                                                    const void *B, int64_t ldb, int64_t stride_b,
                                                    const void *beta, void *C, int64_t ldc, int64_t stride_c,
                                                    int64_t batch_count, const gemm_cpu_options *options);
GEMM_DEF gemm_status gemm_cpu_cgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                            int64_t m, int64_t n, int64_t k,
                                            const void *alpha, const void *const A[], int64_t lda,
                                            const void *const B[], int64_t ldb,
                                            const void *beta, void *const C[], int64_t ldc,
                                            int64_t batch_count, const gemm_cpu_options *options);
GEMM_DEF gemm_status gemm_cpu_zgemm_batched(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                            int64_t m, int64_t n, int64_t k,
                                            const void *alpha, const void *const A[], int64_t lda,
                                            const void *const B[], int64_t ldb,
                                            const void *beta, void *const C[], int64_t ldc,
                                            int64_t batch_count, const gemm_cpu_options *options);

#ifdef __cplusplus
}
#endif

/* bench/research/exact/baseline.h - the shipped kernels (gemm_cuda.cuh) as
   the sweep's baseline rows: one row-major call each, isolated in
   baseline.cu so that an API change touches these functions only. */
#ifndef RX_BASELINE_H
#define RX_BASELINE_H

#include <cuda_runtime.h>
#include <stdint.h>

/* Row-major C (m x n, ldc) = alpha*op(A)*op(B) + beta*C on the device, on
   `stream`; ta / tb: A / B transposed. variant: 0 = the automatic choice
   (AUTO kernel), else that configuration of the SIMT (fp32) or DMMA (fp64)
   kernel (options.variant); split: options.split_k. 0 on success, else -1
   with a message on stderr. */
int baseline_sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                   const float *B, int64_t ldb, float beta, float *C, int64_t ldc, int variant, int split,
                   cudaStream_t stream);
int baseline_dgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                   const double *B, int64_t ldb, double beta, double *C, int64_t ldc, int variant, int split,
                   cudaStream_t stream);

/* What the last call ran (configuration, layouts read, K parts, grid, operand copies). */
const char *baseline_last(void);

#endif

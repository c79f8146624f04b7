/* bench/research/exact/baseline.h - the shipped kernels (gemm_cuda.cuh) as
   the sweep's baseline row: one row-major call each, isolated in
   baseline.cu so that an API change touches two functions only. */
#ifndef RX_BASELINE_H
#define RX_BASELINE_H

#include <cuda_runtime.h>
#include <stdint.h>

/* Row-major C (m x n, ldc) = alpha*op(A)*op(B) + beta*C on the device, on
   `stream`; ta / tb: A / B transposed. 0 on success, else -1 with a message
   on stderr. */
int baseline_sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                   const float *B, int64_t ldb, float beta, float *C, int64_t ldc, cudaStream_t stream);
int baseline_dgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                   const double *B, int64_t ldb, double beta, double *C, int64_t ldc, cudaStream_t stream);

#endif

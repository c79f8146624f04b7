/* bench/research/exact/baseline.cu - see baseline.h. The library's public
   call with default options (AUTO kernel: SIMT for fp32, DMMA for fp64 on
   Hopper, its own split-K choice). */
#define GEMM_IMPLEMENTATION
#include "../../../gemm_cuda.cuh"
#include "baseline.h"

#include <stdio.h>

static gemm_transpose tr(bool t) { return t ? GEMM_TRANS : GEMM_NO_TRANS; }

int baseline_sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                   const float *B, int64_t ldb, float beta, float *C, int64_t ldc, cudaStream_t stream)
{
    gemm_status s = gemm_cuda_sgemm(stream, GEMM_ROW_MAJOR, tr(ta), tr(tb), m, n, k, alpha, A, lda, B, ldb, beta, C,
                                    ldc, NULL);
    if (s != GEMM_OK) fprintf(stderr, "baseline_sgemm: %s\n", gemm_last_error_detail());
    return s == GEMM_OK ? 0 : -1;
}

int baseline_dgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                   const double *B, int64_t ldb, double beta, double *C, int64_t ldc, cudaStream_t stream)
{
    gemm_status s = gemm_cuda_dgemm(stream, GEMM_ROW_MAJOR, tr(ta), tr(tb), m, n, k, alpha, A, lda, B, ldb, beta, C,
                                    ldc, NULL);
    if (s != GEMM_OK) fprintf(stderr, "baseline_dgemm: %s\n", gemm_last_error_detail());
    return s == GEMM_OK ? 0 : -1;
}

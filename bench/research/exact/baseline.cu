/* bench/research/exact/baseline.cu - see baseline.h. The library's public
   call: the AUTO kernel (the shipped choice), or one configuration forced
   through options.kernel and options.variant. */
#define GEMM__TEST_HOOKS /* gemm__cuda_exact_last() */
#define GEMM_IMPLEMENTATION
#include "../../../gemm_cuda.cuh"
#include "baseline.h"

#include <stdio.h>

static gemm_transpose tr(bool t) { return t ? GEMM_TRANS : GEMM_NO_TRANS; }

static gemm_cuda_options options_of(gemm_cuda_kernel kernel, int variant, int split)
{
    gemm_cuda_options o = {};
    o.kernel = variant ? kernel : GEMM_CUDA_KERNEL_AUTO;
    o.variant = variant;
    o.split_k = split;
    return o;
}

int baseline_sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                   const float *B, int64_t ldb, float beta, float *C, int64_t ldc, int variant, int split,
                   cudaStream_t stream)
{
    gemm_cuda_options o = options_of(GEMM_CUDA_KERNEL_SIMT, variant, split);
    gemm_status s = gemm_cuda_sgemm(stream, GEMM_ROW_MAJOR, tr(ta), tr(tb), m, n, k, alpha, A, lda, B, ldb, beta, C,
                                    ldc, &o);
    if (s != GEMM_OK) fprintf(stderr, "baseline_sgemm: %s\n", gemm_last_error_detail());
    return s == GEMM_OK ? 0 : -1;
}

int baseline_dgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                   const double *B, int64_t ldb, double beta, double *C, int64_t ldc, int variant, int split,
                   cudaStream_t stream)
{
    gemm_cuda_options o = options_of(GEMM_CUDA_KERNEL_DMMA, variant, split);
    gemm_status s = gemm_cuda_dgemm(stream, GEMM_ROW_MAJOR, tr(ta), tr(tb), m, n, k, alpha, A, lda, B, ldb, beta, C,
                                    ldc, &o);
    if (s != GEMM_OK) fprintf(stderr, "baseline_dgemm: %s\n", gemm_last_error_detail());
    return s == GEMM_OK ? 0 : -1;
}

const char *baseline_last(void) { return gemm__cuda_exact_last(); }

/* tests/mpi_cuda_stub/gemm_cuda.cuh - the CUDA backend's device-pointer API,
   declarations only, so that tests/test_mpi_cuda_build.sh can compile the
   CUDA parts of gemm_mpi.h before (or without) the real gemm_cuda.cuh. Only
   used when the repository root has no gemm_cuda.cuh; never linked. */
#ifndef GEMM_CUDA_CUH_INCLUDED
#define GEMM_CUDA_CUH_INCLUDED
#include <cuda_runtime.h>
#include "../../gemm.h"
#ifdef __cplusplus
extern "C" {
#endif
GEMM_DEF gemm_status gemm_cuda_sgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb, int64_t m,
                                     int64_t n, int64_t k, float alpha, const float *A, int64_t lda, const float *B,
                                     int64_t ldb, float beta, float *C, int64_t ldc, cudaStream_t stream);
GEMM_DEF gemm_status gemm_cuda_dgemm(gemm_layout layout, gemm_transpose transa, gemm_transpose transb, int64_t m,
                                     int64_t n, int64_t k, double alpha, const double *A, int64_t lda, const double *B,
                                     int64_t ldb, double beta, double *C, int64_t ldc, cudaStream_t stream);
#ifdef __cplusplus
}
#endif
#endif

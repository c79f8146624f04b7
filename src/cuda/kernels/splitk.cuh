/* Split-K's deterministic reduction (the WGMMA kernel's): each K part
   wrote its raw fp32 sums into partial[z] (M x N, column-major); one pass
   adds them in a fixed order, so every run gives the same bits. (The exact
   kernels split K with atomics into C instead, after C = beta*C.) */
#pragma once
#include "../device/common.cuh" /* gemm__cuda_store */

/* C = alpha * (the sum of the split parts, in order) + beta*C. */
template <typename TC>
__global__ void gemm__cuda_splitk_sum_kernel(int M, int N, int split, const float *partial, float alpha, float beta,
                                             TC *C, int64_t ldc)
{
    int64_t total = (int64_t)M * N;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        float sum = 0.0f;
        for (int z = 0; z < split; z++) sum += partial[z * total + e];
        gemm__cuda_store(&C[e % M + (e / M) * ldc], sum, alpha, beta, 0);
    }
}

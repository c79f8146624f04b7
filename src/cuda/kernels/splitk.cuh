/* Split-K's deterministic reduction (the WGMMA kernel's): each K part
   wrote its raw fp32 sums into partial[z] (M x N, column-major); one pass
   adds them in a fixed order, so every run gives the same bits. (The exact
   kernels split K with atomics into C instead, after C = beta*C.) */
#pragma once
#include <cuda_runtime.h>
#include <stdint.h>

/* One element of C from the parts' sum: alpha*sum, or alpha*sum + beta*C
   as one fma (written out, so that the sum kernel and the WGMMA kernel's
   last part, which both call this, round alike whatever the compiler
   would contract). */
template <typename TC>
__device__ __forceinline__ void gemm__cuda_splitk_put(TC *c, float sum, float alpha, float beta)
{
    *c = TC(beta == 0.0f ? alpha * sum : fmaf(alpha, sum, beta * float(*c)));
}

/* C = alpha * (the sum of the split parts, in order) + beta*C. Each
   thread takes four neighbouring rows of a column (one 16-byte load a
   part where M is a multiple of 4, so that the parts' columns are
   aligned); a block 64 x 4 threads, 256 rows of 4 columns, so that short
   columns (M = 256) keep every thread busy; rows along x, columns along
   y (grid-stride in both): no 64-bit division an element, as an index
   over all M x N would take. */
template <typename TC>
__global__ void gemm__cuda_splitk_sum_kernel(int M, int N, int split, const float *partial, float alpha, float beta,
                                             TC *C, int64_t ldc)
{
    int64_t total = (int64_t)M * N;
    for (int col = (int)(blockIdx.y * blockDim.y + threadIdx.y); col < N; col += (int)(gridDim.y * blockDim.y))
        for (int r = (int)(blockIdx.x * blockDim.x + threadIdx.x) * 4; r < M; r += (int)(gridDim.x * blockDim.x) * 4) {
            const float *p = partial + (int64_t)col * M + r;
            float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            int left = M - r < 4 ? M - r : 4;
            if (M % 4 == 0) {
                for (int z = 0; z < split; z++) {
                    float4 v = __ldcs(reinterpret_cast<const float4 *>(p + z * total));
                    s[0] += v.x; s[1] += v.y; s[2] += v.z; s[3] += v.w;
                }
            } else {
                for (int z = 0; z < split; z++)
                    for (int e = 0; e < left; e++) s[e] += p[z * total + e];
            }
            for (int e = 0; e < left; e++) gemm__cuda_splitk_put(&C[r + e + (int64_t)col * ldc], s[e], alpha, beta);
        }
}

/* The launch of the sum on `stream`: about 8192 blocks of 64 x 4
   threads at most. */
template <typename TC>
static void gemm__cuda_splitk_sum(int M, int N, int split, const float *partial, float alpha, float beta, TC *C,
                                  int64_t ldc, cudaStream_t stream)
{
    int bx = (M + 255) / 256, by = (N + 3) / 4;
    if (by > 65535) by = 65535;
    if ((int64_t)bx * by > 8192) by = 8192 / bx > 1 ? 8192 / bx : 1;
    gemm__cuda_splitk_sum_kernel<TC><<<dim3((unsigned)bx, (unsigned)by), dim3(64, 4), 0, stream>>>(
        M, N, split, partial, alpha, beta, C, ldc);
}

/* The plain int8 kernel of gemm_cuda_s8gemm, for GPUs (or builds)
   without the int8 WGMMA kernel and for options.kernel NAIVE. */
#pragma once
#include <stdint.h>

/* C = alpha*op(A)*op(B) + beta*C, a thread per element (beta == 0: C not
   read; K == 0: A and B not read), op(A)(r, q) at a[r*ars + q*aks] and
   op(B)(q, c) at b[q*bks + c*bcs]. */
__global__ void gemm__cuda_s8_plain_kernel(int M, int N, int K, const int8_t *a, int64_t ars, int64_t aks,
                                           const int8_t *b, int64_t bks, int64_t bcs, int alpha, int beta, int32_t *C,
                                           int64_t ldc)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
    if (i >= M) return;
    int sum = 0;
    for (int q = 0; q < K; q++) sum += (int)a[i * ars + q * aks] * (int)b[q * bks + j * bcs];
    int32_t *c = C + i + j * ldc;
    *c = beta == 0 ? alpha * sum : alpha * sum + beta * *c;
}

/* Every kernel solves the canonical problem of gemm.h (gemm__problem): C is
   column-major, M x N (element (i, j) at C[i + j*ldc]); op(A) is M x K and
   op(B) is K x N, with A and B already swapped for a row-major call. A
   "k-major" operand has its K index contiguous in memory.

   The ladder: one thread per element (NAIVE), 16x16 tiles of A and B in
   shared memory (TILED16: AUTO's kernel below sm_80, which has no
   cp.async), and C = beta*C alone (the scale kernel, also split-K's first
   step). Both rungs read any layout and alignment and check every edge;
   they serve benchmarks, old GPUs and the tensor-core modes below sm_80
   (NAIVE with exact fp32 sums). */
#pragma once
#include "../device/batch.cuh"
#include "../device/common.cuh" /* gemm__cuda_store */

/* T: A and B; S: the sums and scalars; TC: C (the tensor-core modes' fallback
   runs here with FP16/BF16 inputs, and with exact fp32 sums for TF32). */
template <typename T, typename S = T, typename TC = T>
__global__ void gemm__cuda_naive_kernel(int M, int N, int K, S alpha, const T *A, int64_t ars, int64_t acs,
                                        const T *B, int64_t brs, int64_t bcs, S beta, TC *C, int64_t ldc,
                                        gemm__cuda_batch bt)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x), j = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (i >= M || j >= N) return;
    gemm__cuda_member(bt, A, B, C);
    S sum = 0;
    for (int p = 0; p < K; p++) sum += S(A[i * ars + p * acs]) * S(B[p * brs + j * bcs]);
    gemm__cuda_store(&C[i + (int64_t)j * ldc], sum, alpha, beta, 0);
}

template <typename T>
__global__ void __launch_bounds__(256) gemm__cuda_tiled16_kernel(int M, int N, int K, T alpha, const T *A,
                                                                 int64_t ars, int64_t acs, const T *B, int64_t brs,
                                                                 int64_t bcs, T beta, T *C, int64_t ldc,
                                                                 gemm__cuda_batch bt)
{
    __shared__ T As[16][17], Bs[16][17]; /* +1: a column read does not hit one bank 16 times */
    int tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    int i = (int)blockIdx.x * 16 + tx, j = (int)blockIdx.y * 16 + ty;
    T sum = 0;
    gemm__cuda_member(bt, A, B, C);
    for (int p0 = 0; p0 < K; p0 += 16) {
        /* As[k][i] = op(A)(i, p0+k); Bs[k][j] = op(B)(p0+k, j); zeros outside. */
        int ai = (int)blockIdx.x * 16 + tx, ap = p0 + ty, bp = p0 + tx, bj = (int)blockIdx.y * 16 + ty;
        As[ty][tx] = ai < M && ap < K ? A[ai * ars + ap * acs] : T(0);
        Bs[tx][ty] = bp < K && bj < N ? B[bp * brs + bj * bcs] : T(0);
        __syncthreads();
#pragma unroll
        for (int q = 0; q < 16; q++) sum += As[q][tx] * Bs[q][ty];
        __syncthreads(); /* the next tile must not overwrite what slower threads still read */
    }
    if (i < M && j < N) gemm__cuda_store(&C[i + (int64_t)j * ldc], sum, alpha, beta, 0);
}

template <typename T, typename S = T>
__global__ void gemm__cuda_scale_kernel(int M, int N, S beta, T *C, int64_t ldc, gemm__cuda_batch bt)
{
    int64_t total = (int64_t)M * N;
    C = gemm__cuda_member_c(bt, C);
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        T *c = &C[e % M + (e / M) * ldc];
        *c = beta == S(0) ? T(0) : T(beta * S(*c));
    }
}

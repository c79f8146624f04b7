/* Tiny batch members (m and n at most 32, the chooser's rule): four
   members per block of 256 threads, 64 threads (8 x 8) per member, each
   thread R x R of C (R = TILE / 8). A member's op(A) and op(B) come in K
   chunks of KC straight from global memory into shared memory (cp.async,
   one element per copy, so any alignment, ld and layout is read in place;
   the threads walk each operand along its contiguous side), and C is
   written once. The large tiles' machinery (a 64 x 64 tile and its
   pipeline per member) left three quarters of its threads idle on a 32^3
   member and 15/16 on a 16^3 one; here every thread sums. A member's sums
   run over k in order in one thread: its bits do not depend on the batch
   around it. */
#pragma once
#include <stdint.h>
#include "../device/batch.cuh"
#include "../device/common.cuh" /* gemm__cuda_cp_async, gemm__cuda_store */

/* The kernel's shape for element type T and member tile TILE (16 or 32):
   threads per member, members per block, the K chunk (fp64 32 x 32 takes
   16 so a block's shared memory stays at 34 KB, as fp32's). */
template <typename T, int TILE> struct gemm__cuda_tiny_shape {
    static constexpr int R = TILE / 8, TPM = 64, NT = 256, G = NT / TPM;
    /* Blocks per SM the registers must allow (left alone, ptxas took 128
       registers a thread at TILE 32: two blocks per SM): the most that
       built without spilling for every layout (sm_90a, ptxas 13.0): fp32
       5 at 16 x 16 (48 registers), 4 at 32 x 32 (64); fp64 4 (64) and 3
       (80), whose sums take twice the registers. */
    static constexpr int MINB = sizeof(T) == 4 ? (TILE == 16 ? 5 : 4) : (TILE == 16 ? 4 : 3);
    static constexpr int KC = TILE == 32 && sizeof(T) == 8 ? 16 : TILE, LD = TILE + 1;
};

/* Copies one member's ROWS x KC chunk of an operand (op(A) as M x K,
   op(B) as N x K: row r, k index q) into s[q][r]; KMAJOR: q is the
   contiguous index in memory (element at X[r * ld + q]), else r
   (X[r + q * ld]). Elements outside rows x kc become zero. */
template <typename T, int TILE, int KC, int LD, int TPM, bool KMAJOR>
__device__ __forceinline__ void gemm__cuda_tiny_chunk(T (*s)[LD], const T *X, int64_t ld, int rows, int kc, int t)
{
    static_assert(TILE * KC % TPM == 0, "the chunk does not split evenly over the member's threads");
#pragma unroll 4 /* fully unrolled, the 16 copies' addresses of a 32 x 32 chunk took registers enough to spill */
    for (int j = 0; j < TILE * KC / TPM; j++) {
        int e = t + j * TPM;
        int r = KMAJOR ? e / KC : e % TILE, q = KMAJOR ? e % KC : e / TILE;
        T *dst = &s[q][r];
        if (r < rows && q < kc) gemm__cuda_cp_async<(int)sizeof(T)>(dst, X + (KMAJOR ? r * ld + q : r + q * ld));
        else *dst = T(0);
    }
}

/* One member's C = alpha * op(A) op(B) + beta * C by the TPM threads of
   slot g (beta = 0 never reads C); live: whether the slot has a member
   (a spare slot loads and stores nothing but keeps the block's barriers).
   AK / BKM: op(A) / op(B) k-major in memory. alpha != 0 and K > 0 here
   (the rest is the scale kernel's). As and Bs: the block's shared
   chunks (the kernel's, so that a kernel with several instances of this
   holds them once). Every launch that runs tiny members goes through
   here, so a member's bits are the same in each. */
template <typename T, int TILE, bool AK, bool BKM>
__device__ __forceinline__ void
gemm__cuda_tiny_member(int M, int N, int K, T alpha, const T *A, int64_t lda, const T *B, int64_t ldb, T beta, T *C,
                       int64_t ldc, bool live, T (*As)[gemm__cuda_tiny_shape<T, TILE>::KC][TILE + 1],
                       T (*Bs)[gemm__cuda_tiny_shape<T, TILE>::KC][TILE + 1])
{
    typedef gemm__cuda_tiny_shape<T, TILE> S;
    constexpr int R = S::R, KC = S::KC, LD = S::LD;
    int g = (int)threadIdx.x / S::TPM, t = (int)threadIdx.x % S::TPM, tx = t % 8, ty = t / 8;
    T acc[R][R];
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
        for (int c = 0; c < R; c++) acc[r][c] = T(0);
    for (int k0 = 0; k0 < K; k0 += KC) {
        int kc = live ? min(KC, K - k0) : 0;
        gemm__cuda_tiny_chunk<T, TILE, KC, LD, S::TPM, AK>(As[g], A + (AK ? k0 : k0 * lda), lda, M, kc, t);
        gemm__cuda_tiny_chunk<T, TILE, KC, LD, S::TPM, BKM>(Bs[g], B + (BKM ? k0 : k0 * ldb), ldb, N, kc, t);
        gemm__cuda_cp_commit();
        gemm__cuda_cp_wait<0>();
        __syncthreads();
#pragma unroll
        for (int q = 0; q < KC; q++) {
            T a[R], b[R];
#pragma unroll
            for (int r = 0; r < R; r++) a[r] = As[g][q][tx + 8 * r];
#pragma unroll
            for (int c = 0; c < R; c++) b[c] = Bs[g][q][ty + 8 * c];
#pragma unroll
            for (int r = 0; r < R; r++)
#pragma unroll
                for (int c = 0; c < R; c++) acc[r][c] = fma(a[r], b[c], acc[r][c]);
        }
        __syncthreads();
    }
    if (!live) return;
#pragma unroll
    for (int c = 0; c < R; c++)
#pragma unroll
        for (int r = 0; r < R; r++) {
            int m = tx + 8 * r, n = ty + 8 * c; /* a warp stores 8 consecutive rows of 4 columns */
            if (m < M && n < N) gemm__cuda_store(&C[m + (int64_t)n * ldc], acc[r][c], alpha, beta, 0);
        }
}

/* The members of bt from bt.first, G per block along blockIdx.x, all of
   one shape. */
template <typename T, int TILE, bool AK, bool BKM>
__global__ void __launch_bounds__(256, gemm__cuda_tiny_shape<T, TILE>::MINB)
gemm__cuda_tiny_kernel(int M, int N, int K, T alpha, const T *A, int64_t lda, const T *B, int64_t ldb, T beta, T *C,
                       int64_t ldc, gemm__cuda_batch bt)
{
    typedef gemm__cuda_tiny_shape<T, TILE> S;
    __shared__ T As[S::G][S::KC][S::LD], Bs[S::G][S::KC][S::LD];
    int64_t i = bt.first + (int64_t)blockIdx.x * S::G + (int)threadIdx.x / S::TPM;
    bool live = i < bt.count; /* the last block's spare members load nothing and store nothing */
    if (live) gemm__cuda_member_at(bt, i, A, B, C);
    gemm__cuda_tiny_member<T, TILE, AK, BKM>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, live, As, Bs);
}

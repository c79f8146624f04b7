/* SIMT: register-blocked fp32 and fp64 on the CUDA cores, over the cp.async
   ring. Each thread keeps a TM x TN tile of C in registers; each operand is
   read in the orientation it is stored in (k-major or not: two shared-memory
   layouts), so none of the 8 layout cases needs a transpose pass. VEC is
   the elements per global copy: 16 bytes for aligned operands, 1 for the
   rest. SWZ orders the blocks (gemm__cuda_block_tile). */
#pragma once
#include "../device/batch.cuh"
#include "../device/common.cuh"
#include "../device/ring.cuh" /* the cp.async mainloop */

/* Which row of its side of a tile (M for A, N for B) the thread's i-th value
   has: a k-major tile is read one row per value (rows x, x + SIDE/TM, ...),
   the other V contiguous rows at a time (x*V .. x*V+V-1, then further on). */
template <bool KMAJOR, int SIDE, int TM, int V> __device__ __forceinline__ int gemm__cuda_simt_row(int x, int i)
{
    return KMAJOR ? x + i * (SIDE / TM) : (i / V) * (SIDE / (TM / V)) + x * V + i % V;
}

/* The thread's TM values of one operand for k = kc .. kc+V-1, in 16-byte reads. */
template <typename T, typename TILE, bool KMAJOR, int SIDE, int TM, int V>
__device__ __forceinline__ void gemm__cuda_simt_frag(T (&f)[V][TM], const T *s, int x, int kc)
{
    typedef typename gemm__cuda_vec<T>::type vec;
#pragma unroll
    for (int i = 0; i < TM; i += KMAJOR ? 1 : V)
#pragma unroll
        for (int q = 0; q < (KMAJOR ? 1 : V); q++) {
            vec v = *reinterpret_cast<const vec *>(s + TILE::at(gemm__cuda_simt_row<KMAJOR, SIDE, TM, V>(x, i), kc + q));
#pragma unroll
            for (int e = 0; e < V; e++) {
                if (KMAJOR) f[e][i] = reinterpret_cast<const T *>(&v)[e];
                else f[q][i + e] = reinterpret_cast<const T *>(&v)[e];
            }
        }
}

/* Threads form a (BM/TM) x (BN/TN) grid; a warp is 8 (along M) x 4 (along N)
   threads, so one 16-byte shared-memory read per operand touches 8 or 4
   distinct addresses of one 128-byte line: no bank conflicts. */
template <typename T, int BM, int BN, int BK, int TM, int TN, int STAGES, int MINB, int SWZ, bool AK, bool BKM,
          int VEC>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), MINB)
gemm__cuda_simt_kernel(int M, int N, int K, int kchunk, T alpha, const T *A, int64_t lda, const T *B, int64_t ldb,
                       T beta, T *C, int64_t ldc, int atomic, gemm__cuda_batch bt)
{
    constexpr int NT = (BM / TM) * (BN / TN), V = 16 / (int)sizeof(T), PAD = V, XT = BM / TM;
    static_assert(XT % 8 == 0 && (BN / TN) % 4 == 0 && TM % V == 0 && TN % V == 0 && BK % V == 0, "bad tile");
    typedef gemm__cuda_tile<BM, BK, PAD, AK> TA;
    typedef gemm__cuda_tile<BN, BK, PAD, BKM> TB;
    extern __shared__ __align__(16) unsigned char gemm__cuda_smem[];
    T *As = reinterpret_cast<T *>(gemm__cuda_smem), *Bs = As + STAGES * TA::SIZE;
    int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
    int tx = (warp % (XT / 8)) * 8 + lane % 8, ty = (warp / (XT / 8)) * 4 + lane / 8;
    int bm, bn;
    int part = gemm__cuda_member(bt, A, B, C);
    gemm__cuda_block_tile<SWZ>(bm, bn);
    T acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] = T(0);

    gemm__cuda_mainloop<T, BM, BN, BK, STAGES, NT, AK, BKM, VEC, PAD>(
        As, Bs, M, N, K, kchunk, part, A, lda, B, ldb, bm, bn, [&](const T *as, const T *bs) {
#pragma unroll
            for (int kc = 0; kc < BK; kc += V) {
                T a[V][TM], b[V][TN];
                gemm__cuda_simt_frag<T, TA, AK, BM, TM, V>(a, as, tx, kc);
                gemm__cuda_simt_frag<T, TB, BKM, BN, TN, V>(b, bs, ty, kc);
#pragma unroll
                for (int q = 0; q < V; q++)
#pragma unroll
                    for (int i = 0; i < TM; i++)
#pragma unroll
                        for (int j = 0; j < TN; j++) acc[i][j] = fma(a[q][i], b[q][j], acc[i][j]);
            }
        });

    int m0 = bm * BM, n0 = bn * BN;
#pragma unroll
    for (int j = 0; j < TN; j++) {
        int n = n0 + gemm__cuda_simt_row<BKM, BN, TN, V>(ty, j);
#pragma unroll
        for (int i = 0; i < TM; i++) {
            int m = m0 + gemm__cuda_simt_row<AK, BM, TM, V>(tx, i);
            if (m < M && n < N) gemm__cuda_store(&C[m + (int64_t)n * ldc], acc[i][j], alpha, beta, atomic);
        }
    }
}

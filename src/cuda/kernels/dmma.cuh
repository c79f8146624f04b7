/* DMMA: fp64 on the FP64 tensor cores (mma.sync, sm_80+), over the cp.async
   ring: WARPS_M x WARPS_N warps, each a (BM/WARPS_M) x (BN/WARPS_N) tile of
   C made of 16x8 mma tiles, K = 4 per mma. */
#pragma once
#include "../device/batch.cuh"
#include "../device/common.cuh"
#include "../device/ring.cuh" /* the cp.async mainloop */

/* D += A*B for a 16x8 tile and K = 4, in the fragment layout of
   mma.m16n8k4.f64: lane = 4*g + t holds a[i] = A(g + 8*i, t), b[0] = B(t, g),
   d = D(g, 2t), D(g, 2t+1), D(g+8, 2t), D(g+8, 2t+1). Hopper has the shape
   natively; Ampere runs it as two m8n8k4 (rows g and g+8). */
__device__ __forceinline__ void gemm__cuda_dmma_m16n8k4(double *d, const double *a, const double *b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(b[0]));
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(d[0]), "+d"(d[1])
                 : "d"(a[0]), "d"(b[0]));
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(d[2]), "+d"(d[3])
                 : "d"(a[1]), "d"(b[0]));
#else
    (void)d; (void)a; (void)b;
    __trap();
#endif
}

/* PAD = 4 doubles puts the 4 rows a half-warp reads 8 banks apart. */
template <int BM, int BN, int BK, int STAGES, int WARPS_M, int WARPS_N, int MINB, int SWZ, bool AK, bool BKM, int VEC>
__global__ void __launch_bounds__(32 * WARPS_M * WARPS_N, MINB)
gemm__cuda_dmma_kernel(int M, int N, int K, int kchunk, double alpha, const double *A, int64_t lda,
                       const double *B, int64_t ldb, double beta, double *C, int64_t ldc, int atomic,
                       gemm__cuda_batch bt)
{
    constexpr int NT = 32 * WARPS_M * WARPS_N, PAD = 4, WM = BM / WARPS_M, WN = BN / WARPS_N, MT = WM / 16,
                  NTL = WN / 8, KI = 4;
    static_assert(BK % KI == 0 && WM % 16 == 0 && WN % 8 == 0, "bad tile");
    typedef gemm__cuda_tile<BM, BK, PAD, AK> TA;
    typedef gemm__cuda_tile<BN, BK, PAD, BKM> TB;
    extern __shared__ __align__(16) unsigned char gemm__cuda_smem[];
    double *As = reinterpret_cast<double *>(gemm__cuda_smem), *Bs = As + STAGES * TA::SIZE;
    int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32, g = lane / 4, t = lane % 4;
    int wm = (warp % WARPS_M) * WM, wn = (warp / WARPS_M) * WN, bm, bn;
    int part = gemm__cuda_member(bt, A, B, C);
    gemm__cuda_block_tile<SWZ>(bm, bn);
    double acc[MT][NTL][4];
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NTL; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) acc[i][j][r] = 0.0;

    gemm__cuda_mainloop<double, BM, BN, BK, STAGES, NT, AK, BKM, VEC, PAD>(
        As, Bs, M, N, K, kchunk, part, A, lda, B, ldb, bm, bn, [&](const double *as, const double *bs) {
#pragma unroll
            for (int ks = 0; ks < BK; ks += KI) {
                double b[NTL][KI / 4];
#pragma unroll
                for (int j = 0; j < NTL; j++)
#pragma unroll
                    for (int i = 0; i < KI / 4; i++) b[j][i] = bs[TB::at(wn + j * 8 + g, ks + t + 4 * i)];
#pragma unroll
                for (int mt = 0; mt < MT; mt++) {
                    double a[KI / 2];
#pragma unroll
                    for (int i = 0; i < KI / 2; i++) a[i] = as[TA::at(wm + mt * 16 + g + 8 * (i % 2), ks + t + 4 * (i / 2))];
#pragma unroll
                    for (int j = 0; j < NTL; j++) gemm__cuda_dmma_m16n8k4(acc[mt][j], a, b[j]);
                }
            }
        });

    int m0 = bm * BM + wm, n0 = bn * BN + wn;
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int j = 0; j < NTL; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) {
                int m = m0 + mt * 16 + g + 8 * (r / 2), n = n0 + j * 8 + 2 * t + r % 2;
                if (m < M && n < N) gemm__cuda_store(&C[m + (int64_t)n * ldc], acc[mt][j][r], alpha, beta, atomic);
            }
}

/* zgemm's small batch members on the fp64 tensor cores, read in place
   (the native path of host/complex_native.cuh, beside complex_simt.cuh):
   each complex product of a 16 x 8 x 4 block is four real ones,
       Re C += Re a Re b - Im a Im b,   Im C += Re a Im b + Im a Re b,
   each an mma.m16n8k4.f64 (kernels/dmma.cuh's gemm__cuda_dmma_m16n8k4),
   on the real and imaginary planes a slice of op(a) and op(b) is split
   into on its way to shared memory (conjugated there; -Im a is the
   negated fragment). The CUDA cores' fp64 peak is half the tensor
   cores', and cuBLAS's strided zgemm runs its 64^3 to 256^3 members above
   it; the real product on the expansion (the 1m method) moves 2-3x a
   small member's bytes. This kernel sums on the tensor cores and moves
   a, b and C alone.

   Shape: WARPS_M x WARPS_N warps, each a (BM/WARPS_M) x (BN/WARPS_N)
   tile of C in 16 x 8 fragments; the members, tiles and double-buffered
   k-slices are complex_simt.cuh's (gemm__cuda_ctiles). A thread's sums
   run over k in order. */
#pragma once
#include <stdint.h>
#include "complex_simt.cuh" /* gemm__cuda_csimt_args, _at, _put, gemm__cuda_ctiles */
#include "dmma.cuh"         /* gemm__cuda_dmma_m16n8k4 */

/* Stores the fetched elements into the planes re[q][r], im[q][r] (im
   times sign: -1 conjugates). */
template <int ROWS, int BK, int NT, int LD, bool KMAJOR, int LOADS>
__device__ __forceinline__ void gemm__cuda_cdmma_stash(double (*re)[LD], double (*im)[LD], const double (&v)[LOADS][2],
                                                      double sign)
{
#pragma unroll
    for (int j = 0; j < LOADS; j++) {
        int r, q;
        gemm__cuda_csimt_at<ROWS, BK, KMAJOR>((int)threadIdx.x + j * NT, r, q);
        re[q][r] = v[j][0];
        im[q][r] = v[j][1] * sign;
    }
}

/* The conjugations and transposes as gemm__cuda_ctiles takes them. PAD
   = 4 doubles: the fragment loads (lane 4g + t reads row g of k index t)
   of a half-warp then hit 16 distinct pairs of banks. */
template <int BM, int BN, int WARPS_M, int WARPS_N, bool A_TRANS, bool B_TRANS, int MINB>
__global__ void __launch_bounds__(32 * WARPS_M * WARPS_N, MINB) gemm__cuda_cdmma_kernel(gemm__cuda_csimt_args<double> g)
{
    constexpr int NT = 32 * WARPS_M * WARPS_N, BK = GEMM__CUDA_CSLICE, LDA = BM + 4, LDB = BN + 4;
    constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N, MT = WM / 16, NTL = WN / 8;
    static_assert(WM % 16 == 0 && WN % 8 == 0, "bad tile");
    __shared__ double Ar[2][BK][LDA], Ai[2][BK][LDA], Br[2][BK][LDB], Bi[2][BK][LDB];
    int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32, fg = lane / 4, ft = lane % 4;
    int wm = (warp % WARPS_M) * WM, wn = (warp / WARPS_M) * WN;
    double re[MT][NTL][4], im[MT][NTL][4];
    gemm__cuda_ctiles<double, BM, BN, BK, NT, A_TRANS, B_TRANS>(
        g,
        [&] {
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NTL; j++)
#pragma unroll
                    for (int r = 0; r < 4; r++) re[i][j][r] = im[i][j][r] = 0.0;
        },
        [&](int buf, const auto &va, const auto &vb, double sign_a, double sign_b) {
            gemm__cuda_cdmma_stash<BM, BK, NT, LDA, A_TRANS>(Ar[buf], Ai[buf], va, sign_a);
            gemm__cuda_cdmma_stash<BN, BK, NT, LDB, !B_TRANS>(Br[buf], Bi[buf], vb, sign_b);
        },
        [&](int buf) {
#pragma unroll
            for (int ks = 0; ks < BK; ks += 4) {
                double br[NTL][1], bi[NTL][1];
#pragma unroll
                for (int j = 0; j < NTL; j++) {
                    br[j][0] = Br[buf][ks + ft][wn + j * 8 + fg];
                    bi[j][0] = Bi[buf][ks + ft][wn + j * 8 + fg];
                }
#pragma unroll
                for (int i = 0; i < MT; i++) {
                    double ar[2], ai[2], an[2];
#pragma unroll
                    for (int h = 0; h < 2; h++) {
                        ar[h] = Ar[buf][ks + ft][wm + i * 16 + fg + 8 * h];
                        ai[h] = Ai[buf][ks + ft][wm + i * 16 + fg + 8 * h];
                        an[h] = -ai[h];
                    }
#pragma unroll
                    for (int j = 0; j < NTL; j++) {
                        gemm__cuda_dmma_m16n8k4(re[i][j], ar, br[j]);
                        gemm__cuda_dmma_m16n8k4(re[i][j], an, bi[j]);
                        gemm__cuda_dmma_m16n8k4(im[i][j], ar, bi[j]);
                        gemm__cuda_dmma_m16n8k4(im[i][j], ai, br[j]);
                    }
                }
            }
        },
        [&](int i0, int j0, double *c, bool pc) {
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NTL; j++)
#pragma unroll
                    for (int r = 0; r < 4; r++) {
                        int row = i0 + wm + i * 16 + fg + 8 * (r / 2), col = j0 + wn + j * 8 + 2 * ft + r % 2;
                        if (row < g.m && col < g.n)
                            gemm__cuda_csimt_put(c + 2 * (row + (int64_t)col * g.ldc), pc, re[i][j][r], im[i][j][r],
                                                 g);
                    }
        });
}

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
   tile of C in 16 x 8 fragments; k-slices of BK = 8 double-buffered
   through registers as in complex_simt.cuh (whose loads it shares), one
   barrier a slice. A thread's sums run over k in order; blockIdx.z is the
   member, blockIdx.x strides over the tiles of C. */
#pragma once
#include <stdint.h>
#include "complex_simt.cuh" /* gemm__cuda_csimt_args, _at, _fetch, _put */
#include "dmma.cuh"         /* gemm__cuda_dmma_m16n8k4 */

/* Stores the fetched elements into the planes re[q][r], im[q][r] (im
   times sign: -1 conjugates). */
template <int ROWS, int BK, int NT, int LD, int LOADS, bool KMAJOR>
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

/* A_TRANS, B_TRANS and the arguments as gemm__cuda_csimt_kernel's. PAD = 4
   doubles: the fragment loads (lane 4g + t reads row g of k index t) of a
   half-warp then hit 16 distinct pairs of banks. */
template <int BM, int BN, int WARPS_M, int WARPS_N, bool A_TRANS, bool B_TRANS, int MINB>
__global__ void __launch_bounds__(32 * WARPS_M * WARPS_N, MINB) gemm__cuda_cdmma_kernel(gemm__cuda_csimt_args<double> g)
{
    constexpr int NT = 32 * WARPS_M * WARPS_N, BK = 8, LDA = BM + 4, LDB = BN + 4;
    constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N, MT = WM / 16, NTL = WN / 8;
    constexpr int A_LOADS = BM * BK / NT, B_LOADS = BN * BK / NT;
    static_assert(WM % 16 == 0 && WN % 8 == 0 && BM * BK % NT == 0 && BN * BK % NT == 0, "bad tile");
    __shared__ double Ar[2][BK][LDA], Ai[2][BK][LDA], Br[2][BK][LDB], Bi[2][BK][LDB];
    int64_t member = g.first + (int64_t)blockIdx.z;
    const double *a = gemm__cuda_cside_at(g.sa, g.a, member), *b = gemm__cuda_cside_at(g.sb, g.b, member);
    double *c = gemm__cuda_cside_at(g.sc, g.c, member);
    bool pa = ((uintptr_t)a & 15) == 0, pb = ((uintptr_t)b & 15) == 0, pc = ((uintptr_t)c & 15) == 0;
    double sign_a = g.conj_a ? -1.0 : 1.0, sign_b = g.conj_b ? -1.0 : 1.0;
    int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32, fg = lane / 4, ft = lane % 4;
    int wm = (warp % WARPS_M) * WM, wn = (warp / WARPS_M) * WN;
    int tiles_m = (g.m + BM - 1) / BM;
    int64_t tiles = (int64_t)tiles_m * ((g.n + BN - 1) / BN);
    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        int i0 = (int)(tile % tiles_m) * BM, j0 = (int)(tile / tiles_m) * BN;
        double re[MT][NTL][4], im[MT][NTL][4], va[A_LOADS][2], vb[B_LOADS][2];
#pragma unroll
        for (int i = 0; i < MT; i++)
#pragma unroll
            for (int j = 0; j < NTL; j++)
#pragma unroll
                for (int r = 0; r < 4; r++) re[i][j][r] = im[i][j][r] = 0.0;
        gemm__cuda_csimt_fetch<double, BM, BK, NT, A_LOADS, A_TRANS>(va, a, g.lda, pa, i0, g.m, 0, g.k);
        gemm__cuda_csimt_fetch<double, BN, BK, NT, B_LOADS, !B_TRANS>(vb, b, g.ldb, pb, j0, g.n, 0, g.k);
        gemm__cuda_cdmma_stash<BM, BK, NT, LDA, A_LOADS, A_TRANS>(Ar[0], Ai[0], va, sign_a);
        gemm__cuda_cdmma_stash<BN, BK, NT, LDB, B_LOADS, !B_TRANS>(Br[0], Bi[0], vb, sign_b);
        __syncthreads();
        int buf = 0;
        for (int k0 = 0; k0 < g.k; k0 += BK) {
            bool more = k0 + BK < g.k;
            if (more) { /* the next slice in flight while this one is summed */
                gemm__cuda_csimt_fetch<double, BM, BK, NT, A_LOADS, A_TRANS>(va, a, g.lda, pa, i0, g.m, k0 + BK, g.k);
                gemm__cuda_csimt_fetch<double, BN, BK, NT, B_LOADS, !B_TRANS>(vb, b, g.ldb, pb, j0, g.n, k0 + BK, g.k);
            }
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
            if (more) { /* the other buffers: every thread finished reading them before the last barrier */
                gemm__cuda_cdmma_stash<BM, BK, NT, LDA, A_LOADS, A_TRANS>(Ar[buf ^ 1], Ai[buf ^ 1], va, sign_a);
                gemm__cuda_cdmma_stash<BN, BK, NT, LDB, B_LOADS, !B_TRANS>(Br[buf ^ 1], Bi[buf ^ 1], vb, sign_b);
            }
            __syncthreads();
            buf ^= 1;
        }
#pragma unroll
        for (int i = 0; i < MT; i++)
#pragma unroll
            for (int j = 0; j < NTL; j++)
#pragma unroll
                for (int r = 0; r < 4; r++) {
                    int row = i0 + wm + i * 16 + fg + 8 * (r / 2), col = j0 + wn + j * 8 + 2 * ft + r % 2;
                    if (row < g.m && col < g.n)
                        gemm__cuda_csimt_put(c + 2 * (row + (int64_t)col * g.ldc), pc, re[i][j][r], im[i][j][r], g);
                }
    }
}

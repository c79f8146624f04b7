/* bench/research/exact/f32_kernels.cuh - fp32 candidates (SIMT, FFMA).

   s_w_kernel: warp-tiled SIMT in the shape cuBLAS's SIMT kernels use on
   Ampere and Hopper: a warp owns a WM x WN tile of C (64x64 by default),
   its 32 threads a (WM/LM) x (WN/LN) tile each (8x16 or 16x8 values = 128
   accumulators: 128 FFMA per 6 shared loads per k), made of 4x4 sub-tiles
   LM*4 rows and LN*4 columns apart, so that every shared-memory read is an
   LDS.128 touching LM (or LN) distinct 16-byte words: one wavefront. Both
   operands are multiplied from [k][side] tiles; an M-(N-)major operand is
   copied there directly (cp.async ring of STAGES K tiles), a k-major one
   into a [side][BK+4] staging ring and transposed, one K tile ahead, by the
   block itself (LDS.128 + 4 STS.32 per 4 elements, about 1% of the
   instructions) into one of two [k][side] buffers. One barrier per K tile.
   No 128-register cap: 128-thread blocks at 2 per SM (up to 255 registers),
   or 256-thread blocks at 1 per SM. */
#ifndef RX_F32_KERNELS_CUH
#define RX_F32_KERNELS_CUH

#include "common.cuh"

namespace rx {

/* Copies a [ROWS][COLS] tile whose COLS are contiguous in global memory
   (row stride ld) into shared memory (row stride SLD): rows < rows_left and
   cols < cols_left are read, the rest becomes zero. VEC = 4: 16-byte
   chunks (X, ld 16-byte aligned), a thread's chunks are rows NT/(COLS/4)
   apart; VEC = 1: element by element. cp(dst, src, bytes, src_bytes) does
   one copy (cp.async in the kernel, a plain copy in model.cu). */
#pragma nv_exec_check_disable
template <int ROWS, int COLS, int SLD, int VEC, int NT, typename CP>
RX_HD void s_copy_tile_with(float *s, const float *X, int64_t ld, int rows_left, int cols_left, int tid, CP cp)
{
    if constexpr (VEC == 4) {
        constexpr int CPR = COLS / 4, RSTEP = NT / CPR, ITER = ROWS / RSTEP;
        static_assert(NT % CPR == 0 && ROWS % RSTEP == 0, "tile does not split evenly");
        int r = tid / CPR, c = (tid % CPR) * 4;
        float *d = s + r * SLD + c;
        const float *gp = X + (int64_t)r * ld + c;
        int64_t step = (int64_t)RSTEP * ld;
        if (rows_left >= ROWS && cols_left >= COLS) {
            RX_UNROLL(unroll)
            for (int i = 0; i < ITER; i++) {
                cp(d + i * RSTEP * SLD, gp, 16, 16);
                gp += step;
            }
        } else {
            int cv = min(4, max(0, cols_left - c));
            RX_UNROLL(unroll)
            for (int i = 0; i < ITER; i++) {
                int valid = r + i * RSTEP < rows_left ? cv : 0;
                cp(d + i * RSTEP * SLD, valid > 0 ? gp : X, 16, valid * 4);
                gp += step;
            }
        }
    } else {
        static_assert((ROWS * COLS) % NT == 0, "tile does not split evenly");
        RX_UNROLL(unroll 4)
        for (int i = 0; i < ROWS * COLS / NT; i++) {
            int e = tid + i * NT, r = e / COLS, c = e % COLS;
            bool valid = r < rows_left && c < cols_left;
            cp(s + r * SLD + c, valid ? X + (int64_t)r * ld + c : X, 4, valid ? 4 : 0);
        }
    }
}

template <int ROWS, int COLS, int SLD, int VEC, int NT>
__device__ __forceinline__ void s_copy_tile(float *s, const float *X, int64_t ld, int rows_left, int cols_left, int tid)
{
    s_copy_tile_with<ROWS, COLS, SLD, VEC, NT>(s, X, ld, rows_left, cols_left, tid,
                                               [](float *d, const float *g, int bytes, int src_bytes) {
                                                   if (bytes == 16) {
                                                       if (src_bytes == 16) cp_async_full<16>(d, g);
                                                       else cp_async<16>(d, g, src_bytes);
                                                   } else {
                                                       cp_async<4>(d, g, src_bytes);
                                                   }
                                               });
}

/* staging [SIDE][BK+4] -> [BK][SIDE]: a warp reads 32 consecutive rows (row
   stride BK+4 floats: 8 rows hit 8 distinct 16-byte bank groups) and writes
   32 consecutive floats of a k row. */
template <int SIDE, int BK, int NT> RX_HD void s_transpose(const float *st, float *T, int tid)
{
    static_assert((SIDE * BK / 4) % NT == 0, "transpose does not split evenly");
    RX_UNROLL(unroll)
    for (int i = 0; i < SIDE * BK / 4 / NT; i++) {
        int c = tid + i * NT, r = c % SIDE, k4 = (c / SIDE) * 4;
        float4 v = *reinterpret_cast<const float4 *>(st + r * (BK + 4) + k4);
        float *d = T + k4 * SIDE + r;
        d[0] = v.x; d[SIDE] = v.y; d[2 * SIDE] = v.z; d[3 * SIDE] = v.w;
    }
}

template <int BM, int BN, int BK, int WM, int WN, int LM> struct SWShape {
    static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN, NT = 32 * WARPS_M * WARPS_N, LN = 32 / LM,
                         TMV = WM / LM, TNV = WN / LN, TMS = TMV / 4, TNS = TNV / 4;
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % (4 * LM) == 0 && WN % (4 * LN) == 0, "bad warp tile");
    /* floats of shared memory for one operand of side S */
    template <bool KMAJ, int S, int STAGES> static constexpr int operand() { return KMAJ ? STAGES * S * (BK + 4) + 2 * BK * S : STAGES * BK * S; }
    template <bool AK, bool BKM, int STAGES> static constexpr int smem_bytes()
    {
        return 4 * (operand<AK, BM, STAGES>() + operand<BKM, BN, STAGES>());
    }
    /* a thread's first row and column in the block (its warp's origin plus its lane's) */
    RX_HD static void origin(int tid, int &wm, int &wn)
    {
        int warp = tid / 32, lane = tid % 32;
        wm = (warp % WARPS_M) * WM + (lane % LM) * 4;
        wn = (warp / WARPS_M) * WN + (lane / LM) * 4;
    }
    /* row of a[i] / acc[i][*] and column of b[j] / acc[*][j] from the origin */
    RX_HD static int m_of(int i) { return (i / 4) * LM * 4 + i % 4; }
    RX_HD static int n_of(int j) { return (j / 4) * LN * 4 + j % 4; }
};

template <int BM, int BN, int BK, int WM, int WN, int LM, int STAGES, int MINB, int GROUP, bool AK, bool BKM, int VEC>
__global__ void __launch_bounds__(SWShape<BM, BN, BK, WM, WN, LM>::NT, MINB)
s_w_kernel(int M, int N, int K, int kchunk, float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
           float beta, float *C, int64_t ldc, int atomic)
{
    typedef SWShape<BM, BN, BK, WM, WN, LM> S;
    constexpr int NT = S::NT, TMV = S::TMV, TNV = S::TNV, TMS = S::TMS, TNS = S::TNS;
    constexpr bool TR = AK || BKM; /* some operand is transposed one K tile ahead */
    static_assert(STAGES >= (TR ? 3 : 2), "too few stages");
    /* per operand: ring stage size, ring stage row stride */
    constexpr int RA = AK ? BM * (BK + 4) : BK * BM, RB = BKM ? BN * (BK + 4) : BK * BN;
    extern __shared__ __align__(16) unsigned char rx_smem32[];
    float *ringA = reinterpret_cast<float *>(rx_smem32), *ringB = ringA + STAGES * RA;
    float *TA = ringB + STAGES * RB, *TB = TA + (AK ? 2 * BK * BM : 0); /* transposed buffers [2][BK][side] */

    int tid = (int)threadIdx.x, wm, wn;
    S::origin(tid, wm, wn);
    int tm = (M + BM - 1) / BM, tn = (N + BN - 1) / BN, bm, bn;
    raster<GROUP>((int)blockIdx.x, tm, tn, bm, bn);
    int m0 = bm * BM, n0 = bn * BN;
    int kbeg = (int)blockIdx.y * kchunk, kend = min(K, kbeg + kchunk);
    int ktiles = kend > kbeg ? (kend - kbeg + BK - 1) / BK : 0;
    const float *Ap = AK ? A + (int64_t)m0 * lda + kbeg : A + m0 + (int64_t)kbeg * lda;
    const float *Bp = BKM ? B + (int64_t)n0 * ldb + kbeg : B + n0 + (int64_t)kbeg * ldb;
    int64_t astep = AK ? BK : (int64_t)BK * lda, bstep = BKM ? BK : (int64_t)BK * ldb;

    auto load = [&](int st, int kt) {
        int kleft = kend - kbeg - kt * BK;
        if (AK) s_copy_tile<BM, BK, BK + 4, VEC, NT>(ringA + st * RA, Ap + kt * astep, lda, M - m0, kleft, tid);
        else s_copy_tile<BK, BM, BM, VEC, NT>(ringA + st * RA, Ap + kt * astep, lda, kleft, M - m0, tid);
        if (BKM) s_copy_tile<BN, BK, BK + 4, VEC, NT>(ringB + st * RB, Bp + kt * bstep, ldb, N - n0, kleft, tid);
        else s_copy_tile<BK, BN, BN, VEC, NT>(ringB + st * RB, Bp + kt * bstep, ldb, kleft, N - n0, tid);
    };
    auto transpose = [&](int st, int buf) {
        if (AK) s_transpose<BM, BK, NT>(ringA + st * RA, TA + buf * BK * BM, tid);
        if (BKM) s_transpose<BN, BK, NT>(ringB + st * RB, TB + buf * BK * BN, tid);
    };

    float acc[TMV][TNV];
#pragma unroll
    for (int i = 0; i < TMV; i++)
#pragma unroll
        for (int j = 0; j < TNV; j++) acc[i][j] = 0.0f;

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ktiles) load(s, s);
        cp_commit();
    }
    if constexpr (TR) {
        cp_wait<STAGES - 2>();
        __syncthreads();
        if (ktiles > 0) transpose(0, 0);
    }
    int cs = 0, ls = STAGES - 1;
    for (int kt = 0; kt < ktiles; kt++) {
        if constexpr (TR) cp_wait<(TR ? STAGES - 3 : 0)>(); /* tile kt+1 is in */
        else cp_wait<STAGES - 2>();                         /* tile kt is in */
        __syncthreads();
        if (kt + STAGES - 1 < ktiles) load(ls, kt + STAGES - 1);
        cp_commit();
        if constexpr (TR)
            if (kt + 1 < ktiles) transpose(cs + 1 == STAGES ? 0 : cs + 1, (kt + 1) & 1);
        const float *as = AK ? TA + (kt & 1) * BK * BM : ringA + cs * RA;
        const float *bs = BKM ? TB + (kt & 1) * BK * BN : ringB + cs * RB;
        float a[2][TMV], b[2][TNV];
        auto frag = [&](int k, float(&fa)[TMV], float(&fb)[TNV]) {
#pragma unroll
            for (int i = 0; i < TMS; i++) {
                float4 v = *reinterpret_cast<const float4 *>(as + k * BM + wm + S::m_of(4 * i));
                fa[4 * i] = v.x; fa[4 * i + 1] = v.y; fa[4 * i + 2] = v.z; fa[4 * i + 3] = v.w;
            }
#pragma unroll
            for (int j = 0; j < TNS; j++) {
                float4 v = *reinterpret_cast<const float4 *>(bs + k * BN + wn + S::n_of(4 * j));
                fb[4 * j] = v.x; fb[4 * j + 1] = v.y; fb[4 * j + 2] = v.z; fb[4 * j + 3] = v.w;
            }
        };
        frag(0, a[0], b[0]);
#pragma unroll
        for (int k = 0; k < BK; k++) {
            if (k + 1 < BK) frag(k + 1, a[(k + 1) & 1], b[(k + 1) & 1]);
#pragma unroll
            for (int i = 0; i < TMV; i++)
#pragma unroll
                for (int j = 0; j < TNV; j++) acc[i][j] = fmaf(a[k & 1][i], b[k & 1][j], acc[i][j]);
        }
        cs = cs + 1 == STAGES ? 0 : cs + 1;
        ls = ls + 1 == STAGES ? 0 : ls + 1;
    }
    cp_wait<0>();

    bool vec = ((uintptr_t)C & 15) == 0 && (ldc & 3) == 0;
#pragma unroll
    for (int j = 0; j < TNV; j++) {
        int n = n0 + wn + S::n_of(j);
        if (n >= N) continue;
#pragma unroll
        for (int i = 0; i < TMS; i++) {
            int m = m0 + wm + S::m_of(4 * i);
            if (m < M) {
                const float x[4] = {acc[4 * i][j], acc[4 * i + 1][j], acc[4 * i + 2][j], acc[4 * i + 3][j]};
                store4(&C[m + (int64_t)n * ldc], x, M - m, alpha, beta, atomic, vec);
            }
        }
    }
}

} // namespace rx

#endif

/* bench/research/exact/f64_kernels.cuh - fp64 candidates on the FP64 tensor
   cores (DMMA through mma.sync), both reading the swizzled tiles of
   f64_frag.cuh with 16-byte fragment loads and 64x32 warp tiles.

   d_ms_kernel: every thread copies (cp.async ring of STAGES K tiles of 16,
   one barrier per K tile) and multiplies; no 128-register cap: 128-thread
   blocks at 2 per SM or 256-thread blocks at 1 per SM.

   d_ws_kernel: warp-specialised and persistent. Warpgroup NCWG (the last)
   produces: one thread issues the bulk tensor copies (TMA, the 128-byte
   swizzle) of each stage into a ring of STAGES on mbarriers, or (VEC = 1,
   operands the copy engine cannot describe: base or leading dimension not
   16-byte aligned) its 128 threads copy with cp.async and arrive on the
   stage's barrier when their copies land. Warpgroups 0..NCWG-1 consume,
   each warp a 64x32 tile; setmaxnreg gives the consumers the producer's
   registers. The grid is at most one block per SM slot; each block walks
   the work units (tile, K part) u = blockIdx.x, + gridDim.x, ..., so the
   producer fills the next unit's stages while the consumers write C. */
#ifndef RX_F64_KERNELS_CUH
#define RX_F64_KERNELS_CUH

#include "f64_frag.cuh"

namespace rx {

/* The warps of a BM x BN block: each a 64 x 32 tile of X rows x Y columns. */
template <int BM, int BN, bool AK, bool BKM> struct DWarps {
    typedef DRoles<AK, BKM> R;
    static constexpr int BX = R::SWAP ? BN : BM, BY = R::SWAP ? BM : BN, WX = 64, WY = 32, WARPS_X = BX / WX,
                         WARPS = (BM / 32) * (BN / 32) / 2, MT = WX / 16, NTL = WY / 8;
    static_assert(BX % WX == 0 && BY % WY == 0, "the block is not a whole number of 64x32 warp tiles");
};

template <int BM, int BN, int STAGES, int MINB, int KI, int GROUP, bool AK, bool BKM, int VEC>
__global__ void __launch_bounds__(BM * BN / 64, MINB)
d_ms_kernel(int M, int N, int K, int kchunk, double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
            double beta, double *C, int64_t ldc, int atomic)
{
    typedef DRoles<AK, BKM> R;
    typedef DWarps<BM, BN, AK, BKM> W;
    constexpr int NT = BM * BN / 64, SA = BM * 16, SB = BN * 16;
    static_assert(STAGES >= 2, "bad ring");
    extern __shared__ __align__(1024) unsigned char rx_smem[];
    double *As = reinterpret_cast<double *>(rx_smem), *Bs = As + STAGES * SA;
    int tid = (int)threadIdx.x, warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
    int wx = (warp % W::WARPS_X) * W::WX, wy = (warp / W::WARPS_X) * W::WY;
    const XFrag<R::XK> FX(wx, g, t);
    const YFrag<R::YK> FY(wy, g, t);
    int tm = (M + BM - 1) / BM, tn = (N + BN - 1) / BN, bm, bn;
    raster<GROUP>((int)blockIdx.x, tm, tn, bm, bn);
    int m0 = bm * BM, n0 = bn * BN;
    int kbeg = (int)blockIdx.y * kchunk, kend = min(K, kbeg + kchunk);
    int ktiles = kend > kbeg ? (kend - kbeg + 15) / 16 : 0;
    const double *Ap = AK ? A + (int64_t)m0 * lda + kbeg : A + m0 + (int64_t)kbeg * lda;
    const double *Bp = BKM ? B + (int64_t)n0 * ldb + kbeg : B + n0 + (int64_t)kbeg * ldb;
    int64_t astep = AK ? 16 : 16 * lda, bstep = BKM ? 16 : 16 * ldb;
    auto load = [&](int stage, int kt) {
        int kleft = kend - kbeg - kt * 16;
        if (R::ATRANS) d_copy_tile_t<BM, NT>(As + stage * SA, Ap + kt * astep, lda, M - m0, kleft, tid);
        else d_copy_tile<BM, AK, VEC, NT>(As + stage * SA, Ap + kt * astep, lda, M - m0, kleft, tid);
        d_copy_tile<BN, BKM, VEC, NT>(Bs + stage * SB, Bp + kt * bstep, ldb, N - n0, kleft, tid);
    };

    double acc[W::MT][W::NTL][4];
#pragma unroll
    for (int i = 0; i < W::MT; i++)
#pragma unroll
        for (int j = 0; j < W::NTL; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) acc[i][j][r] = 0.0;

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ktiles) load(s, s);
        cp_commit();
    }
    int cs = 0, ls = STAGES - 1; /* the stage computed and the stage loaded next */
    for (int kt = 0; kt < ktiles; kt++) {
        cp_wait<STAGES - 2>();
        __syncthreads(); /* tile kt is in; every warp is done with the stage refilled below */
        if (kt + STAGES - 1 < ktiles) load(ls, kt + STAGES - 1);
        cp_commit();
        const double *as = As + cs * SA, *bs = Bs + cs * SB;
        d_warp_tile<R::XK, R::YK, W::MT, W::NTL, KI>(R::SWAP ? bs : as, R::SWAP ? as : bs, FX, FY, acc);
        cs = cs + 1 == STAGES ? 0 : cs + 1;
        ls = ls + 1 == STAGES ? 0 : ls + 1;
    }
    cp_wait<0>();
    d_warp_store<R::SWAP, R::XK, R::YK, W::MT, W::NTL>(acc, (R::SWAP ? n0 : m0) + wx, (R::SWAP ? m0 : n0) + wy, g, t,
                                                       M, N, alpha, beta, C, ldc, atomic);
}

/* ---- warp-specialised, TMA, persistent ---- */

template <int NCWG> struct DWsShape {
    static constexpr int BM = 128, BN = 64 * NCWG, CONSUMERS = 128 * NCWG, THREADS = CONSUMERS + 128,
                         MINB = NCWG == 2 ? 1 : 2, REG_PRODUCER = 40, REG_CONSUMER = NCWG == 2 ? 232 : 216,
                         SA = BM * 16, SB = BN * 16, STAGE_BYTES = (SA + SB) * 8;
    static_assert(REG_PRODUCER * 128 + REG_CONSUMER * CONSUMERS <= 65536 / MINB, "registers");
    static constexpr int smem(int stages) { return stages * STAGE_BYTES + 1024 + 2 * stages * 8; }
};

template <int NCWG, int STAGES, int KI, int GROUP, bool AK, bool BKM, int VEC>
__global__ void __launch_bounds__(DWsShape<NCWG>::THREADS, DWsShape<NCWG>::MINB)
d_ws_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int tm, int tn,
            int split, int M, int N, int K, int kchunk, double alpha, const double *A, int64_t lda, const double *B,
            int64_t ldb, double beta, double *C, int64_t ldc, int atomic)
{
#if RX_SM90A
    typedef DWsShape<NCWG> S;
    typedef DRoles<AK, BKM> R;
    typedef DWarps<S::BM, S::BN, AK, BKM> W;
    constexpr int BM = S::BM, BN = S::BN;
    static_assert(W::WARPS * 32 == S::CONSUMERS, "consumer warps");
    extern __shared__ __align__(1024) unsigned char rx_smem[];
    /* the 128-byte swizzle repeats every 1024 bytes: the ring starts on such a boundary */
    unsigned char *base = rx_smem + ((1024 - smem_u32(rx_smem) % 1024) % 1024);
    uint64_t *full = reinterpret_cast<uint64_t *>(base + STAGES * S::STAGE_BYTES), *empty = full + STAGES;
    int tiles = tm * tn, total = tiles * split;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            /* TMA: one arrival with the byte count; cp.async: the producer's 128 threads; both (ATRANS) */
            mbar_init(&full[s], VEC == 2 ? (R::ATRANS ? 129 : 1) : 128);
            mbar_init(&empty[s], S::CONSUMERS);
        }
        mbar_fence_init();
    }
    __syncthreads();

    /* unit u -> its tile origin and K range */
    auto unit = [&](int u, int &m0, int &n0, int &kbeg, int &ktiles) {
        int bm, bn, kz = u / tiles;
        raster<GROUP>(u - kz * tiles, tm, tn, bm, bn);
        m0 = bm * BM;
        n0 = bn * BN;
        kbeg = kz * kchunk;
        int kend = min(K, kbeg + kchunk);
        ktiles = kend > kbeg ? (kend - kbeg + 15) / 16 : 0;
    };

    if ((int)threadIdx.x >= S::CONSUMERS) { /* producer warpgroup */
        setmaxnreg_dec<S::REG_PRODUCER>();
        int ptid = (int)threadIdx.x - S::CONSUMERS;
        if (VEC == 2 && !R::ATRANS && ptid != 0) return;
        unsigned it = 0;
        for (int u = (int)blockIdx.x; u < total; u += (int)gridDim.x) {
            int m0, n0, kbeg, ktiles;
            unit(u, m0, n0, kbeg, ktiles);
            for (int kt = 0; kt < ktiles; kt++, it++) {
                unsigned s = it % STAGES;
                if (it >= STAGES) mbar_wait(&empty[s], (it / STAGES - 1) & 1);
                double *as = reinterpret_cast<double *>(base + s * S::STAGE_BYTES), *bs = as + S::SA;
                int k0 = kbeg + kt * 16, kleft = min(K, kbeg + kchunk) - k0;
                const double *Ak = AK ? A + (int64_t)m0 * lda + k0 : A + m0 + (int64_t)k0 * lda;
                const double *Bk = BKM ? B + (int64_t)n0 * ldb + k0 : B + n0 + (int64_t)k0 * ldb;
                if constexpr (VEC == 2) {
                    if (ptid == 0) {
                        mbar_expect_tx(&full[s], R::ATRANS ? S::SB * 8 : S::STAGE_BYTES);
                        if (R::ATRANS) {
                            /* A by the producer's threads below */
                        } else if (AK) {
                            tma_load_2d(as, &map_a, k0, m0, &full[s]);
                        } else {
#pragma unroll 1
                            for (int j = 0; j < BM / 16; j++) tma_load_2d(as + 256 * j, &map_a, m0 + 16 * j, k0, &full[s]);
                        }
                        if (BKM) {
                            tma_load_2d(bs, &map_b, k0, n0, &full[s]);
                        } else {
#pragma unroll 1
                            for (int j = 0; j < BN / 16; j++) tma_load_2d(bs + 256 * j, &map_b, n0 + 16 * j, k0, &full[s]);
                        }
                    }
                    if (R::ATRANS) {
                        d_copy_tile_t<BM, 128>(as, Ak, lda, M - m0, kleft, ptid);
                        mbar_cp_async_arrive(&full[s]);
                    }
                } else {
                    if (R::ATRANS) d_copy_tile_t<BM, 128>(as, Ak, lda, M - m0, kleft, ptid);
                    else d_copy_tile<BM, AK, 1, 128>(as, Ak, lda, M - m0, kleft, ptid);
                    d_copy_tile<BN, BKM, 1, 128>(bs, Bk, ldb, N - n0, kleft, ptid);
                    mbar_cp_async_arrive(&full[s]);
                }
            }
        }
    } else { /* consumers */
        setmaxnreg_inc<S::REG_CONSUMER>();
        int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32, g = lane / 4, t = lane % 4;
        int wx = (warp % W::WARPS_X) * W::WX, wy = (warp / W::WARPS_X) * W::WY;
        const XFrag<R::XK> FX(wx, g, t);
        const YFrag<R::YK> FY(wy, g, t);
        unsigned it = 0;
        for (int u = (int)blockIdx.x; u < total; u += (int)gridDim.x) {
            int m0, n0, kbeg, ktiles;
            unit(u, m0, n0, kbeg, ktiles);
            double acc[W::MT][W::NTL][4];
#pragma unroll
            for (int i = 0; i < W::MT; i++)
#pragma unroll
                for (int j = 0; j < W::NTL; j++)
#pragma unroll
                    for (int r = 0; r < 4; r++) acc[i][j][r] = 0.0;
            for (int kt = 0; kt < ktiles; kt++, it++) {
                unsigned s = it % STAGES;
                mbar_wait(&full[s], (it / STAGES) & 1);
                const double *as = reinterpret_cast<const double *>(base + s * S::STAGE_BYTES), *bs = as + S::SA;
                d_warp_tile<R::XK, R::YK, W::MT, W::NTL, KI>(R::SWAP ? bs : as, R::SWAP ? as : bs, FX, FY, acc);
                mbar_arrive(&empty[s]);
            }
            d_warp_store<R::SWAP, R::XK, R::YK, W::MT, W::NTL>(acc, (R::SWAP ? n0 : m0) + wx, (R::SWAP ? m0 : n0) + wy,
                                                               g, t, M, N, alpha, beta, C, ldc, atomic);
        }
    }
#else
    (void)map_a; (void)map_b; (void)tm; (void)tn; (void)split; (void)M; (void)N; (void)K; (void)kchunk; (void)alpha;
    (void)A; (void)lda; (void)B; (void)ldb; (void)beta; (void)C; (void)ldc; (void)atomic;
#endif
}

} // namespace rx

#endif

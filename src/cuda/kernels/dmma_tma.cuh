/* DMMA on Hopper (sm_90a): fp64 on the FP64 tensor cores, warp-specialised
   and persistent. The last warpgroup produces: one thread has the copy
   engine (TMA) bring each K tile of both operands, 128-byte swizzled, into
   a ring of STAGES on mbarriers; the other warpgroups consume, each warp a
   64 x 32 tile of C in m16n8k16 MMAs (dmma_frag.cuh's fragments: 16-byte
   loads, no bank conflicts). setmaxnreg moves the producer's registers to
   the consumers. The grid is at most one block per SM slot; each block
   walks the work units (tile of C, K part) u = blockIdx.x + i * gridDim.x,
   in groups of 8 tile-rows (blocks running together share panels of A and
   B in L2), and the producer fills the next unit's stages while the
   consumers write C. A strided batch adds its members to the units (the
   member outermost) and reads them through 3-D tensor maps. Where the
   tiles' last round would leave SMs idle, a single call runs stream-K
   on one block a SM: the last tiles' K steps are dealt out evenly, one
   run a block, and a tile that two blocks share is summed in a fixed
   order (device/stream_k.cuh). The copy engine zero-fills past every
   edge, so the consumers never test bounds until the epilogue. Two shapes
   (exact_plan.cuh's variants): 128 x 128 tiles, two consumer warpgroups,
   5 stages, one block per SM; 128 x 64, one consumer warpgroup, 4
   stages, two blocks per SM. Every layout is read in place (k-major or
   M-/N-major tiles, dmma_frag.cuh); operands whose base or leading
   dimension is not 16-byte aligned are realigned into scratch first
   (exact_run.cuh). */
#pragma once
#include <cuda.h> /* CUtensorMap */
#include <stdint.h>
#include "../device/common.cuh" /* gemm__cuda_store */
#include "../device/dmma_frag.cuh" /* tiles and fragments */
#include "../device/stream_k.cuh"
#include "../device/wgmma_ptx.cuh" /* mbarriers, TMA, setmaxnreg */

/* D += A * B for a 16x8 tile and K = 16 (two steps of 8 in one instruction). */
__device__ __forceinline__ void gemm__cuda_dmma_m16n8k16(double (&d)[4], const double (&a0)[4], const double (&a1)[4],
                                                         const double (&b0)[2], const double (&b1)[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a0[0]), "d"(a0[1]), "d"(a0[2]), "d"(a0[3]), "d"(a1[0]), "d"(a1[1]), "d"(a1[2]), "d"(a1[3]),
                   "d"(b0[0]), "d"(b0[1]), "d"(b1[0]), "d"(b1[1]));
#else
    (void)d; (void)a0; (void)a1; (void)b0; (void)b1;
#endif
}

/* D += A * B for a 16x8 tile and K = 8 (one step). */
__device__ __forceinline__ void gemm__cuda_dmma_m16n8k8(double (&d)[4], const double (&a)[4], const double (&b)[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#else
    (void)d; (void)a; (void)b;
#endif
}

/* One warp's MT x NTL MMA tiles over one 16-deep K tile: KI = 16, one
   m16n8k16 per tile (half the instructions), or KI = 8, two m16n8k8 (half
   the fragments live at once: where 16 would spill). */
template <bool XK, bool YK, int MT, int NTL, int KI>
__device__ __forceinline__ void gemm__cuda_dt_warp_tile(const double *Xs, const double *Ys,
                                                        const gemm__cuda_dt_xfrag<XK> &fx,
                                                        const gemm__cuda_dt_yfrag<YK> &fy, double (&acc)[MT][NTL][4])
{
    if constexpr (KI == 16) {
        double b[2][NTL][2];
#pragma unroll
        for (int s = 0; s < 2; s++)
#pragma unroll
            for (int nt = 0; nt < NTL; nt++) fy.load(Ys, nt, s, b[s][nt]);
#pragma unroll
        for (int mt = 0; mt < MT; mt++) {
            double a0[4], a1[4];
            fx.load(Xs, mt, 0, a0);
            fx.load(Xs, mt, 1, a1);
#pragma unroll
            for (int nt = 0; nt < NTL; nt++) gemm__cuda_dmma_m16n8k16(acc[mt][nt], a0, a1, b[0][nt], b[1][nt]);
        }
    } else {
#pragma unroll
        for (int s = 0; s < 2; s++) {
            double b[NTL][2];
#pragma unroll
            for (int nt = 0; nt < NTL; nt++) fy.load(Ys, nt, s, b[nt]);
#pragma unroll
            for (int mt = 0; mt < MT; mt++) {
                double a[4];
                fx.load(Xs, mt, s, a);
#pragma unroll
                for (int nt = 0; nt < NTL; nt++) gemm__cuda_dmma_m16n8k8(acc[mt][nt], a, b[nt]);
            }
        }
    }
}

/* Two neighbouring rows of one column of C: one 16-byte access when C
   allows it (vec) and no atomics are asked for. */
__device__ __forceinline__ void gemm__cuda_dt_store2(double *c, double x0, double x1, int rows_left, double alpha,
                                                     double beta, int atomic, bool vec)
{
    if (vec && !atomic && rows_left >= 2) {
        double2 o;
        if (beta == 0.0) o = make_double2(alpha * x0, alpha * x1);
        else {
            double2 p = *reinterpret_cast<const double2 *>(c);
            o = make_double2(alpha * x0 + beta * p.x, alpha * x1 + beta * p.y);
        }
        *reinterpret_cast<double2 *>(c) = o;
    } else {
        gemm__cuda_store(c, x0, alpha, beta, atomic);
        if (rows_left >= 2) gemm__cuda_store(c + 1, x1, alpha, beta, atomic);
    }
}

/* Writes a warp's accumulators; x0 / y0: its first X row and Y column in
   C's terms (m and n, or n and m under SWAP); vec: C takes 16-byte stores
   (decided once per kernel, for every member). */
template <bool SWAP, bool XK, bool YK, int MT, int NTL>
__device__ __forceinline__ void gemm__cuda_dt_warp_store(const double (&acc)[MT][NTL][4], int x0, int y0, int g, int t,
                                                         int M, int N, double alpha, double beta, double *C,
                                                         int64_t ldc, int atomic, bool vec)
{
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int nt = 0; nt < NTL; nt++)
#pragma unroll
            for (int q = 0; q < 2; q++) {
                int x, y; /* acc[q] at (x, y), acc[2 + q] at (x + 1, y) */
                gemm__cuda_dt_acc_pos<XK, YK>(mt, nt, q, g, t, x, y);
                x += x0;
                y += y0;
                if (!SWAP) { /* rows x, x + 1 of column y */
                    if (x < M && y < N)
                        gemm__cuda_dt_store2(&C[x + (int64_t)y * ldc], acc[mt][nt][q], acc[mt][nt][2 + q], M - x,
                                             alpha, beta, atomic, vec);
                } else if (y < M) { /* row y of columns x, x + 1 */
                    if (x < N) gemm__cuda_store(&C[y + (int64_t)x * ldc], acc[mt][nt][q], alpha, beta, atomic);
                    if (x + 1 < N) gemm__cuda_store(&C[y + (int64_t)(x + 1) * ldc], acc[mt][nt][2 + q], alpha, beta, atomic);
                }
            }
}

/* The two block shapes: NCWG consumer warpgroups of 4 warps, BM x BN =
   128 x 64*NCWG; two consumer warpgroups run one block per SM, one runs
   two (their barrier waits and epilogues hide each other's). */
template <int NCWG> struct gemm__cuda_dt_shape {
    static constexpr int BM = 128, BN = 64 * NCWG, CONSUMERS = 128 * NCWG, THREADS = CONSUMERS + 128,
                         MINB = NCWG == 2 ? 1 : 2, STAGES = NCWG == 2 ? 5 : 4, REG_PRODUCER = NCWG == 2 ? 40 : 32,
                         REG_CONSUMER = NCWG == 2 ? 232 : 224, SA = BM * 16, SB = BN * 16, STAGE_BYTES = (SA + SB) * 8,
                         SMEM = STAGES * STAGE_BYTES + 1024 + 2 * STAGES * 8; /* + alignment slack, barriers */
    static_assert(REG_PRODUCER * 128 + REG_CONSUMER * CONSUMERS <= 65536 / MINB, "registers");
};

/* A strided batch on the TMA kernel: `members` units of work per tile
   and K part; a3 / b3: a's / b's tensor map has the members as its third
   dimension (else every member reads the same a or b: a stride of 0). */
struct gemm__cuda_dt_batch {
    int members, a3, b3;
    int64_t stride_c;
};

/* Work unit u -> its tile origin and K range: units run K part by K part,
   tiles in groups of 8 tile-rows (N tiles fastest inside a group). */
template <int BM, int BN>
__device__ __forceinline__ void gemm__cuda_dt_unit(int u, int tm, int tn, int K, int kchunk, int &m0, int &n0,
                                                   int &kbeg, int &ktiles)
{
    int tiles = tm * tn, kz = u / tiles, pid = u - kz * tiles;
    int per_group = 8 * tn, first = (pid / per_group) * 8, size = min(tm - first, 8), r = pid % per_group;
    m0 = (first + r % size) * BM;
    n0 = (r / size) * BN;
    kbeg = kz * kchunk;
    int kend = min(K, kbeg + kchunk);
    ktiles = kend > kbeg ? (kend - kbeg + 15) / 16 : 0;
}

/* The block's pieces of work in order: f(member, m0, n0, kbeg, ktiles,
   role), the units before sk.first whole, then stream-K's pieces
   (device/stream_k.cuh). Without SK (the instance every other call runs)
   every unit runs whole, in the code of before stream-K: one kernel for
   both had cost the other calls 2-4% at 4096^3. */
template <int BM, int BN, bool SK, typename F>
__device__ __forceinline__ void gemm__cuda_dt_walk(int tm, int tn, int total, int per_member, int K, int kchunk,
                                                   const gemm__cuda_stream_k<double> &sk, F &&f)
{
    int m0, n0, kbeg, ktiles, dp_end = SK ? min(total, sk.first) : total;
    for (int u = (int)blockIdx.x; u < dp_end; u += (int)gridDim.x) {
        int member = u / per_member;
        gemm__cuda_dt_unit<BM, BN>(u - member * per_member, tm, tn, K, kchunk, m0, n0, kbeg, ktiles);
        f(member, m0, n0, kbeg, ktiles, (int)GEMM__CUDA_SK_WHOLE);
    }
    if (!SK || dp_end >= total) return;
    gemm__cuda_sk_deal(dp_end, total, (K + 15) / 16, [&](int u, int s0, int s1, int role) {
        gemm__cuda_dt_unit<BM, BN>(u, tm, tn, K, kchunk, m0, n0, kbeg, ktiles);
        f(0, m0, n0, 16 * s0, s1 - s0, role);
    });
}

/* The producer's thread: every K tile of every unit of this block into the
   ring, waiting for a stage to be empty before refilling it. An M-major
   tile arrives as BM/16 (BN/16) boxes of 16 x 16, a k-major one as one box. */
template <int NCWG, bool AK, bool BKM, bool SK>
__device__ __forceinline__ void gemm__cuda_dt_produce(const CUtensorMap *map_a, const CUtensorMap *map_b,
                                                      unsigned char *ring, uint64_t *full, uint64_t *empty, int tm,
                                                      int tn, int total, int per_member, int K, int kchunk,
                                                      const gemm__cuda_dt_batch &bt, const gemm__cuda_stream_k<double> &sk)
{
    typedef gemm__cuda_dt_shape<NCWG> S;
    unsigned it = 0;
    gemm__cuda_dt_walk<S::BM, S::BN, SK>(tm, tn, total, per_member, K, kchunk, sk, [&](int member, int m0, int n0,
                                                                                     int kbeg, int ktiles, int) {
        int za = bt.a3 ? member : -1, zb = bt.b3 ? member : -1;
        for (int kt = 0; kt < ktiles; kt++, it++) {
            unsigned s = it % S::STAGES;
            if (it >= (unsigned)S::STAGES) gemm__cuda_mbar_wait(&empty[s], (it / S::STAGES - 1) & 1);
            double *as = reinterpret_cast<double *>(ring + s * S::STAGE_BYTES), *bs = as + S::SA;
            int k0 = kbeg + kt * 16;
            gemm__cuda_mbar_expect(&full[s], S::STAGE_BYTES);
            if (AK) {
                gemm__cuda_tma_load_z(as, map_a, k0, m0, za, &full[s]);
            } else {
#pragma unroll 1
                for (int j = 0; j < S::BM / 16; j++) gemm__cuda_tma_load_z(as + 256 * j, map_a, m0 + 16 * j, k0, za, &full[s]);
            }
            if (BKM) {
                gemm__cuda_tma_load_z(bs, map_b, k0, n0, zb, &full[s]);
            } else {
#pragma unroll 1
                for (int j = 0; j < S::BN / 16; j++) gemm__cuda_tma_load_z(bs + 256 * j, map_b, n0 + 16 * j, k0, zb, &full[s]);
            }
        }
    });
}

/* map_a / map_b: op(A) and op(B) as the copy engine reads them (k-major:
   {K, rows}, boxes of 16 k x the block's side; else {rows, K}, boxes of
   16 x 16). C column-major; with `atomic` each K part adds alpha*sum into
   C (already scaled by beta). bt: the members of a strided batch (one
   for a single call); sk: stream-K's schedule (read by the SK instances
   only). In any build without sm_90a the body is empty and the host never
   launches it. */
template <int NCWG, bool AK, bool BKM, bool SK>
__global__ void __launch_bounds__(gemm__cuda_dt_shape<NCWG>::THREADS, gemm__cuda_dt_shape<NCWG>::MINB)
gemm__cuda_dmma_tma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                           int tm, int tn, int split, int M, int N, int K, int kchunk, double alpha, double beta,
                           double *C, int64_t ldc, int atomic, gemm__cuda_dt_batch bt, gemm__cuda_stream_k<double> sk)
{
#if GEMM__CUDA_SM90A
    typedef gemm__cuda_dt_shape<NCWG> S;
    typedef gemm__cuda_dt_roles<AK, BKM> R;
    typedef gemm__cuda_dt_warps<S::BM, S::BN, AK, BKM> W;
    static_assert(W::WARPS * 32 == S::CONSUMERS, "consumer warps");
    static_assert(W::MT * W::NTL * 4 * S::CONSUMERS == S::BM * S::BN, "a stream-K partial is one tile");
    constexpr int KI = NCWG == 2 && !R::XK ? 16 : 8; /* 16 would spill in the others */
    extern __shared__ __align__(1024) unsigned char gemm__cuda_dt_smem[];
    /* the 128-byte swizzle repeats every 1024 bytes: the ring starts on such a boundary */
    unsigned char *ring = gemm__cuda_dt_smem + ((1024 - gemm__cuda_smem_addr(gemm__cuda_dt_smem) % 1024) % 1024);
    uint64_t *full = reinterpret_cast<uint64_t *>(ring + S::STAGES * S::STAGE_BYTES), *empty = full + S::STAGES;
    int per_member = tm * tn * split, total = per_member * bt.members;
    if (threadIdx.x == 0) {
        for (int s = 0; s < S::STAGES; s++) {
            gemm__cuda_mbar_init(&full[s], 1);               /* the producer's expect_tx; the bytes complete it */
            gemm__cuda_mbar_init(&empty[s], S::CONSUMERS);   /* every consumer thread is done reading */
        }
        gemm__cuda_fence_mbar_init();
        gemm__cuda_fence_proxy_async();
    }
    __syncthreads();

    if ((int)threadIdx.x >= S::CONSUMERS) {
        gemm__cuda_setmaxnreg_dec<S::REG_PRODUCER>();
        if ((int)threadIdx.x == S::CONSUMERS)
            gemm__cuda_dt_produce<NCWG, AK, BKM, SK>(&map_a, &map_b, ring, full, empty, tm, tn, total, per_member, K,
                                                 kchunk, bt, sk);
        return;
    }
    gemm__cuda_setmaxnreg_inc<S::REG_CONSUMER>();
    int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32, g = lane / 4, t = lane % 4;
    int wx = (warp % W::WARPS_X) * W::WX, wy = (warp / W::WARPS_X) * W::WY;
    const gemm__cuda_dt_xfrag<R::XK> fx(wx, g, t);
    const gemm__cuda_dt_yfrag<R::YK> fy(wy, g, t);
    const bool vec = ((uintptr_t)C & 15) == 0 && (ldc & 1) == 0 && (bt.stride_c & 1) == 0;
    unsigned it = 0;
    gemm__cuda_dt_walk<S::BM, S::BN, SK>(tm, tn, total, per_member, K, kchunk, sk, [&](int member, int m0, int n0,
                                                                                     int, int ktiles, int role) {
        double acc[W::MT][W::NTL][4];
#pragma unroll
        for (int i = 0; i < W::MT; i++)
#pragma unroll
            for (int j = 0; j < W::NTL; j++)
#pragma unroll
                for (int r = 0; r < 4; r++) acc[i][j][r] = 0.0;
        for (int kt = 0; kt < ktiles; kt++, it++) {
            unsigned s = it % S::STAGES;
            gemm__cuda_mbar_wait(&full[s], (it / S::STAGES) & 1);
            const double *as = reinterpret_cast<const double *>(ring + s * S::STAGE_BYTES), *bs = as + S::SA;
            gemm__cuda_dt_warp_tile<R::XK, R::YK, W::MT, W::NTL, KI>(R::SWAP ? bs : as, R::SWAP ? as : bs, fx, fy, acc);
            gemm__cuda_mbar_arrive(&empty[s]);
        }
        if constexpr (SK) { /* the consumers' registers in order, (mt * NTL + nt) * 4 + q */
            auto &sums = reinterpret_cast<double(&)[W::MT * W::NTL * 4]>(acc);
            auto consumers = [] { gemm__cuda_bar_sync<S::CONSUMERS>(1); };
            if (role == GEMM__CUDA_SK_TAIL) {
                gemm__cuda_sk_put<S::CONSUMERS>(sums, sk, consumers);
                return;
            }
            if (role == GEMM__CUDA_SK_HEAD) gemm__cuda_sk_add<S::CONSUMERS>(sums, sk, consumers);
        }
        gemm__cuda_dt_warp_store<R::SWAP, R::XK, R::YK, W::MT, W::NTL>(acc, (R::SWAP ? n0 : m0) + wx,
                                                                       (R::SWAP ? m0 : n0) + wy, g, t, M, N, alpha,
                                                                       beta, C + member * bt.stride_c, ldc, atomic,
                                                                       vec);
    });
#else
    (void)map_a; (void)map_b; (void)tm; (void)tn; (void)split; (void)M; (void)N; (void)K; (void)kchunk; (void)alpha;
    (void)beta; (void)C; (void)ldc; (void)atomic; (void)bt; (void)sk;
#endif
}

/* The exact path's cp.async kernels that read the operands in place (any
   alignment): fp64 on SIMT (GPUs without FP64 tensor cores), DMMA's ring
   configuration (sm_80, or builds without sm_90a) and the 64 x 64 tiles
   of a batch's small members; how K is split; the ladder. The warp-tiled
   SIMT (fp32) and the TMA DMMA launches are in exact_run.cuh. */
#pragma once
#include <stdint.h>
#include <type_traits>
#include "../device/ring.cuh" /* gemm__cuda_tile */
#include "../kernels/dmma.cuh"
#include "../kernels/ladder.cuh"
#include "../kernels/simt.cuh"
#include "../kernels/tiny.cuh"
#include "call.cuh" /* gemm__cuda_operands */
#include "exact_plan.cuh" /* gemm__cuda_exact_plan, gemm__cuda_cp */
#include "launch.cuh" /* gemm__cuda_each_run, gemm__cuda_scale_members */

/* A kernel configuration: its block (BM x BN, K tile BK, NT threads), its
   shared memory per layout, and its kernel per layout and copy width (VEC
   elements; 1 for operands that are not 16-byte aligned). The launch below
   takes any such type. */
template <typename T, int BM_, int BN_, int BK_, int TM, int TN, int STAGES, int MINB, int SWZ>
struct gemm__cuda_simt_cfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, NT = (BM / TM) * (BN / TN), PAD = 16 / (int)sizeof(T);
    template <bool AK, bool BKM> static size_t smem()
    {
        return (size_t)STAGES * (gemm__cuda_tile<BM, BK, PAD, AK>::SIZE + gemm__cuda_tile<BN, BK, PAD, BKM>::SIZE) * sizeof(T);
    }
    template <bool AK, bool BKM, int VEC> static void *kernel()
    {
        return (void *)gemm__cuda_simt_kernel<T, BM, BN, BK, TM, TN, STAGES, MINB, SWZ, AK, BKM, VEC>;
    }
};
template <int BM_, int BN_, int BK_, int STAGES, int WARPS_M, int WARPS_N, int MINB, int SWZ> struct gemm__cuda_dmma_cfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, NT = 32 * WARPS_M * WARPS_N, PAD = 4;
    template <bool AK, bool BKM> static size_t smem()
    {
        return (size_t)STAGES * (gemm__cuda_tile<BM, BK, PAD, AK>::SIZE + gemm__cuda_tile<BN, BK, PAD, BKM>::SIZE) * sizeof(double);
    }
    template <bool AK, bool BKM, int VEC> static void *kernel()
    {
        return (void *)gemm__cuda_dmma_kernel<BM, BN, BK, STAGES, WARPS_M, WARPS_N, MINB, SWZ, AK, BKM, VEC>;
    }
};

/* The configurations: template arguments BM, BN, BK, TM x TN per thread
   (DMMA: warps along M x N), stages, blocks per SM, block order. */
typedef gemm__cuda_simt_cfg<double, 64, 64, 16, 4, 4, 3, 2, 0> gemm__cuda_simt_f64; /* without FP64 tensor cores */
typedef gemm__cuda_dmma_cfg<128, 64, 16, 3, 4, 2, 2, 0> gemm__cuda_dmma_f64;      /* 32x32 per warp */
/* Batches of small members (64 or fewer rows or columns), whose one tile
   would be mostly empty in the configurations above, and fp32 batches
   whose operands are not all 16-byte aligned (the warp-tiled kernel reads
   only aligned ones, and a batch is not copied into scratch). */
typedef gemm__cuda_simt_cfg<float, 64, 64, 16, 8, 4, 3, 2, 0> gemm__cuda_simt_f32_batch;
typedef gemm__cuda_dmma_cfg<64, 64, 16, 3, 2, 2, 2, 0> gemm__cuda_dmma_f64_small;

/* How many parts K is split into: enough blocks to fill every SM (`slots`
   = SMs x resident blocks per SM), and at least 4 K-tiles per part. */
static int gemm__cuda_split(int tiles, int K, int BK, int slots, int requested)
{
    int split = requested > 0 ? requested : (tiles < slots ? slots / tiles : 1);
    int most = (K + 4 * BK - 1) / (4 * BK);
    if (requested <= 0 && split > most) split = most;
    if (split > 64) split = 64;
    return split < 1 ? 1 : split;
}

/* One instance of a configuration for the members of bt: AK / BKM say
   whether op(A) / op(B) is k-major, VEC the elements per copy. With K
   split (when the members' tiles do not fill the SMs), C = beta*C is
   queued first and the parts add into C with atomics. */
template <typename T, typename CFG, bool AK, bool BKM, int VEC>
static gemm_status gemm__cuda_launch_fast(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, T, T> &x,
                                          gemm__cuda_batch bt, int sms, int split_req, cudaStream_t stream)
{
    size_t smem = CFG::template smem<AK, BKM>();
    void *kernel = CFG::template kernel<AK, BKM, VEC>();
    int M = (int)p->m, N = (int)p->n, K = (int)p->k, kchunk, atomic = 0, per_sm = 1;
    int tm = (M + CFG::BM - 1) / CFG::BM, tn = (N + CFG::BN - 1) / CFG::BN;
    int64_t tiles = (int64_t)tm * tn * bt.count;
    T alpha = x.alpha, beta = x.beta;
    const T *A = x.a, *B = x.b;
    T *C = x.c;
    int64_t lda = p->lda, ldb = p->ldb, ldc = p->ldc;
    gemm_status s;
    /* Above 48 KB a block must ask for its shared memory, and the largest
       carveout lets two blocks share an SM where the registers allow it. */
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            cudaSharedmemCarveoutMaxShared));
    GEMM__CUDA_TRY(fn, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, CFG::NT, smem));
    bt.split = gemm__cuda_split(tiles < INT32_MAX ? (int)tiles : INT32_MAX, K, CFG::BK, sms * (per_sm > 0 ? per_sm : 1),
                                split_req);
    kchunk = ((K + bt.split - 1) / bt.split + CFG::BK - 1) / CFG::BK * CFG::BK;
    bt.split = (K + kchunk - 1) / kchunk; /* no empty parts */
    if (tn > 65535) /* N is the caller's n, or its m for a row-major call */
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d columns of C's storage need %d tiles of %d, more than "
                          "one launch's 65535", fn, N, tn, CFG::BN);
    if (bt.split > 1) {
        atomic = 1;
        if (beta != T(1) && (s = gemm__cuda_scale_members(fn, M, N, beta, C, ldc, bt, stream)) != GEMM_OK) return s;
    }
    return gemm__cuda_each_run(fn, bt, [&](gemm__cuda_batch run, unsigned z) {
        void *args[] = {&M, &N, &K, &kchunk, &alpha, (void *)&A, &lda, (void *)&B, &ldb, &beta, (void *)&C, &ldc,
                        &atomic, &run};
        return cudaLaunchKernel(kernel, dim3((unsigned)tm, (unsigned)tn, z), dim3(CFG::NT), args, smem, stream);
    });
}

/* 16-byte copies need 16-byte aligned panels (`aligned`: every member's
   A and B, bases and leading dimensions); other operands take the same
   configuration with copies of one element. */
template <typename T, typename CFG, bool AK, bool BKM>
static gemm_status gemm__cuda_launch_aligned(const char *fn, const gemm__problem *p,
                                             const gemm__cuda_operands<T, T, T> &x, const gemm__cuda_batch &bt,
                                             bool aligned, int sms, int split, cudaStream_t stream)
{
    constexpr int V = 16 / (int)sizeof(T);
    return aligned ? gemm__cuda_launch_fast<T, CFG, AK, BKM, V>(fn, p, x, bt, sms, split, stream)
                   : gemm__cuda_launch_fast<T, CFG, AK, BKM, 1>(fn, p, x, bt, sms, split, stream);
}

/* A configuration for the problem's layout: op(A) is k-major when it is read
   transposed (a_trans), op(B) when it is not (!b_trans). */
template <typename T, typename CFG>
static gemm_status gemm__cuda_launch_config(const char *fn, const gemm__problem *p,
                                            const gemm__cuda_operands<T, T, T> &x, const gemm__cuda_batch &bt,
                                            bool aligned, int sms, int split, cudaStream_t stream)
{
    if (p->a_trans)
        return p->b_trans ? gemm__cuda_launch_aligned<T, CFG, true, false>(fn, p, x, bt, aligned, sms, split, stream)
                          : gemm__cuda_launch_aligned<T, CFG, true, true>(fn, p, x, bt, aligned, sms, split, stream);
    return p->b_trans ? gemm__cuda_launch_aligned<T, CFG, false, false>(fn, p, x, bt, aligned, sms, split, stream)
                      : gemm__cuda_launch_aligned<T, CFG, false, true>(fn, p, x, bt, aligned, sms, split, stream);
}

/* Whether a single call's A and B take 16-byte copies: aligned bases and
   leading dimensions. */
template <typename T, typename TC, typename S>
static bool gemm__cuda_aligned_ab(const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x)
{
    constexpr int V = 16 / (int)sizeof(T);
    return (uintptr_t)x.a % 16 == 0 && (uintptr_t)x.b % 16 == 0 && p->lda % V == 0 && p->ldb % V == 0;
}

/* The ladder: NAIVE for every type, TILED16 for fp32 and fp64. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_launch_ladder(const char *fn, gemm_cuda_kernel kernel, const gemm__problem *p,
                                            const gemm__cuda_operands<T, TC, S> &x, gemm__cuda_batch bt,
                                            cudaStream_t stream)
{
    int M = (int)p->m, N = (int)p->n, K = (int)p->k;
    dim3 grid((unsigned)((M + 15) / 16), (unsigned)((N + 15) / 16)), block(16, 16);
    if (grid.y > 65535)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d columns of C's storage are too many for the ladder kernels",
                          fn, N);
    bt.split = 1;
    return gemm__cuda_each_run(fn, bt, [&](const gemm__cuda_batch &run, unsigned z) {
        dim3 g(grid.x, grid.y, z);
        if constexpr (std::is_same<T, TC>::value && std::is_same<T, S>::value)
            if (kernel == GEMM_CUDA_KERNEL_TILED16) {
                gemm__cuda_tiled16_kernel<T><<<g, block, 0, stream>>>(M, N, K, x.alpha, x.a, p->ars, p->acs, x.b,
                                                                      p->brs, p->bcs, x.beta, x.c, p->ldc, run);
                return cudaGetLastError();
            }
        gemm__cuda_naive_kernel<T, S, TC><<<g, block, 0, stream>>>(M, N, K, x.alpha, x.a, p->ars, p->acs, x.b, p->brs,
                                                                   p->bcs, x.beta, x.c, p->ldc, run);
        return cudaGetLastError();
    });
}

/* The tiny members' kernel over the members of bt, TILE x TILE tiles,
   the layout's instance; launches of at most 2^26 blocks (a multiple of
   the members per block, so no member is computed twice). */
template <typename T, int TILE, bool AK, bool BKM>
static gemm_status gemm__cuda_launch_tiny_as(const char *fn, const gemm__problem *p,
                                             const gemm__cuda_operands<T, T, T> &x, gemm__cuda_batch bt,
                                             cudaStream_t stream)
{
    typedef gemm__cuda_tiny_shape<T, TILE> S;
    const int64_t per = ((int64_t)1 << 26) * S::G;
    for (int64_t first = 0; first < bt.count; first += per) {
        int64_t n = bt.count - first < per ? bt.count - first : per;
        cudaError_t e;
        bt.first = first;
        gemm__cuda_tiny_kernel<T, TILE, AK, BKM><<<(unsigned)((n + S::G - 1) / S::G), S::NT, 0, stream>>>(
            (int)p->m, (int)p->n, (int)p->k, x.alpha, x.a, p->lda, x.b, p->ldb, x.beta, x.c, p->ldc, bt);
        if ((e = cudaGetLastError()) != cudaSuccess) return gemm__cuda_fail(fn, "kernel launch", e);
    }
    return GEMM_OK;
}

/* The tiny kernel for the problem's members (m, n <= 32): 16 x 16 tiles
   when both fit, else 32 x 32; op(A) k-major when read transposed, op(B)
   when not. */
template <typename T>
static gemm_status gemm__cuda_launch_tiny(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, T, T> &x,
                                          const gemm__cuda_batch &bt, cudaStream_t stream)
{
    bool ak = p->a_trans, bk = !p->b_trans;
    if (p->m <= 16 && p->n <= 16)
        return ak ? (bk ? gemm__cuda_launch_tiny_as<T, 16, true, true>(fn, p, x, bt, stream)
                        : gemm__cuda_launch_tiny_as<T, 16, true, false>(fn, p, x, bt, stream))
                  : (bk ? gemm__cuda_launch_tiny_as<T, 16, false, true>(fn, p, x, bt, stream)
                        : gemm__cuda_launch_tiny_as<T, 16, false, false>(fn, p, x, bt, stream));
    return ak ? (bk ? gemm__cuda_launch_tiny_as<T, 32, true, true>(fn, p, x, bt, stream)
                    : gemm__cuda_launch_tiny_as<T, 32, true, false>(fn, p, x, bt, stream))
              : (bk ? gemm__cuda_launch_tiny_as<T, 32, false, true>(fn, p, x, bt, stream)
                    : gemm__cuda_launch_tiny_as<T, 32, false, false>(fn, p, x, bt, stream));
}

/* The plan's cp.async configuration over the members of bt. MEMBERS:
   whether the plan may name a batch's small configurations (a single
   call's never does, so its instance leaves them out). */
template <typename T, bool MEMBERS>
static gemm_status gemm__cuda_launch_cp(const char *fn, const gemm__cuda_exact_plan *t, const gemm__problem *p,
                                        const gemm__cuda_operands<T, T, T> &x, const gemm__cuda_batch &bt, int sms,
                                        cudaStream_t stream)
{
    if constexpr (MEMBERS)
        if (t->cp == GEMM__CUDA_CP_TINY) return gemm__cuda_launch_tiny<T>(fn, p, x, bt, stream);
    if constexpr (sizeof(T) == 8) {
        if (t->cp == GEMM__CUDA_CP_SIMT_F64)
            return gemm__cuda_launch_config<T, gemm__cuda_simt_f64>(fn, p, x, bt, t->aligned, sms, t->split, stream);
        if constexpr (MEMBERS)
            if (t->cp == GEMM__CUDA_CP_DMMA_SMALL)
                return gemm__cuda_launch_config<T, gemm__cuda_dmma_f64_small>(fn, p, x, bt, t->aligned, sms, t->split,
                                                                              stream);
        return gemm__cuda_launch_config<T, gemm__cuda_dmma_f64>(fn, p, x, bt, t->aligned, sms, t->split, stream);
    } else {
        static_assert(MEMBERS, "fp32's cp.async configuration is a batch's");
        return gemm__cuda_launch_config<T, gemm__cuda_simt_f32_batch>(fn, p, x, bt, t->aligned, sms, t->split, stream);
    }
}

/* The exact path's run: the plan's operand copies into scratch, the
   launches of the warp-tiled SIMT and the TMA DMMA kernels, and the entry
   every fp32 / fp64 call takes (gemm__cuda_exact). */
#pragma once
#include <atomic>
#include <cuda.h> /* CUtensorMap */
#include <stdio.h> /* snprintf */
#include "../kernels/copy.cuh"
#include "../kernels/dmma_tma.cuh"
#include "../kernels/simt_warp.cuh"
#include "choose.cuh" /* gemm__cuda_choose_exact */
#include "exact.cuh"
#include "exact_plan.cuh"
#include "scratch.cuh"

#ifdef GEMM__TEST_HOOKS
/* What the last exact call of this thread ran (tests and benchmarks). */
static thread_local char gemm__cuda_exact_last_text[160];
GEMM_DEF const char *gemm__cuda_exact_last(void) { return gemm__cuda_exact_last_text; }
#endif

/* Records what runs: "simt 256x128 nn split 1 grid 512 copies a:t b:-" and
   the like; " stream-k" at the end when the TMA DMMA kernel deals out K. */
static void gemm__cuda_exact_note(const gemm__cuda_exact_plan *t, const char *config, int split, int64_t grid,
                                  bool stream_k)
{
#ifdef GEMM__TEST_HOOKS
    static const char *copy_names[3] = {"-", "r", "t"};
    snprintf(gemm__cuda_exact_last_text, sizeof gemm__cuda_exact_last_text,
             "%s %s %c%c split %d grid %lld copies a:%s b:%s%s", gemm_cuda_kernel_name(t->kernel), config,
             t->ak ? 'k' : 'm', t->bk ? 'k' : 'n', split, (long long)grid, copy_names[t->copy_a],
             copy_names[t->copy_b], stream_k ? " stream-k" : "");
#else
    (void)t; (void)config; (void)split; (void)grid; (void)stream_k;
#endif
}

/* The K parts that fill the SMs when the tiles are fewer than the SMs;
   past_one_round parts (1: none) when they are more but at most twice
   as many and the parts' rounds cost 15% less (up to 1.5 times as many
   tiles as SMs for 2 parts: three rounds of half tiles against two of
   whole ones); more tiles run K whole. Counting s up from 1, s parts are
   taken when the most an SM gets, ceil(tiles * s / sms) units of K/s
   each, costs at least 15% less than the parts taken so far (each part more adds atomics
   into C, and C = beta*C first); at most two units an SM, at least 64 of
   K a part. On the H200 (fp64): 128 tiles (1024^3 on 128 x 64) run
   unsplit (the slots' rule had split them in 2 for 264 slots: 0.82-0.89
   of cuBLAS in NN against 0.87-0.92), 72 tiles (768^3) in 3 parts
   (unsplit: 0.79-0.80 against 0.95-0.99), 32 tiles (512^3) in 4 (in 8:
   0.64-0.72 against 0.75-0.81). */
static int gemm__cuda_split_rounds(int64_t tiles, int K, int sms, int requested, int past_one_round)
{
    int most = (K + 63) / 64, best = 1, s;
    double cost = (double)((tiles + sms - 1) / sms);
    if (requested > 0) return requested > 64 ? 64 : requested;
    if (tiles > sms && tiles <= 2 * (int64_t)sms) /* past one round: the parts where their rounds cost 15% less */
        return past_one_round > 1 && past_one_round <= most &&
                       (double)((tiles * past_one_round + sms - 1) / sms) < 0.85 * past_one_round * cost
                   ? past_one_round
                   : 1;
    for (s = 2; tiles < sms && tiles * s <= 2 * (int64_t)sms && s <= most && s <= 64; s++) {
        double c = (double)((tiles * s + sms - 1) / sms) / s;
        if (c < 0.85 * cost) {
            best = s;
            cost = c;
        }
    }
    return best;
}

/* The K split and grid of a launch: `tiles` tiles of C, `slots` blocks
   resident at once, or (by_rounds) the SMs whose rounds the split fills
   (gemm__cuda_split_rounds, with past_one_round); *kchunk a multiple of
   16. Fails past one launch's reach (2^31 - 1 blocks or work units). */
static gemm_status gemm__cuda_exact_grid(const char *fn, const gemm__problem *p, int64_t tiles, int slots,
                                         bool by_rounds, int past_one_round, int split_req, int *split, int *kchunk)
{
    int K = (int)p->k;
    if (tiles > INT32_MAX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %lld tiles of C are more than one launch can run", fn,
                          (long long)tiles);
    *split = by_rounds ? gemm__cuda_split_rounds(tiles, K, slots, split_req, past_one_round)
                       : gemm__cuda_split(tiles > slots ? slots : (int)tiles, K, 16, slots, split_req);
    *kchunk = ((K + *split - 1) / *split + 15) / 16 * 16;
    *split = (K + *kchunk - 1) / *kchunk; /* no empty parts */
    if (tiles * *split > INT32_MAX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %lld tiles in %d K parts are more than one launch can run", fn,
                          (long long)tiles, *split);
    return GEMM_OK;
}

/* A K split adds the parts into C with atomics: C = beta*C first. */
template <typename T>
static gemm_status gemm__cuda_exact_prescale(const char *fn, const gemm__problem *p, T beta, T *C,
                                             const gemm__cuda_batch &bt, cudaStream_t stream)
{
    if (beta == T(1)) return GEMM_OK;
    return gemm__cuda_scale_members(fn, (int)p->m, (int)p->n, beta, C, p->ldc, bt, stream);
}

/* Stream-K (device/stream_k.cuh) on the persistent kernels: a single
   call whose K runs whole, on *grid blocks where it `pays` (the kernel's
   rule: gemm__cuda_stream_k_pays, _sw_stream_k_pays). Returns the units
   run whole (the rounds before the last two) or -1 for none. Rounds of
   whole tiles cost ceil(tiles / grid) tiles a block; stream-K about
   tiles / grid, plus a partial tile written and read by the blocks that
   share one. The tests force it on a small grid (gemm__hooks'
   cuda_stream_k; -1: never). */
static int64_t gemm__cuda_stream_k_first(int64_t tiles, int64_t K, int64_t *grid, int split, int64_t members,
                                         int split_req, bool pays)
{
    int forced = GEMM__HOOK(cuda_stream_k, 0);
    if (forced < 0 || K < 1 || split > 1 || members > 1 || split_req > 0) return -1;
    int64_t g = forced > 0 ? forced : *grid;
    if (tiles <= g || tiles % g == 0 || (!forced && !pays)) return -1;
    *grid = g;
    return (tiles / g - 1) * g;
}

/* Launches a stream-K instance on `grid` blocks: sk's partial tiles
   (`tile_bytes` a block) and flags come from the device's scratch pool
   in stream order; args holds &sk. */
template <typename T>
static gemm_status gemm__cuda_launch_stream_k(const char *fn, void *kernel, int64_t grid, int threads, size_t smem,
                                              void **args, gemm__cuda_stream_k<T> *sk, int64_t first,
                                              size_t tile_bytes, cudaStream_t stream)
{
    int dev;
    cudaMemPool_t pool;
    size_t partial_bytes = (size_t)grid * tile_bytes;
    cudaError_t e;
    gemm_status s;
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            cudaSharedmemCarveoutMaxShared));
    GEMM__CUDA_TRY(fn, cudaGetDevice(&dev));
    if ((s = gemm__cuda_scratch_pool(fn, dev, true, &pool)) != GEMM_OK) return s;
    e = cudaMallocFromPoolAsync((void **)&sk->partial, partial_bytes + (size_t)grid * sizeof(unsigned), pool, stream);
    if (e != cudaSuccess) return gemm__cuda_fail(fn, "cudaMallocFromPoolAsync (stream-K's partial tiles)", e);
    sk->first = (int)first;
    sk->flags = (unsigned *)((char *)sk->partial + partial_bytes);
    e = cudaMemsetAsync(sk->flags, 0, (size_t)grid * sizeof(unsigned), stream);
    if (e == cudaSuccess) e = cudaLaunchKernel(kernel, dim3((unsigned)grid), dim3(threads), args, smem, stream);
    cudaError_t freed = cudaFreeAsync(sk->partial, stream);
    if (e != cudaSuccess) return gemm__cuda_fail(fn, "cudaLaunchKernel (stream-K)", e);
    if (freed != cudaSuccess) return gemm__cuda_fail(fn, "cudaFreeAsync (stream-K's partial tiles)", freed);
    return GEMM_OK;
}

/* The warp-tiled kernel's instance for a batch, a single call, or a
   single call's stream-K (the 64 x 32-warp blocks only). */
template <int BM, int BN, int LM, int WN, int MINB, bool AK, bool BKM>
static void *gemm__cuda_sw_instance(bool batch, bool stream_k)
{
    if constexpr (WN == 32)
        if (stream_k) return (void *)gemm__cuda_simt_warp_kernel<BM, BN, LM, WN, MINB, AK, BKM, false, true>;
    return batch ? (void *)gemm__cuda_simt_warp_kernel<BM, BN, LM, WN, MINB, AK, BKM, true, false>
                 : (void *)gemm__cuda_simt_warp_kernel<BM, BN, LM, WN, MINB, AK, BKM, false, false>;
}

/* The warp-tiled SIMT kernel (fp32) in configuration BM x BN, warps of
   64 x WN, LM lanes along M, MINB blocks per SM, for the plan's layout,
   over the members of bt (its tiles side by side in blockIdx.x, the
   members and K parts in blockIdx.z). K is split to fill the block slots;
   for the 64 x 32-warp blocks, to fill the SMs' rounds
   (gemm__cuda_split_rounds: 1024^3 unsplit, as cuBLAS runs them), and a
   single call of theirs past one round of MINB blocks a SM runs stream-K
   where it pays (its own instance: the others keep their code). */
template <int BM, int BN, int LM, int WN, int MINB>
static gemm_status gemm__cuda_launch_sw(const char *fn, const gemm__problem *p, const gemm__cuda_exact_plan *t,
                                        const float *A, const float *B, const gemm__cuda_operands<float, float, float> &x,
                                        gemm__cuda_batch bt, int sms, int split_req, cudaStream_t stream)
{
    typedef gemm__cuda_sw_shape<BM, BN, LM, WN> S;
    bool batch = bt.count > 1 || bt.a || bt.b || bt.c;
    auto instance = [&](bool stream_k) {
        return t->ak ? (t->bk ? gemm__cuda_sw_instance<BM, BN, LM, WN, MINB, true, true>(batch, stream_k)
                              : gemm__cuda_sw_instance<BM, BN, LM, WN, MINB, true, false>(batch, stream_k))
                     : (t->bk ? gemm__cuda_sw_instance<BM, BN, LM, WN, MINB, false, true>(batch, stream_k)
                              : gemm__cuda_sw_instance<BM, BN, LM, WN, MINB, false, false>(batch, stream_k));
    };
    void *kernel = instance(false);
    int smem = (int)gemm__cuda_sw_smem(t->variant, t->ak, t->bk), per_sm = 1, split, kchunk, atomic;
    int M = (int)p->m, N = (int)p->n, K = (int)p->k;
    int64_t tiles = ((p->m + BM - 1) / BM) * ((p->n + BN - 1) / BN), lda = t->lda, ldb = t->ldb, ldc = p->ldc;
    float alpha = x.alpha, beta = x.beta, *C = x.c;
    gemm_status s;
    char config[16];
    gemm__cuda_stream_k<float> sk = {INT32_MAX, NULL, NULL};
    snprintf(config, sizeof config, "%dx%d%s", BM, BN, LM == 4 ? "/16x8" : "");
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            cudaSharedmemCarveoutMaxShared));
    GEMM__CUDA_TRY(fn, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, S::NT, (size_t)smem));
    if (per_sm < 1) per_sm = 1;
    if constexpr (WN == 32) { /* a single call past one round of MINB blocks a SM: stream-K where it pays */
        int64_t grid = (int64_t)sms * MINB, /* MINB, not the occupancy's 3: 2560^3 ran 0.68 of cuBLAS on 3 a SM */
                first = batch ? -1
                              : gemm__cuda_stream_k_first(tiles, K, &grid, 1, 1, split_req,
                                                          gemm__cuda_sw_stream_k_pays(tiles, sms, MINB));
        if (first >= 0) {
            void *args[] = {&M, &N, &K, &K, &alpha, (void *)&A, &lda, (void *)&B, &ldb, &beta, (void *)&C, &ldc,
                            &atomic, &bt, &sk};
            atomic = 0;
            gemm__cuda_exact_note(t, config, 1, grid, true);
            return gemm__cuda_launch_stream_k<float>(fn, instance(true), grid, S::NT, (size_t)smem, args, &sk, first,
                                                     (size_t)BM * BN * sizeof(float), stream);
        }
    }
    /* the 64 x 32-warp blocks without stream-K: K in 2 parts past one round where that takes fewer rounds
       (H200, forced splits of 128 x 64, ours / cuBLAS: 1100 x 900 x 1000, 144 tiles, 0.60 -> 0.69; 1152^3,
       162, 0.71 -> 0.92; 1200^3, 190, 0.76 -> 0.93; 1100 x 1100 x 2000 0.73 -> 0.97; 3 to 6 parts no better;
       but 1280^3, 200 tiles, four rounds of halves against two of wholes, 0.92 -> 0.75) */
    if ((s = gemm__cuda_exact_grid(fn, p, tiles * bt.count, WN == 32 ? sms : sms * per_sm, WN == 32, 2, split_req,
                                   &split, &kchunk)) != GEMM_OK)
        return s;
    bt.split = split;
    atomic = split > 1;
    if (atomic && (s = gemm__cuda_exact_prescale<float>(fn, p, beta, C, bt, stream)) != GEMM_OK) return s;
    gemm__cuda_exact_note(t, config, split, tiles * bt.count, false);
    return gemm__cuda_each_run(fn, bt, [&](gemm__cuda_batch run, unsigned z) {
        void *args[] = {&M, &N, &K, &kchunk, &alpha, (void *)&A, &lda, (void *)&B, &ldb, &beta, (void *)&C, &ldc,
                        &atomic, &run, &sk};
        return cudaLaunchKernel(kernel, dim3((unsigned)tiles, 1, z), dim3(S::NT), args, (size_t)smem, stream);
    });
}

/* cuTensorMapEncodeTiled from the driver, found through the runtime so that
   nothing needs -lcuda. */
typedef CUresult (*gemm__cuda_dt_encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                            const cuuint64_t *, const cuuint32_t *, const cuuint32_t *,
                                            CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                            CUtensorMapFloatOOBfill);

/* An fp64 operand of rows x K as the TMA DMMA kernel reads it: k-major
   (X(r, q) at X[r*ld + q]) in boxes of 16 k x box_rows rows, else
   (X[q*ld + r]) in boxes of 16 x 16; 128-byte swizzle; zeros outside.
   members > 1: a strided batch's operand, `stride` elements apart, as the
   map's third dimension. */
static gemm_status gemm__cuda_dt_map(const char *fn, CUtensorMap *map, const double *X, int64_t ld, bool kmajor,
                                     int64_t rows, int64_t K, int box_rows, int64_t members, int64_t stride)
{
    static std::atomic<gemm__cuda_dt_encode_fn> encode{NULL};
    cuuint64_t dims[3] = {(cuuint64_t)(kmajor ? K : rows), (cuuint64_t)(kmajor ? rows : K), (cuuint64_t)members},
               strides[2] = {(cuuint64_t)ld * sizeof(double), (cuuint64_t)stride * sizeof(double)};
    cuuint32_t box[3] = {16, (cuuint32_t)(kmajor ? box_rows : 16), 1}, unit[3] = {1, 1, 1};
    cuuint32_t rank = members > 1 ? 3 : 2;
    CUresult r;
    if (!encode.load()) {
        void *f = NULL;
        cudaDriverEntryPointQueryResult q;
        cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q);
        if (e != cudaSuccess) return gemm__cuda_fail(fn, "cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled)", e);
        if (q != cudaDriverEntryPointSuccess || !f)
            return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the driver has no cuTensorMapEncodeTiled", fn);
        encode.store((gemm__cuda_dt_encode_fn)f);
    }
    r = encode.load()(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT64, rank, (void *)X, dims, strides, box, unit,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return gemm__fail(GEMM_ERR_DEVICE, "%s: cuTensorMapEncodeTiled failed (CUresult %d) for a %lld x %lld operand "
                          "(leading dimension %lld)", fn, (int)r, (long long)rows, (long long)K, (long long)ld);
    return GEMM_OK;
}

/* The TMA DMMA kernel's instance for the plan's layout, with or without stream-K. */
template <int NCWG, bool SK> static void *gemm__cuda_dt_instance(const gemm__cuda_exact_plan *t)
{
    return t->ak ? (t->bk ? (void *)gemm__cuda_dmma_tma_kernel<NCWG, true, true, SK>
                          : (void *)gemm__cuda_dmma_tma_kernel<NCWG, true, false, SK>)
                 : (t->bk ? (void *)gemm__cuda_dmma_tma_kernel<NCWG, false, true, SK>
                          : (void *)gemm__cuda_dmma_tma_kernel<NCWG, false, false, SK>);
}

/* The TMA DMMA kernel (fp64) with NCWG consumer warpgroups, persistent:
   at most one block per SM slot, each walking its work units; over the
   members of bt (strided only: its maps are 3-D); stream-K where it pays
   (above), its partial tiles and flags in scratch from the device's pool. */
template <int NCWG>
static gemm_status gemm__cuda_launch_dt(const char *fn, const gemm__problem *p, const gemm__cuda_exact_plan *t,
                                        const double *A, const double *B,
                                        const gemm__cuda_operands<double, double, double> &x,
                                        const gemm__cuda_batch &bt, int sms, int split_req, cudaStream_t stream)
{
    typedef gemm__cuda_dt_shape<NCWG> S;
    void *kernel = gemm__cuda_dt_instance<NCWG, false>(t), *sk_kernel = gemm__cuda_dt_instance<NCWG, true>(t);
    CUtensorMap map_a, map_b;
    int M = (int)p->m, N = (int)p->n, K = (int)p->k, tm = (M + S::BM - 1) / S::BM, tn = (N + S::BN - 1) / S::BN;
    int per_sm = 1, slots, split, kchunk, atomic;
    int64_t units, grid, sk_grid, ldc = p->ldc, first;
    double alpha = x.alpha, beta = x.beta, *C = x.c;
    gemm_status s;
    gemm__cuda_dt_batch members = {(int)bt.count, bt.count > 1 && bt.stride_a != 0, bt.count > 1 && bt.stride_b != 0,
                                   bt.stride_c};
    gemm__cuda_stream_k<double> sk = {INT32_MAX, NULL, NULL};
    void *args[] = {&map_a, &map_b, &tm, &tn, &split, &M, &N, &K, &kchunk, &alpha, &beta, (void *)&C, &ldc, &atomic,
                    &members, &sk};
    if ((s = gemm__cuda_dt_map(fn, &map_a, A, t->lda, t->ak, p->m, p->k, S::BM, members.a3 ? bt.count : 1,
                               bt.stride_a)) != GEMM_OK ||
        (s = gemm__cuda_dt_map(fn, &map_b, B, t->ldb, t->bk, p->n, p->k, S::BN, members.b3 ? bt.count : 1,
                               bt.stride_b)) != GEMM_OK)
        return s;
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, S::SMEM));
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            cudaSharedmemCarveoutMaxShared));
    GEMM__CUDA_TRY(fn, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, S::THREADS, S::SMEM));
    slots = sms * (per_sm > 0 ? per_sm : 1);
    /* K split to fill the SMs' rounds, not the slots (gemm__cuda_split_rounds); whole under a forced stream-K */
    if ((s = gemm__cuda_exact_grid(fn, p, (int64_t)tm * tn * bt.count, sms, true, 1,
                                   split_req == 0 && GEMM__HOOK(cuda_stream_k, 0) > 0 ? 1 : split_req, &split,
                                   &kchunk)) != GEMM_OK)
        return s;
    units = (int64_t)tm * tn * split * bt.count;
    if (units > INT32_MAX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %lld units of work are more than one launch can run", fn,
                          (long long)units);
    grid = units < slots ? units : slots;
    atomic = split > 1;
    if (atomic && (s = gemm__cuda_exact_prescale<double>(fn, p, beta, C, bt, stream)) != GEMM_OK) return s;
    /* Stream-K on one block a SM at most: at two (the 128 x 64 tiles' slots) the H200 gave other bits on
       every run and sums off by up to 6 in C (1536^3, 24 runs, a grid of 200 or 264; the flag's fences on
       both sides of the barrier changed nothing; the cause is not found), at one none in 24 runs of
       either tile shape. */
    sk_grid = grid < sms ? grid : sms;
    first = gemm__cuda_stream_k_first(units, p->k, &sk_grid, split, bt.count, split_req,
                                      gemm__cuda_stream_k_pays(units, sk_grid));
    gemm__cuda_exact_note(t, NCWG == 2 ? "tma 128x128" : "tma 128x64", split, first >= 0 ? sk_grid : grid,
                          first >= 0);
    if (first < 0) {
        GEMM__CUDA_TRY(fn, cudaLaunchKernel(kernel, dim3((unsigned)grid), dim3(S::THREADS), args, S::SMEM, stream));
        return GEMM_OK;
    }
    return gemm__cuda_launch_stream_k<double>(fn, sk_kernel, sk_grid, S::THREADS, S::SMEM, args, &sk, first,
                                              (size_t)S::BM * S::BN * sizeof(double), stream);
}

/* One operand's copy into `out` (the plan's layout, rows of ldo): realigned
   or transposed (k-major to M-major), each by a kernel. */
template <typename T>
static gemm_status gemm__cuda_exact_copy(const char *fn, gemm__cuda_copy how, const T *X, int64_t ld, bool kmajor,
                                         int64_t rows, int64_t K, T *out, int64_t ldo, cudaStream_t stream)
{
    if (how == GEMM__CUDA_REALIGN) {
        int64_t inner = kmajor ? K : rows, outer = kmajor ? rows : K, blocks = (outer + 7) / 8;
        gemm__cuda_realign_kernel<T><<<(unsigned)(blocks < 8192 ? blocks : 8192), 256, 0, stream>>>(outer, inner, X, ld,
                                                                                                    out, ldo);
        GEMM__CUDA_TRY(fn, cudaGetLastError());
        return GEMM_OK;
    }
    /* X(r, q) at X[r*ld + q] -> out[q*ldo + r]: the copy kernels' "rows" are K here */
    if (gemm__cuda_aligned16(X, ld, sizeof(T))) {
        dim3 grid((unsigned)((rows + 63) / 64), (unsigned)((K + 63) / 64));
        gemm__cuda_transpose_kernel<T><<<grid, 256, 0, stream>>>((int)K, (int)rows, X, ld, out, ldo,
                                                                 gemm__cuda_single_copy());
    } else {
        dim3 grid((unsigned)((rows + 31) / 32), (unsigned)((K + 31) / 32)), block(32, 8);
        gemm__cuda_pack_kernel<T><<<grid, block, 0, stream>>>((int)K, (int)rows, X, ld, 0, out, ldo,
                                                              gemm__cuda_single_copy());
    }
    GEMM__CUDA_TRY(fn, cudaGetLastError());
    return GEMM_OK;
}

/* The launch of the plan's configuration on operands a and b (the caller's
   or their copies). */
template <typename T>
static gemm_status gemm__cuda_exact_launch(const char *fn, const gemm__problem *p, const gemm__cuda_exact_plan *t,
                                           const T *a, const T *b, const gemm__cuda_operands<T, T, T> &x,
                                           const gemm__cuda_batch &bt, int sms, int split, cudaStream_t stream)
{
    if constexpr (sizeof(T) == 8) {
        if (t->variant == GEMM__CUDA_DMMA_TMA_64) return gemm__cuda_launch_dt<1>(fn, p, t, a, b, x, bt, sms, split, stream);
        return gemm__cuda_launch_dt<2>(fn, p, t, a, b, x, bt, sms, split, stream);
    } else {
        switch (t->variant) {
        case GEMM__CUDA_SW_128_16X8: return gemm__cuda_launch_sw<128, 128, 4, 64, 2>(fn, p, t, a, b, x, bt, sms, split, stream);
        case GEMM__CUDA_SW_256X128: return gemm__cuda_launch_sw<256, 128, 8, 64, 1>(fn, p, t, a, b, x, bt, sms, split, stream);
        case GEMM__CUDA_SW_128X256: return gemm__cuda_launch_sw<128, 256, 8, 64, 1>(fn, p, t, a, b, x, bt, sms, split, stream);
        case GEMM__CUDA_SW_128X64: return gemm__cuda_launch_sw<128, 64, 8, 32, 2>(fn, p, t, a, b, x, bt, sms, split, stream);
        case GEMM__CUDA_SW_64X128: return gemm__cuda_launch_sw<64, 128, 8, 32, 2>(fn, p, t, a, b, x, bt, sms, split, stream);
        default: return gemm__cuda_launch_sw<128, 128, 8, 64, 2>(fn, p, t, a, b, x, bt, sms, split, stream);
        }
    }
}

/* Runs a plan: its copies go through one scratch buffer taken from the
   device's pool and given back in stream order, so nothing waits. */
template <typename T>
static gemm_status gemm__cuda_exact_run(const char *fn, const gemm__cuda_exact_plan *t, const gemm__problem *p,
                                        const gemm__cuda_operands<T, T, T> &x, const gemm__cuda_gpu *gpu, int split,
                                        cudaStream_t stream)
{
    gemm_status s = GEMM_OK;
    T *scratch = NULL;
    const T *a = x.a, *b = x.b;
    if (t->a_elems + t->b_elems > 0) {
        cudaMemPool_t pool;
        size_t a_bytes = (t->a_elems * sizeof(T) + 255) / 256 * 256;
        cudaError_t e;
        if ((s = gemm__cuda_scratch_pool(fn, gpu->dev, true, &pool)) != GEMM_OK) return s;
        e = cudaMallocFromPoolAsync((void **)&scratch, a_bytes + t->b_elems * sizeof(T), pool, stream);
        if (e != cudaSuccess) return gemm__cuda_fail(fn, "cudaMallocFromPoolAsync (operand copies)", e);
        if (t->copy_a) {
            a = scratch;
            s = gemm__cuda_exact_copy(fn, t->copy_a, x.a, p->lda, p->a_trans, p->m, p->k, scratch, t->lda, stream);
        }
        if (s == GEMM_OK && t->copy_b) {
            b = (const T *)((char *)scratch + a_bytes);
            s = gemm__cuda_exact_copy(fn, t->copy_b, x.b, p->ldb, !p->b_trans, p->n, p->k, (T *)b, t->ldb, stream);
        }
    }
    if (s == GEMM_OK) s = gemm__cuda_exact_launch<T>(fn, p, t, a, b, x, gemm__cuda_single(1), gpu->sms, split, stream);
    if (scratch) {
        cudaError_t e = cudaFreeAsync(scratch, stream);
        if (s == GEMM_OK && e != cudaSuccess) return gemm__cuda_fail(fn, "cudaFreeAsync", e);
    }
    return s;
}

/* fp32 or fp64, computed exactly: the chooser's plan (options.kernel or
   AUTO's kernel, its configuration), then the ladder, a cp.async
   configuration (operands where they are), or the run with its copies. */
template <typename T>
static gemm_status gemm__cuda_exact(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, T, T> &x,
                                    const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu, cudaStream_t stream)
{
    gemm__cuda_exact_plan t;
    gemm_status s = gemm__cuda_choose_exact<T>(fn, p, x, opt, gpu, NULL, &t);
    if (s != GEMM_OK) return s;
    if (t.kernel == GEMM_CUDA_KERNEL_NAIVE || t.kernel == GEMM_CUDA_KERNEL_TILED16)
        return gemm__cuda_launch_ladder(fn, t.kernel, p, x, gemm__cuda_single(1), stream);
    if constexpr (sizeof(T) == 8) /* fp32's single calls have no cp.async configuration */
        if (t.cp != GEMM__CUDA_CP_NONE) {
            if (t.cp == GEMM__CUDA_CP_DMMA) gemm__cuda_exact_note(&t, "ring 128x64", 0, 0, false);
            return gemm__cuda_launch_cp<T, false>(fn, &t, p, x, gemm__cuda_single(1), gpu->sms, stream);
        }
    return gemm__cuda_exact_run<T>(fn, &t, p, x, gpu, t.split, stream);
}

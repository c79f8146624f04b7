/* The exact path's plan (fp32 in fp32, fp64 in fp64): which configuration
   of the kernel runs, in which layout it reads the operands, and which
   operands are first copied into scratch for that. Chosen from the shape
   and the device (its SM count, its shared memory per block, whether this
   build has its sm_90a code) on every call.

   Configurations (options.variant with kernel SIMT or DMMA; 0 chooses):
     SIMT fp32 (warp-tiled, cp.async; sm_80+)
       1  128 x 128, threads of 8 x 16, two blocks per SM
       2  128 x 128, threads of 16 x 8, two blocks per SM
       3  256 x 128, one block per SM
       4  128 x 256, one block per SM
       5  128 x 64, warps of 64 x 32 (threads of 8 x 8), two blocks per SM
       6  64 x 128, the same warps
     DMMA fp64
       1  cp.async ring, 128 x 64, m16n8k4, two blocks per SM (sm_80+)
       2  TMA and warp-specialised, persistent, 128 x 128, m16n8k16 (sm_90a)
       3  the same with 128 x 64 tiles, two blocks per SM (sm_90a)
   (fp64 on SIMT, for GPUs without FP64 tensor cores, has one configuration.) */
#pragma once
#include <stdint.h>
#include <string.h>
#include "../../core/internal.h"
#include "../api.h" /* gemm_cuda_kernel */
#include "../kernels/simt_warp.cuh" /* gemm__cuda_sw_shape */

enum {
    GEMM__CUDA_SW_128 = 1,      /* 128x128, 8x16 threads */
    GEMM__CUDA_SW_128_16X8 = 2, /* 128x128, 16x8 threads */
    GEMM__CUDA_SW_256X128 = 3,
    GEMM__CUDA_SW_128X256 = 4,
    GEMM__CUDA_SW_128X64 = 5,   /* warps of 64x32 */
    GEMM__CUDA_SW_64X128 = 6,   /* warps of 64x32 */
    GEMM__CUDA_SW_VARIANTS = 6,
    GEMM__CUDA_DMMA_RING = 1,
    GEMM__CUDA_DMMA_TMA = 2,    /* 128x128 */
    GEMM__CUDA_DMMA_TMA_64 = 3, /* 128x64, two per SM */
    GEMM__CUDA_DMMA_VARIANTS = 3
};

/* The cp.async configurations (exact.cuh), which read the operands in
   place at any alignment (16-byte copies when `aligned`); a plan names one
   of them, or none for the warp-tiled SIMT and TMA DMMA launches above. */
typedef enum gemm__cuda_cp {
    GEMM__CUDA_CP_NONE = 0,
    GEMM__CUDA_CP_SIMT_F64 = 1,   /* fp64 on SIMT, 64 x 64 (GPUs without FP64 tensor cores) */
    GEMM__CUDA_CP_DMMA = 2,       /* DMMA configuration 1: the ring, 128 x 64 */
    GEMM__CUDA_CP_DMMA_SMALL = 3, /* the same, 64 x 64: a batch's members of at most 64 rows */
    GEMM__CUDA_CP_SIMT_SMALL = 4, /* fp32 64 x 64: a batch's small or unaligned members, or K split */
    GEMM__CUDA_CP_TINY = 5        /* fp32 or fp64 on the CUDA cores, four members per block (kernels/tiny.cuh) */
} gemm__cuda_cp;

/* How an operand reaches the kernel: as it is, copied into scratch with its
   leading dimension rounded up to 16 bytes (the copy engine and the 16-byte
   copies need aligned rows), or transposed there (k-major to M-major). */
typedef enum gemm__cuda_copy { GEMM__CUDA_AS_IS = 0, GEMM__CUDA_REALIGN = 1, GEMM__CUDA_TRANSPOSE = 2 } gemm__cuda_copy;

/* The device facts the plan reads. */
typedef struct gemm__cuda_exact_dev {
    int sms, smem_block; /* SMs; shared memory one block may opt in to (bytes) */
    bool tma;            /* the sm_90a kernels can run (Hopper, and this build has their code) */
} gemm__cuda_exact_dev;

/* How one exact call or batch runs: the kernel (NAIVE and TILED16: the
   ladder, nothing else set), the cp.async configuration or the
   configuration above and its layouts and copies, and the K parts asked
   for (0: as many as fill the GPU). */
typedef struct gemm__cuda_exact_plan {
    gemm_cuda_kernel kernel; /* NAIVE, TILED16, SIMT or DMMA */
    gemm__cuda_cp cp;        /* a cp.async configuration, or NONE */
    bool aligned;            /* cp: every operand 16-byte aligned */
    int split;               /* K parts asked for (options.split_k; batches: 1 unless it asks) */
    int variant;             /* the configuration above */
    bool ak, bk;             /* op(A) / op(B) k-major as the kernel reads them */
    gemm__cuda_copy copy_a, copy_b;
    int64_t lda, ldb;        /* leading dimensions of the copies */
    size_t a_elems, b_elems; /* their sizes in elements (0: no copy) */
} gemm__cuda_exact_plan;

/* Shared memory of a warp-tiled shape S for the layout. */
template <typename S> static size_t gemm__cuda_sw_smem_of(bool ak, bool bk)
{
    return ak ? (bk ? S::template smem<true, true>() : S::template smem<true, false>())
              : (bk ? S::template smem<false, true>() : S::template smem<false, false>());
}

/* Shared memory of fp32 configuration `variant` for the layout. */
static size_t gemm__cuda_sw_smem(int variant, bool ak, bool bk)
{
    switch (variant) {
    case GEMM__CUDA_SW_256X128: return gemm__cuda_sw_smem_of<gemm__cuda_sw_shape<256, 128, 8>>(ak, bk);
    case GEMM__CUDA_SW_128X256: return gemm__cuda_sw_smem_of<gemm__cuda_sw_shape<128, 256, 8>>(ak, bk);
    case GEMM__CUDA_SW_128X64: return gemm__cuda_sw_smem_of<gemm__cuda_sw_shape<128, 64, 8, 32>>(ak, bk);
    case GEMM__CUDA_SW_64X128: return gemm__cuda_sw_smem_of<gemm__cuda_sw_shape<64, 128, 8, 32>>(ak, bk);
    default: return gemm__cuda_sw_smem_of<gemm__cuda_sw_shape<128, 128, 8>>(ak, bk); /* 1 and 2 alike */
    }
}

/* A configuration's block tile of C, bm x bn. */
static void gemm__cuda_sw_block(int variant, int *bm, int *bn)
{
    *bm = variant == GEMM__CUDA_SW_256X128 ? 256 : variant == GEMM__CUDA_SW_64X128 ? 64 : 128;
    *bn = variant == GEMM__CUDA_SW_128X256 ? 256 : variant == GEMM__CUDA_SW_128X64 ? 64 : 128;
}

/* The tiles of C a configuration cuts an M x N product into. */
static int64_t gemm__cuda_sw_tiles(int variant, int64_t M, int64_t N)
{
    int bm, bn;
    gemm__cuda_sw_block(variant, &bm, &bn);
    return ((M + bm - 1) / bm) * ((N + bn - 1) / bn);
}

/* Whether stream-K (device/stream_k.cuh) evens out a single call's last
   round of `tiles` on `grid` blocks: more tiles than blocks, not a whole
   number of rounds, and the last round at most 90% full. */
static bool gemm__cuda_stream_k_pays(int64_t tiles, int64_t grid)
{
    int64_t rounds = (tiles + grid - 1) / grid;
    return tiles > grid && tiles % grid != 0 && (double)tiles / (double)grid <= 0.9 * (double)rounds;
}

/* The same for the fp32 128 x 64 and 64 x 128 blocks, `per_sm` of them
   on an SM (the grid: per_sm blocks a SM): also only where the last round
   leaves at least half the SMs idle, since a block alone on an SM runs
   faster than two sharing one, which the rounds' count does not see. On
   the H200 (forced stream-K on 264 blocks against whole tiles, ours /
   cuBLAS): 1500^3, 288 tiles, 24 in the last round, 0.85-0.89 -> 0.96;
   2560^3, 800 and 8, 0.85-0.87 -> 0.88; but 1792^3, 392 and 128, 1.06 ->
   0.93, and 3072^3, 1152 and 96, 0.99 -> 0.91. One block a SM lost
   everywhere (1500^3 0.86, 2560^3 0.78). */
static bool gemm__cuda_sw_stream_k_pays(int64_t tiles, int64_t sms, int per_sm)
{
    int64_t grid = sms * per_sm;
    return gemm__cuda_stream_k_pays(tiles, grid) && 2 * (tiles % grid) <= sms;
}

/* AUTO's fp32 configuration for the layout the kernel reads.

   The large tiles: each layout's best on both Hopper GPUs
   (bench/research/exact): the side of a k-major operand, which the block
   transposes in shared memory, is the 128 one (256x128 when op(B) is
   k-major, 128x256 when op(A) is); 16x8 threads when neither is. A 256
   side is not used where it would stay half empty (M or N at most 128);
   16x8 threads only with the whole K loop in one block (at most one
   128x128 tile per SM splits K, and its short loops ran slower); a
   configuration must fit the block's shared memory (128x128 always does,
   94 KB at most).

   The 128 x 64 blocks (64 x 128 when M is at most 64) instead, their K
   split by the launch (gemm__cuda_split_rounds: to fill the SMs where
   their tiles are fewer, in 2 where they are at most 1.5 times as many):
   - where the 128 x 128 tiles are fewer than the SMs and K is at most
     2048 (cuBLAS runs such a 128 x 64 tile of 64 x 32 warps at 1024^3;
     on the H200 they took 1024^3 from 0.77-0.89 of cuBLAS to 0.86-0.98);
     longer K keeps the large tiles split, which amortises the split's
     passes (256 x 4096 x 4096 and 16384 x 128 x 16384: 0.70-0.77 unsplit
     on the small blocks, 0.83-0.88 split on the large);
   - where the large tiles run K whole and leave more of the SMs idle in
     their last round than the small ones' lower rate costs: the time of
     each is taken as the tiles an SM gets (the most, ceil(tiles / SMs);
     tiles / SMs for the small blocks of a single call that stream-K
     evens out) times a tile's area, the 128 x 64 blocks at 0.936 of the large
     tiles' rate (2048^3, where both fill their rounds: 0.86 and 0.92 of
     cuBLAS). On the H200 (row-major NN) this took 1536^3 from 0.70-0.72
     to 0.90-0.92, 1792^3 0.85-0.88 to 1.08-1.10, 2560^3 0.80-0.81 to
     0.88, 3072^3 0.79-0.80 to 1.00-1.01, and kept the large tiles at
     2048^3 and 4096^3.
   `members`: a batch's count (its tiles side by side fill the GPU sooner),
   1 for a single call. */
static int gemm__cuda_sw_choose(bool ak, bool bk, int64_t M, int64_t N, int64_t K, int64_t members,
                                const gemm__cuda_exact_dev *d)
{
    int prefs[3] = {GEMM__CUDA_SW_128, 0, 0}, large = GEMM__CUDA_SW_128, i, bm, bn;
    int small = M <= 64 && N > 64 ? GEMM__CUDA_SW_64X128 : GEMM__CUDA_SW_128X64;
    int64_t sms = d->sms, tiles = gemm__cuda_sw_tiles(GEMM__CUDA_SW_128, M, N), tl, ts;
    double small_rounds;
    if (tiles * members < sms && K <= 2048) return small;
    if (!ak && bk) { prefs[0] = GEMM__CUDA_SW_256X128; prefs[1] = GEMM__CUDA_SW_128; }
    else if (ak && !bk) { prefs[0] = GEMM__CUDA_SW_128X256; prefs[1] = GEMM__CUDA_SW_128; }
    else if (!ak && !bk) { prefs[0] = GEMM__CUDA_SW_128_16X8; prefs[1] = GEMM__CUDA_SW_128; }
    else { prefs[0] = GEMM__CUDA_SW_128X256; prefs[1] = GEMM__CUDA_SW_256X128; prefs[2] = GEMM__CUDA_SW_128; }
    for (i = 0; i < 3 && prefs[i]; i++) {
        int v = prefs[i];
        if (gemm__cuda_sw_smem(v, ak, bk) > (size_t)d->smem_block) continue;
        if ((v == GEMM__CUDA_SW_256X128 && M <= 128) || (v == GEMM__CUDA_SW_128X256 && N <= 128)) continue;
        if (v == GEMM__CUDA_SW_128_16X8 && tiles <= sms) continue; /* K would be split */
        large = v;
        break;
    }
    tl = gemm__cuda_sw_tiles(large, M, N) * members;
    ts = gemm__cuda_sw_tiles(small, M, N) * members;
    gemm__cuda_sw_block(large, &bm, &bn);
    /* K whole on the large tiles: the launch splits it below half their slots (one a SM for 256 sides, two else) */
    /* the rounds the small blocks take: tiles / SMs where a single call's stream-K evens out the last */
    small_rounds = members == 1 && gemm__cuda_sw_stream_k_pays(ts, sms, 2) ? (double)ts / (double)sms
                                                                             : (double)((ts + sms - 1) / sms);
    if (2 * tl > sms * (bm * bn > 16384 ? 1 : 2) &&
        small_rounds * (128 * 64) < 0.936 * (double)((tl + sms - 1) / sms) * (bm * bn))
        return small;
    return large;
}

/* AUTO's fp64 configuration: the TMA kernel where it can run, 128x128
   tiles, or 128x64 at two blocks per SM when the 128x128 tiles give fewer
   than 60% of the SMs one and K is short (the fixed costs of a tile weigh
   more there, and two blocks per SM hide each other's: 1024^3, 64 tiles;
   from 60% the 128x128 tiles won on the H200 at 81, 100 and 121 tiles:
   1100 x 1100 x 2000 0.72 -> 0.92 of cuBLAS, 1200^3 0.79 -> 0.84, 1300^3
   0.99 -> 1.07), when N is at most 64, or when
   the 128x128 tiles' last round would leave more than 40% of the SMs'
   rounds idle (1536^3 on the H200: 144 tiles for 132 SMs, 0.69 of cuBLAS
   on 128x128, 0.86 on 128x64). Below that the measurements disagree:
   2560^3 (24% idle) ran 0.93 on 128x64 against 0.87, 1792^3 (26%) 0.77
   against 0.82, 3072^3 (13%) 0.85 against 0.93; they keep 128x128. A
   single call's last round is evened out by stream-K (exact_run.cuh),
   which runs one block a SM on either shape: where it pays and may run
   (`stream_k`: options.split_k = 0), the 128 x 128 tiles (1536^3: 144
   tiles; the 40% rule is for the calls without it). */
static int gemm__cuda_dmma_choose(int64_t M, int64_t N, int64_t K, const gemm__cuda_exact_dev *d, bool stream_k)
{
    int64_t sms = d->sms, tiles = ((M + 127) / 128) * ((N + 127) / 128), rounds = (tiles + sms - 1) / sms;
    if (!d->tma) return GEMM__CUDA_DMMA_RING;
    if (N <= 64 || (10 * tiles < 6 * sms && K <= 2048)) return GEMM__CUDA_DMMA_TMA_64;
    if (stream_k && gemm__cuda_stream_k_pays(tiles, sms)) return GEMM__CUDA_DMMA_TMA; /* it evens out the last round */
    return rounds >= 2 && 10 * (rounds * sms - tiles) > 4 * rounds * sms ? GEMM__CUDA_DMMA_TMA_64 : GEMM__CUDA_DMMA_TMA;
}

/* Whether X (base and leading dimension) is 16-byte aligned. */
static bool gemm__cuda_aligned16(const void *X, int64_t ld, size_t elem)
{
    return (uintptr_t)X % 16 == 0 && (ld * (int64_t)elem) % 16 == 0;
}

/* The copy of one operand (rows x K, k-major or not, leading dimension ld)
   into scratch: rows of whole 16-byte vectors in the layout it gets. */
static void gemm__cuda_plan_copy(gemm__cuda_copy how, bool kmajor, int64_t rows, int64_t K, size_t elem,
                                 gemm__cuda_copy *copy, int64_t *ld, size_t *elems)
{
    int64_t v = 16 / (int64_t)elem, inner = (how == GEMM__CUDA_TRANSPOSE) != kmajor ? K : rows;
    int64_t outer = inner == K ? rows : K;
    *copy = how;
    if (how == GEMM__CUDA_AS_IS) return;
    *ld = (inner + v - 1) / v * v;
    *elems = (size_t)(*ld * outer);
}

/* Row-major NT (both operands k-major) makes the fp32 kernel transpose both
   in shared memory, its slowest case. AUTO copies one of them transposed
   into scratch first when the copy is cheap beside the product: copying
   op(B) (N x K) costs N*K of the product's M*N*K, so op(B) when M >= N,
   else op(A), and only when that other side is at least 2048 (the copy is
   then under about 4% of the time). A forced configuration copies only
   when its both-k-major form does not fit in shared memory. */
static bool gemm__cuda_sw_nt_copy(const gemm__problem *p, int variant, const gemm__cuda_exact_dev *d)
{
    if (!p->a_trans || p->b_trans || p->k > (1 << 21)) return false; /* the copy kernels' grid: K / 32 <= 65535 */
    if (variant) return gemm__cuda_sw_smem(variant, true, true) > (size_t)d->smem_block;
    return (p->m >= p->n ? p->m : p->n) >= GEMM__HOOK(cuda_nt_copy_min, 2048);
}

/* The same for the fp64 TMA kernel, whose both-k-major form (row-major
   NT) reads its fragments k-major on both sides: 0.93-0.96 of cuBLAS at
   2048^3 and 4096^3 on the H200 where the other layouts run 1.00-1.08.
   AUTO copies the smaller operand transposed (op(A) when M <= N, which
   makes the layout NN's; else op(B), TT's) when the larger side is at
   least GEMM__CUDA_DMMA_NT_COPY_MIN. */
#define GEMM__CUDA_DMMA_NT_COPY_MIN 1024
static bool gemm__cuda_dmma_nt_copy(const gemm__problem *p, int variant, int chosen)
{
    if (!p->a_trans || p->b_trans || p->k > (1 << 21) || variant || chosen == GEMM__CUDA_DMMA_RING) return false;
    return (p->m >= p->n ? p->m : p->n) >= GEMM__HOOK(cuda_nt_copy_min, GEMM__CUDA_DMMA_NT_COPY_MIN);
}

/* The copy that a both-k-major call takes (above): op(A) transposed when
   M <= N, else op(B). */
static void gemm__cuda_plan_nt_copy(const gemm__problem *p, size_t elem, gemm__cuda_exact_plan *t, bool copy_a)
{
    if (copy_a) {
        gemm__cuda_plan_copy(GEMM__CUDA_TRANSPOSE, true, p->m, p->k, elem, &t->copy_a, &t->lda, &t->a_elems);
        t->ak = false;
    } else {
        gemm__cuda_plan_copy(GEMM__CUDA_TRANSPOSE, true, p->n, p->k, elem, &t->copy_b, &t->ldb, &t->b_elems);
        t->bk = false;
    }
}

/* The plan of an fp32 SIMT or fp64 DMMA call. `variant`: options.variant
   (0: choose); split_k: options.split_k (0 allows stream-K).
   GEMM_ERR_UNAVAILABLE when a forced configuration cannot run on this
   device. */
template <typename T>
static gemm_status gemm__cuda_exact_plan_of(const char *fn, gemm_cuda_kernel kernel, const gemm__problem *p,
                                            const T *a, const T *b, int variant, int split_k,
                                            const gemm__cuda_exact_dev *d, gemm__cuda_exact_plan *t)
{
    size_t elem = sizeof(T);
    bool tma;
    memset(t, 0, sizeof *t);
    t->kernel = kernel;
    t->ak = p->a_trans;
    t->bk = !p->b_trans;
    t->lda = p->lda;
    t->ldb = p->ldb;
    if (kernel == GEMM_CUDA_KERNEL_DMMA) {
        t->variant = variant ? variant
                             : gemm__cuda_dmma_choose(p->m, p->n, p->k, d,
                                                      split_k == 0 && GEMM__HOOK(cuda_stream_k, 0) >= 0);
        tma = t->variant != GEMM__CUDA_DMMA_RING;
        if (tma && !d->tma)
            return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: DMMA configuration %d needs a Hopper GPU (compute capability "
                              "9.0) and a build for sm_90a (-gencode arch=compute_90a,code=sm_90a)", fn, t->variant);
        if (gemm__cuda_dmma_nt_copy(p, variant, t->variant)) gemm__cuda_plan_nt_copy(p, elem, t, p->m <= p->n);
    } else {
        tma = true; /* the warp-tiled kernel also reads only 16-byte aligned operands */
        if (gemm__cuda_sw_nt_copy(p, variant, d)) gemm__cuda_plan_nt_copy(p, elem, t, p->m < p->n);
        t->variant = variant ? variant : gemm__cuda_sw_choose(t->ak, t->bk, p->m, p->n, p->k, 1, d);
        if (gemm__cuda_sw_smem(t->variant, t->ak, t->bk) > (size_t)d->smem_block)
            return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: SIMT configuration %d needs %zu bytes of shared memory per "
                              "block for this layout, this GPU gives %d", fn, t->variant,
                              gemm__cuda_sw_smem(t->variant, t->ak, t->bk), d->smem_block);
    }
    if (tma && t->copy_a == GEMM__CUDA_AS_IS && !gemm__cuda_aligned16(a, p->lda, elem))
        gemm__cuda_plan_copy(GEMM__CUDA_REALIGN, t->ak, p->m, p->k, elem, &t->copy_a, &t->lda, &t->a_elems);
    if (tma && t->copy_b == GEMM__CUDA_AS_IS && !gemm__cuda_aligned16(b, p->ldb, elem))
        gemm__cuda_plan_copy(GEMM__CUDA_REALIGN, t->bk, p->n, p->k, elem, &t->copy_b, &t->ldb, &t->b_elems);
    return GEMM_OK;
}

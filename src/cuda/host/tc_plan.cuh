/* The tensor-core modes' plan (TF32, FP16, BF16 and fp32-accurate
   inputs, fp32 sums): which operands WGMMA reads in place (16-bit ones
   MN-major too) and which are copied, k-major, into scratch first (or, in
   the fp32-accurate mode, split into TF32 parts); the WGMMA tile height,
   K split and grid; and the scratch a call takes. The chooser
   (choose.cuh) fills a plan; tc.cuh and batch_run.cuh run it. */
#pragma once
#include <stdint.h>
#include <string.h>
#include <type_traits>
#include "../../core/internal.h" /* gemm__problem, GEMM__HOOK */
#include "../api.h"              /* gemm_cuda_kernel, gemm_cuda_options */
#include "../device/batch.cuh"   /* gemm__cuda_batch */
#include "../kernels/wgmma.cuh"  /* gemm__cuda_wgmma_work, gemm__cuda_wgmma_shape */
#include "call.cuh"              /* gemm__cuda_gpu */

/* A k-major operand the tensor-core kernels can read in place: 16-byte
   aligned base and rows. */
static bool gemm__cuda_kmajor_ready(const void *X, int64_t ld, size_t elem, bool kmajor)
{
    return kmajor && (uintptr_t)X % 16 == 0 && (ld * (int64_t)elem) % 16 == 0;
}

/* options.variant of the tensor-core modes: WGMMA's block tile (0:
   automatic). */
enum { GEMM__CUDA_WG_256 = 1, GEMM__CUDA_WG_128 = 2, GEMM__CUDA_WG_128x64 = 3, GEMM__CUDA_WG_VARIANTS = 3 };

/* The WGMMA block tile, BM rows x *bn columns of C: options.variant 1 =
   256 x 128, 2 = 128 x 128, 3 = 128 x 64; automatic (0): 128 x 128 when M
   fits one such tile (a 256-row tile would be half empty: thin problems
   such as 16384 x 128 x 16384 row-major), else 256 x 128, whose reuse of
   each copied slice wins at every K measured on the H100 and the H200,
   short K included (4096 x 4096 x 256, 8192 x 8192 x 1024: two 128-row
   blocks per SM move a third more bytes from L2 per product). The
   fp32-accurate mode always takes 256 x 128 (its promoted sums need the
   split tile, wgmma.cuh). A single call whose tiles would be fewer than
   the SMs takes smaller ones instead (gemm__cuda_tc_plan_of). */
static int gemm__cuda_wgmma_tile(int M, int variant, bool accurate, int *bn)
{
    *bn = variant == GEMM__CUDA_WG_128x64 && !accurate ? 64 : 128;
    if (accurate) return 256;
    if (variant == GEMM__CUDA_WG_256) return 256;
    if (variant == GEMM__CUDA_WG_128 || variant == GEMM__CUDA_WG_128x64) return 128;
    return M <= 128 ? 128 : 256;
}

/* How deep WGMMA's ring is for a tile of bm x bn when `blocks` blocks
   share an SM: the stages that fit in a block's share of the SM's shared
   memory (less the driver's reservation per block, at most what a block
   may opt in to) beside the rest of the block's (the shape's
   OTHER_BYTES), at most the barriers' room. On Hopper (228 KB an SM): 4
   for 256 x 128; 3 (two blocks) or 6 (one) for 128 x 128; 4 or 8 for 128
   x 64. 0 when fewer than 2 fit. */
template <int BM, int BN> static int gemm__cuda_wgmma_depth_of(int blocks, const gemm__cuda_gpu *gpu)
{
    typedef gemm__cuda_wgmma_shape<BM, BN> S;
    int room = gpu->smem_sm / blocks - gpu->smem_reserved, stages;
    if (room > gpu->smem_block) room = gpu->smem_block;
    stages = (room - S::OTHER_BYTES) / S::STAGE_BYTES;
    if (stages > S::MAX_STAGES) stages = S::MAX_STAGES;
    return stages < 2 ? 0 : stages;
}

static int gemm__cuda_wgmma_depth(int bm, int bn, int blocks, const gemm__cuda_gpu *gpu)
{
    return bm == 256 ? gemm__cuda_wgmma_depth_of<256, 128>(blocks, gpu)
           : bn == 128 ? gemm__cuda_wgmma_depth_of<128, 128>(blocks, gpu)
                       : gemm__cuda_wgmma_depth_of<128, 64>(blocks, gpu);
}

/* How many parts the WGMMA kernel splits K into: options.split_k when set,
   else enough units to give every SM one when the tiles are fewer than
   the SMs, keeping at least min_kt K tiles per part. Each part's sums
   pass through scratch and a sum kernel, which on the H200 cost more than
   they gained below about 1024 elements of K per part: 1000^3 and
   1024^3 ran at 0.59-0.94 of cuBLAS split, 0.84-1.04 unsplit on 128-row
   tiles; 4096 x 256 x 4096 gained from 4 parts of 1024. A second block on an SM
   shares its tensor cores, so the SMs, not the block slots, are what a
   split fills (16384 x 128 x 16384: 128 tiles of 128 rows, 2 parts ran at
   0.66-0.75, 1 at 0.72-0.78). Returns the parts, none empty. */
static int gemm__cuda_wgmma_split(int tiles, int ktiles, int sms, int min_kt, int requested)
{
    int split = requested > 0 ? requested : tiles < sms ? sms / tiles : 1;
    if (requested <= 0 && split > ktiles / min_kt) split = ktiles / min_kt;
    if (split > ktiles) split = ktiles;
    if (split > 64) split = 64;
    if (split < 1) return 1;
    return (ktiles + (ktiles + split - 1) / split - 1) / ((ktiles + split - 1) / split); /* no empty parts */
}

/* How one tensor-core call or batch runs: its kernel (NAIVE: the ladder,
   nothing else set); whether WGMMA reads a 16-bit op(A) M-major (a_mn) or
   op(B) N-major (b_mn) in place, or MMA an op(A) M-major (a_mn, batches);
   MMA's block tile (mma_bm: 128, or 64 for a batch's small members);
   which operands are first copied into k-major rows of ldo elements, or,
   in the fp32-accurate mode (`accurate`), split into `regions` regions of
   ldo elements each (split.cuh); the WGMMA block tile (wg_bm x wg_bn), K
   split, raster group and grid (the ring's depth: work.stages), and
   whether the last part of a split tile sums the parts (`fixup`); and
   the scratch bytes of the copies (a's elements first), of split-K's
   sums, its counters (at `counters_at`) and the accurate mode's Inf/NaN
   flag (at `flag_at`). */
typedef struct gemm__cuda_tc_plan {
    gemm_cuda_kernel kernel;
    bool a_mn, b_mn, copy_a, copy_b, accurate, fixup;
    int wg_bm, wg_bn, mma_bm, split, group, grid, regions;
    int64_t ldo;
    gemm__cuda_wgmma_work work;
    size_t a_elems, b_elems, packed, partial_bytes, counters_at, flag_at, scratch_bytes;
} gemm__cuda_tc_plan;

/* The WGMMA schedule of a plan's tile: tiles, K split, units, and the
   grid: one block per unit up to the block slots of the device
   (persistent blocks walk the rest), and the ring as deep as the blocks
   an SM then runs leave room for (a grid of at most one block an SM: the
   whole SM's). Test hooks may force the raster group, the grid, the
   epilogue or the way a split K is summed. */
static void gemm__cuda_wgmma_schedule(gemm__cuda_tc_plan *t, int M, int N, int64_t K, int elem,
                                      const gemm__cuda_gpu *gpu, int split_k)
{
    gemm__cuda_wgmma_work *w = &t->work;
    int bk = 128 / elem, sms = gpu->sms, per_sm = t->wg_bm == 256 ? 1 : 2, slots = sms * per_sm, grid;
    memset(w, 0, sizeof *w);
    w->members = 1;
    w->tm = (M + t->wg_bm - 1) / t->wg_bm;
    w->tn = (N + t->wg_bn - 1) / t->wg_bn;
    w->tiles = w->tm * w->tn;
    if (t->accurate) { /* three segments of K, each padded to whole slices (ldo) */
        w->kt_seg = (int)(t->ldo / bk);
        w->kt_total = 3 * w->kt_seg;
    } else {
        w->kt_total = (int)((K + bk - 1) / bk);
    }
    /* the fp32-accurate mode keeps 4 slices a part (its K is three segments; not measured otherwise) */
    t->split = gemm__cuda_wgmma_split(w->tiles, w->kt_total, sms, t->accurate ? 4 : 1024 / bk, split_k);
    w->kt_per = (w->kt_total + t->split - 1) / t->split;
    w->units = w->tiles * t->split;
    w->group = GEMM__HOOK(cuda_wgmma_group, 8);
    /* the copy engine's epilogue where the launch finds that it applies
       (else the staged one: on an H200 FP16 and BF16 8192 x 8192 x 1024
       ran at 0.87-0.88 of cuBLAS staged, 0.98-1.00 so), and a separate
       sum kernel: on an H100 the
       last part's in-kernel sum ran split shapes (1024^3, thin ones) at
       0.4-0.5 of the sum kernel's speed, the direct epilogue large ones at
       0.85-0.9 of the staged one's */
    w->epilogue = GEMM__HOOK(cuda_wgmma_epilogue, 3);
    t->fixup = t->split > 1 && GEMM__HOOK(cuda_wgmma_reduce, 1) == 2;
    grid = GEMM__HOOK(cuda_wgmma_grid, 0);
    t->group = w->group;
    t->grid = grid < 0 ? w->units : grid > 0 ? (grid < w->units ? grid : w->units) : (slots < w->units ? slots : w->units);
    w->stages = gemm__cuda_wgmma_depth(t->wg_bm, t->wg_bn, t->grid > sms ? per_sm : 1, gpu);
}

/* The plan of a single call on `kernel` (WGMMA or MMA). */
template <typename T>
static gemm__cuda_tc_plan gemm__cuda_tc_plan_of(gemm_cuda_kernel kernel, const gemm__problem *p, const T *a,
                                                const T *b, const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu)
{
    gemm__cuda_tc_plan t;
    int M = (int)p->m, N = (int)p->n, K = (int)p->k, elem = (int)sizeof(T);
    bool ak = p->a_trans, bk = !p->b_trans, wgmma = kernel == GEMM_CUDA_KERNEL_WGMMA; /* k-major operands */
    memset(&t, 0, sizeof t);
    t.kernel = kernel;
    t.accurate = std::is_same<T, float>::value && opt->math == GEMM_CUDA_MATH_FP32_ACCURATE;
    t.ldo = t.accurate ? (K + 31) / 32 * 32 : (K + 7) / 8 * 8; /* whole 128-byte slices; 16-byte rows */
    t.regions = t.accurate ? 3 : 1;
    /* WGMMA reads 16-bit operands MN-major as well (wgmma's transpose bits) */
    t.a_mn = wgmma && elem == 2 && !ak && gemm__cuda_kmajor_ready(a, p->lda, elem, true);
    t.b_mn = wgmma && elem == 2 && !bk && gemm__cuda_kmajor_ready(b, p->ldb, elem, true);
    t.copy_a = t.accurate || (!t.a_mn && !gemm__cuda_kmajor_ready(a, p->lda, elem, ak));
    t.copy_b = t.accurate || (!t.b_mn && !gemm__cuda_kmajor_ready(b, p->ldb, elem, bk));
    t.wg_bm = gemm__cuda_wgmma_tile(M, opt->variant, t.accurate, &t.wg_bn);
    t.mma_bm = 128;
    t.split = 1;
    if (wgmma) gemm__cuda_wgmma_schedule(&t, M, N, K, elem, gpu, opt->split_k);
    /* automatic tile: 256-row units that leave more than half the SMs idle
       (K too short to split: 1000^3, 1024^3) take 128-row tiles, twice as
       many (on the H200 0.84-1.04 of cuBLAS against 0.59-0.94); and where
       those tiles, or 256-row tiles whose K is split, are fewer than 0.8 of
       the SMs (1024^3's 64 tiles, the 32 of 256 x 4096 x 4096), 128 x 64
       tiles, twice as many again, with the deep ring of one block an SM
       and K split less or not at all. 256-row tiles with K whole stay
       (1536^3's 72: 0.80-0.82 of cuBLAS in FP16 and BF16, 0.72-0.74 on
       128 x 64 tiles) */
    if (wgmma && opt->variant == 0 && !t.accurate && t.wg_bm == 256 && 2 * t.work.units < gpu->sms) {
        t.wg_bm = 128;
        gemm__cuda_wgmma_schedule(&t, M, N, K, elem, gpu, opt->split_k);
    }
    if (wgmma && opt->variant == 0 && !t.accurate && (t.wg_bm == 128 || t.split > 1) &&
        5 * t.work.tiles < 4 * gpu->sms) {
        t.wg_bm = 128;
        t.wg_bn = 64;
        gemm__cuda_wgmma_schedule(&t, M, N, K, elem, gpu, opt->split_k);
    }
    t.a_elems = t.copy_a ? (size_t)M * t.regions * t.ldo : 0;
    t.b_elems = t.copy_b ? (size_t)N * t.regions * t.ldo : 0;
    t.packed = ((t.a_elems + t.b_elems) * sizeof(T) + 255) / 256 * 256;
    t.partial_bytes = t.split > 1 ? ((size_t)t.split * M * N * sizeof(float) + 255) / 256 * 256 : 0;
    t.counters_at = t.packed + t.partial_bytes;
    t.flag_at = t.counters_at + (t.fixup ? ((size_t)t.work.tiles * sizeof(int) + 255) / 256 * 256 : 0);
    t.scratch_bytes = t.flag_at + (t.accurate ? 256 : 0);
    return t;
}

/* The WGMMA plan of a strided batch: K not split, the members' units
   side by side (member outermost), a 16-bit operand read M- or N-major in
   place when aligned, every other operand not k-major and aligned copied. */
template <typename T>
static gemm__cuda_tc_plan gemm__cuda_wgmma_members_plan(const gemm__problem *p, const gemm__cuda_batch &bt,
                                                        bool aligned_a, bool aligned_b, int variant,
                                                        const gemm__cuda_gpu *gpu)
{
    gemm__cuda_tc_plan t;
    int elem = (int)sizeof(T), sms = gpu->sms, per_sm;
    memset(&t, 0, sizeof t);
    t.kernel = GEMM_CUDA_KERNEL_WGMMA;
    t.ldo = (p->k + 7) / 8 * 8;
    t.regions = 1;
    t.a_mn = elem == 2 && !p->a_trans && aligned_a;
    t.b_mn = elem == 2 && p->b_trans && aligned_b;
    t.copy_a = !t.a_mn && !(p->a_trans && aligned_a);
    t.copy_b = !t.b_mn && !(!p->b_trans && aligned_b);
    t.wg_bm = gemm__cuda_wgmma_tile((int)p->m, variant, false, &t.wg_bn);
    t.mma_bm = 128;
    gemm__cuda_wgmma_schedule(&t, (int)p->m, (int)p->n, p->k, elem, gpu, 1);
    t.work.units *= (int)bt.count;
    t.work.members = (int)bt.count;
    t.work.stride_c = bt.stride_c;
    per_sm = t.wg_bm == 256 ? 1 : 2;
    t.grid = sms * per_sm < t.work.units ? sms * per_sm : t.work.units;
    t.work.stages = gemm__cuda_wgmma_depth(t.wg_bm, t.wg_bn, t.grid > sms ? per_sm : 1, gpu);
    t.a_elems = t.copy_a ? (size_t)(p->m * t.ldo) : 0;
    t.b_elems = t.copy_b ? (size_t)(p->n * t.ldo) : 0;
    return t;
}

/* The MMA plan of a batch: K not split, op(A) read in place when every
   member's is aligned (k-major or M-major), op(B) when every member's is
   aligned and k-major, the others copied; 64 x 64 block tiles for `small`
   members. */
template <typename T>
static gemm__cuda_tc_plan gemm__cuda_mma_members_plan(const gemm__problem *p, bool aligned_a, bool aligned_b, bool small)
{
    gemm__cuda_tc_plan t;
    memset(&t, 0, sizeof t);
    t.kernel = GEMM_CUDA_KERNEL_MMA;
    t.ldo = (p->k + 7) / 8 * 8; /* 16-byte rows */
    t.regions = 1;
    t.copy_a = !aligned_a;
    t.copy_b = !(!p->b_trans && aligned_b);
    t.a_mn = !t.copy_a && !p->a_trans;
    t.mma_bm = small ? 64 : 128;
    t.split = 1;
    t.a_elems = t.copy_a ? (size_t)(p->m * t.ldo) : 0;
    t.b_elems = t.copy_b ? (size_t)(p->n * t.ldo) : 0;
    return t;
}

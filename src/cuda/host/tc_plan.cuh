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
#include "../kernels/wgmma.cuh"  /* gemm__cuda_wgmma_work */

/* A k-major operand the tensor-core kernels can read in place: 16-byte
   aligned base and rows. */
static bool gemm__cuda_kmajor_ready(const void *X, int64_t ld, size_t elem, bool kmajor)
{
    return kmajor && (uintptr_t)X % 16 == 0 && (ld * (int64_t)elem) % 16 == 0;
}

/* options.variant of the tensor-core modes: WGMMA's block height (0:
   automatic). */
enum { GEMM__CUDA_WG_256 = 1, GEMM__CUDA_WG_128 = 2, GEMM__CUDA_WG_VARIANTS = 2 };

/* The WGMMA block height: options.variant 1 = 256, 2 = 128; automatic
   (0): 128 when M fits one such tile (a 256-row tile would be half empty:
   thin problems such as 16384 x 128 x 16384 row-major), else 256, whose
   reuse of each copied slice wins at every K measured on the H100 and the
   H200, short K included (4096 x 4096 x 256, 8192 x 8192 x 1024: two
   128-row blocks per SM move a third more bytes from L2 per product). The
   fp32-accurate mode always takes 256 (its promoted sums need the split
   tile, wgmma.cuh). A single call whose 256-row units would leave most
   SMs idle takes 128 instead (gemm__cuda_tc_plan_of). */
static int gemm__cuda_wgmma_bm(int M, int variant, bool accurate)
{
    if (accurate) return 256;
    if (variant == GEMM__CUDA_WG_256 || variant == GEMM__CUDA_WG_128) return variant == GEMM__CUDA_WG_256 ? 256 : 128;
    return M <= 128 ? 128 : 256;
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
   ldo elements each (split.cuh); the WGMMA tile height, K split, raster
   group and grid, and whether the last part of a split tile sums the
   parts (`fixup`); and the scratch bytes of the copies (a's elements
   first), of split-K's sums, its counters (at `counters_at`) and the
   accurate mode's Inf/NaN flag (at `flag_at`). */
typedef struct gemm__cuda_tc_plan {
    gemm_cuda_kernel kernel;
    bool a_mn, b_mn, copy_a, copy_b, accurate, fixup;
    int wg_bm, mma_bm, split, group, grid, regions;
    int64_t ldo;
    gemm__cuda_wgmma_work work;
    size_t a_elems, b_elems, packed, partial_bytes, counters_at, flag_at, scratch_bytes;
} gemm__cuda_tc_plan;

/* The WGMMA schedule of a plan: tiles, K split, units, and the grid: one
   block per unit up to the block slots of the device (persistent blocks
   walk the rest). Test hooks may force the raster group, the grid, the
   epilogue or the way a split K is summed. */
static void gemm__cuda_wgmma_schedule(gemm__cuda_tc_plan *t, int M, int N, int64_t K, int elem, int sms, int split_k)
{
    gemm__cuda_wgmma_work *w = &t->work;
    int bk = 128 / elem, slots = sms * (t->wg_bm == 256 ? 1 : 2), grid;
    memset(w, 0, sizeof *w);
    w->members = 1;
    w->tm = (M + t->wg_bm - 1) / t->wg_bm;
    w->tn = (N + 127) / 128;
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
}

/* The plan of a single call on `kernel` (WGMMA or MMA). */
template <typename T>
static gemm__cuda_tc_plan gemm__cuda_tc_plan_of(gemm_cuda_kernel kernel, const gemm__problem *p, const T *a,
                                                const T *b, const gemm_cuda_options *opt, int sms)
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
    t.wg_bm = gemm__cuda_wgmma_bm(M, opt->variant, t.accurate);
    t.mma_bm = 128;
    t.split = 1;
    if (wgmma) gemm__cuda_wgmma_schedule(&t, M, N, K, elem, sms, opt->split_k);
    /* automatic height: 256-row units that leave more than half the SMs
       idle (K too short to split: 1000^3, 1024^3) take 128-row tiles,
       twice as many (on the H200 0.84-1.04 of cuBLAS against 0.59-0.94) */
    if (wgmma && opt->variant == 0 && !t.accurate && t.wg_bm == 256 && 2 * t.work.units < sms) {
        t.wg_bm = 128;
        gemm__cuda_wgmma_schedule(&t, M, N, K, elem, sms, opt->split_k);
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
                                                        bool aligned_a, bool aligned_b, int variant, int sms)
{
    gemm__cuda_tc_plan t;
    int elem = (int)sizeof(T), slots;
    memset(&t, 0, sizeof t);
    t.kernel = GEMM_CUDA_KERNEL_WGMMA;
    t.ldo = (p->k + 7) / 8 * 8;
    t.regions = 1;
    t.a_mn = elem == 2 && !p->a_trans && aligned_a;
    t.b_mn = elem == 2 && p->b_trans && aligned_b;
    t.copy_a = !t.a_mn && !(p->a_trans && aligned_a);
    t.copy_b = !t.b_mn && !(!p->b_trans && aligned_b);
    t.wg_bm = gemm__cuda_wgmma_bm((int)p->m, variant, false);
    t.mma_bm = 128;
    gemm__cuda_wgmma_schedule(&t, (int)p->m, (int)p->n, p->k, elem, sms, 1);
    t.work.units *= (int)bt.count;
    t.work.members = (int)bt.count;
    t.work.stride_c = bt.stride_c;
    slots = sms * (t.wg_bm == 256 ? 1 : 2);
    t.grid = slots < t.work.units ? slots : t.work.units;
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

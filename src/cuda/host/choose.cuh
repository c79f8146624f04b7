/* One decision, one place: the mode a call runs in, its kernel and the
   kernel's configuration, for single calls, batches and the host path
   (whose multiplies are single calls on device buffers, so the same
   choosers decide them). One chooser per mode fills the plan its runners
   follow: gemm__cuda_choose_exact (gemm__cuda_exact_plan, exact_plan.cuh)
   and gemm__cuda_choose_tc (gemm__cuda_tc_plan, tc_plan.cuh; the
   fp32-accurate mode is a tensor-core plan). Only they, and the plan
   builders they call, read options.kernel, .variant and .math. The
   rules:

   Mode (gemm__cuda_is_tc): fp64 exact; fp32 exact, or on the tensor cores
   with options.math TF32 or FP32_ACCURATE; FP16 and BF16 always on the
   tensor cores. A batch in the fp32-accurate mode or emulated fp64 runs
   its members one after another as single calls (gemm__cuda_members_apart).

   Options (gemm__cuda_check_exact, _check_tc): exact kernels AUTO, NAIVE,
   TILED16, SIMT, DMMA (fp64 only), variants 1-4 of fp32 SIMT and 1-3 of
   DMMA, named with their kernel; tensor-core kernels AUTO, NAIVE, MMA,
   WGMMA, variants 1-3 (WGMMA's tiles of 256 x 128, 128 x 128, 128 x 64).

   fp32 / fp64 exact (gemm__cuda_choose_exact)
     kernel  options.kernel, else TILED16 below sm_80 (no cp.async), DMMA
             for fp64 on full-rate FP64 tensor cores (8.0, 9.x, 10.x),
             else SIMT. SIMT or DMMA below sm_80: refused.
             NAIVE, TILED16: the ladder; fp64 SIMT: its 64 x 64 cp.async
             configuration; both read the operands in place.
     single  DMMA: options.variant, else, where the sm_90a code runs, the
     call    TMA kernel with 128 x 64 tiles when N <= 64, when the
             128 x 128 tiles are fewer than the SMs and K <= 2048, or when
             their last round leaves over 40% of the SMs' rounds idle,
             else 128 x 128; without that code the ring (cp.async,
             128 x 64, in place), and the TMA variants are refused.
             With AUTO's variant, both operands k-major (row-major NT)
             and m or n >= GEMM__CUDA_DMMA_NT_COPY_MIN: the smaller
             operand copied transposed first (gemm__cuda_dmma_nt_copy).
             fp32 SIMT: both operands k-major (row-major NT) with m or
             n >= 2048 and K <= 2^21 copies one operand transposed first
             (with a forced variant: only when its both-k-major form does
             not fit); options.variant, else gemm__cuda_sw_choose (by
             layout, size, shared memory; the 128 x 64 blocks where
             128 x 128 tiles are fewer than the SMs and K <= 2048, or
             where the large tiles' last round idles more SMs than the
             small blocks' lower rate costs).
             The TMA and warp-tiled kernels read operands that are not
             16-byte aligned from realigned copies (a copy kernel). K is
             split over the blocks when the tiles do not fill the GPU
             (options.split_k). Stream-K (the last tiles' K steps dealt
             out evenly over the grid) where the tiles are more than the
             blocks and leave the last round at most 90% full: fp64's TMA
             kernel and fp32's 128 x 64 and 64 x 128 blocks (these also
             only where the last round leaves half the SMs idle), single
             calls, options.split_k = 0.
     batch   K split only when options.split_k asks. Tiny members (AUTO,
             K whole, sm_80+, m and n at most 32, k at most 64:
             gemm__cuda_tiny_members), fp32 and fp64: the tiny kernel,
             four members per block on the CUDA cores, in place (the
             tiles below left 3/4 to 15/16 of their threads idle there:
             0.52-0.73 of cuBLAS at 16^3 and 32^3). fp64 DMMA: variants
             2 and 3 refused; members of at most 64 rows on 64 x 64
             cp.async tiles; with AUTO's variant, every member aligned,
             the sm_90a code and members a tensor map can hold as its
             third dimension (gemm__cuda_tma_members), the TMA kernel at
             128 x 128; else the ring. fp32 SIMT: members not all
             aligned, K split, or (AUTO's variant) m or n at most 64: the
             64 x 64 cp.async configuration; else the warp-tiled kernel,
             options.variant or gemm__cuda_sw_choose's, no copies.

   Tensor-core modes (gemm__cuda_choose_tc)
     single  options.kernel, else WGMMA where the sm_90a code runs, MMA
     call    from sm_80, NAIVE below (the ladder); MMA below sm_80 and
             WGMMA without the sm_90a code refused. Plan:
             gemm__cuda_tc_plan_of (operand copies or the fp32-accurate
             split, WGMMA's tile, K split and ring depth).
     batch   NAIVE when asked. Members of at most 64 x 64 (unless WGMMA
             is asked) on MMA's 64 x 64 tiles; TF32 with AUTO, every
             op(A) aligned and M-major, and at most 256 columns on MMA;
             else WGMMA when AUTO or asked, where the sm_90a code runs
             and gemm__cuda_tma_members holds, else MMA (WGMMA asked:
             refused); below sm_80 refused. K is not split. Plans:
             gemm__cuda_wgmma_members_plan, gemm__cuda_mma_members_plan. */
#pragma once
#include <atomic>
#include <stdint.h>
#include <string.h>
#include <type_traits>
#include "../../core/internal.h"   /* gemm__problem, gemm__fail */
#include "../api.h"                /* gemm_cuda_options, gemm_cuda_kernel_name */
#include "../device/batch.cuh"     /* gemm__cuda_batch */
#include "../device/ozaki_math.cuh" /* GEMM__OZAKI_MAX_MODULI */
#include "../device/wgmma_ptx.cuh" /* gemm__cuda_wgmma_built */
#include "call.cuh"                /* gemm__cuda_gpu, gemm__cuda_operands */
#include "errors.cuh"
#include "exact.cuh"      /* gemm__cuda_aligned_ab */
#include "exact_plan.cuh" /* gemm__cuda_exact_plan, gemm__cuda_exact_plan_of, gemm__cuda_sw_choose */
#include "tc_plan.cuh"    /* gemm__cuda_tc_plan and its builders */

/* Whether a call with A and B of type T runs on the tensor cores: FP16 and
   BF16 always, fp32 under options.math = TF32 or FP32_ACCURATE, fp64 never. */
template <typename T> static bool gemm__cuda_is_tc(const gemm_cuda_options *o)
{
    if constexpr (std::is_same<T, double>::value) return false;
    else if constexpr (std::is_same<T, float>::value)
        return o->math == GEMM_CUDA_MATH_TF32 || o->math == GEMM_CUDA_MATH_FP32_ACCURATE;
    else return true;
}

/* Whether a batch runs its members one after another through the single
   call (the fp32-accurate mode and emulated fp64: their operand splits and
   residues are not batched). */
static bool gemm__cuda_members_apart(const gemm__problem *p, const gemm_cuda_options *opt)
{
    return (opt->math == GEMM_CUDA_MATH_FP32_ACCURATE || opt->math == GEMM_CUDA_MATH_FP64_EMULATED) &&
           p->work == GEMM__WORK_FULL;
}

/* The options of fp32 and fp64 computed exactly (SIMT, DMMA, the ladder);
   `bits` is 32 or 64. */
static gemm_status gemm__cuda_check_exact(const char *fn, const gemm_cuda_options *o, int bits)
{
    if (o->math != GEMM_CUDA_MATH_EXACT && !(o->math == GEMM_CUDA_MATH_FP64_EMULATED && bits == 64))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.math = %d is not supported here (TF32 and "
                          "FP32_ACCURATE are for fp32 only, FP64_EMULATED for fp64)", fn, (int)o->math);
    if (o->kernel == GEMM_CUDA_KERNEL_MMA || o->kernel == GEMM_CUDA_KERNEL_WGMMA)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: the %s kernel is for the tensor-core modes (options.math = "
                          "GEMM_CUDA_MATH_TF32, or gemm_cuda_sgemm_mixed)", fn, gemm_cuda_kernel_name(o->kernel));
    if ((unsigned)o->kernel > GEMM_CUDA_KERNEL_DMMA)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.kernel = %d is not a gemm_cuda_kernel", fn, (int)o->kernel);
    if (o->kernel == GEMM_CUDA_KERNEL_DMMA && bits != 64)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: the DMMA kernel is fp64 only", fn);
    if (o->split_k < 0) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.split_k = %d is negative", fn, o->split_k);
    if (o->variant != 0 &&
        !(o->variant > 0 && o->kernel == GEMM_CUDA_KERNEL_SIMT && bits == 32 && o->variant <= GEMM__CUDA_SW_VARIANTS) &&
        !(o->variant > 0 && o->kernel == GEMM_CUDA_KERNEL_DMMA && o->variant <= GEMM__CUDA_DMMA_VARIANTS))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.variant = %d: the exact configurations are 1-%d of the "
                          "SIMT kernel (fp32) and 1-%d of DMMA, named with options.kernel (0: automatic)", fn,
                          o->variant, (int)GEMM__CUDA_SW_VARIANTS, (int)GEMM__CUDA_DMMA_VARIANTS);
    return GEMM_OK;
}

/* The options of the tensor-core modes (TF32, FP16, BF16, FP32_ACCURATE). */
static gemm_status gemm__cuda_check_tc(const char *fn, const gemm_cuda_options *o)
{
    if (o->kernel != GEMM_CUDA_KERNEL_AUTO && o->kernel != GEMM_CUDA_KERNEL_NAIVE &&
        o->kernel != GEMM_CUDA_KERNEL_MMA && o->kernel != GEMM_CUDA_KERNEL_WGMMA)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.kernel = %d is not a tensor-core kernel (auto, mma, wgmma "
                          "or naive)", fn, (int)o->kernel);
    if (o->split_k < 0) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.split_k = %d is negative", fn, o->split_k);
    if (o->variant < 0 || o->variant > GEMM__CUDA_WG_VARIANTS)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.variant = %d: the tensor-core kernels take 0 (automatic), "
                          "%d (WGMMA blocks of 256 x 128), %d (128 x 128) or %d (128 x 64)", fn, o->variant,
                          (int)GEMM__CUDA_WG_256, (int)GEMM__CUDA_WG_128, (int)GEMM__CUDA_WG_128x64);
    return GEMM_OK;
}

/* options.moduli, and where the emulated products are offered (`offered`:
   the device-pointer calls of gemm_cuda_sgemm and _dgemm, single and
   batched). */
static gemm_status gemm__cuda_check_emulation(const char *fn, const gemm_cuda_options *o, bool offered)
{
    if (o->moduli < 0 || o->moduli == 1 || o->moduli > GEMM__OZAKI_MAX_MODULI)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.moduli = %d: 0 (by size) or 2..%d", fn, o->moduli,
                          GEMM__OZAKI_MAX_MODULI);
    if (o->moduli && o->math != GEMM_CUDA_MATH_FP64_EMULATED && o->math != GEMM_CUDA_MATH_FP32_ACCURATE)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.moduli = %d is for options.math FP64_EMULATED and "
                          "FP32_ACCURATE", fn, o->moduli);
    if (!offered && (o->moduli || o->math == GEMM_CUDA_MATH_FP64_EMULATED))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: the emulated products (FP64_EMULATED, options.moduli) are offered "
                          "for the device-pointer calls of gemm_cuda_sgemm and gemm_cuda_dgemm and their batches, "
                          "not here", fn);
    return GEMM_OK;
}

/* Whether this build holds the sm_90a code (WGMMA, the TMA DMMA) for the
   device (compute capability 9.0): read once per device from the module
   the runtime loaded for it (a 4-byte synchronous copy). */
static bool gemm__cuda_sm90a_code(const gemm__cuda_gpu *gpu)
{
    static std::atomic<int> known[64]; /* 0: not asked yet, 1: no, 2: yes */
    int built = 0, dev = gpu->dev;
    if (gpu->major != 9 || gpu->minor != 0 || dev < 0 || dev >= 64) return false;
    if (known[dev].load() == 0)
        known[dev].store(cudaMemcpyFromSymbol(&built, gemm__cuda_wgmma_built, sizeof built) == cudaSuccess && built ? 2 : 1);
    return known[dev].load() == 2;
}

/* Full-rate FP64 tensor cores: A100 (8.0), H100/H200 (9.0), B200 (10.0). */
static bool gemm__cuda_has_dmma(int major, int minor)
{
    return (major == 8 && minor == 0) || major == 9 || major == 10;
}

/* AUTO's exact kernel for `precision` (GEMM_F32 or GEMM_F64). */
static gemm_cuda_kernel gemm__cuda_auto_exact(gemm_precision precision, const gemm__cuda_gpu *gpu)
{
    if (gpu->major < 8) return GEMM_CUDA_KERNEL_TILED16; /* no cp.async before sm_80 */
    return precision == GEMM_F64 && gemm__cuda_has_dmma(gpu->major, gpu->minor) ? GEMM_CUDA_KERNEL_DMMA
                                                                                : GEMM_CUDA_KERNEL_SIMT;
}

/* AUTO's kernel for a single call of the tensor-core modes. */
static gemm_cuda_kernel gemm__cuda_auto_tc(const gemm__cuda_gpu *gpu)
{
    if (gemm__cuda_sm90a_code(gpu)) return GEMM_CUDA_KERNEL_WGMMA;
    return gpu->major >= 8 ? GEMM_CUDA_KERNEL_MMA : GEMM_CUDA_KERNEL_NAIVE;
}

/* A batch as the choosers see it: its members (count, strides, the device
   lists of a pointer-array batch) and whether every member's A and B are
   16-byte aligned (bases and leading dimensions, strides or each listed
   pointer). The choosers take NULL for a single call. */
typedef struct gemm__cuda_members {
    const gemm__cuda_batch *bt;
    bool aligned_a, aligned_b;
} gemm__cuda_members;

/* Whether a batch's a and b can be 3-D tensor maps (the TMA kernels):
   strided, each stride 0 (a shared operand) or at least one member's
   whole span, so the copy engine sees the members as a third dimension
   (16-byte alignment is checked apart). */
static bool gemm__cuda_tma_members(const gemm__problem *p, const gemm__cuda_batch &bt)
{
    int64_t span_a = p->lda * (p->a_trans ? p->m : p->k), span_b = p->ldb * (p->b_trans ? p->k : p->n);
    if (bt.a || bt.b || bt.c || bt.count > INT32_MAX) return false;
    return (bt.stride_a == 0 || bt.stride_a >= span_a) && (bt.stride_b == 0 || bt.stride_b >= span_b);
}

/* Whether a batch's members go to the tiny kernel (kernels/tiny.cuh):
   options.kernel AUTO, K not split, cp.async (sm_80+), m and n at most 32
   and k at most 64 (deeper members, whose sums outweigh their loads, stay
   on the tiles below: not measured yet). */
static bool gemm__cuda_tiny_members(const gemm__problem *p, const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu,
                                    int split)
{
    return opt->kernel == GEMM_CUDA_KERNEL_AUTO && split == 1 && gpu->major >= 8 && p->m <= 32 && p->n <= 32 &&
           p->k <= 64;
}

/* The exact plan of a batch once the kernel is SIMT (fp32) or DMMA
   (fp64); t holds the kernel, the K parts and the alignment. */
template <typename T>
static gemm_status gemm__cuda_choose_exact_members(const char *fn, const gemm__problem *p,
                                                   const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu,
                                                   const gemm__cuda_members *batch, gemm__cuda_exact_plan *t)
{
    bool small = p->m <= 64 || (sizeof(T) == 4 && p->n <= 64);
    gemm__cuda_exact_dev dev;
    t->ak = p->a_trans;
    t->bk = !p->b_trans;
    t->lda = p->lda;
    t->ldb = p->ldb;
    if (sizeof(T) == 8) {
        if (opt->variant > 1)
            return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: batches run DMMA's cp.async configuration (variant 1), not "
                              "the TMA configuration %d", fn, opt->variant);
        t->variant = GEMM__CUDA_DMMA_RING;
        if (small) t->cp = GEMM__CUDA_CP_DMMA_SMALL;
        else if (opt->variant == 0 && t->aligned && gemm__cuda_sm90a_code(gpu) &&
                 gemm__cuda_tma_members(p, *batch->bt))
            t->variant = GEMM__CUDA_DMMA_TMA;
        else t->cp = GEMM__CUDA_CP_DMMA;
        return GEMM_OK;
    }
    if (!t->aligned || (small && opt->variant == 0) || t->split > 1) { /* the warp-tiled batch instance keeps K whole */
        t->cp = GEMM__CUDA_CP_SIMT_SMALL;
        return GEMM_OK;
    }
    dev.sms = gpu->sms;
    dev.tma = false;
    GEMM__CUDA_TRY(fn, cudaDeviceGetAttribute(&dev.smem_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, gpu->dev));
    t->variant = opt->variant ? opt->variant : gemm__cuda_sw_choose(t->ak, t->bk, p->m, p->n, p->k, batch->bt->count, &dev);
    if (gemm__cuda_sw_smem(t->variant, t->ak, t->bk) > (size_t)dev.smem_block)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: SIMT configuration %d needs %zu bytes of shared memory per "
                          "block for this layout, this GPU gives %d", fn, t->variant,
                          gemm__cuda_sw_smem(t->variant, t->ak, t->bk), dev.smem_block);
    return GEMM_OK;
}

/* fp32 or fp64 computed exactly: the kernel (options.kernel or AUTO's) and
   its plan, for a single call (batch NULL) or the members of a batch. */
template <typename T>
static gemm_status gemm__cuda_choose_exact(const char *fn, const gemm__problem *p,
                                           const gemm__cuda_operands<T, T, T> &x, const gemm_cuda_options *opt,
                                           const gemm__cuda_gpu *gpu, const gemm__cuda_members *batch,
                                           gemm__cuda_exact_plan *t)
{
    gemm_precision precision = sizeof(T) == 8 ? GEMM_F64 : GEMM_F32;
    gemm_cuda_kernel kernel = opt->kernel ? opt->kernel : gemm__cuda_auto_exact(precision, gpu);
    int split = batch ? (opt->split_k > 0 ? opt->split_k : 1) : opt->split_k;
    bool aligned = batch ? batch->aligned_a && batch->aligned_b : gemm__cuda_aligned_ab(p, x);
    gemm__cuda_exact_dev dev;
    gemm_status s;
    memset(t, 0, sizeof *t);
    t->kernel = kernel;
    t->split = split;
    t->aligned = aligned;
    if ((kernel == GEMM_CUDA_KERNEL_DMMA || kernel == GEMM_CUDA_KERNEL_SIMT) && gpu->major < 8)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the %s kernel needs compute capability 8.0+, this GPU is %d.%d",
                          fn, gemm_cuda_kernel_name(kernel), gpu->major, gpu->minor);
    if (kernel == GEMM_CUDA_KERNEL_NAIVE || kernel == GEMM_CUDA_KERNEL_TILED16) return GEMM_OK; /* the ladder */
    if (batch && gemm__cuda_tiny_members(p, opt, gpu, split)) {
        t->kernel = GEMM_CUDA_KERNEL_SIMT; /* the CUDA cores, fp64 too */
        t->cp = GEMM__CUDA_CP_TINY;
        return GEMM_OK;
    }
    if (sizeof(T) == 8 && kernel == GEMM_CUDA_KERNEL_SIMT) {
        t->cp = GEMM__CUDA_CP_SIMT_F64;
        return GEMM_OK;
    }
    if (batch) return gemm__cuda_choose_exact_members<T>(fn, p, opt, gpu, batch, t);
    dev.sms = gpu->sms;
    dev.tma = gemm__cuda_sm90a_code(gpu);
    GEMM__CUDA_TRY(fn, cudaDeviceGetAttribute(&dev.smem_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, gpu->dev));
    if ((s = gemm__cuda_exact_plan_of<T>(fn, kernel, p, x.a, x.b, opt->variant, opt->split_k, &dev, t)) != GEMM_OK) return s;
    t->split = split; /* the plan starts from zeros */
    t->aligned = aligned;
    if (sizeof(T) == 8 && t->variant == GEMM__CUDA_DMMA_RING) t->cp = GEMM__CUDA_CP_DMMA;
    return GEMM_OK;
}

/* The tensor-core plan of a batch (the rules above). Small members take
   MMA's 64 x 64 tiles, a block per member, because a WGMMA tile of 128
   rows would be three quarters empty (measured on an H100: 64^3 x 10,000
   at 0.52-0.65 of cuBLAS on WGMMA, 0.96-0.99 on these tiles). WGMMA reads
   TF32 only k-major, so with an M-major op(A) (the NN case) it copies
   op(A) first, which costs more than its faster sums up to 256 columns
   (TF32 128^3 x 4000: 0.60 of cuBLAS on WGMMA, 0.99 on MMA; 256^3 x 1000:
   0.66-0.71 and 0.89-0.92; but 1024^3 x 16: 0.87 and 0.50); MMA reads an
   aligned op(A) in place, k-major or M-major (see bench/RESULTS.md). */
template <typename T>
static gemm_status gemm__cuda_choose_tc_members(const char *fn, const gemm__problem *p, const gemm_cuda_options *opt,
                                                const gemm__cuda_gpu *gpu, const gemm__cuda_members *batch,
                                                gemm__cuda_tc_plan *t)
{
    const gemm__cuda_batch &bt = *batch->bt;
    bool aligned_a = batch->aligned_a, aligned_b = batch->aligned_b;
    bool small = p->m <= 64 && p->n <= 64 && opt->kernel != GEMM_CUDA_KERNEL_WGMMA;
    bool tf32_mn = sizeof(T) == 4 && !p->a_trans && aligned_a && p->n <= 256 && opt->kernel == GEMM_CUDA_KERNEL_AUTO;
    bool wgmma = !small && !tf32_mn &&
                 (opt->kernel == GEMM_CUDA_KERNEL_AUTO || opt->kernel == GEMM_CUDA_KERNEL_WGMMA) &&
                 gemm__cuda_sm90a_code(gpu) && gemm__cuda_tma_members(p, bt);
    gemm_cuda_kernel kernel = opt->kernel ? opt->kernel : GEMM_CUDA_KERNEL_MMA;
    t->kernel = kernel;
    if (kernel == GEMM_CUDA_KERNEL_NAIVE) return GEMM_OK;
    if (kernel == GEMM_CUDA_KERNEL_WGMMA && !wgmma)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the wgmma kernel runs strided batches on Hopper (compute "
                          "capability 9.0, a build for sm_90a), each stride 0 or at least a member's span; this is %s "
                          "on a %d.%d GPU: use the mma kernel", fn, bt.c ? "a pointer-array batch" : "another batch",
                          gpu->major, gpu->minor);
    if (gpu->major < 8)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: batches on the tensor cores need compute capability 8.0+; this "
                          "GPU is %d.%d", fn, gpu->major, gpu->minor);
    *t = wgmma ? gemm__cuda_wgmma_members_plan<T>(p, bt, aligned_a, aligned_b, opt->variant, gpu)
               : gemm__cuda_mma_members_plan<T>(p, aligned_a, aligned_b, small);
    return GEMM_OK;
}

/* The tensor-core modes (TF32, FP16, BF16, FP32_ACCURATE): the kernel
   (options.kernel or AUTO's) and its plan, for a single call (batch NULL)
   or the members of a batch. */
template <typename T>
static gemm_status gemm__cuda_choose_tc(const char *fn, const gemm__problem *p, const T *a, const T *b,
                                        const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu,
                                        const gemm__cuda_members *batch, gemm__cuda_tc_plan *t)
{
    gemm_cuda_kernel kernel;
    memset(t, 0, sizeof *t);
    if (batch) return gemm__cuda_choose_tc_members<T>(fn, p, opt, gpu, batch, t);
    kernel = opt->kernel ? opt->kernel : gemm__cuda_auto_tc(gpu);
    if (kernel == GEMM_CUDA_KERNEL_MMA && gpu->major < 8)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the mma kernel needs compute capability 8.0+, this GPU is %d.%d",
                          fn, gpu->major, gpu->minor);
    if (kernel == GEMM_CUDA_KERNEL_WGMMA && !gemm__cuda_sm90a_code(gpu))
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the wgmma kernel needs compute capability 9.0 (this GPU is %d.%d) "
                          "and a build for sm_90a (-gencode arch=compute_90a,code=sm_90a)", fn, gpu->major, gpu->minor);
    t->kernel = kernel;
    if (kernel == GEMM_CUDA_KERNEL_NAIVE) return GEMM_OK; /* the ladder */
    *t = gemm__cuda_tc_plan_of<T>(kernel, p, a, b, opt, gpu);
    return GEMM_OK;
}

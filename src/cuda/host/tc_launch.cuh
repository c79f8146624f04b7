/* The tensor-core modes' launches: which kernel this device and build can
   run, the tensor maps of WGMMA's copy engine, the operand copies, the
   WGMMA tile height and K split, and the launches of WGMMA and MMA. */
#pragma once
#include <atomic>
#include <cuda.h> /* CUtensorMap */
#include <string.h>
#include <type_traits>
#include "../device/wgmma_ptx.cuh" /* gemm__cuda_wgmma_built */
#include "../kernels/copy.cuh"
#include "../kernels/mma.cuh"
#include "../kernels/splitk.cuh"
#include "../kernels/wgmma.cuh"
#include "call.cuh"
#include "launch.cuh"

/* Whether this build holds the sm_90a WGMMA code for device `dev`: read once
   per device from the module the runtime loaded for it. */
static bool gemm__cuda_wgmma_available(int dev, int major, int minor)
{
    static std::atomic<int> known[64]; /* 0: not asked yet, 1: no, 2: yes */
    int built = 0;
    if (major != 9 || minor != 0 || dev < 0 || dev >= 64) return false;
    if (known[dev].load() == 0)
        known[dev].store(cudaMemcpyFromSymbol(&built, gemm__cuda_wgmma_built, sizeof built) == cudaSuccess && built ? 2 : 1);
    return known[dev].load() == 2;
}

static gemm_cuda_kernel gemm__cuda_choose_tc(int dev, int major, int minor)
{
    if (gemm__cuda_wgmma_available(dev, major, minor)) return GEMM_CUDA_KERNEL_WGMMA;
    return major >= 8 ? GEMM_CUDA_KERNEL_MMA : GEMM_CUDA_KERNEL_NAIVE;
}

/* cuTensorMapEncodeTiled from the driver, found through the runtime so that
   nothing needs -lcuda. */
typedef CUresult (*gemm__cuda_encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                         const cuuint64_t *, const cuuint32_t *, const cuuint32_t *,
                                         CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                         CUtensorMapFloatOOBfill);

template <typename T> static CUtensorMapDataType gemm__cuda_tma_type(void)
{
    return std::is_same<T, __half>::value          ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
           : std::is_same<T, __nv_bfloat16>::value ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                   : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

/* A k-major operand the tensor-core kernels can read: X(r, q) at X[r*ld + q],
   16-byte aligned base and rows. */
template <typename T> struct gemm__cuda_kmajor {
    const T *X;
    int64_t ld;
};

static bool gemm__cuda_kmajor_ready(const void *X, int64_t ld, size_t elem, bool kmajor)
{
    return kmajor && (uintptr_t)X % 16 == 0 && (ld * (int64_t)elem) % 16 == 0;
}

/* A tensor map of X for wgmma: `rank` dimensions (dims, innermost first;
   strides in bytes of the outer ones), boxes of `box`, the 128-byte
   swizzle. Elements past the edges arrive as zeros. */
template <typename T>
static gemm_status gemm__cuda_encode(const char *fn, CUtensorMap *map, const T *X, int rank, const cuuint64_t *dims,
                                     const cuuint64_t *strides, const cuuint32_t *box)
{
    static std::atomic<gemm__cuda_encode_fn> encode{NULL};
    cuuint32_t unit[3] = {1, 1, 1};
    CUresult r;
    if (!encode.load()) {
        void *f = NULL;
        cudaDriverEntryPointQueryResult q;
        cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q);
        if (e != cudaSuccess) return gemm__cuda_fail(fn, "cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled)", e);
        if (q != cudaDriverEntryPointSuccess || !f)
            return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the driver has no cuTensorMapEncodeTiled", fn);
        encode.store((gemm__cuda_encode_fn)f);
    }
    r = encode.load()(map, gemm__cuda_tma_type<T>(), (cuuint32_t)rank, (void *)X, dims, strides, box, unit,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return gemm__fail(GEMM_ERR_DEVICE, "%s: cuTensorMapEncodeTiled failed (CUresult %d)", fn, (int)r);
    return GEMM_OK;
}

/* An outer x inner matrix (rows of `inner` contiguous elements, ld apart)
   whose box is box_outer rows of 128 bytes; members > 1: a strided batch's
   operand (`stride` elements apart) as a third dimension. */
template <typename T>
static gemm_status gemm__cuda_tensor_map(const char *fn, CUtensorMap *map, const T *X, int64_t ld, int inner, int outer,
                                         int box_outer, int64_t members = 1, int64_t stride = 0)
{
    cuuint64_t dims[3] = {(cuuint64_t)inner, (cuuint64_t)outer, (cuuint64_t)members},
               strides[2] = {(cuuint64_t)ld * sizeof(T), (cuuint64_t)stride * sizeof(T)};
    cuuint32_t box[3] = {(cuuint32_t)(gemm__cuda_wgmma_shape<256>::ROW_BYTES / sizeof(T)), (cuuint32_t)box_outer, 1};
    return gemm__cuda_encode(fn, map, X, members > 1 ? 3 : 2, dims, strides, box);
}

/* The fp32-accurate split of `rows` rows (split.cuh's sliced regions):
   planes of rows x 32 floats; a box is box_rows rows of one plane. */
static gemm_status gemm__cuda_tensor_map_sliced(const char *fn, CUtensorMap *map, const float *X, int rows, int planes,
                                                int box_rows)
{
    cuuint64_t dims[3] = {32, (cuuint64_t)rows, (cuuint64_t)planes},
               strides[2] = {32 * sizeof(float), (cuuint64_t)rows * 32 * sizeof(float)};
    cuuint32_t box[3] = {32, (cuuint32_t)box_rows, 1};
    return gemm__cuda_encode(fn, map, X, 3, dims, strides, box);
}

/* Copies operand X (rows x K; k-major or not) into `out` as k-major rows of
   ldo elements: `count` members as bc says (`aligned`: every member's X
   and ld 16-byte aligned), at most 65535 per launch. */
template <typename T>
static gemm_status gemm__cuda_pack(const char *fn, const T *X, int64_t ld, bool kmajor, bool aligned, int rows, int K,
                                   T *out, int64_t ldo, gemm__cuda_batch_copy bc, int64_t count, cudaStream_t stream)
{
    bool wide = !kmajor && aligned;
    dim3 grid((unsigned)((K + (wide ? 63 : 31)) / (wide ? 64 : 32)), (unsigned)((rows + (wide ? 63 : 31)) / (wide ? 64 : 32)));
    if (grid.y > 65535)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d rows are too many for the operand copy", fn, rows);
    for (int64_t first = 0; first < count; first += 65535) {
        grid.z = (unsigned)(count - first < 65535 ? count - first : 65535);
        bc.first = first;
        if (wide) gemm__cuda_transpose_kernel<T><<<grid, 256, 0, stream>>>(rows, K, X, ld, out, ldo, bc);
        else gemm__cuda_pack_kernel<T><<<grid, dim3(32, 8), 0, stream>>>(rows, K, X, ld, kmajor ? 1 : 0, out, ldo, bc);
        GEMM__CUDA_TRY(fn, cudaGetLastError());
    }
    return GEMM_OK;
}

/* The WGMMA block height: options.variant 1 = 256, 2 = 128; automatic
   (0): 128 when M fits one such tile (a 256-row tile would be half empty:
   thin problems such as 16384 x 128 x 16384 row-major), else 256, whose
   reuse of each copied slice wins at every K measured on the H100 and the
   H200, short K included (4096 x 4096 x 256, 8192 x 8192 x 1024: two
   128-row blocks per SM move a third more bytes from L2 per product). The
   fp32-accurate mode always takes 256 (its promoted sums need the split
   tile, wgmma.cuh). */
static int gemm__cuda_wgmma_bm(int M, int variant, bool accurate)
{
    if (accurate) return 256;
    if (variant == 1 || variant == 2) return variant == 1 ? 256 : 128;
    return M <= 128 ? 128 : 256;
}

/* How many parts the WGMMA kernel splits K into: options.split_k when set,
   else enough units to give every block slot (SMs x blocks per SM) one
   when the tiles are fewer than the slots, keeping at least 4 K tiles per
   part. Returns the parts, none empty. */
static int gemm__cuda_wgmma_split(int tiles, int ktiles, int slots, int requested)
{
    int split = requested > 0 ? requested : tiles < slots ? slots / tiles : 1;
    if (requested <= 0 && split > ktiles / 4) split = ktiles / 4;
    if (split > ktiles) split = ktiles;
    if (split > 64) split = 64;
    if (split < 1) return 1;
    return (ktiles + (ktiles + split - 1) / split - 1) / ((ktiles + split - 1) / split); /* no empty parts */
}

/* How one tensor-core call runs: its kernel; whether WGMMA reads a 16-bit
   op(A) M-major (a_mn) or op(B) N-major (b_mn) in place; which operands
   are first copied into k-major rows of ldo elements, or, in the
   fp32-accurate mode (`accurate`), split into `regions` regions of ldo
   elements each (split.cuh); the WGMMA tile height, K split, raster group
   and grid, and whether the last part of a split tile sums the parts
   (`fixup`); and the scratch bytes of the copies (a's elements first), of
   split-K's sums, its counters (at `counters_at`) and the accurate mode's
   Inf/NaN flag (at `flag_at`). */
typedef struct gemm__cuda_tc_plan {
    gemm_cuda_kernel kernel;
    bool a_mn, b_mn, copy_a, copy_b, accurate, fixup;
    int wg_bm, split, group, grid, regions;
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
    t->split = gemm__cuda_wgmma_split(w->tiles, w->kt_total, slots, split_k);
    w->kt_per = (w->kt_total + t->split - 1) / t->split;
    w->units = w->tiles * t->split;
    w->group = GEMM__HOOK(cuda_wgmma_group, 8);
    /* the staged epilogue and a separate sum kernel: on an H100 the
       last part's in-kernel sum ran split shapes (1024^3, thin ones) at
       0.4-0.5 of the sum kernel's speed, the direct epilogue large ones at
       0.85-0.9 of the staged one's */
    w->epilogue = GEMM__HOOK(cuda_wgmma_epilogue, 1);
    t->fixup = t->split > 1 && GEMM__HOOK(cuda_wgmma_reduce, 1) == 2;
    grid = GEMM__HOOK(cuda_wgmma_grid, 0);
    t->group = w->group;
    t->grid = grid < 0 ? w->units : grid > 0 ? (grid < w->units ? grid : w->units) : (slots < w->units ? slots : w->units);
}

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
    t.split = 1;
    if (wgmma) gemm__cuda_wgmma_schedule(&t, M, N, K, elem, sms, opt->split_k);
    t.a_elems = t.copy_a ? (size_t)M * t.regions * t.ldo : 0;
    t.b_elems = t.copy_b ? (size_t)N * t.regions * t.ldo : 0;
    t.packed = ((t.a_elems + t.b_elems) * sizeof(T) + 255) / 256 * 256;
    t.partial_bytes = t.split > 1 ? ((size_t)t.split * M * N * sizeof(float) + 255) / 256 * 256 : 0;
    t.counters_at = t.packed + t.partial_bytes;
    t.flag_at = t.counters_at + (t.fixup ? ((size_t)t.work.tiles * sizeof(int) + 255) / 256 * 256 : 0);
    t.scratch_bytes = t.flag_at + (t.accurate ? 256 : 0);
    return t;
}

/* The WGMMA kernel for a plan's operand layouts. */
template <typename T, typename TC, int BM> static void *gemm__cuda_wgmma_kernel_of(const gemm__cuda_tc_plan *t)
{
    if constexpr (std::is_same<T, float>::value && std::is_same<TC, float>::value && BM == 256)
        if (t->accurate) return (void *)gemm__cuda_wgmma_kernel<T, TC, false, false, BM, true>;
    if constexpr (sizeof(T) == 2) { /* TF32 reads both operands k-major */
        if (t->a_mn && t->b_mn) return (void *)gemm__cuda_wgmma_kernel<T, TC, true, true, BM, false>;
        if (t->a_mn) return (void *)gemm__cuda_wgmma_kernel<T, TC, true, false, BM, false>;
        if (t->b_mn) return (void *)gemm__cuda_wgmma_kernel<T, TC, false, true, BM, false>;
    }
    return (void *)gemm__cuda_wgmma_kernel<T, TC, false, false, BM, false>;
}

/* WGMMA with BM-row block tiles. a and b: the operands as the kernel reads
   them (x's own, or their k-major copies or splits); a_mn / b_mn (16-bit
   only): a is op(A) as stored, M-major (a.X(r, q) at a.X[q*a.ld + r]), b
   op(B)^T as stored, N-major. With K split, `partial` holds split x M x N
   floats and, when the plan sums in the kernel, `counters` one int per
   tile; in the accurate mode `nonfinite` is the split's Inf/NaN flag.
   A strided batch (plan's work.members > 1, K not split): a and b are
   its members' bases, sa and sb their strides (0: shared). */
template <typename T, typename TC, int BM>
static gemm_status gemm__cuda_launch_wgmma(const char *fn, const gemm__problem *p, const gemm__cuda_tc_plan *t,
                                           gemm__cuda_kmajor<T> a, gemm__cuda_kmajor<T> b,
                                           const gemm__cuda_operands<T, TC, float> &x, float *partial, int *counters,
                                           const int *nonfinite, int64_t sa, int64_t sb, cudaStream_t stream)
{
    typedef gemm__cuda_wgmma_shape<BM> S;
    CUtensorMap map_a, map_b;
    gemm_status s;
    gemm__cuda_wgmma_work w = t->work;
    void *kern = gemm__cuda_wgmma_kernel_of<T, TC, BM>(t);
    int M = (int)p->m, N = (int)p->n, K = (int)p->k, bk = S::ROW_BYTES / (int)sizeof(T);
    float alpha = x.alpha, beta = x.beta;
    TC *C = x.c;
    int64_t ldc = p->ldc;
    void *args[] = {&map_a, &map_b, &w, &M, &N, &alpha, &beta, (void *)&C, &ldc, (void *)&partial};
    w.nonfinite = nonfinite;
    w.counters = t->fixup ? counters : NULL;
    if (t->split <= 1) partial = NULL;
    int64_t ma = w.a3 ? w.members : 1, mb = w.b3 ? w.members : 1;
    if ((int64_t)((M + S::BM - 1) / S::BM) * ((N + S::BN - 1) / S::BN) * t->split * w.members > INT32_MAX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d x %d is too many tiles for one launch", fn, M, N);
    if (t->accurate) {
        int planes = 3 * (int)(t->ldo / 32);
        if constexpr (std::is_same<T, float>::value)
            if ((s = gemm__cuda_tensor_map_sliced(fn, &map_a, a.X, M, planes, S::BM)) != GEMM_OK ||
                (s = gemm__cuda_tensor_map_sliced(fn, &map_b, b.X, N, planes, S::BN)) != GEMM_OK)
                return s;
    } else if ((s = t->a_mn ? gemm__cuda_tensor_map(fn, &map_a, a.X, a.ld, M, K, bk, ma, sa)
                            : gemm__cuda_tensor_map(fn, &map_a, a.X, a.ld, K, M, S::BM, ma, sa)) != GEMM_OK ||
               (s = t->b_mn ? gemm__cuda_tensor_map(fn, &map_b, b.X, b.ld, N, K, bk, mb, sb)
                            : gemm__cuda_tensor_map(fn, &map_b, b.X, b.ld, K, N, S::BN, mb, sb)) != GEMM_OK) {
        return s;
    }
    if (w.counters) GEMM__CUDA_TRY(fn, cudaMemsetAsync(w.counters, 0, (size_t)w.tiles * sizeof(int), stream));
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, S::SMEM));
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            cudaSharedmemCarveoutMaxShared));
    GEMM__CUDA_TRY(fn, cudaLaunchKernel(kern, dim3((unsigned)t->grid), dim3(S::THREADS), args, S::SMEM, stream));
    if (partial && !w.counters) {
        int64_t blocks = ((int64_t)M * N + 255) / 256;
        gemm__cuda_splitk_sum_kernel<TC><<<(unsigned)(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(
            M, N, t->split, partial, alpha, beta, C, ldc);
        GEMM__CUDA_TRY(fn, cudaGetLastError());
    }
    return GEMM_OK;
}

/* MMA over the members of bt (K is not split): BM x BM block tiles
   (gemm__cuda_mma_shape: 128, or 64 for a batch's small members). AK
   false: a is op(A) as stored, M-major (a.X(r, q) at a.X[q*a.ld + r]),
   read in place; b is always k-major. */
template <typename T, typename TC, int BM = 128, bool AK = true>
static gemm_status gemm__cuda_launch_mma(const char *fn, const gemm__problem *p, gemm__cuda_kmajor<T> a,
                                         gemm__cuda_kmajor<T> b, const gemm__cuda_operands<T, TC, float> &x,
                                         bool accurate, gemm__cuda_batch bt, cudaStream_t stream)
{
    typedef gemm__cuda_mma_shape<T, BM, AK> S;
    size_t smem = S::SMEM;
    void *kern = (void *)gemm__cuda_mma_kernel<T, TC, false, BM, AK>;
    int M = (int)p->m, N = (int)p->n, K = (int)p->k, tm = (M + S::BM - 1) / S::BM, tn = (N + S::BN - 1) / S::BN;
    float alpha = x.alpha, beta = x.beta;
    const T *A = a.X, *B = b.X;
    TC *C = x.c;
    int64_t ldc = p->ldc;
    if constexpr (std::is_same<T, float>::value && std::is_same<TC, float>::value && BM == 128 && AK)
        if (accurate) kern = (void *)gemm__cuda_mma_kernel<T, TC, true>;
    if (tn > 65535)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d columns of C's storage are too many for one launch", fn, N);
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    bt.split = 1;
    return gemm__cuda_each_run(fn, bt, [&](gemm__cuda_batch run, unsigned z) {
        void *args[] = {&M, &N, &K, &alpha, (void *)&A, &a.ld, (void *)&B, &b.ld, &beta, (void *)&C, &ldc, &run};
        return cudaLaunchKernel(kern, dim3((unsigned)tm, (unsigned)tn, z), dim3(S::NT), args, smem, stream);
    });
}

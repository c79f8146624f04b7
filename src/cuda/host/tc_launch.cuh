/* The tensor-core modes' launches: the tensor maps of WGMMA's copy
   engine, the operand copies into k-major rows, and the launches of WGMMA
   and MMA that a plan (tc_plan.cuh) names. */
#pragma once
#include <atomic>
#include <cuda.h> /* CUtensorMap */
#include <type_traits>
#include "../kernels/copy.cuh"
#include "../kernels/mma.cuh"
#include "../kernels/splitk.cuh"
#include "../kernels/wgmma.cuh"
#include "call.cuh"
#include "launch.cuh"
#include "tc_plan.cuh"

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
           : sizeof(T) == 1                        ? CU_TENSOR_MAP_DATA_TYPE_UINT8 /* int8: only the bytes move */
           : std::is_same<T, int32_t>::value       ? CU_TENSOR_MAP_DATA_TYPE_INT32 /* the int8 product's C */
                                                   : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

/* A k-major operand the tensor-core kernels can read: X(r, q) at X[r*ld + q],
   16-byte aligned base and rows. */
template <typename T> struct gemm__cuda_kmajor {
    const T *X;
    int64_t ld;
};

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

/* Whether the copy engine can write C (the WGMMA kernel's epilogue 3):
   256-row tiles (the shared memory of its buffers), K whole, beta == 0
   (it writes C, never reads it), at least 16 bytes of rows, and C's base,
   columns and members 16-byte aligned (the tensor map's rule). With K
   split (and summed by the sum kernel) it writes the parts' sums instead,
   M x N floats a part, so M must be a multiple of 4. */
template <typename TC>
static bool gemm__cuda_tma_c_fits(int bm, int split, bool fixup, float beta, int M, const TC *C, int64_t ldc,
                                  int members, int64_t stride_c)
{
    if (bm != 256) return false;
    if (split > 1) return !fixup && M % 4 == 0;
    return beta == 0.0f && M * (int64_t)sizeof(TC) >= 16 && (uintptr_t)C % 16 == 0 &&
           ldc * (int64_t)sizeof(TC) % 16 == 0 && (members <= 1 || stride_c * (int64_t)sizeof(TC) % 16 == 0);
}

/* The map the copy engine writes C by: M16 x N column-major, M16 = M
   rounded down to 16 bytes of rows (the kernel writes the rest: the copy
   engine clips rows only in 16-byte units); planes > 1: a third dimension,
   stride_c elements apart (a strided batch's members, or a split K's
   parts); boxes of 128 bytes of rows x 16 columns (a consumer warp's). */
template <typename TC>
static gemm_status gemm__cuda_tensor_map_c(const char *fn, CUtensorMap *map, TC *C, int64_t ldc, int M, int N,
                                           int64_t planes, int64_t stride_c)
{
    cuuint64_t dims[3] = {(cuuint64_t)(M / (16 / sizeof(TC)) * (16 / sizeof(TC))), (cuuint64_t)N, (cuuint64_t)planes},
               strides[2] = {(cuuint64_t)ldc * sizeof(TC), (cuuint64_t)stride_c * sizeof(TC)};
    cuuint32_t box[3] = {(cuuint32_t)(128 / sizeof(TC)), 16, 1};
    return gemm__cuda_encode(fn, map, (const TC *)C, planes > 1 ? 3 : 2, dims, strides, box);
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

/* The WGMMA kernel for a plan's operand layouts. */
template <typename T, typename TC, int BM, int BN> static void *gemm__cuda_wgmma_kernel_of(const gemm__cuda_tc_plan *t)
{
    if constexpr (std::is_same<T, float>::value && std::is_same<TC, float>::value && BM == 256)
        if (t->accurate) return (void *)gemm__cuda_wgmma_kernel<T, TC, false, false, BM, BN, true>;
    if constexpr (sizeof(T) == 2) { /* TF32 reads both operands k-major */
        if (t->a_mn && t->b_mn) return (void *)gemm__cuda_wgmma_kernel<T, TC, true, true, BM, BN, false>;
        if (t->a_mn) return (void *)gemm__cuda_wgmma_kernel<T, TC, true, false, BM, BN, false>;
        if (t->b_mn) return (void *)gemm__cuda_wgmma_kernel<T, TC, false, true, BM, BN, false>;
    }
    return (void *)gemm__cuda_wgmma_kernel<T, TC, false, false, BM, BN, false>;
}

/* WGMMA with BM x BN block tiles. a and b: the operands as the kernel reads
   them (x's own, or their k-major copies or splits); a_mn / b_mn (16-bit
   only): a is op(A) as stored, M-major (a.X(r, q) at a.X[q*a.ld + r]), b
   op(B)^T as stored, N-major. With K split, `partial` holds split x M x N
   floats and, when the plan sums in the kernel, `counters` one int per
   tile; in the accurate mode `nonfinite` is the split's Inf/NaN flag.
   A strided batch (plan's work.members > 1, K not split): a and b are
   its members' bases, sa and sb their strides (0: shared). */
template <typename T, typename TC, int BM, int BN>
static gemm_status gemm__cuda_launch_wgmma_tile(const char *fn, const gemm__problem *p, const gemm__cuda_tc_plan *t,
                                           gemm__cuda_kmajor<T> a, gemm__cuda_kmajor<T> b,
                                           const gemm__cuda_operands<T, TC, float> &x, float *partial, int *counters,
                                           const int *nonfinite, int64_t sa, int64_t sb, cudaStream_t stream)
{
    typedef gemm__cuda_wgmma_shape<BM, BN> S;
    CUtensorMap map_a, map_b, map_c;
    gemm_status s;
    gemm__cuda_wgmma_work w = t->work;
    void *kern = gemm__cuda_wgmma_kernel_of<T, TC, BM, BN>(t);
    int M = (int)p->m, N = (int)p->n, K = (int)p->k, bk = S::ROW_BYTES / (int)sizeof(T);
    float alpha = x.alpha, beta = x.beta;
    TC *C = x.c;
    int64_t ldc = p->ldc;
    void *args[] = {&map_a, &map_b, &map_c, &w, &M, &N, &alpha, &beta, (void *)&C, &ldc, (void *)&partial};
    w.nonfinite = nonfinite;
    w.counters = t->fixup ? counters : NULL;
    if (t->split <= 1) partial = NULL;
    int64_t ma = w.a3 ? w.members : 1, mb = w.b3 ? w.members : 1;
    if ((int64_t)((M + S::BM - 1) / S::BM) * ((N + S::BN - 1) / S::BN) * t->split * w.members > INT32_MAX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d x %d is too many tiles for one launch", fn, M, N);
    if (w.stages < 2)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: this GPU's shared memory holds no two stages of WGMMA's %d x %d "
                          "tiles", fn, BM, BN);
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
    memset(&map_c, 0, sizeof map_c);
    if (w.epilogue == 3 && !gemm__cuda_tma_c_fits(BM, t->split, t->fixup, beta, M, C, ldc, w.members, w.stride_c))
        w.epilogue = 1;
    if (w.epilogue == 3 &&
        (s = partial ? gemm__cuda_tensor_map_c(fn, &map_c, partial, (int64_t)M, M, N, t->split, (int64_t)M * N)
                     : gemm__cuda_tensor_map_c(fn, &map_c, C, ldc, M, N, w.members, w.stride_c)) != GEMM_OK)
        return s;
    if (w.counters) GEMM__CUDA_TRY(fn, cudaMemsetAsync(w.counters, 0, (size_t)w.tiles * sizeof(int), stream));
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, S::smem(w.stages)));
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            cudaSharedmemCarveoutMaxShared));
    GEMM__CUDA_TRY(fn, cudaLaunchKernel(kern, dim3((unsigned)t->grid), dim3(S::THREADS), args,
                                        (size_t)S::smem(w.stages), stream));
    if (partial && !w.counters) {
        gemm__cuda_splitk_sum(M, N, t->split, partial, alpha, beta, C, ldc, stream);
        GEMM__CUDA_TRY(fn, cudaGetLastError());
    }
    return GEMM_OK;
}

/* WGMMA on the plan's block tile (wg_bm x wg_bn); the arguments as above. */
template <typename T, typename TC>
static gemm_status gemm__cuda_launch_wgmma(const char *fn, const gemm__problem *p, const gemm__cuda_tc_plan *t,
                                           gemm__cuda_kmajor<T> a, gemm__cuda_kmajor<T> b,
                                           const gemm__cuda_operands<T, TC, float> &x, float *partial, int *counters,
                                           const int *nonfinite, int64_t sa, int64_t sb, cudaStream_t stream)
{
    if (t->wg_bm == 256)
        return gemm__cuda_launch_wgmma_tile<T, TC, 256, 128>(fn, p, t, a, b, x, partial, counters, nonfinite, sa, sb,
                                                             stream);
    if (t->wg_bn == 128)
        return gemm__cuda_launch_wgmma_tile<T, TC, 128, 128>(fn, p, t, a, b, x, partial, counters, nonfinite, sa, sb,
                                                             stream);
    return gemm__cuda_launch_wgmma_tile<T, TC, 128, 64>(fn, p, t, a, b, x, partial, counters, nonfinite, sa, sb, stream);
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

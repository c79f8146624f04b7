/* The launch of the int8 WGMMA kernel (kernels/wgmma_s8.cuh) on k-major
   operands: its schedule (the tensor-core modes' tiles and raster, K
   never split), the tensor maps and the launch. Used by gemm_cuda_s8gemm
   and by the emulated fp64 and fp32 products. */
#pragma once
#include <stdint.h>
#include <string.h>
#include "../../core/internal.h" /* GEMM__HOOK */
#include "../kernels/wgmma_s8.cuh"
#include "errors.cuh"
#include "tc_launch.cuh" /* gemm__cuda_tensor_map, _tensor_map_c, gemm__cuda_tma_c_fits */
#include "tc_plan.cuh"   /* gemm__cuda_tc_plan, gemm__cuda_wgmma_schedule, gemm__cuda_wgmma_tile */

/* C (column-major M x N, ldc) from op(A) as M x K int8 rows (a, lda) and
   op(B)^T as N x K rows (b, ldb), both 16-byte aligned: TC int32_t: C =
   x*sum + y*C; uint8_t: C = (sum + (y ? C : 0)) mod x (wgmma_s8.cuh). */
template <typename TC>
static gemm_status gemm__cuda_launch_s8(const char *fn, int M, int N, int K, const int8_t *a, int64_t lda,
                                        const int8_t *b, int64_t ldb, int x, int y, TC *C, int64_t ldc,
                                        const gemm__cuda_gpu *gpu, cudaStream_t stream)
{
    gemm__cuda_tc_plan t;
    CUtensorMap map_a, map_b, map_c;
    gemm_status s;
    memset(&t, 0, sizeof t);
    memset(&map_c, 0, sizeof map_c);
    int forced = GEMM__HOOK(cuda_s8_bm, 0); /* bench sweeps: 128 or 256 rows */
    t.wg_bm = forced == 128 || forced == 256 ? forced : gemm__cuda_wgmma_tile(M, 0, false, &t.wg_bn);
    t.wg_bn = 128;
    gemm__cuda_wgmma_schedule(&t, M, N, K, 1, gpu, 1);
    gemm__cuda_wgmma_work w = t.work;
    if ((int64_t)w.tm * w.tn > INT32_MAX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d x %d is too many tiles for one launch", fn, M, N);
    if (w.stages < 2)
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: this GPU's shared memory holds no two stages of the int8 WGMMA "
                          "tiles", fn);
    void *kern = t.wg_bm == 256 ? (void *)gemm__cuda_wgmma_s8_kernel<TC, 256> : (void *)gemm__cuda_wgmma_s8_kernel<TC, 128>;
    int smem = t.wg_bm == 256 ? gemm__cuda_wgmma_shape<256>::smem(w.stages) : gemm__cuda_wgmma_shape<128>::smem(w.stages),
        threads = t.wg_bm == 256 ? gemm__cuda_wgmma_shape<256>::THREADS : gemm__cuda_wgmma_shape<128>::THREADS;
    if ((s = gemm__cuda_tensor_map(fn, &map_a, a, lda, K, M, t.wg_bm)) != GEMM_OK ||
        (s = gemm__cuda_tensor_map(fn, &map_b, b, ldb, K, N, 128)) != GEMM_OK)
        return s;
    /* the copy engine writes C where nothing of C is read (y == 0) */
    if (w.epilogue == 3 && !gemm__cuda_tma_c_fits(t.wg_bm, 1, false, y == 0 ? 0.0f : 1.0f, M, C, ldc, 1, 0))
        w.epilogue = 1;
    if (w.epilogue == 3 && (s = gemm__cuda_tensor_map_c(fn, &map_c, C, ldc, M, N, 1, 0)) != GEMM_OK) return s;
    void *args[] = {&map_a, &map_b, &map_c, &w, &M, &N, &x, &y, (void *)&C, &ldc};
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    GEMM__CUDA_TRY(fn, cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            cudaSharedmemCarveoutMaxShared));
    GEMM__CUDA_TRY(fn, cudaLaunchKernel(kern, dim3((unsigned)t.grid), dim3((unsigned)threads), args, (size_t)smem, stream));
    return GEMM_OK;
}

/* gemm_cuda_s8gemm after its checks: int8 A and B, int32 C. Where the
   sm_90a code runs, the int8 WGMMA kernel on k-major operands (copied
   into scratch first when they are not k-major and 16-byte aligned);
   elsewhere, or with options.kernel NAIVE, a plain kernel (a thread per
   element of C). */
#pragma once
#include <stdint.h>
#include "../../core/internal.h" /* gemm__problem */
#include "../api.h"
#include "call.cuh"      /* gemm__cuda_gpu, gemm__cuda_check_pointer */
#include "choose.cuh"    /* gemm__cuda_sm90a_code */
#include "../kernels/s8_plain.cuh"
#include "errors.cuh"
#include "s8_launch.cuh" /* gemm__cuda_launch_s8 */
#include "scratch.cuh"   /* gemm__cuda_scratch_pool */
#include "tc_launch.cuh" /* gemm__cuda_pack */
#include "tc_plan.cuh"   /* gemm__cuda_kmajor_ready */

static gemm_status gemm__cuda_s8_run(const char *fn, const gemm__problem *p, const int8_t *a, const int8_t *b, int32_t *C,
                                     int32_t alpha, int32_t beta, const gemm_cuda_options *opt, cudaStream_t stream)
{
    gemm__cuda_gpu gpu;
    gemm_status s;
    int M = (int)p->m, N = (int)p->n, K = p->work == GEMM__WORK_FULL ? (int)p->k : 0;
    if (p->m > INT32_MAX || p->n > INT32_MAX || p->k > INT32_MAX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: m, n and k must each be below 2^31 here", fn);
    if ((s = gemm__cuda_check_pointer(fn, "C", C)) != GEMM_OK) return s;
    if (K > 0 && ((s = gemm__cuda_check_pointer(fn, "A", p->swapped ? b : a)) != GEMM_OK ||
                  (s = gemm__cuda_check_pointer(fn, "B", p->swapped ? a : b)) != GEMM_OK))
        return s;
    if ((s = gemm__cuda_query(fn, &gpu)) != GEMM_OK) return s;
    int64_t ars = p->a_trans ? p->lda : 1, aks = p->a_trans ? 1 : p->lda;
    int64_t bks = p->b_trans ? p->ldb : 1, bcs = p->b_trans ? 1 : p->ldb;
    if (K == 0 || opt->kernel == GEMM_CUDA_KERNEL_NAIVE || !gemm__cuda_sm90a_code(&gpu)) {
        if (N > 65535) return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: n = %d is too many columns for the plain kernel", fn, N);
        gemm__cuda_s8_plain_kernel<<<dim3((unsigned)((M + 255) / 256), (unsigned)N), 256, 0, stream>>>(
            M, N, K, a, ars, aks, b, bks, bcs, alpha, beta, C, p->ldc);
        GEMM__CUDA_TRY(fn, cudaGetLastError());
        return GEMM_OK;
    }
    /* op(A) as M x K rows and op(B)^T as N x K rows, k-major and aligned, or copied so */
    bool copy_a = !gemm__cuda_kmajor_ready(a, p->lda, 1, p->a_trans), copy_b = !gemm__cuda_kmajor_ready(b, p->ldb, 1, !p->b_trans);
    int64_t ldo = ((int64_t)K + 15) / 16 * 16, la = p->lda, lb = p->ldb;
    size_t bytes = ((copy_a ? (size_t)M * ldo : 0) + 255) / 256 * 256 + (copy_b ? (size_t)N * ldo : 0);
    int8_t *scratch = NULL;
    const int8_t *ka = a, *kb = b;
    if (copy_a || copy_b) {
        cudaMemPool_t pool;
        cudaError_t e;
        if ((s = gemm__cuda_scratch_pool(fn, gpu.dev, true, &pool)) != GEMM_OK) return s;
        e = cudaMallocFromPoolAsync((void **)&scratch, bytes, pool, stream);
        if (e != cudaSuccess) return gemm__cuda_fail(fn, "cudaMallocFromPoolAsync (operand copies)", e);
    }
    s = GEMM_OK;
    if (copy_a) {
        s = gemm__cuda_pack(fn, a, p->lda, p->a_trans, (uintptr_t)a % 16 == 0 && p->lda % 16 == 0, M, K, scratch, ldo,
                            gemm__cuda_single_copy(), 1, stream);
        ka = scratch;
        la = ldo;
    }
    if (s == GEMM_OK && copy_b) {
        int8_t *out = scratch + ((copy_a ? (size_t)M * ldo : 0) + 255) / 256 * 256;
        s = gemm__cuda_pack(fn, b, p->ldb, !p->b_trans, (uintptr_t)b % 16 == 0 && p->ldb % 16 == 0, N, K, out, ldo,
                            gemm__cuda_single_copy(), 1, stream);
        kb = out;
        lb = ldo;
    }
    if (s == GEMM_OK)
        s = gemm__cuda_launch_s8<int32_t>(fn, M, N, K, ka, la, kb, lb, alpha, beta, C, p->ldc, &gpu, stream);
    if (scratch) {
        cudaError_t e = cudaFreeAsync(scratch, stream);
        if (s == GEMM_OK && e != cudaSuccess) return gemm__cuda_fail(fn, "cudaFreeAsync", e);
    }
    return s;
}

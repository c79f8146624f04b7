/* The tensor-core modes (TF32, FP16, BF16 inputs; fp32 sums) and the
   fp32-accurate mode, single calls: the chooser's plan run, its operand
   copies (or split) and split-K sums in scratch, the launch. */
#pragma once
#include <type_traits>
#include "../kernels/split.cuh"
#include "choose.cuh" /* gemm__cuda_choose_tc */
#include "exact.cuh" /* gemm__cuda_launch_ladder */
#include "exact_plan.cuh" /* gemm__cuda_aligned16 */
#include "scratch.cuh"
#include "tc_launch.cuh"

/* The fp32-accurate mode's split of both operands into scratch (split.cuh):
   WGMMA reads the sliced regions hi, lo (and hc, written only when an Inf
   or NaN was seen) through its K segments; MMA reads rows [lo | hc | hi]
   against [hc | lo | hi] as one K of 3*ldo. */
static gemm_status gemm__cuda_split_operands(const char *fn, const gemm__cuda_tc_plan *t, const gemm__problem *p,
                                             const float *a, const float *b, float *sa, float *sb, int *flag,
                                             int sms, cudaStream_t stream)
{
    bool wgmma = t->kernel == GEMM_CUDA_KERNEL_WGMMA;
    int M = (int)p->m, N = (int)p->n, K = (int)p->k, ldo = (int)t->ldo;
    int pat_a = wgmma ? GEMM__CUDA_PATTERN(GEMM__CUDA_HI, GEMM__CUDA_LO, 0)
                      : GEMM__CUDA_PATTERN(GEMM__CUDA_LO, GEMM__CUDA_HC, GEMM__CUDA_HI),
        pat_b = wgmma ? pat_a : GEMM__CUDA_PATTERN(GEMM__CUDA_HC, GEMM__CUDA_LO, GEMM__CUDA_HI);
    const float *src[2] = {a, b};
    float *dst[2] = {sa, sb};
    int rows[2] = {M, N}, pattern[2] = {pat_a, pat_b}, kmajor[2] = {p->a_trans, !p->b_trans};
    int64_t ld[2] = {p->lda, p->ldb};
    GEMM__CUDA_TRY(fn, cudaMemsetAsync(flag, 0, sizeof(int), stream));
    for (int o = 0; o < 2; o++) {
        gemm__cuda_split_dst d = {dst[o], 3 * (int64_t)ldo, rows[o], ldo, wgmma ? 1 : 0, pattern[o], wgmma ? 2 : 3, flag};
        if (kmajor[o]) {
            int64_t work = (int64_t)rows[o] * (ldo / 4), blocks = (work + 255) / 256;
            gemm__cuda_split_rows_kernel<<<(unsigned)(blocks < 65536 ? blocks : 65536), 256, 0, stream>>>(K, src[o],
                                                                                                      ld[o], d);
        } else {
            dim3 grid((unsigned)(ldo / 32), (unsigned)((rows[o] + 31) / 32)), block(32, 8);
            if (grid.y > 65535)
                return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %d rows are too many for the operand split", fn, rows[o]);
            gemm__cuda_split_cols_kernel<<<grid, block, 0, stream>>>(K, src[o], ld[o], d);
        }
        GEMM__CUDA_TRY(fn, cudaGetLastError());
    }
    if (wgmma) {
        gemm__cuda_split_hc_kernel<<<(unsigned)(4 * sms), 256, 0, stream>>>((int64_t)M * ldo, (int64_t)N * ldo, sa, sb,
                                                                            flag);
        GEMM__CUDA_TRY(fn, cudaGetLastError());
    }
    return GEMM_OK;
}

/* The operand copies a plan names (or, accurate, the split) into scratch;
   a and b then describe what the kernel reads. */
template <typename T, typename TC>
static gemm_status gemm__cuda_tc_prepare(const char *fn, const gemm__cuda_tc_plan *t, const gemm__problem *p,
                                         const gemm__cuda_operands<T, TC, float> &x, T *scratch, int sms,
                                         gemm__cuda_kmajor<T> *a, gemm__cuda_kmajor<T> *b, cudaStream_t stream)
{
    gemm_status s = GEMM_OK;
    if (t->accurate) {
        if constexpr (std::is_same<T, float>::value) {
            a->X = scratch; a->ld = 3 * t->ldo; /* rows for MMA; WGMMA reads the slice planes */
            b->X = scratch + t->a_elems; b->ld = 3 * t->ldo;
            return gemm__cuda_split_operands(fn, t, p, x.a, x.b, scratch, scratch + t->a_elems,
                                             (int *)((char *)scratch + t->flag_at), sms, stream);
        }
    }
    if (t->copy_a) {
        a->X = scratch; a->ld = t->ldo;
        s = gemm__cuda_pack(fn, x.a, p->lda, p->a_trans, gemm__cuda_aligned16(x.a, p->lda, sizeof(T)), (int)p->m,
                            (int)p->k, scratch, t->ldo, gemm__cuda_single_copy(), 1, stream);
    }
    if (s == GEMM_OK && t->copy_b) {
        b->X = scratch + t->a_elems; b->ld = t->ldo;
        s = gemm__cuda_pack(fn, x.b, p->ldb, !p->b_trans, gemm__cuda_aligned16(x.b, p->ldb, sizeof(T)), (int)p->n,
                            (int)p->k, scratch + t->a_elems, t->ldo, gemm__cuda_single_copy(), 1, stream);
    }
    return s;
}

/* Runs a plan: the copies it names and its split-K sums go through one
   scratch buffer taken from the device's pool and given back in stream
   order, so nothing waits for the device. */
template <typename T, typename TC>
static gemm_status gemm__cuda_tc_run(const char *fn, const gemm__cuda_tc_plan *t, const gemm__problem *p,
                                     const gemm__cuda_operands<T, TC, float> &x, const gemm__cuda_gpu *gpu,
                                     cudaStream_t stream)
{
    gemm_status s = GEMM_OK;
    T *scratch = NULL;
    float *partial = NULL;
    int *counters = NULL;
    const int *flag = NULL;
    gemm__cuda_kmajor<T> a = {x.a, p->lda}, b = {x.b, p->ldb};
    gemm__problem q = *p;
    if (t->scratch_bytes > 0) {
        cudaMemPool_t pool;
        cudaError_t e;
        if ((s = gemm__cuda_scratch_pool(fn, gpu->dev, true, &pool)) != GEMM_OK) return s;
        e = cudaMallocFromPoolAsync((void **)&scratch, t->scratch_bytes, pool, stream);
        if (e != cudaSuccess) return gemm__cuda_fail(fn, "cudaMallocFromPoolAsync (operand copies, split-K sums)", e);
        if (t->partial_bytes) partial = (float *)((char *)scratch + t->packed);
        if (t->fixup) counters = (int *)((char *)scratch + t->counters_at);
        if (t->accurate) flag = (const int *)((char *)scratch + t->flag_at);
        s = gemm__cuda_tc_prepare<T, TC>(fn, t, p, x, scratch, gpu->sms, &a, &b, stream);
    }
    if (t->accurate) q.k = 3 * t->ldo; /* MMA: the three regions are one K */
    if (s == GEMM_OK && t->kernel == GEMM_CUDA_KERNEL_WGMMA)
        s = gemm__cuda_launch_wgmma<T, TC>(fn, p, t, a, b, x, partial, counters, flag, 0, 0, stream);
    else if (s == GEMM_OK)
        s = gemm__cuda_launch_mma<T, TC>(fn, &q, a, b, x, t->accurate, gemm__cuda_single(1), stream);
    if (scratch) {
        cudaError_t e = cudaFreeAsync(scratch, stream);
        if (s == GEMM_OK && e != cudaSuccess) return gemm__cuda_fail(fn, "cudaFreeAsync", e);
    }
    return s;
}

/* A tensor-core call: T is A's and B's type (float for TF32 and the
   fp32-accurate mode), TC is C's. The chooser's plan, then the ladder or
   the run. */
template <typename T, typename TC>
static gemm_status gemm__cuda_tc(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, float> &x,
                                 const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu, cudaStream_t stream)
{
    gemm__cuda_tc_plan t;
    gemm_status s = gemm__cuda_choose_tc<T>(fn, p, x.a, x.b, opt, gpu, NULL, &t);
    if (s != GEMM_OK) return s;
    if (t.kernel == GEMM_CUDA_KERNEL_NAIVE)
        return gemm__cuda_launch_ladder(fn, t.kernel, p, x, gemm__cuda_single(1), stream);
    return gemm__cuda_tc_run<T, TC>(fn, &t, p, x, gpu, stream);
}

/* Grouped batches (gemm_cuda_?gemm_grouped_batched): groups of
   pointer-array batches, each group with its own transposes, sizes,
   alpha, beta and leading dimensions, in cblas_?gemm_batch's argument
   order (and cublasGemmGroupedBatchedEx's). Every group is checked -- its
   arguments, then the lists, then its members (overlaps within the group,
   each member's memory) -- before anything is queued, so a refused call
   writes nothing; then the groups run in order on the stream, each as one
   pointer-array batch (the chooser's plan for its shape, one launch for
   its members; all groups' lists reach the device in one copy), a group
   of one member as the single call. */
#pragma once
#include <stdint.h>
#include <stdio.h> /* snprintf */
#include <string.h> /* memset */
#include "../../core/config.h" /* GEMM_MALLOC, GEMM_FREE */
#include "../../core/internal.h" /* gemm__prepare, gemm__prepare_batched */
#include "../../core/overlap.c" /* gemm__check_batch_overlap_sized */
#include "batch_run.cuh" /* gemm__cuda_read_lists, gemm__cuda_batch_memory, _launch */
#include "choose.cuh" /* gemm__cuda_is_tc, gemm__cuda_check_exact, _check_tc */
#include "entry.cuh" /* gemm__cuda_list_addr, gemm__cuda_call */

/* The per-group arrays of one call (T: fp32 or fp64). */
template <typename T> struct gemm__cuda_groups {
    gemm_layout layout;
    const gemm_transpose *ta, *tb;
    const int64_t *m, *n, *k, *lda, *ldb, *ldc, *size;
    const T *alpha, *beta;
    int64_t count;
};

/* The arguments that need no memory but the caller's arrays: group_count,
   the arrays' presence, every group_size and each group's single-call
   checks (p[g]); *total is the members of all groups, *work the most work
   any group with members does. */
template <typename T>
static gemm_status gemm__cuda_groups_check(const char *fn, const gemm__cuda_groups<T> &g, gemm__problem *p,
                                           int64_t *total, gemm__work *work)
{
    const void *arrays[] = {g.ta, g.tb, g.m, g.n, g.k, g.alpha, g.lda, g.ldb, g.beta, g.ldc, g.size};
    static const char *const names[] = {"transa_array", "transb_array", "m_array", "n_array", "k_array",
                                        "alpha_array", "lda_array", "ldb_array", "beta_array", "ldc_array",
                                        "group_size"};
    char name[160];
    *total = 0;
    *work = GEMM__WORK_NONE;
    for (int i = 0; i < (int)(sizeof arrays / sizeof arrays[0]); i++)
        if (!arrays[i])
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s is NULL (it holds one entry per group, %lld groups)", fn,
                              names[i], (long long)g.count);
    for (int64_t i = 0; i < g.count; i++) {
        if (g.size[i] < 0)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: group_size[%lld] = %lld is negative", fn, (long long)i,
                              (long long)g.size[i]);
        if (g.size[i] > INT64_MAX / (int64_t)(3 * sizeof(void *)) - *total)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: the groups' sizes add up past what one call can list", fn);
        *total += g.size[i];
    }
    for (int64_t i = 0; i < g.count; i++) {
        gemm_status s;
        snprintf(name, sizeof name, "%s, group %lld", fn, (long long)i);
        s = gemm__prepare(name, g.layout, g.ta[i], g.tb[i], g.m[i], g.n[i], g.k[i], g.alpha[i] == T(0), 1, g.lda[i], 1,
                          g.ldb[i], g.beta[i] == T(1), 1, g.ldc[i], &p[i]);
        if (s != GEMM_OK) return s;
        if (g.size[i] > 0 && p[i].work > *work) *work = p[i].work;
    }
    return GEMM_OK;
}

template <typename T>
static gemm_status gemm__cuda_grouped(const char *fn, cudaStream_t stream, const gemm__cuda_groups<T> &g,
                                      const T *const *A, const T *const *B, T *const *C, const gemm_cuda_options *opt)
{
    static const gemm_cuda_options defaults = {};
    gemm__problem *p = NULL;
    gemm__batch *hb = NULL;
    const void *la = NULL, *lb = NULL, *lc = NULL;
    void *held = NULL, *lists = NULL;
    int64_t total = 0, off = 0, at = 0, i;
    gemm__work work = GEMM__WORK_NONE;
    char name[160];
    gemm_status s = GEMM_OK;
    gemm__clear_error();
    if (!opt) opt = &defaults;
    if (g.count < 0)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: group_count = %lld is negative", fn, (long long)g.count);
    if (g.count == 0) return GEMM_OK;
    if ((uint64_t)g.count > SIZE_MAX / (sizeof(gemm__problem) + sizeof(gemm__batch)) ||
        !(p = (gemm__problem *)GEMM_MALLOC((size_t)g.count * sizeof(gemm__problem))) ||
        !(hb = (gemm__batch *)GEMM_MALLOC((size_t)g.count * sizeof(gemm__batch)))) {
        if (p) GEMM_FREE(p);
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no host memory for %lld groups' checks", fn,
                          (long long)g.count);
    }
    memset(hb, 0, (size_t)g.count * sizeof(gemm__batch));
    s = gemm__cuda_groups_check<T>(fn, g, p, &total, &work);
    if (s == GEMM_OK) /* as the pointer-array batches: options.math may put fp32 on the tensor cores */
        s = gemm__cuda_is_tc<T>(opt) ? gemm__cuda_check_tc(fn, opt) : gemm__cuda_check_exact(fn, opt, (int)sizeof(T) * 8);
    if (s == GEMM_OK && opt->verify)
        s = gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.verify is offered for single CUDA calls, not for batches "
                       "(yet): nothing was written", fn);
    if (s == GEMM_OK && work != GEMM__WORK_NONE)
        s = gemm__cuda_read_lists(fn, work, A, B, C, total, stream, &held, &la, &lb, &lc);
    /* each group's members: the pointer-array batch's checks on its part of the lists */
    for (i = 0; i < g.count && s == GEMM_OK && work != GEMM__WORK_NONE; off += g.size[i], i++) {
        gemm__cuda_operands<T, T, T> x = {NULL, NULL, NULL, g.alpha[i], g.beta[i]};
        if (g.size[i] == 0 || p[i].work == GEMM__WORK_NONE) continue;
        snprintf(name, sizeof name, "%s, group %lld", fn, (long long)i);
        s = gemm__prepare_batched(name, g.layout, g.ta[i], g.tb[i], g.m[i], g.n[i], g.k[i], g.alpha[i] == T(0),
                                  la ? (const void *)((const void *const *)la + off) : NULL, g.lda[i],
                                  lb ? (const void *)((const void *const *)lb + off) : NULL, g.ldb[i],
                                  g.beta[i] == T(1), (const void *)((const void *const *)lc + off), g.ldc[i],
                                  g.size[i], gemm__cuda_list_addr, gemm__cuda_list_addr, sizeof(T), &p[i], &hb[i]);
        if (s == GEMM_OK) s = gemm__check_batch_overlap_sized(name, &p[i], &hb[i], 0, 0, 0, sizeof(T), sizeof(T));
        if (s == GEMM_OK) s = gemm__cuda_batch_memory(name, &p[i], &hb[i], x);
    }
    if (s == GEMM_OK && work != GEMM__WORK_NONE) { /* every group's lists in one copy */
        int dev = 0;
        cudaError_t e = cudaGetDevice(&dev);
        s = e == cudaSuccess ? gemm__cuda_upload_lists(fn, hb, g.count, dev, stream, &lists)
                             : gemm__cuda_fail(fn, "cudaGetDevice", e);
    }
    /* then the launches, group after group; a group of one member is the
       single call (whose chooser splits K and picks tiles for a lone
       product: a batch's plan keeps K whole, and a member of 128 rows
       alone would fill a quarter of the SMs) */
    for (i = 0, off = 0; i < g.count && s == GEMM_OK && work != GEMM__WORK_NONE; off += g.size[i], i++) {
        gemm__cuda_operands<T, T, T> x = {NULL, NULL, NULL, g.alpha[i], g.beta[i]};
        const int64_t *listed = (const int64_t *)lists + at;
        at += hb[i].c_list ? 3 * hb[i].count : 0; /* gemm__cuda_upload_lists' order */
        if (g.size[i] == 0 || p[i].work == GEMM__WORK_NONE) continue;
        snprintf(name, sizeof name, "%s, group %lld", fn, (long long)i);
        if (g.size[i] == 1)
            s = gemm__cuda_call<T, T, T>(name, stream, false, g.layout, g.ta[i], g.tb[i], g.m[i], g.n[i], g.k[i],
                                         g.alpha[i], la ? (const T *)((const void *const *)la)[off] : NULL, g.lda[i],
                                         lb ? (const T *)((const void *const *)lb)[off] : NULL, g.ldb[i], g.beta[i],
                                         (T *)((void *const *)lc)[off], g.ldc[i], opt);
        else s = gemm__cuda_batch_launch(name, &p[i], &hb[i], x, opt, stream, listed);
    }
    if (lists) {
        cudaError_t e = cudaFreeAsync(lists, stream);
        if (s == GEMM_OK && e != cudaSuccess) s = gemm__cuda_fail(fn, "cudaFreeAsync", e);
    }
    if (held) GEMM_FREE(held);
    GEMM_FREE(p);
    GEMM_FREE(hb);
    return s;
}

extern "C" {

GEMM_DEF gemm_status gemm_cuda_sgemm_grouped_batched(cudaStream_t stream, gemm_layout layout,
                                                     const gemm_transpose transa_array[],
                                                     const gemm_transpose transb_array[], const int64_t m_array[],
                                                     const int64_t n_array[], const int64_t k_array[],
                                                     const float alpha_array[], const float *const A_array[],
                                                     const int64_t lda_array[], const float *const B_array[],
                                                     const int64_t ldb_array[], const float beta_array[],
                                                     float *const C_array[], const int64_t ldc_array[],
                                                     int64_t group_count, const int64_t group_size[],
                                                     const gemm_cuda_options *options)
{
    gemm__cuda_groups<float> g = {layout, transa_array, transb_array, m_array, n_array, k_array, lda_array,
                                  ldb_array, ldc_array, group_size, alpha_array, beta_array, group_count};
    return gemm__cuda_grouped<float>("gemm_cuda_sgemm_grouped_batched", stream, g, A_array, B_array, C_array, options);
}

GEMM_DEF gemm_status gemm_cuda_dgemm_grouped_batched(cudaStream_t stream, gemm_layout layout,
                                                     const gemm_transpose transa_array[],
                                                     const gemm_transpose transb_array[], const int64_t m_array[],
                                                     const int64_t n_array[], const int64_t k_array[],
                                                     const double alpha_array[], const double *const A_array[],
                                                     const int64_t lda_array[], const double *const B_array[],
                                                     const int64_t ldb_array[], const double beta_array[],
                                                     double *const C_array[], const int64_t ldc_array[],
                                                     int64_t group_count, const int64_t group_size[],
                                                     const gemm_cuda_options *options)
{
    gemm__cuda_groups<double> g = {layout, transa_array, transb_array, m_array, n_array, k_array, lda_array,
                                   ldb_array, ldc_array, group_size, alpha_array, beta_array, group_count};
    return gemm__cuda_grouped<double>("gemm_cuda_dgemm_grouped_batched", stream, g, A_array, B_array, C_array,
                                      options);
}

} /* extern "C" */

/* The complex public functions (gemm_cuda_cgemm, _zgemm, their _host forms
   and batches): the complex calls' own checks (GEMM_CONJ_TRANS, the
   scalars by pointer), the shared checks on the complex problem with a
   conjugate transpose seen as a transpose, the options, every pointer and
   member, all before anything is queued; then complex_native.cuh's device
   run (the native kernel, or complex.cuh's real product) or
   complex_host.cuh's host run. T is the real scalar type (float for
   cgemm, double for zgemm); matrices are interleaved (re, im) pairs. */
#pragma once
#include <stdint.h>
#include <string.h>
#include "../../core/config.h"   /* GEMM_FREE */
#include "../../core/internal.h" /* gemm__prepare, _strided, _batched */
#include "../../core/lists.c" /* gemm__pointer_list_addr */
#include "../../core/overlap.c"  /* gemm__check_overlap_sized, gemm__check_batch_overlap_sized */
#include "../api.h"
#include "batch_run.cuh"         /* gemm__cuda_read_lists, _check_members, _upload_lists */
#include "call.cuh"              /* gemm__cuda_check_pointer, _check_host */
#include "choose.cuh"            /* gemm__cuda_is_tc, the option checks */
#include "complex.cuh"
#include "complex_host.cuh"
#include "complex_native.cuh" /* gemm__cuda_crun */

/* The layout, the transposes and the scalars; *rta, *rtb: the transposes
   as the shared checks take them (GEMM_CONJ_TRANS as GEMM_TRANS). */
template <typename T>
static gemm_status gemm__cuda_cbegin(const char *fn, gemm_layout layout, gemm_transpose ta, gemm_transpose tb,
                                     const void *alpha, const void *beta, gemm__cuda_cplan<T> *pl,
                                     gemm_transpose *rta, gemm_transpose *rtb)
{
    const gemm_transpose t[2] = {ta, tb};
    if (layout != GEMM_ROW_MAJOR && layout != GEMM_COL_MAJOR)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: layout is %d, not GEMM_ROW_MAJOR or GEMM_COL_MAJOR", fn,
                          (int)layout);
    for (int i = 0; i < 2; i++)
        if (t[i] != GEMM_NO_TRANS && t[i] != GEMM_TRANS && t[i] != GEMM_CONJ_TRANS)
            return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: trans%c is %d, not GEMM_NO_TRANS, GEMM_TRANS or "
                              "GEMM_CONJ_TRANS", fn, i ? 'b' : 'a', (int)t[i]);
    if (!alpha || !beta)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s is NULL: the scalars are passed by pointer to a complex "
                          "value in host memory, as cblas_?gemm takes them", fn, alpha ? "beta" : "alpha");
    memcpy(&pl->alpha, alpha, sizeof pl->alpha);
    memcpy(&pl->beta, beta, sizeof pl->beta);
    *rta = ta == GEMM_CONJ_TRANS ? GEMM_TRANS : ta;
    *rtb = tb == GEMM_CONJ_TRANS ? GEMM_TRANS : tb;
    return GEMM_OK;
}

template <typename T> static bool gemm__cuda_czero(gemm__cuda_cnum<T> x) { return x.re == T(0) && x.im == T(0); }
template <typename T> static bool gemm__cuda_cone(gemm__cuda_cnum<T> x) { return x.re == T(1) && x.im == T(0); }

/* After the shared checks: the options, which canonical operand is
   conjugated, the real product; for the device, sizes the kernels index
   with 32-bit integers. */
template <typename T>
static gemm_status gemm__cuda_cfinish(const char *fn, gemm_status s, bool device, gemm_transpose ta,
                                      gemm_transpose tb, const gemm_cuda_options *opt, gemm__cuda_cplan<T> *pl)
{
    const gemm__problem *p = &pl->p;
    if (s == GEMM_OK)
        s = gemm__cuda_is_tc<T>(opt) ? gemm__cuda_check_tc(fn, opt)
                                     : gemm__cuda_check_exact(fn, opt, (int)sizeof(T) * 8);
    if (s == GEMM_OK) s = gemm__cuda_check_emulation(fn, opt, false);
    if (s != GEMM_OK || p->work == GEMM__WORK_NONE) return s;
    pl->conj_a = (p->swapped ? tb : ta) == GEMM_CONJ_TRANS;
    pl->conj_b = (p->swapped ? ta : tb) == GEMM_CONJ_TRANS;
    if (device && (2 * p->m > INT32_MAX || p->n > INT32_MAX ||
                   (p->work == GEMM__WORK_FULL && 2 * p->k > INT32_MAX)))
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: m, n and k must each be below 2^30 here (2^31 for n)", fn);
    return gemm__cuda_cplan_real(fn, pl);
}

template <typename T>
static gemm_status gemm__cuda_ccall(const char *fn, cudaStream_t stream, bool host, gemm_layout layout,
                                    gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n, int64_t k,
                                    const void *alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                                    const void *beta, void *C, int64_t ldc, const gemm_cuda_options *opt)
{
    static const gemm_cuda_options defaults = {};
    gemm__cuda_cplan<T> pl = {};
    gemm_transpose rta = GEMM_NO_TRANS, rtb = GEMM_NO_TRANS; /* set by gemm__cuda_cbegin; g++ -O3 cannot see it */
    gemm_status s;
    gemm__clear_error();
    if (!opt) opt = &defaults;
    if (host && opt->timing) *opt->timing = gemm_timing{};
    s = gemm__cuda_cbegin<T>(fn, layout, ta, tb, alpha, beta, &pl, &rta, &rtb);
    if (s == GEMM_OK)
        s = gemm__prepare(fn, layout, rta, rtb, m, n, k, gemm__cuda_czero(pl.alpha), A != NULL, lda, B != NULL, ldb,
                          gemm__cuda_cone(pl.beta), C != NULL, ldc, &pl.p);
    if (s == GEMM_OK) /* complex elements: two scalars each */
        s = gemm__check_overlap_sized(fn, &pl.p, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, 2 * sizeof(T),
                                      2 * sizeof(T));
    if (s == GEMM_OK && host) s = gemm__cuda_check_host(fn, opt);
    s = gemm__cuda_cfinish<T>(fn, s, !host, ta, tb, opt, &pl);
    if (s != GEMM_OK || pl.p.work == GEMM__WORK_NONE) return s;
    {
        const T *a = (const T *)(pl.p.swapped ? B : A), *b = (const T *)(pl.p.swapped ? A : B);
        gemm__cuda_cmembers<T> mb = {1, a, b, (T *)C, {NULL, 0}, {NULL, 0}, {NULL, 0}, NULL};
        if (host) return gemm__cuda_chost<T>(fn, &pl, a, b, (T *)C, opt);
        if ((s = gemm__cuda_check_pointer(fn, "C", C)) != GEMM_OK) return s;
        if (pl.p.work == GEMM__WORK_FULL && ((s = gemm__cuda_check_pointer(fn, "A", A)) != GEMM_OK ||
                                             (s = gemm__cuda_check_pointer(fn, "B", B)) != GEMM_OK))
            return s;
        return gemm__cuda_crun<T>(fn, &pl, mb, opt, stream);
    }
}

template <typename T>
static gemm_status gemm__cuda_cstrided(const char *fn, cudaStream_t stream, gemm_layout layout, gemm_transpose ta,
                                       gemm_transpose tb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                       const void *A, int64_t lda, int64_t sa, const void *B, int64_t ldb, int64_t sb,
                                       const void *beta, void *C, int64_t ldc, int64_t sc, int64_t count,
                                       const gemm_cuda_options *opt)
{
    static const gemm_cuda_options defaults = {};
    gemm__cuda_cplan<T> pl = {};
    gemm__batch hb = {};
    gemm_transpose rta = GEMM_NO_TRANS, rtb = GEMM_NO_TRANS; /* set by gemm__cuda_cbegin; g++ -O3 cannot see it */
    gemm_status s;
    gemm__clear_error();
    if (!opt) opt = &defaults;
    s = gemm__cuda_cbegin<T>(fn, layout, ta, tb, alpha, beta, &pl, &rta, &rtb);
    if (s == GEMM_OK)
        s = gemm__prepare_strided(fn, layout, rta, rtb, m, n, k, gemm__cuda_czero(pl.alpha), A != NULL, lda, sa,
                                  B != NULL, ldb, sb, gemm__cuda_cone(pl.beta), C != NULL, ldc, sc, count, &pl.p, &hb);
    if (s == GEMM_OK) /* every member's C against every member's A and B, before any CUDA call */
        s = gemm__check_batch_overlap_sized(fn, &pl.p, &hb, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, 2 * sizeof(T),
                                            2 * sizeof(T));
    s = gemm__cuda_cfinish<T>(fn, s, true, ta, tb, opt, &pl);
    if (s != GEMM_OK || pl.p.work == GEMM__WORK_NONE || count == 0) return s;
    {
        const T *a = (const T *)(pl.p.swapped ? B : A), *b = (const T *)(pl.p.swapped ? A : B);
        gemm__cuda_cmembers<T> mb = {count, a, b, (T *)C, {NULL, 2 * hb.stride_a}, {NULL, 2 * hb.stride_b},
                                     {NULL, 2 * hb.stride_c}, &hb};
        if ((s = gemm__cuda_check_members(fn, &pl.p, &hb, a, b, C, 2 * sizeof(T), 2 * sizeof(T))) != GEMM_OK) return s;
        return gemm__cuda_crun<T>(fn, &pl, mb, opt, stream);
    }
}

template <typename T>
static gemm_status gemm__cuda_cbatched(const char *fn, cudaStream_t stream, gemm_layout layout, gemm_transpose ta,
                                       gemm_transpose tb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                       const void *const *A, int64_t lda, const void *const *B, int64_t ldb,
                                       const void *beta, void *const *C, int64_t ldc, int64_t count,
                                       const gemm_cuda_options *opt)
{
    static const gemm_cuda_options defaults = {};
    gemm__cuda_cplan<T> pl = {};
    gemm__batch hb = {};
    gemm__cuda_batch bt = gemm__cuda_single(1);
    gemm__cuda_gpu gpu;
    gemm_transpose rta = GEMM_NO_TRANS, rtb = GEMM_NO_TRANS;
    const void *la = NULL, *lb = NULL, *lc = NULL;
    void *held = NULL;
    gemm__cuda_upload lists = {NULL, -1, -1};
    gemm_status s;
    gemm__clear_error();
    if (!opt) opt = &defaults;
    s = gemm__cuda_cbegin<T>(fn, layout, ta, tb, alpha, beta, &pl, &rta, &rtb);
    /* the checks gemm__prepare_batched makes first, for p.work: which lists the call reads */
    if (s == GEMM_OK)
        s = gemm__prepare(fn, layout, rta, rtb, m, n, k, gemm__cuda_czero(pl.alpha), 1, lda, 1, ldb,
                          gemm__cuda_cone(pl.beta), 1, ldc, &pl.p);
    if (s == GEMM_OK) s = gemm__cuda_read_lists(fn, pl.p.work, A, B, C, count, stream, &held, &la, &lb, &lc);
    if (s == GEMM_OK)
        s = gemm__prepare_batched(fn, layout, rta, rtb, m, n, k, gemm__cuda_czero(pl.alpha), la, lda, lb, ldb,
                                  gemm__cuda_cone(pl.beta), lc, ldc, count, gemm__pointer_list_addr,
                                  gemm__pointer_list_addr, 2 * sizeof(T), &pl.p, &hb);
    if (s == GEMM_OK) s = gemm__check_batch_overlap_sized(fn, &pl.p, &hb, 0, 0, 0, 2 * sizeof(T), 2 * sizeof(T));
    s = gemm__cuda_cfinish<T>(fn, s, true, ta, tb, opt, &pl);
    if (s == GEMM_OK && pl.p.work != GEMM__WORK_NONE && count > 0) {
        s = gemm__cuda_check_members(fn, &pl.p, &hb, NULL, NULL, NULL, 2 * sizeof(T), 2 * sizeof(T));
        if (s == GEMM_OK) s = gemm__cuda_query(fn, &gpu);
        if (s == GEMM_OK) s = gemm__cuda_upload_lists(fn, &hb, 1, gpu.dev, stream, &lists);
        if (s == GEMM_OK) {
            gemm__cuda_listed_at((const int64_t *)lists.device, hb.count, &bt);
            gemm__cuda_cmembers<T> mb = {count, NULL, NULL, NULL, {bt.a, 0}, {bt.b, 0}, {bt.c, 0}, &hb};
            s = gemm__cuda_crun<T>(fn, &pl, mb, opt, stream);
        }
        s = gemm__cuda_upload_done(fn, &lists, stream, s);
    }
    if (held) GEMM_FREE(held);
    return s;
}

extern "C" {

GEMM_DEF gemm_status gemm_cuda_cgemm(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                     const void *A, int64_t lda, const void *B, int64_t ldb, const void *beta, void *C,
                                     int64_t ldc, const gemm_cuda_options *options)
{
    return gemm__cuda_ccall<float>("gemm_cuda_cgemm", stream, false, layout, transa, transb, m, n, k, alpha, A, lda, B,
                                   ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cuda_zgemm(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                     const void *A, int64_t lda, const void *B, int64_t ldb, const void *beta, void *C,
                                     int64_t ldc, const gemm_cuda_options *options)
{
    return gemm__cuda_ccall<double>("gemm_cuda_zgemm", stream, false, layout, transa, transb, m, n, k, alpha, A, lda,
                                    B, ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cuda_cgemm_host(gemm_layout layout, gemm_transpose transa, gemm_transpose transb, int64_t m,
                                          int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda,
                                          const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
                                          const gemm_cuda_options *options)
{
    return gemm__cuda_ccall<float>("gemm_cuda_cgemm_host", NULL, true, layout, transa, transb, m, n, k, alpha, A, lda,
                                   B, ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cuda_zgemm_host(gemm_layout layout, gemm_transpose transa, gemm_transpose transb, int64_t m,
                                          int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda,
                                          const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
                                          const gemm_cuda_options *options)
{
    return gemm__cuda_ccall<double>("gemm_cuda_zgemm_host", NULL, true, layout, transa, transb, m, n, k, alpha, A,
                                    lda, B, ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cuda_cgemm_strided_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                                     const void *alpha, const void *A, int64_t lda, int64_t stride_a,
                                                     const void *B, int64_t ldb, int64_t stride_b, const void *beta,
                                                     void *C, int64_t ldc, int64_t stride_c, int64_t batch_count,
                                                     const gemm_cuda_options *options)
{
    return gemm__cuda_cstrided<float>("gemm_cuda_cgemm_strided_batched", stream, layout, transa, transb, m, n, k,
                                      alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc, stride_c, batch_count,
                                      options);
}

GEMM_DEF gemm_status gemm_cuda_zgemm_strided_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                                     const void *alpha, const void *A, int64_t lda, int64_t stride_a,
                                                     const void *B, int64_t ldb, int64_t stride_b, const void *beta,
                                                     void *C, int64_t ldc, int64_t stride_c, int64_t batch_count,
                                                     const gemm_cuda_options *options)
{
    return gemm__cuda_cstrided<double>("gemm_cuda_zgemm_strided_batched", stream, layout, transa, transb, m, n, k,
                                       alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc, stride_c, batch_count,
                                       options);
}

GEMM_DEF gemm_status gemm_cuda_cgemm_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                             gemm_transpose transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                             const void *const A[], int64_t lda, const void *const B[], int64_t ldb,
                                             const void *beta, void *const C[], int64_t ldc, int64_t batch_count,
                                             const gemm_cuda_options *options)
{
    return gemm__cuda_cbatched<float>("gemm_cuda_cgemm_batched", stream, layout, transa, transb, m, n, k, alpha, A,
                                      lda, B, ldb, beta, C, ldc, batch_count, options);
}

GEMM_DEF gemm_status gemm_cuda_zgemm_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                             gemm_transpose transb, int64_t m, int64_t n, int64_t k, const void *alpha,
                                             const void *const A[], int64_t lda, const void *const B[], int64_t ldb,
                                             const void *beta, void *const C[], int64_t ldc, int64_t batch_count,
                                             const gemm_cuda_options *options)
{
    return gemm__cuda_cbatched<double>("gemm_cuda_zgemm_batched", stream, layout, transa, transb, m, n, k, alpha, A,
                                       lda, B, ldb, beta, C, ldc, batch_count, options);
}

} /* extern "C" */

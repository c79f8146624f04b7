/* The public functions: thin typed wrappers over gemm__cuda_call. */
#pragma once
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>
#include <type_traits>
#include "../../core/config.h" /* GEMM_FREE */
#include "../../core/internal.h" /* gemm__prepare, gemm__prepare_strided, _batched */
#include "../../core/lists.c" /* gemm__pointer_list_addr */
#include "../../core/overlap.c" /* gemm__check_overlap_sized, gemm__check_batch_overlap_sized */
#include "../api.h"
#include "batch_run.cuh" /* gemm__cuda_batch_run, gemm__cuda_read_lists */
#include "choose.cuh" /* gemm__cuda_is_tc, the option checks, AUTO's kernels */
#include "devices.cuh" /* gemm__cuda_host: one device or several */
#include "run.cuh"
#include "s8.cuh" /* gemm__cuda_s8_run */
#include "scratch.cuh"
#include "staging.cuh" /* gemm__cuda_context_release_idle */
#include "uploads.cuh" /* gemm__cuda_upload_slots_release */
#include "verify.cuh" /* gemm__cuda_verified, gemm__cuda_host_verified */

/* Every call: the argument checks and the canonical problem once
   (gemm__prepare), C against A and B (host pointers, or device pointers in
   the one address space CUDA gives host and devices: comparable either
   way, and checked before any CUDA call), the options, then the
   device-pointer path on `stream` or, for `host`, the host-pointer path.
   T: A and B, TC: C, S: alpha and beta. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_call(const char *fn, cudaStream_t stream, bool host, gemm_layout layout,
                                   gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n, int64_t k, S alpha,
                                   const T *A, int64_t lda, const T *B, int64_t ldb, S beta, TC *C, int64_t ldc,
                                   const gemm_cuda_options *opt)
{
    static const gemm_cuda_options defaults = {};
    gemm__problem p = {}; /* zeroed: gcc cannot see that gemm__prepare sets p->work on success */
    gemm_status s;
    gemm__clear_error();
    if (!opt) opt = &defaults;
    if (host && opt->timing) *opt->timing = gemm_timing{};
    s = gemm__prepare(fn, layout, ta, tb, m, n, k, alpha == S(0), A != NULL, lda, B != NULL, ldb, beta == S(1),
                      C != NULL, ldc, &p);
    if (s == GEMM_OK)
        s = gemm__check_overlap_sized(fn, &p, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, sizeof(T), sizeof(TC));
    if (s == GEMM_OK)
        s = gemm__cuda_is_tc<T>(opt) ? gemm__cuda_check_tc(fn, opt)
                                     : gemm__cuda_check_exact(fn, opt, (int)sizeof(T) * 8);
    if (s == GEMM_OK) s = gemm__cuda_check_emulation(fn, opt, !host && std::is_same<T, TC>::value &&
                                                                (std::is_same<T, float>::value || std::is_same<T, double>::value));
    if (s == GEMM_OK && host) s = gemm__cuda_check_host(fn, opt);
    if (s != GEMM_OK || p.work == GEMM__WORK_NONE) return s;
    {
        gemm__cuda_operands<T, TC, S> x = {p.swapped ? B : A, p.swapped ? A : B, C, alpha, beta};
        if (opt->verify)
            return host ? gemm__cuda_host_verified(fn, &p, x, opt) : gemm__cuda_verified(fn, &p, x, opt, stream);
        return host ? gemm__cuda_host(fn, &p, x, opt) : gemm__cuda_run(fn, &p, x, opt, stream);
    }
}

/* gemm_cuda_sgemm_mixed with its element types made C++ types. */
template <typename T, typename TC>
static gemm_status gemm__cuda_mixed_as(const char *fn, cudaStream_t stream, bool host, gemm_layout layout,
                                       gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n, int64_t k,
                                       float alpha, const void *A, int64_t lda, const void *B, int64_t ldb, float beta,
                                       void *C, int64_t ldc, const gemm_cuda_options *opt)
{
    return gemm__cuda_call<T, TC, float>(fn, stream, host, layout, ta, tb, m, n, k, alpha, (const T *)A, lda,
                                         (const T *)B, ldb, beta, (TC *)C, ldc, opt);
}

typedef gemm_status (*gemm__cuda_mixed_fn)(const char *, cudaStream_t, bool, gemm_layout, gemm_transpose,
                                           gemm_transpose, int64_t, int64_t, int64_t, float, const void *, int64_t,
                                           const void *, int64_t, float, void *, int64_t, const gemm_cuda_options *);

/* The instance for A, B and C of these types: A and B both F16 or both
   BF16, C F32 or their type; NULL for any other combination. */
static gemm__cuda_mixed_fn gemm__cuda_mixed_types(gemm_precision a, gemm_precision b, gemm_precision c)
{
    if (a != b) return NULL;
    if (a == GEMM_F16)
        return c == GEMM_F32   ? gemm__cuda_mixed_as<__half, float>
               : c == GEMM_F16 ? gemm__cuda_mixed_as<__half, __half>
                               : NULL;
    if (a == GEMM_BF16)
        return c == GEMM_F32   ? gemm__cuda_mixed_as<__nv_bfloat16, float>
               : c == GEMM_BF16 ? gemm__cuda_mixed_as<__nv_bfloat16, __nv_bfloat16>
                                : NULL;
    return NULL;
}

static gemm_status gemm__cuda_mixed_refused(const char *fn, gemm_precision a, gemm_precision b, gemm_precision c)
{
    gemm__clear_error();
    return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: a_type %d (%s), b_type %d (%s), c_type %d (%s): A and B must both be "
                      "GEMM_F16 or both GEMM_BF16 (TF32: gemm_cuda_sgemm with options.math), C GEMM_F32 or their type",
                      fn, (int)a, gemm_precision_name(a), (int)b, gemm_precision_name(b), (int)c, gemm_precision_name(c));
}

/* The batch calls: the batch's checks (gemm__prepare_strided or _batched,
   shared with the CPU, and C against A and B as the CPU's batches check
   it), the options, then gemm__cuda_batch_run. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_batch_checked(const char *fn, gemm_status s, const gemm__problem *p,
                                            const gemm__batch *hb, const gemm__cuda_operands<T, TC, S> &x,
                                            const gemm_cuda_options *opt, cudaStream_t stream)
{
    if (s == GEMM_OK)
        s = gemm__cuda_is_tc<T>(opt) ? gemm__cuda_check_tc(fn, opt) : gemm__cuda_check_exact(fn, opt, (int)sizeof(T) * 8);
    if (s == GEMM_OK)
        s = gemm__cuda_check_emulation(fn, opt, std::is_same<T, TC>::value &&
                                                    (std::is_same<T, float>::value || std::is_same<T, double>::value));
    if (s != GEMM_OK) return s;
    if (opt->verify && hb->count > 0 && p->work != GEMM__WORK_NONE)
        return gemm__cuda_verified_members(fn, p, hb, x, opt, stream);
    return gemm__cuda_batch_run(fn, p, hb, x, opt, stream);
}

template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_strided(const char *fn, cudaStream_t stream, gemm_layout layout, gemm_transpose ta,
                                      gemm_transpose tb, int64_t m, int64_t n, int64_t k, S alpha, const T *A,
                                      int64_t lda, int64_t sa, const T *B, int64_t ldb, int64_t sb, S beta, TC *C,
                                      int64_t ldc, int64_t sc, int64_t count, const gemm_cuda_options *opt)
{
    static const gemm_cuda_options defaults = {};
    gemm__problem p = {};
    gemm__batch hb;
    gemm_status s;
    gemm__clear_error();
    if (!opt) opt = &defaults;
    s = gemm__prepare_strided(fn, layout, ta, tb, m, n, k, alpha == S(0), A != NULL, lda, sa, B != NULL, ldb, sb,
                              beta == S(1), C != NULL, ldc, sc, count, &p, &hb);
    if (s == GEMM_OK) /* every member's C against every member's A and B, before any CUDA call */
        s = gemm__check_batch_overlap_sized(fn, &p, &hb, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, sizeof(T),
                                            sizeof(TC));
    gemm__cuda_operands<T, TC, S> x = {p.swapped ? B : A, p.swapped ? A : B, C, alpha, beta};
    return gemm__cuda_batch_checked(fn, s, &p, &hb, x, opt, stream);
}

/* The lists may be in host, device or managed memory (cuBLAS takes them
   on the device): the single call's checks first tell which lists the
   call reads, gemm__cuda_read_lists copies those to the host, and the
   batch's checks and launch read the copies. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_batched(const char *fn, cudaStream_t stream, gemm_layout layout, gemm_transpose ta,
                                      gemm_transpose tb, int64_t m, int64_t n, int64_t k, S alpha,
                                      const T *const *A, int64_t lda, const T *const *B, int64_t ldb, S beta,
                                      TC *const *C, int64_t ldc, int64_t count, const gemm_cuda_options *opt)
{
    static const gemm_cuda_options defaults = {};
    gemm__problem p = {};
    gemm__batch hb = {}; /* zeroed: gcc cannot see that gemm__prepare_batched sets it on success */
    const void *la = NULL, *lb = NULL, *lc = NULL;
    void *held = NULL;
    gemm_status s;
    gemm__clear_error();
    if (!opt) opt = &defaults;
    /* the checks gemm__prepare_batched makes first, for p.work (a failure is the same failure there) */
    s = gemm__prepare(fn, layout, ta, tb, m, n, k, alpha == S(0), 1, lda, 1, ldb, beta == S(1), 1, ldc, &p);
    if (s == GEMM_OK) s = gemm__cuda_read_lists(fn, p.work, A, B, C, count, stream, &held, &la, &lb, &lc);
    if (s == GEMM_OK)
        s = gemm__prepare_batched(fn, layout, ta, tb, m, n, k, alpha == S(0), la, lda, lb, ldb, beta == S(1), lc, ldc,
                                  count, gemm__pointer_list_addr, gemm__pointer_list_addr, sizeof(TC), &p, &hb);
    if (s == GEMM_OK) s = gemm__check_batch_overlap_sized(fn, &p, &hb, 0, 0, 0, sizeof(T), sizeof(TC)); /* the lists' */
    gemm__cuda_operands<T, TC, S> x = {NULL, NULL, NULL, alpha, beta};
    s = gemm__cuda_batch_checked(fn, s, &p, &hb, x, opt, stream);
    if (held) GEMM_FREE(held);
    return s;
}

/* The mixed-precision batches with their element types made C++ types. */
template <typename T, typename TC>
static gemm_status gemm__cuda_mixed_strided_as(const char *fn, cudaStream_t stream, gemm_layout layout,
                                               gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n, int64_t k,
                                               float alpha, const void *A, int64_t lda, int64_t sa, const void *B,
                                               int64_t ldb, int64_t sb, float beta, void *C, int64_t ldc, int64_t sc,
                                               int64_t count, const gemm_cuda_options *opt)
{
    return gemm__cuda_strided<T, TC, float>(fn, stream, layout, ta, tb, m, n, k, alpha, (const T *)A, lda, sa,
                                            (const T *)B, ldb, sb, beta, (TC *)C, ldc, sc, count, opt);
}

template <typename T, typename TC>
static gemm_status gemm__cuda_mixed_batched_as(const char *fn, cudaStream_t stream, gemm_layout layout,
                                               gemm_transpose ta, gemm_transpose tb, int64_t m, int64_t n, int64_t k,
                                               float alpha, const void *const *A, int64_t lda, const void *const *B,
                                               int64_t ldb, float beta, void *const *C, int64_t ldc, int64_t count,
                                               const gemm_cuda_options *opt)
{
    return gemm__cuda_batched<T, TC, float>(fn, stream, layout, ta, tb, m, n, k, alpha, (const T *const *)A, lda,
                                            (const T *const *)B, ldb, beta, (TC *const *)C, ldc, count, opt);
}

extern "C" {

GEMM_DEF gemm_status gemm_cuda_sgemm(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                     const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                                     int64_t ldc, const gemm_cuda_options *options)
{
    return gemm__cuda_call<float, float, float>("gemm_cuda_sgemm", stream, false, layout, transa, transb, m, n, k,
                                                alpha, A, lda, B, ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cuda_dgemm(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                     const double *A, int64_t lda, const double *B, int64_t ldb, double beta,
                                     double *C, int64_t ldc, const gemm_cuda_options *options)
{
    return gemm__cuda_call<double, double, double>("gemm_cuda_dgemm", stream, false, layout, transa, transb, m, n, k,
                                                   alpha, A, lda, B, ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cuda_s8gemm(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                      gemm_transpose transb, int64_t m, int64_t n, int64_t k, int32_t alpha,
                                      const int8_t *A, int64_t lda, const int8_t *B, int64_t ldb, int32_t beta,
                                      int32_t *C, int64_t ldc, const gemm_cuda_options *options)
{
    static const char *fn = "gemm_cuda_s8gemm";
    static const gemm_cuda_options defaults = {};
    const gemm_cuda_options *opt = options ? options : &defaults;
    gemm__problem p = {};
    gemm_status s;
    gemm__clear_error();
    s = gemm__prepare(fn, layout, transa, transb, m, n, k, alpha == 0, A != NULL, lda, B != NULL, ldb, beta == 1,
                      C != NULL, ldc, &p);
    if (s == GEMM_OK) s = gemm__check_overlap_sized(fn, &p, (uintptr_t)A, (uintptr_t)B, (uintptr_t)C, 1, 4);
    if (s == GEMM_OK && ((opt->kernel != GEMM_CUDA_KERNEL_AUTO && opt->kernel != GEMM_CUDA_KERNEL_NAIVE &&
                          opt->kernel != GEMM_CUDA_KERNEL_WGMMA) ||
                         opt->math != GEMM_CUDA_MATH_EXACT || opt->variant || opt->split_k > 1 || opt->moduli ||
                         opt->verify))
        s = gemm__fail(GEMM_ERR_INVALID_ARG, "%s: the int8 product takes options.kernel AUTO, WGMMA or NAIVE and no "
                       "math, variant, split_k, moduli or verify", fn);
    if (s == GEMM_OK && opt->kernel == GEMM_CUDA_KERNEL_WGMMA) {
        gemm__cuda_gpu gpu;
        if ((s = gemm__cuda_query(fn, &gpu)) == GEMM_OK && !gemm__cuda_sm90a_code(&gpu))
            s = gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: the WGMMA kernel needs the sm_90a code on a Hopper GPU", fn);
    }
    if (s != GEMM_OK || p.work == GEMM__WORK_NONE) return s;
    return gemm__cuda_s8_run(fn, &p, p.swapped ? B : A, p.swapped ? A : B, C, alpha, beta, opt, stream);
}

GEMM_DEF int gemm_cuda_last_moduli(void)
{
    return gemm__cuda_moduli_used;
}

GEMM_DEF gemm_status gemm_cuda_sgemm_host(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                          int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                                          int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                                          int64_t ldc, const gemm_cuda_options *options)
{
    return gemm__cuda_call<float, float, float>("gemm_cuda_sgemm_host", NULL, true, layout, transa, transb, m, n, k,
                                                alpha, A, lda, B, ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cuda_dgemm_host(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                          int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                                          int64_t lda, const double *B, int64_t ldb, double beta, double *C,
                                          int64_t ldc, const gemm_cuda_options *options)
{
    return gemm__cuda_call<double, double, double>("gemm_cuda_dgemm_host", NULL, true, layout, transa, transb, m, n,
                                                   k, alpha, A, lda, B, ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cuda_sgemm_mixed(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                           gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                           const void *A, gemm_precision a_type, int64_t lda, const void *B,
                                           gemm_precision b_type, int64_t ldb, float beta, void *C,
                                           gemm_precision c_type, int64_t ldc, const gemm_cuda_options *options)
{
    static const char *fn = "gemm_cuda_sgemm_mixed";
    gemm__cuda_mixed_fn run = gemm__cuda_mixed_types(a_type, b_type, c_type);
    if (!run) return gemm__cuda_mixed_refused(fn, a_type, b_type, c_type);
    return run(fn, stream, false, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cuda_sgemm_mixed_host(gemm_layout layout, gemm_transpose transa, gemm_transpose transb,
                                                int64_t m, int64_t n, int64_t k, float alpha, const void *A,
                                                gemm_precision a_type, int64_t lda, const void *B,
                                                gemm_precision b_type, int64_t ldb, float beta, void *C,
                                                gemm_precision c_type, int64_t ldc, const gemm_cuda_options *options)
{
    static const char *fn = "gemm_cuda_sgemm_mixed_host";
    gemm__cuda_mixed_fn run = gemm__cuda_mixed_types(a_type, b_type, c_type);
    if (!run) return gemm__cuda_mixed_refused(fn, a_type, b_type, c_type);
    return run(fn, NULL, true, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, options);
}

GEMM_DEF gemm_status gemm_cuda_sgemm_strided_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                                     float alpha, const float *A, int64_t lda, int64_t stride_a,
                                                     const float *B, int64_t ldb, int64_t stride_b, float beta,
                                                     float *C, int64_t ldc, int64_t stride_c, int64_t batch_count,
                                                     const gemm_cuda_options *options)
{
    return gemm__cuda_strided<float, float, float>("gemm_cuda_sgemm_strided_batched", stream, layout, transa, transb,
                                                   m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc,
                                                   stride_c, batch_count, options);
}

GEMM_DEF gemm_status gemm_cuda_dgemm_strided_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                                     gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                                     double alpha, const double *A, int64_t lda, int64_t stride_a,
                                                     const double *B, int64_t ldb, int64_t stride_b, double beta,
                                                     double *C, int64_t ldc, int64_t stride_c, int64_t batch_count,
                                                     const gemm_cuda_options *options)
{
    return gemm__cuda_strided<double, double, double>("gemm_cuda_dgemm_strided_batched", stream, layout, transa,
                                                      transb, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b,
                                                      beta, C, ldc, stride_c, batch_count, options);
}

GEMM_DEF gemm_status gemm_cuda_sgemm_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                             gemm_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                                             const float *const A[], int64_t lda, const float *const B[], int64_t ldb,
                                             float beta, float *const C[], int64_t ldc, int64_t batch_count,
                                             const gemm_cuda_options *options)
{
    return gemm__cuda_batched<float, float, float>("gemm_cuda_sgemm_batched", stream, layout, transa, transb, m, n, k,
                                                   alpha, A, lda, B, ldb, beta, C, ldc, batch_count, options);
}

GEMM_DEF gemm_status gemm_cuda_dgemm_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                             gemm_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                                             const double *const A[], int64_t lda, const double *const B[],
                                             int64_t ldb, double beta, double *const C[], int64_t ldc,
                                             int64_t batch_count, const gemm_cuda_options *options)
{
    return gemm__cuda_batched<double, double, double>("gemm_cuda_dgemm_batched", stream, layout, transa, transb, m, n,
                                                      k, alpha, A, lda, B, ldb, beta, C, ldc, batch_count, options);
}

GEMM_DEF gemm_status gemm_cuda_sgemm_mixed_strided_batched(cudaStream_t stream, gemm_layout layout,
                                                           gemm_transpose transa, gemm_transpose transb, int64_t m,
                                                           int64_t n, int64_t k, float alpha, const void *A,
                                                           gemm_precision a_type, int64_t lda, int64_t stride_a,
                                                           const void *B, gemm_precision b_type, int64_t ldb,
                                                           int64_t stride_b, float beta, void *C,
                                                           gemm_precision c_type, int64_t ldc, int64_t stride_c,
                                                           int64_t batch_count, const gemm_cuda_options *options)
{
    static const char *fn = "gemm_cuda_sgemm_mixed_strided_batched";
    gemm_status (*run)(const char *, cudaStream_t, gemm_layout, gemm_transpose, gemm_transpose, int64_t, int64_t,
                       int64_t, float, const void *, int64_t, int64_t, const void *, int64_t, int64_t, float, void *,
                       int64_t, int64_t, int64_t, const gemm_cuda_options *) = NULL;
    if (gemm__cuda_mixed_types(a_type, b_type, c_type) == NULL) return gemm__cuda_mixed_refused(fn, a_type, b_type, c_type);
    if (a_type == GEMM_F16) run = c_type == GEMM_F32 ? gemm__cuda_mixed_strided_as<__half, float>
                                                     : gemm__cuda_mixed_strided_as<__half, __half>;
    else run = c_type == GEMM_F32 ? gemm__cuda_mixed_strided_as<__nv_bfloat16, float>
                                  : gemm__cuda_mixed_strided_as<__nv_bfloat16, __nv_bfloat16>;
    return run(fn, stream, layout, transa, transb, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc,
               stride_c, batch_count, options);
}

GEMM_DEF gemm_status gemm_cuda_sgemm_mixed_batched(cudaStream_t stream, gemm_layout layout, gemm_transpose transa,
                                                   gemm_transpose transb, int64_t m, int64_t n, int64_t k,
                                                   float alpha, const void *const A[], gemm_precision a_type,
                                                   int64_t lda, const void *const B[], gemm_precision b_type,
                                                   int64_t ldb, float beta, void *const C[], gemm_precision c_type,
                                                   int64_t ldc, int64_t batch_count, const gemm_cuda_options *options)
{
    static const char *fn = "gemm_cuda_sgemm_mixed_batched";
    gemm_status (*run)(const char *, cudaStream_t, gemm_layout, gemm_transpose, gemm_transpose, int64_t, int64_t,
                       int64_t, float, const void *const *, int64_t, const void *const *, int64_t, float,
                       void *const *, int64_t, int64_t, const gemm_cuda_options *) = NULL;
    if (gemm__cuda_mixed_types(a_type, b_type, c_type) == NULL) return gemm__cuda_mixed_refused(fn, a_type, b_type, c_type);
    if (a_type == GEMM_F16) run = c_type == GEMM_F32 ? gemm__cuda_mixed_batched_as<__half, float>
                                                     : gemm__cuda_mixed_batched_as<__half, __half>;
    else run = c_type == GEMM_F32 ? gemm__cuda_mixed_batched_as<__nv_bfloat16, float>
                                  : gemm__cuda_mixed_batched_as<__nv_bfloat16, __nv_bfloat16>;
    return run(fn, stream, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, batch_count, options);
}

GEMM_DEF gemm_status gemm_cuda_release_scratch(void)
{
    static const char *fn = "gemm_cuda_release_scratch";
    cudaMemPool_t pool;
    int dev;
    gemm_status s;
    gemm__clear_error();
    GEMM__CUDA_TRY(fn, cudaGetDevice(&dev));
    if (dev >= 0 && dev < 64) gemm__cuda_context_release_idle(dev); /* the host path's staging, threads, streams */
    gemm__cuda_upload_slots_release(dev); /* the batches' page-locked upload slots */
    if ((s = gemm__cuda_scratch_pool(fn, dev, false, &pool)) != GEMM_OK || !pool) return s;
    GEMM__CUDA_TRY(fn, cudaDeviceSynchronize());
    GEMM__CUDA_TRY(fn, cudaMemPoolTrimTo(pool, 0));
    return GEMM_OK;
}

GEMM_DEF gemm_cuda_kernel gemm_cuda_auto_kernel(gemm_precision precision, gemm_cuda_math math, int64_t m, int64_t n,
                                                int64_t k)
{
    gemm__cuda_gpu gpu = {0, 0, 0, 0, 0, 0, 0};
    bool exact = math == GEMM_CUDA_MATH_EXACT && (precision == GEMM_F32 || precision == GEMM_F64);
    bool tc = precision == GEMM_F16 || precision == GEMM_BF16 ||
              (precision == GEMM_F32 && (math == GEMM_CUDA_MATH_TF32 || math == GEMM_CUDA_MATH_FP32_ACCURATE));
    (void)m; (void)n; (void)k;
    if ((!exact && !tc) || cudaGetDevice(&gpu.dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&gpu.major, cudaDevAttrComputeCapabilityMajor, gpu.dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&gpu.minor, cudaDevAttrComputeCapabilityMinor, gpu.dev) != cudaSuccess)
        return GEMM_CUDA_KERNEL_AUTO;
    return tc ? gemm__cuda_auto_tc(&gpu) : gemm__cuda_auto_exact(precision, &gpu);
}

GEMM_DEF const char *gemm_cuda_kernel_name(gemm_cuda_kernel kernel)
{
    switch (kernel) {
    case GEMM_CUDA_KERNEL_AUTO: return "auto";
    case GEMM_CUDA_KERNEL_NAIVE: return "naive";
    case GEMM_CUDA_KERNEL_TILED16: return "tiled16";
    case GEMM_CUDA_KERNEL_SIMT: return "simt";
    case GEMM_CUDA_KERNEL_DMMA: return "dmma";
    case GEMM_CUDA_KERNEL_MMA: return "mma";
    case GEMM_CUDA_KERNEL_WGMMA: return "wgmma";
    default: return "?";
    }
}

} /* extern "C" */

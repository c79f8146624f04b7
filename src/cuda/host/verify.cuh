/* Verified products on CUDA (gemm_cuda_options.verify; core/verify.h).
   Device-pointer calls sum on the device (kernels/verify.cuh): C0's rows
   and columns (beta != 0), alpha * e^T op(a) and alpha * op(b) e, want and
   scale weighted by them, the product, then C's sums; 3m + 3n doubles come
   back for the shared comparison, and the call synchronizes its stream.
   Host-pointer calls (fp32, fp64) sum on the host around the blocking
   call (cpu/verify_sums.c). The unit roundoff is C's precision's, or the
   inputs' where a tensor-core mode rounds them (TF32, FP16: 2^-11; BF16:
   2^-8). */
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <float.h>
#include <string.h>
#include <type_traits>
#include "../../core/config.h"     /* GEMM_MALLOC, GEMM_FREE */
#include "../../core/internal.h"   /* gemm__problem, GEMM__HOOK */
#include "../../core/verify.c"     /* gemm__verify_compare */
#include "../../cpu/verify_sums.c" /* gemm__verify_host_before, gemm__verify_host_after */
#include "../api.h"
#include "../kernels/verify.cuh"
#include "call.cuh"   /* gemm__cuda_operands, gemm__cuda_check_pointer */
#include "choose.cuh" /* gemm__cuda_is_tc */
#include "devices.cuh" /* gemm__cuda_host */
#include "errors.cuh" /* GEMM__CUDA_TRY */
#include "run.cuh"    /* gemm__cuda_run */

/* The bound's unit roundoff and the largest finite value of C's type. */
template <typename T, typename TC>
static double gemm__cuda_verify_unit(const gemm_cuda_options *opt, double *max)
{
    gemm_precision c = std::is_same<TC, double>::value  ? GEMM_F64
                       : std::is_same<TC, float>::value ? GEMM_F32
                       : std::is_same<TC, __half>::value ? GEMM_F16
                                                         : GEMM_BF16;
    int input_bits = std::is_same<T, __half>::value ? 11 : std::is_same<T, __nv_bfloat16>::value ? 8
                     : std::is_same<T, float>::value && gemm__cuda_is_tc<T>(opt) ? 11 : 0;
    *max = c == GEMM_F64 ? DBL_MAX : c == GEMM_F32 ? FLT_MAX : c == GEMM_F16 ? 65504.0 : 3.3895313892515355e38;
    return gemm__verify_unit(c, input_bits);
}

#ifdef GEMM__TEST_HOOKS
/* The tests' faults (gemm__hooks): a product that skips the last
   verify_drop_k of k; one bit of one element of the canonical C flipped
   after it (host: in place; device: read, flipped, written). */
static void gemm__cuda_verify_drop(gemm__problem *q)
{
    if (gemm__test_hooks()->verify_drop_k > 0 && q->work == GEMM__WORK_FULL) {
        q->k -= gemm__test_hooks()->verify_drop_k < q->k ? gemm__test_hooks()->verify_drop_k : q->k;
        if (q->k == 0) q->work = GEMM__WORK_SCALE;
    }
}

static cudaError_t gemm__cuda_verify_flip(const gemm__problem *p, void *C, size_t es, bool device)
{
    const gemm__hooks *h = gemm__test_hooks();
    int64_t i = h->verify_flip_row, j = h->verify_flip_col;
    unsigned char e[8], *at = (unsigned char *)C + (size_t)(i + j * p->ldc) * es;
    cudaError_t err = cudaSuccess;
    if (!h->verify_flip_bit || i < 0 || i >= p->m || j < 0 || j >= p->n) return cudaSuccess;
    if (device) err = cudaMemcpy(e, at, es, cudaMemcpyDeviceToHost);
    else memcpy(e, at, es);
    e[(h->verify_flip_bit - 1) / 8] ^= (unsigned char)(1u << ((h->verify_flip_bit - 1) % 8)); /* little-endian */
    if (!device) memcpy(at, e, es);
    else if (err == cudaSuccess) err = cudaMemcpy(at, e, es, cudaMemcpyHostToDevice);
    return err;
}
#endif

/* One launch of the line sums (kernels/verify.cuh). */
template <typename T>
static gemm_status gemm__cuda_verify_lines(const char *fn, cudaStream_t st, const T *x, int64_t lines, int64_t len,
                                           int64_t line_stride, int64_t elem_stride, double *ws, int64_t w, int64_t wa,
                                           int64_t out, int64_t outa, double f)
{
    if (lines == 0 || len == 0) return GEMM_OK;
    if (elem_stride == 1) {
        gemm__cuda_verify_warp<T><<<(unsigned)((lines + 7) / 8), 256, 0, st>>>(x, (int)lines, (int)len, line_stride,
                                                                                ws, w, wa, out, outa, f);
    } else {
        int parts = (int)((len + 255) / 256 < 64 ? (len + 255) / 256 : 64), part = (int)((len + parts - 1) / parts);
        dim3 grid((unsigned)((lines + 255) / 256), (unsigned)parts);
        gemm__cuda_verify_thread<T><<<grid, 256, 0, st>>>(x, (int)lines, (int)len, line_stride, elem_stride, part, ws,
                                                          w, wa, out, outa, f);
    }
    GEMM__CUDA_TRY(fn, cudaGetLastError());
    return GEMM_OK;
}

/* The sums of the device-pointer call around gemm__cuda_run, then the
   comparison. A refusal of the operands comes before any sum reads them. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_verified(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                       const gemm_cuda_options *opt, cudaStream_t stream)
{
    const void *A = p->swapped ? x.b : x.a, *B = p->swapped ? x.a : x.b;
    int64_t m = p->m, n = p->n, k = p->k, ldc = p->ldc, s_, sa, r, ra, wc, sc, wr, sr, gc, gr;
    size_t doubles = gemm__verify_doubles(m, n, k), head;
    double *host, *scratch, *ws = NULL, alpha = (double)x.alpha, beta = (double)x.beta, max, u;
    gemm__verify_sums v;
    gemm__problem q = *p;
    gemm_status s;
    cudaError_t e;
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: m, n and k must each be below 2^31 here", fn);
    if ((s = gemm__cuda_check_pointer(fn, "C", x.c)) != GEMM_OK) return s;
    if (p->work == GEMM__WORK_FULL && ((s = gemm__cuda_check_pointer(fn, "A", A)) != GEMM_OK ||
                                       (s = gemm__cuda_check_pointer(fn, "B", B)) != GEMM_OK))
        return s;
    if (!(host = (double *)GEMM_MALLOC(doubles * sizeof(double))))
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for the verification's sums", fn);
    scratch = gemm__verify_layout(&v, host, m, n, k);
    head = (size_t)(scratch - host);
    s_ = scratch - host;
    sa = gemm__verify_scratch(scratch, k, 1) - host;
    r = gemm__verify_scratch(scratch, k, 2) - host;
    ra = gemm__verify_scratch(scratch, k, 3) - host;
    wc = v.want_col - host, sc = v.scale_col - host, wr = v.want_row - host, sr = v.scale_row - host;
    gc = v.got_col - host, gr = v.got_row - host;
    e = cudaMalloc((void **)&ws, doubles * sizeof(double));
    s = e == cudaSuccess ? GEMM_OK : gemm__cuda_fail(fn, "cudaMalloc (the verification's sums)", e);
    if (s == GEMM_OK && (e = cudaMemsetAsync(ws, 0, doubles * sizeof(double), stream)) != cudaSuccess)
        s = gemm__cuda_fail(fn, "cudaMemsetAsync (the verification's sums)", e);
    if (s == GEMM_OK && beta != 0) { /* beta*C0: its columns, its rows */
        s = gemm__cuda_verify_lines<TC>(fn, stream, x.c, n, m, ldc, 1, ws, -1, -1, wc, sc, beta);
        if (s == GEMM_OK) s = gemm__cuda_verify_lines<TC>(fn, stream, x.c, m, n, 1, ldc, ws, -1, -1, wr, sr, beta);
    }
    if (s == GEMM_OK && p->work == GEMM__WORK_FULL) {
        s = gemm__cuda_verify_lines<T>(fn, stream, x.a, k, m, p->acs, p->ars, ws, -1, -1, s_, sa, alpha);
        if (s == GEMM_OK) s = gemm__cuda_verify_lines<T>(fn, stream, x.b, k, n, p->brs, p->bcs, ws, -1, -1, r, ra, alpha);
        if (s == GEMM_OK) s = gemm__cuda_verify_lines<T>(fn, stream, x.b, n, k, p->bcs, p->brs, ws, s_, sa, wc, sc, 1.0);
        if (s == GEMM_OK) s = gemm__cuda_verify_lines<T>(fn, stream, x.a, m, k, p->ars, p->acs, ws, r, ra, wr, sr, 1.0);
    }
#ifdef GEMM__TEST_HOOKS
    gemm__cuda_verify_drop(&q);
#endif
    if (s == GEMM_OK) s = gemm__cuda_run(fn, &q, x, opt, stream);
#ifdef GEMM__TEST_HOOKS
    if (s == GEMM_OK && (e = cudaStreamSynchronize(stream)) == cudaSuccess)
        e = gemm__cuda_verify_flip(p, x.c, sizeof(TC), true);
    if (s == GEMM_OK && e != cudaSuccess) s = gemm__cuda_fail(fn, "the test hook's flip", e);
#endif
    if (s == GEMM_OK) s = gemm__cuda_verify_lines<TC>(fn, stream, x.c, n, m, ldc, 1, ws, -1, -1, gc, -1, 1.0);
    if (s == GEMM_OK) s = gemm__cuda_verify_lines<TC>(fn, stream, x.c, m, n, 1, ldc, ws, -1, -1, gr, -1, 1.0);
    if (s == GEMM_OK &&
        (e = cudaMemcpyAsync(host, ws, head * sizeof(double), cudaMemcpyDeviceToHost, stream)) != cudaSuccess)
        s = gemm__cuda_fail(fn, "cudaMemcpyAsync (the verification's sums)", e);
    if ((e = cudaStreamSynchronize(stream)) != cudaSuccess && s == GEMM_OK)
        s = gemm__cuda_fail(fn, "cudaStreamSynchronize", e);
    if (s == GEMM_OK) {
        u = gemm__cuda_verify_unit<T, TC>(opt, &max);
        s = gemm__verify_compare(fn, &v, m, n, k, u, max, p->swapped, -1);
    }
    if (ws) cudaFree(ws);
    GEMM_FREE(host);
    return s;
}

/* The host-pointer call, verified on the host (fp32 and fp64 operands). */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_host_verified(const char *fn, const gemm__problem *p,
                                            const gemm__cuda_operands<T, TC, S> &x, const gemm_cuda_options *opt)
{
    if constexpr ((std::is_same<T, float>::value || std::is_same<T, double>::value) && std::is_same<T, TC>::value) {
        gemm_precision prec = std::is_same<T, double>::value ? GEMM_F64 : GEMM_F32;
        gemm__verify_sums v;
        gemm__problem q = *p;
        double *ws = (double *)GEMM_MALLOC(gemm__verify_doubles(p->m, p->n, p->k) * sizeof(double)), max, u;
        gemm_status s;
        if (!ws) return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no memory for the verification's sums", fn);
        gemm__verify_host_before(p, prec, (double)x.alpha, x.a, x.b, (double)x.beta, x.c, ws, &v, 1);
#ifdef GEMM__TEST_HOOKS
        gemm__cuda_verify_drop(&q);
#endif
        s = gemm__cuda_host(fn, &q, x, opt);
        if (s == GEMM_OK) {
#ifdef GEMM__TEST_HOOKS
            gemm__cuda_verify_flip(p, x.c, sizeof(TC), false);
#endif
            gemm__verify_host_after(p, prec, x.c, &v, 1);
            u = gemm__cuda_verify_unit<T, TC>(opt, &max);
            s = gemm__verify_compare(fn, &v, p->m, p->n, p->k, u, max, p->swapped, -1);
        }
        GEMM_FREE(ws);
        return s;
    } else {
        (void)p, (void)x, (void)opt;
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.verify with host pointers is for fp32 and fp64 operands",
                          fn);
    }
}

/* Complex products with host pointers (gemm_cuda_cgemm_host, _zgemm_host):
   the same real product as the device calls (complex.cuh), its operands
   prepared on the host by a few threads (Y, op(b) when b is transposed, C
   scaled by a complex beta), then the real host path (devices.cuh), so
   that the pipeline, the panels larger than the device, several devices,
   the modes and the timing all serve complex calls too. Preparing on the
   host costs a pass over a (and b, C where copied) in host memory; it is
   counted in options.timing's setup_s. */
#pragma once
#include <stdint.h>
#include <string.h>
#include <thread>
#include "../../core/config.h"   /* GEMM_MALLOC, GEMM_FREE */
#include "../../core/internal.h"
#include "complex.cuh"           /* gemm__cuda_cplan */
#include "devices.cuh"           /* gemm__cuda_host */
#include "staging.cuh"           /* gemm__cuda_now */

/* The host reads these operands itself: device memory is refused (the
   device calls take it), host, page-locked and managed memory are read. */
static gemm_status gemm__cuda_chost_readable(const char *fn, const char *name, const void *x)
{
    cudaPointerAttributes at;
    cudaError_t e = cudaPointerGetAttributes(&at, x);
    if (e != cudaSuccess) {
        (void)cudaGetLastError(); /* no device, or an address the runtime does not know: host memory */
        return GEMM_OK;
    }
    if (at.type == cudaMemoryTypeDevice)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: %s is device memory, which the complex host calls read on the "
                          "host; pass host memory, or device memory to the device-pointer call", fn, name);
    return GEMM_OK;
}

/* body(begin, end) over [0, count) in up to `threads` pieces, the first on
   this thread; a thread that cannot start leaves its piece to this one. */
template <typename F> static void gemm__cuda_cparallel(int64_t count, int threads, F body)
{
    std::thread pool[16];
    int started = 0;
    int64_t per;
    if (threads > 16) threads = 16;
    if (threads < 1 || count < 2 * threads) threads = 1;
    per = (count + threads - 1) / threads;
    for (int t = 1; t < threads; t++) {
        int64_t b = t * per, e = b + per < count ? b + per : count;
        if (b >= e) break;
        try {
            pool[started] = std::thread(body, b, e);
            started++;
        } catch (...) {
            body(b, e);
        }
    }
    body(0, per < count ? per : count);
    for (int t = 0; t < started; t++) pool[t].join();
}

/* The host's share of the preparation: Y, op(b) and C's copy, as the
   device kernels make them (kernels/complex_expand.cuh), each over blocks
   of 64 x 64 elements so that a transposed operand is read a cache line
   at a time. */
template <typename T>
static void gemm__cuda_chost_expand(const gemm__cuda_cplan<T> *pl, const T *a, T *Y, int64_t l0, int64_t l1)
{
    const gemm__problem *p = &pl->p;
    T ar = pl->alpha.re, ai = pl->alpha.im;
    for (int64_t lb = l0; lb < l1; lb += 64)
        for (int64_t ib = 0; ib < p->m; ib += 64)
            for (int64_t l = lb; l < l1 && l < lb + 64; l++)
                for (int64_t i = ib; i < p->m && i < ib + 64; i++) {
                    const T *src = a + 2 * (p->a_trans ? l + i * p->lda : i + l * p->lda);
                    T x0 = src[0], y0 = pl->conj_a ? -src[1] : src[1];
                    T x = ar * x0 - ai * y0, y = ar * y0 + ai * x0;
                    T *even = Y + 2 * i + 2 * l * pl->ldy, *odd = even + pl->ldy;
                    even[0] = x;
                    even[1] = y;
                    odd[0] = pl->conj_b ? y : -y;
                    odd[1] = pl->conj_b ? -x : x;
                }
}

template <typename T>
static void gemm__cuda_chost_transpose(const gemm__cuda_cplan<T> *pl, const T *b, T *Bt, int64_t j0, int64_t j1)
{
    const gemm__problem *p = &pl->p;
    for (int64_t jb = j0; jb < j1; jb += 64)
        for (int64_t lb = 0; lb < p->k; lb += 64)
            for (int64_t j = jb; j < j1 && j < jb + 64; j++)
                for (int64_t l = lb; l < p->k && l < lb + 64; l++) {
                    const T *src = b + 2 * (j + l * p->ldb);
                    Bt[2 * (l + j * pl->ldbt)] = src[0];
                    Bt[2 * (l + j * pl->ldbt) + 1] = src[1];
                }
}

/* out = beta*in over columns [j0, j1) of an m x n complex matrix (beta = 0: zeros, in unread). */
template <typename T>
static void gemm__cuda_chost_scale(int64_t m, gemm__cuda_cnum<T> beta, const T *in, int64_t ldi, T *out, int64_t ldo,
                                   int64_t j0, int64_t j1)
{
    bool zero = beta.re == T(0) && beta.im == T(0);
    for (int64_t j = j0; j < j1; j++)
        for (int64_t i = 0; i < m; i++) {
            T *o = out + 2 * (i + j * ldo);
            if (zero) {
                o[0] = o[1] = T(0);
            } else {
                const T *c = in + 2 * (i + j * ldi);
                T x = c[0], y = c[1];
                o[0] = beta.re * x - beta.im * y;
                o[1] = beta.re * y + beta.im * x;
            }
        }
}

/* A checked host call with work to do (a, b: the canonical operands). */
template <typename T>
static gemm_status gemm__cuda_chost(const char *fn, const gemm__cuda_cplan<T> *pl, const T *a, const T *b, T *c,
                                   const gemm_cuda_options *opt)
{
    const gemm__problem *p = &pl->p;
    unsigned cores = std::thread::hardware_concurrency();
    int threads = opt->host_threads > 0 ? opt->host_threads : cores / 2 < 1 ? 1 : cores / 2 > 8 ? 8 : (int)cores / 2;
    double t0 = gemm__cuda_now();
    T *Y = NULL, *Bt = NULL, *Cs = NULL;
    gemm_status s;
    if ((s = gemm__cuda_chost_readable(fn, "C", c)) != GEMM_OK) return s;
    if (p->work == GEMM__WORK_SCALE) {
        gemm__cuda_cparallel(p->n, threads, [&](int64_t j0, int64_t j1) {
            gemm__cuda_chost_scale(p->m, pl->beta, c, p->ldc, c, p->ldc, j0, j1);
        });
        return GEMM_OK;
    }
    if ((s = gemm__cuda_chost_readable(fn, p->swapped ? "B" : "A", a)) != GEMM_OK ||
        (s = gemm__cuda_chost_readable(fn, p->swapped ? "A" : "B", b)) != GEMM_OK)
        return s;
    if (!(Y = (T *)GEMM_MALLOC((size_t)pl->y_elems * sizeof(T))) ||
        (pl->bt_elems && !(Bt = (T *)GEMM_MALLOC((size_t)pl->bt_elems * sizeof(T)))) ||
        (pl->cs_elems && !(Cs = (T *)GEMM_MALLOC((size_t)pl->cs_elems * sizeof(T))))) {
        s = gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no host memory for the complex operands' expansion (%lld scalars)",
                       fn, (long long)(pl->y_elems + pl->bt_elems + pl->cs_elems));
    } else {
        gemm__cuda_cparallel(p->k, threads, [&](int64_t l0, int64_t l1) { gemm__cuda_chost_expand(pl, a, Y, l0, l1); });
        if (Bt)
            gemm__cuda_cparallel(p->n, threads, [&](int64_t j0, int64_t j1) {
                gemm__cuda_chost_transpose(pl, b, Bt, j0, j1);
            });
        if (Cs)
            gemm__cuda_cparallel(p->n, threads, [&](int64_t j0, int64_t j1) {
                gemm__cuda_chost_scale(p->m, pl->beta, c, p->ldc, Cs, pl->ldcs, j0, j1);
            });
        gemm__cuda_operands<T, T, T> x = {Y, Bt ? Bt : b, Cs ? Cs : c, T(1), pl->complex_beta ? T(1) : pl->beta.re};
        s = gemm__cuda_host<T, T, T>(fn, &pl->r, x, opt);
        if (s == GEMM_OK && Cs) {
            gemm__cuda_cnum<T> one = {T(1), T(0)};
            gemm__cuda_cparallel(p->n, threads, [&](int64_t j0, int64_t j1) {
                gemm__cuda_chost_scale(p->m, one, Cs, pl->ldcs, c, p->ldc, j0, j1);
            });
        }
        if (s == GEMM_OK && opt->timing) { /* the preparation and the copy back as setup */
            double extra = gemm__cuda_now() - t0 - opt->timing->total_s;
            opt->timing->setup_s += extra > 0 ? extra : 0;
            opt->timing->total_s += extra > 0 ? extra : 0;
        }
    }
    if (Y) GEMM_FREE(Y);
    if (Bt) GEMM_FREE(Bt);
    if (Cs) GEMM_FREE(Cs);
    return s;
}

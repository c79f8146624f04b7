/* Verified products on CUDA (gemm_cuda_options.verify; core/verify.h).
   Device-pointer calls sum on the device (kernels/verify.cuh, one pass a
   matrix computes both its row and column sums): C0 (beta != 0), op(a)'s
   column sums, op(b) weighted by them with its row sums, op(a) weighted by
   those, all before the product; C after it; the comparison on the device
   and its worst row and column back, and the call synchronizes its
   stream. Host-pointer
   calls (fp32, fp64) sum on the host around the blocking call
   (cpu/verify_sums.c). Batches verify each member in turn
   (gemm__cuda_verified_members). The unit roundoff is C's precision's, or
   the inputs' where a tensor-core mode rounds them (TF32, FP16: 2^-11;
   BF16: 2^-8). */
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
#include "scratch.cuh" /* gemm__cuda_scratch_pool */

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
/* Whether this verified product gets the faults: verify_fault_skip
   products (batch members) run clean first. */
static int gemm__cuda_verify_faulty(void)
{
    gemm__hooks *h = gemm__test_hooks();
    if (!h->verify_flip_bit && !h->verify_drop_k) return 0;
    if (h->verify_fault_skip > 0) {
        h->verify_fault_skip--;
        return 0;
    }
    return 1;
}

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

/* One pass over a rows x cols matrix with element (r, c) at
   x[r*rs + c*cs] (rs == 1 or cs == 1): gemm__cuda_verify_tile over it, or
   over its transpose (rows contiguous) with the roles of rows and columns
   exchanged. */
template <typename T>
static gemm_status gemm__cuda_verify_pass(const char *fn, cudaStream_t st, const T *x, int64_t rows, int64_t cols,
                                          int64_t rs, int64_t cs, double *ws, gemm__cuda_verify_io io)
{
    int64_t tiles, strips;
    if (rs != 1) { /* rows contiguous */
        int64_t t = rows;
        rows = cols, cols = t, cs = rs;
        t = io.wr, io.wr = io.wc, io.wc = t;
        t = io.wra, io.wra = io.wca, io.wca = t;
        t = io.col, io.col = io.row, io.row = t;
        t = io.cola, io.cola = io.rowa, io.rowa = t;
        double f = io.fcol;
        io.fcol = io.frow, io.frow = f;
    }
    if (rows == 0 || cols == 0) return GEMM_OK;
    tiles = (rows + GEMM__CUDA_VERIFY_ROWS - 1) / GEMM__CUDA_VERIFY_ROWS;
    strips = (cols + GEMM__CUDA_VERIFY_COLS - 1) / GEMM__CUDA_VERIFY_COLS;
    dim3 grid((unsigned)tiles, (unsigned)(strips < 65535 ? strips : 65535));
    bool sum_cols = io.col >= 0 || io.cola >= 0, sum_rows = io.row >= 0 || io.rowa >= 0;
    bool abs_sums = io.cola >= 0 || io.rowa >= 0, row_weights = sum_cols && (io.wr >= 0 || io.wra >= 0);
    /* the shapes the verified call's passes take, either way round */
#define GEMM__CUDA_VERIFY_LAUNCH(C, R, A, W) gemm__cuda_verify_tile<T, C, R, A, W><<<grid, 256, 0, st>>>(x, (int)rows, (int)cols, cs, ws, io)
    if (sum_cols && sum_rows && row_weights) GEMM__CUDA_VERIFY_LAUNCH(true, true, true, true);
    else if (sum_cols && sum_rows && abs_sums) GEMM__CUDA_VERIFY_LAUNCH(true, true, true, false);
    else if (sum_cols && sum_rows) GEMM__CUDA_VERIFY_LAUNCH(true, true, false, false); /* C's pass */
    else if (sum_cols && row_weights) GEMM__CUDA_VERIFY_LAUNCH(true, false, true, true);
    else if (sum_cols) GEMM__CUDA_VERIFY_LAUNCH(true, false, true, false); /* abs sums too: harmless if unasked */
    else GEMM__CUDA_VERIFY_LAUNCH(false, true, true, false);
#undef GEMM__CUDA_VERIFY_LAUNCH
    GEMM__CUDA_TRY(fn, cudaGetLastError());
    return GEMM_OK;
}

/* The weights and outputs of a pass (gemm__cuda_verify_io), -1 for none. */
static gemm__cuda_verify_io gemm__cuda_verify_io_of(int64_t wr, int64_t wra, int64_t wc, int64_t wca, int64_t col,
                                                    int64_t cola, double fcol, int64_t row, int64_t rowa, double frow)
{
    gemm__cuda_verify_io io = {wr, wra, wc, wca, col, cola, row, rowa, fcol, frow};
    return io;
}

/* The sums of the device-pointer call around gemm__cuda_run, then the
   comparison: C0's row and column sums in one pass (beta != 0), op(a)'s
   column sums s, one pass over op(b) for want_col, scale_col (weighted by
   s) and its row sums r, one over op(a) for want_row, scale_row (weighted
   by r), all before the product, on its stream; after it, one pass over
   C for both its sums, the comparison on the device
   (gemm__cuda_verify_compare_kernel), and the worst row and column back
   to the host: where the 3m + 3n sums came back (pageable memory: up to
   0.4 MB at n = 8192) and the host compared them. The sums' buffer comes
   from the device's scratch pool (scratch.cuh) in stream order and goes
   back to it: no cudaMalloc, no cudaFree (which waited for the whole
   device) in a verified call. A refusal of the operands comes before any
   sum reads them. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_verified(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                       const gemm_cuda_options *opt, cudaStream_t stream)
{
    const void *A = p->swapped ? x.b : x.a, *B = p->swapped ? x.a : x.b;
    int64_t m = p->m, n = p->n, k = p->k, ldc = p->ldc, s_, sa, r, ra, wc, sc, wr, sr, gc, gr;
    /* the sums, then the two worst lines (whole doubles, 8-byte aligned) */
    size_t doubles = gemm__verify_doubles(m, n, k), tail = (2 * sizeof(gemm__verify_worst) + 7) / 8;
    double *scratch, *ws = NULL, alpha = (double)x.alpha, beta = (double)x.beta, max, u, factor, floor_;
    gemm__verify_sums v;
    gemm__verify_worst worst[2];
    gemm__cuda_verify_lines rows, cols;
    gemm__problem q = *p;
    cudaMemPool_t pool = NULL;
    gemm_status s;
    cudaError_t e;
    int dev = 0;
#ifdef GEMM__TEST_HOOKS
    int faulty;
#endif
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
        return gemm__fail(GEMM_ERR_INVALID_ARG, "%s: m, n and k must each be below 2^31 here", fn);
    if ((s = gemm__cuda_check_pointer(fn, "C", x.c)) != GEMM_OK) return s;
    if (p->work == GEMM__WORK_FULL && ((s = gemm__cuda_check_pointer(fn, "A", A)) != GEMM_OK ||
                                       (s = gemm__cuda_check_pointer(fn, "B", B)) != GEMM_OK))
        return s;
    if ((e = cudaGetDevice(&dev)) != cudaSuccess) s = gemm__cuda_fail(fn, "cudaGetDevice", e);
    if (s == GEMM_OK) s = gemm__cuda_scratch_pool(fn, dev, true, &pool);
    if (s == GEMM_OK &&
        (e = cudaMallocFromPoolAsync((void **)&ws, (doubles + tail) * sizeof(double), pool, stream)) != cudaSuccess) {
        ws = NULL;
        s = gemm__cuda_fail(fn, "cudaMallocFromPoolAsync (the verification's sums)", e);
    }
    if (s != GEMM_OK) return s;
    scratch = gemm__verify_layout(&v, ws, m, n, k); /* device addresses: only their offsets are used here */
    s_ = scratch - ws;
    sa = gemm__verify_scratch(scratch, k, 1) - ws;
    r = gemm__verify_scratch(scratch, k, 2) - ws;
    ra = gemm__verify_scratch(scratch, k, 3) - ws;
    wc = v.want_col - ws, sc = v.scale_col - ws, wr = v.want_row - ws, sr = v.scale_row - ws;
    gc = v.got_col - ws, gr = v.got_row - ws;
    if ((e = cudaMemsetAsync(ws, 0, doubles * sizeof(double), stream)) != cudaSuccess)
        s = gemm__cuda_fail(fn, "cudaMemsetAsync (the verification's sums)", e);
    if (s == GEMM_OK && beta != 0) /* beta*C0: its columns and rows in one pass */
        s = gemm__cuda_verify_pass<TC>(fn, stream, x.c, m, n, 1, ldc, ws,
                                       gemm__cuda_verify_io_of(-1, -1, -1, -1, wc, sc, beta, wr, sr, beta));
    if (s == GEMM_OK && p->work == GEMM__WORK_FULL) {
        s = gemm__cuda_verify_pass<T>(fn, stream, x.a, m, k, p->ars, p->acs, ws,
                                      gemm__cuda_verify_io_of(-1, -1, -1, -1, s_, sa, alpha, -1, -1, 1.0));
        if (s == GEMM_OK)
            s = gemm__cuda_verify_pass<T>(fn, stream, x.b, k, n, p->brs, p->bcs, ws,
                                          gemm__cuda_verify_io_of(s_, sa, -1, -1, wc, sc, 1.0, r, ra, alpha));
        if (s == GEMM_OK)
            s = gemm__cuda_verify_pass<T>(fn, stream, x.a, m, k, p->ars, p->acs, ws,
                                          gemm__cuda_verify_io_of(-1, -1, r, ra, -1, -1, 1.0, wr, sr, 1.0));
    }
#ifdef GEMM__TEST_HOOKS
    faulty = gemm__cuda_verify_faulty();
    if (faulty) gemm__cuda_verify_drop(&q);
#endif
    if (s == GEMM_OK) s = gemm__cuda_run(fn, &q, x, opt, stream);
#ifdef GEMM__TEST_HOOKS
    if (s == GEMM_OK && faulty && (e = cudaStreamSynchronize(stream)) == cudaSuccess)
        e = gemm__cuda_verify_flip(p, x.c, sizeof(TC), true);
    if (s == GEMM_OK && faulty && e != cudaSuccess) s = gemm__cuda_fail(fn, "the test hook's flip", e);
#endif
    if (s == GEMM_OK)
        s = gemm__cuda_verify_pass<TC>(fn, stream, x.c, m, n, 1, ldc, ws,
                                       gemm__cuda_verify_io_of(-1, -1, -1, -1, gc, -1, 1.0, gr, -1, 1.0));
    if (s == GEMM_OK) {
        u = gemm__cuda_verify_unit<T, TC>(opt, &max);
        gemm__verify_limits(m, n, k, u, max, &factor, &floor_);
        rows = gemm__cuda_verify_lines{gr, wr, sr, m};
        cols = gemm__cuda_verify_lines{gc, wc, sc, n};
        gemm__cuda_verify_compare_kernel<<<1, 1024, 0, stream>>>(ws, rows, cols, factor, floor_, max,
                                                                 (gemm__verify_worst *)(ws + doubles));
        if ((e = cudaGetLastError()) != cudaSuccess) s = gemm__cuda_fail(fn, "the verification's comparison", e);
    }
    if (s == GEMM_OK && (e = cudaMemcpyAsync(worst, ws + doubles, sizeof worst, cudaMemcpyDeviceToHost, stream)) !=
                            cudaSuccess)
        s = gemm__cuda_fail(fn, "cudaMemcpyAsync (the verification's result)", e);
    cudaFreeAsync(ws, stream); /* back to the pool once the stream has passed this point */
    if ((e = cudaStreamSynchronize(stream)) != cudaSuccess && s == GEMM_OK)
        s = gemm__cuda_fail(fn, "cudaStreamSynchronize", e);
    if (s == GEMM_OK) s = gemm__verify_report(fn, &worst[0], &worst[1], m, n, p->swapped, -1);
    return s;
}

/* A verified batch (after every check of the batch): its members one
   after the other, each as a verified single call on the stream (its sums,
   its product, its comparison; each synchronizes), stopping at the first
   that fails. The status is that member's, the detail names it as the
   CPU's batches do ("member i of N failed: ..."); the members after it are
   untouched. hb: the strides, or the lists (read to the host). */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_verified_members(const char *fn, const gemm__problem *p, const gemm__batch *hb,
                                               const gemm__cuda_operands<T, TC, S> &x, const gemm_cuda_options *opt,
                                               cudaStream_t stream)
{
    gemm_status s = GEMM_OK;
    char detail[400];
    size_t len;
    int64_t i;
    for (i = 0; i < hb->count && s == GEMM_OK; i++) {
        const T *a = hb->a_list ? (const T *)(uintptr_t)hb->addr_ab(hb->a_list, i) : x.a ? x.a + i * hb->stride_a : NULL;
        const T *b = hb->b_list ? (const T *)(uintptr_t)hb->addr_ab(hb->b_list, i) : x.b ? x.b + i * hb->stride_b : NULL;
        TC *c = hb->c_list ? (TC *)(uintptr_t)hb->addr_c(hb->c_list, i) : x.c + i * hb->stride_c;
        gemm__cuda_operands<T, TC, S> xi = {a, b, c, x.alpha, x.beta};
        s = gemm__cuda_verified(fn, p, xi, opt, stream);
    }
    if (s == GEMM_OK) return s;
    len = strlen(gemm_last_error_detail());
    if (len >= sizeof detail) len = sizeof detail - 1;
    memcpy(detail, gemm_last_error_detail(), len); /* gemm__fail writes the detail it reads */
    detail[len] = '\0';
    return gemm__fail(s, "%s: member %lld of %lld failed: %s; %s", fn, (long long)(i - 1), (long long)hb->count,
                      detail, s == GEMM_ERR_VERIFY ? "it and the members before it were written, those after it were not"
                                                   : "members before it were written, those after it were not");
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
        int faulty = gemm__cuda_verify_faulty();
        if (faulty) gemm__cuda_verify_drop(&q);
#endif
        s = gemm__cuda_host(fn, &q, x, opt);
        if (s == GEMM_OK) {
#ifdef GEMM__TEST_HOOKS
            if (faulty) gemm__cuda_verify_flip(p, x.c, sizeof(TC), false);
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

/* Complex products (gemm_cuda_cgemm, _zgemm and their batches) on the real
   kernels, device side: the plan of one call (the canonical complex
   problem, which operand is conjugated, the real product and its scratch)
   and its run on `stream`: the expansion of alpha*op(a) into Y, op(b)
   copied when b is transposed, C copied when beta is complex, then one real
   product (single call or batch) on the exact or tensor-core path, as
   gemm_cuda_sgemm / _dgemm would run it (kernels/complex_expand.cuh says
   why Y * B is the complex product). Nothing reads op(a) again after the
   expansion, so the real product reads 4mk scalars where a complex kernel
   reads 2mk: the price of reusing the real kernels unchanged, small beside
   the 8mnk flops once n is in the hundreds. A large strided batch runs in
   runs of members, each run's operands prepared on a second stream while
   the run before multiplies, so that the memory-bound preparation hides
   behind the products (gemm__cuda_cpipeline). */
#pragma once
#include <stdint.h>
#include "../../core/config.h"   /* GEMM_MALLOC, GEMM_FREE */
#include "../../core/internal.h" /* gemm__problem, gemm__batch, gemm__prepare */
#include "../../core/lists.c"   /* gemm__pointer_list_addr */
#include "../api.h"
#include "../kernels/complex_expand.cuh"
#include "batch_run.cuh" /* gemm__cuda_batch_run, gemm__cuda_upload_lists */
#include "call.cuh"      /* gemm__cuda_operands, gemm__cuda_gpu */
#include "errors.cuh"
#include "run.cuh"       /* gemm__cuda_run */
#include "scratch.cuh"

template <typename T> struct gemm__cuda_cnum {
    T re, im;
};

/* One complex call (or every member of a batch): the canonical complex
   problem p (column-major, a and b swapped for a row-major call), the real
   product r = Y * B (+ beta*C) that computes it, and the scratch each
   member needs, in scalars (0: none): Y, 2m x 2k with leading dimension
   ldy; op(b) when b is transposed, k x n complex (ldbt); C when beta is
   complex, m x n complex (ldcs), which the real product then adds into
   with beta = 1 before it goes back to C. */
template <typename T> struct gemm__cuda_cplan {
    gemm__problem p, r;
    int conj_a, conj_b;
    gemm__cuda_cnum<T> alpha, beta;
    bool complex_beta;
    int64_t ldy, ldbt, ldcs;
    int64_t y_elems, bt_elems, cs_elems;
};

static int64_t gemm__cuda_round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

/* The plan's real product and scratch, after p, the conjugations and the
   scalars are set: every column of the copies 16-byte aligned, so that the
   real kernels read them in place. Fails as gemm__prepare does when a copy
   would span more than 2^60 scalars. */
template <typename T> static gemm_status gemm__cuda_cplan_real(const char *fn, gemm__cuda_cplan<T> *pl)
{
    const gemm__problem *p = &pl->p;
    int64_t v = 16 / (2 * (int64_t)sizeof(T)); /* complex elements per 16 bytes */
    if (p->work != GEMM__WORK_FULL) { /* C = beta*C alone: no real product, no scratch */
        pl->r = *p;
        return GEMM_OK;
    }
    pl->complex_beta = pl->beta.im != T(0);
    pl->ldy = gemm__cuda_round_up(2 * p->m, 2 * v);
    pl->y_elems = pl->ldy * 2 * p->k;
    pl->ldbt = p->b_trans ? gemm__cuda_round_up(p->k, v) : 0;
    pl->bt_elems = 2 * pl->ldbt * p->n;
    pl->ldcs = pl->complex_beta ? gemm__cuda_round_up(p->m, v) : 0;
    pl->cs_elems = 2 * pl->ldcs * p->n;
    return gemm__prepare(fn, GEMM_COL_MAJOR, GEMM_NO_TRANS, GEMM_NO_TRANS, 2 * p->m, p->n, 2 * p->k, 0, 1, pl->ldy, 1,
                         p->b_trans ? 2 * pl->ldbt : 2 * p->ldb, !pl->complex_beta && pl->beta.re == T(1), 1,
                         pl->complex_beta ? 2 * pl->ldcs : 2 * p->ldc, &pl->r);
}

/* The members of a device call: count, each operand's base (NULL for a
   list) and where member i's starts (device/batch.cuh's lists on the
   device, strides in scalars), and the checked batch (NULL: a single
   call; its lists, when listed, are host copies of the caller's). */
template <typename T> struct gemm__cuda_cmembers {
    int64_t count;
    const T *a, *b;
    T *c;
    gemm__cuda_cside sa, sb, sc;
    const gemm__batch *hb;
};

/* Calls launch(first, z) for each run of at most 65535 of the members lo
   to hi - 1 (a grid's z). */
template <typename F> static gemm_status gemm__cuda_cchunks(const char *fn, int64_t lo, int64_t hi, F launch)
{
    for (int64_t first = lo; first < hi; first += 65535) {
        cudaError_t e;
        launch(first, (unsigned)(hi - first < 65535 ? hi - first : 65535));
        if ((e = cudaGetLastError()) != cudaSuccess) return gemm__cuda_fail(fn, "kernel launch", e);
    }
    return GEMM_OK;
}

/* out = beta*in over the m x n complex C of members lo to hi - 1 (beta = 0
   reads nothing). */
template <typename T>
static gemm_status gemm__cuda_cscale(const char *fn, const gemm__problem *p, int64_t lo, int64_t hi,
                                     gemm__cuda_cnum<T> beta, const T *in, int64_t ldi, gemm__cuda_cside si, T *out,
                                     int64_t ldo, gemm__cuda_cside so, cudaStream_t stream)
{
    int64_t blocks = (p->m * p->n + 255) / 256, cap = hi - lo > 1 ? 64 : 1024;
    return gemm__cuda_cchunks(fn, lo, hi, [&](int64_t first, unsigned z) {
        gemm__cuda_cscale_kernel<T><<<dim3((unsigned)(blocks < cap ? blocks : cap), 1, z), 256, 0, stream>>>(
            (int)p->m, (int)p->n, beta.re, beta.im, in, ldi, si, out, ldo, so, first);
    });
}

/* Y (the expansion of alpha*op(a)), op(b) when b is transposed, and C's
   copy scaled by a complex beta, for the members lo to hi - 1 into
   scratch (each strided there; a strided operand shared by every member,
   stride 0, is expanded or copied once, with member 0, and shared the
   same way). */
template <typename T>
static gemm_status gemm__cuda_cprepare_operands(const char *fn, const gemm__cuda_cplan<T> *pl,
                                                const gemm__cuda_cmembers<T> &mb, int64_t lo, int64_t hi, T *Y, T *Bt,
                                                T *Cs, cudaStream_t stream)
{
    const gemm__problem *p = &pl->p;
    bool a_shared = !mb.sa.list && mb.sa.stride == 0, b_shared = !mb.sb.list && mb.sb.stride == 0;
    int64_t kt = (p->k + 31) / 32; /* tiles along k: the grid's y strides over them */
    dim3 threads(32, 8);
    unsigned ky = (unsigned)(kt < 65535 ? kt : 65535);
    gemm_status s;
    s = gemm__cuda_cchunks(fn, a_shared ? 0 : lo, a_shared ? (lo == 0) : hi, [&](int64_t first, unsigned z) {
        gemm__cuda_cexpand_kernel<T><<<dim3((unsigned)((p->m + 31) / 32), ky, z), threads, 0, stream>>>(
            (int)p->m, (int)p->k, mb.a, p->lda, p->a_trans, pl->alpha.re, pl->alpha.im, pl->conj_a, pl->conj_b, Y,
            pl->ldy, mb.sa, pl->y_elems, first);
    });
    if (s == GEMM_OK && Bt) /* op(b)(l, j) = b[j + l*ldb]: the transpose of the n x k matrix b */
        s = gemm__cuda_cchunks(fn, b_shared ? 0 : lo, b_shared ? (lo == 0) : hi, [&](int64_t first, unsigned z) {
            gemm__cuda_ctranspose_kernel<T><<<dim3((unsigned)((p->n + 31) / 32), ky, z), threads, 0, stream>>>(
                (int)p->n, (int)p->k, mb.b, p->ldb, mb.sb, Bt, pl->ldbt, pl->bt_elems, first);
        });
    if (s == GEMM_OK && Cs) {
        gemm__cuda_cside out = {NULL, pl->cs_elems};
        s = gemm__cuda_cscale(fn, p, lo, hi, pl->beta, mb.c, p->ldc, mb.sc, Cs, pl->ldcs, out, stream);
    }
    return s;
}

/* A host list of `count` addresses base + i*stride scalars (a real batch's
   list of its strided scratch, when the caller's C came as a list). */
template <typename T> static void **gemm__cuda_cstrided_list(const T *base, int64_t stride, int64_t count)
{
    void **l = (void **)GEMM_MALLOC((size_t)count * sizeof(void *));
    if (l)
        for (int64_t i = 0; i < count; i++) l[i] = (void *)(base + i * stride);
    return l;
}

/* The real product over the prepared operands of members lo to hi - 1:
   gemm__cuda_run for a single call, gemm__cuda_batch_run for a batch
   (strided, any members; or, all of them, with host lists of every
   member's operands when the caller's came as lists). */
template <typename T>
static gemm_status gemm__cuda_creal(const char *fn, const gemm__cuda_cplan<T> *pl, const gemm__cuda_cmembers<T> &mb,
                                    int64_t lo, int64_t hi, const T *Y, const T *Bt, T *Cs,
                                    const gemm_cuda_options *opt, cudaStream_t stream)
{
    T beta = pl->complex_beta ? T(1) : pl->beta.re;
    bool a_shared = !mb.sa.list && mb.sa.stride == 0, b_shared = !mb.sb.list && mb.sb.stride == 0;
    gemm__cuda_operands<T, T, T> x = {Y, Bt ? Bt : mb.b, Cs ? Cs : mb.c, T(1), beta};
    gemm__batch hr = {};
    void **lists[3] = {NULL, NULL, NULL};
    gemm_status s = GEMM_OK;
    if (!mb.hb) return gemm__cuda_run<T, T, T>(fn, &pl->r, x, opt, stream);
    if (!mb.hb->c_list) { /* strided: member lo's operands first */
        x.a = Y + (a_shared ? 0 : lo * pl->y_elems);
        x.b = Bt ? Bt + (b_shared ? 0 : lo * pl->bt_elems) : mb.b + lo * 2 * mb.hb->stride_b;
        x.c = Cs ? Cs + lo * pl->cs_elems : mb.c + lo * 2 * mb.hb->stride_c;
    }
    hr.count = hi - lo;
    hr.bad_member = -1;
    hr.stride_a = a_shared ? 0 : pl->y_elems;
    hr.stride_b = Bt ? (b_shared ? 0 : pl->bt_elems) : 2 * mb.hb->stride_b;
    hr.stride_c = Cs ? pl->cs_elems : 2 * mb.hb->stride_c;
    if (mb.hb->c_list) { /* listed: every operand a host list for the real batch's checks and upload */
        lists[0] = gemm__cuda_cstrided_list(Y, pl->y_elems, mb.count);
        if (Bt) lists[1] = gemm__cuda_cstrided_list(Bt, pl->bt_elems, mb.count);
        if (Cs) lists[2] = gemm__cuda_cstrided_list(Cs, pl->cs_elems, mb.count);
        if (!lists[0] || (Bt && !lists[1]) || (Cs && !lists[2]))
            s = gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: no host memory for %lld members' pointers", fn,
                           (long long)mb.count);
        hr.a_list = lists[0];
        hr.b_list = Bt ? (const void *)lists[1] : mb.hb->b_list;
        hr.c_list = Cs ? (const void *)lists[2] : mb.hb->c_list;
        hr.addr_ab = hr.addr_c = gemm__pointer_list_addr;
        x.a = x.b = NULL;
        x.c = NULL;
    }
    if (s == GEMM_OK) s = gemm__cuda_batch_run<T, T, T>(fn, &pl->r, &hr, x, opt, stream);
    for (int i = 0; i < 3; i++)
        if (lists[i]) GEMM_FREE(lists[i]);
    return s;
}

/* Into how many runs of members a strided batch's work is cut so that the
   operand preparation of one run (a memory-bound pass) overlaps the real
   product of the run before (compute-bound once members are in the
   hundreds): 1 (no pipeline) for a single call, a listed batch, a stream
   capturing a graph, or less than 2^28 real flops a run (a run then costs
   its launches more than the overlap gains); at most 8. */
template <typename T>
static int64_t gemm__cuda_cruns(const gemm__cuda_cplan<T> *pl, const gemm__cuda_cmembers<T> &mb, cudaStream_t stream)
{
    const gemm__problem *p = &pl->p;
    cudaStreamCaptureStatus capture;
    double flops = 8.0 * (double)p->m * (double)p->n * (double)p->k * (double)mb.count;
    int64_t runs = (int64_t)(flops / (double)(1 << 28));
    if (!mb.hb || mb.hb->c_list || mb.count < 2 || runs < 2) return 1;
    if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
        (void)cudaGetLastError();
        return 1;
    }
    if (capture != cudaStreamCaptureStatusNone) return 1;
    runs = runs < 8 ? runs : 8;
    return runs < mb.count ? runs : mb.count;
}

/* The operands of `runs` runs of members prepared on a second stream of
   high priority, one after the other, while `stream` runs each run's real
   product as soon as its operands are ready. Events order the two
   streams: the side stream starts after what `stream` held before the
   call (the scratch's allocation with it), and `stream` goes on past the
   side stream's last work, so that the scratch is given back after it.
   Returns false, having queued nothing, when the side stream or its
   events cannot be had (the caller then runs everything on `stream`). */
template <typename T>
static bool gemm__cuda_cpipeline(const char *fn, const gemm__cuda_cplan<T> *pl, const gemm__cuda_cmembers<T> &mb,
                                 int64_t runs, T *Y, T *Bt, T *Cs, const gemm_cuda_options *opt,
                                 cudaStream_t stream, gemm_status *out)
{
    cudaStream_t side = NULL;
    cudaEvent_t ev[9] = {}; /* ev[0]: the call's start; ev[1 + r]: run r's operands ready */
    int least, greatest, made = 0;
    gemm_status s = GEMM_OK;
    bool ok = cudaDeviceGetStreamPriorityRange(&least, &greatest) == cudaSuccess &&
              cudaStreamCreateWithPriority(&side, cudaStreamNonBlocking, greatest) == cudaSuccess;
    for (; ok && made <= runs; made++) ok = cudaEventCreateWithFlags(&ev[made], cudaEventDisableTiming) == cudaSuccess;
    ok = ok && cudaEventRecord(ev[0], stream) == cudaSuccess && cudaStreamWaitEvent(side, ev[0], 0) == cudaSuccess;
    if (ok) {
        int64_t r = 0;
        for (; r < runs && s == GEMM_OK; r++) {
            int64_t lo = mb.count * r / runs, hi = mb.count * (r + 1) / runs;
            cudaError_t e;
            s = gemm__cuda_cprepare_operands(fn, pl, mb, lo, hi, Y, Bt, Cs, side);
            if (s == GEMM_OK && (e = cudaEventRecord(ev[1 + r], side)) != cudaSuccess)
                s = gemm__cuda_fail(fn, "cudaEventRecord", e);
        }
        for (int64_t q = 0; q < r && s == GEMM_OK; q++) {
            int64_t lo = mb.count * q / runs, hi = mb.count * (q + 1) / runs;
            cudaError_t e = cudaStreamWaitEvent(stream, ev[1 + q], 0);
            s = e != cudaSuccess ? gemm__cuda_fail(fn, "cudaStreamWaitEvent", e)
                                 : gemm__cuda_creal(fn, pl, mb, lo, hi, Y, Bt, Cs, opt, stream);
        }
        /* whatever failed: the scratch is not given back before the side stream is done with it */
        if (cudaEventRecord(ev[0], side) != cudaSuccess || cudaStreamWaitEvent(stream, ev[0], 0) != cudaSuccess) {
            cudaError_t e = cudaStreamSynchronize(side);
            if (s == GEMM_OK && e != cudaSuccess) s = gemm__cuda_fail(fn, "cudaStreamSynchronize", e);
        }
    } else {
        (void)cudaGetLastError();
    }
    for (int i = 0; i < made; i++)
        if (ev[i]) cudaEventDestroy(ev[i]);
    if (side) cudaStreamDestroy(side); /* returns at once; the stream goes when its work is done */
    *out = s;
    return ok;
}

/* A checked device call with work to do (single call or batch): scratch
   from the device's pool in stream order, the operand preparation, the
   real product (in runs, gemm__cuda_cpipeline, for a large strided
   batch), C's copy back when beta is complex, the scratch given back.
   Only C = beta*C (alpha = 0 or k = 0) needs no scratch. gpu: the
   current device, queried by the caller. */
template <typename T>
static gemm_status gemm__cuda_cdevice(const char *fn, const gemm__cuda_cplan<T> *pl, const gemm__cuda_cmembers<T> &mb,
                                      const gemm_cuda_options *opt, const gemm__cuda_gpu *gpu, cudaStream_t stream)
{
    const gemm__problem *p = &pl->p;
    bool a_shared = !mb.sa.list && mb.sa.stride == 0, b_shared = !mb.sb.list && mb.sb.stride == 0;
    int64_t ya = a_shared ? 1 : mb.count, yb = b_shared ? 1 : mb.count, runs;
    size_t sz = sizeof(T), y_bytes, bt_bytes, bytes;
    cudaMemPool_t pool;
    cudaError_t e;
    T *scratch = NULL, *Bt = NULL, *Cs = NULL;
    gemm_status s;
    if (p->work == GEMM__WORK_SCALE)
        return gemm__cuda_cscale(fn, p, 0, mb.count, pl->beta, mb.c, p->ldc, mb.sc, mb.c, p->ldc, mb.sc, stream);
    y_bytes = ((size_t)pl->y_elems * ya * sz + 255) / 256 * 256;
    bt_bytes = ((size_t)pl->bt_elems * yb * sz + 255) / 256 * 256;
    bytes = y_bytes + bt_bytes + (size_t)pl->cs_elems * mb.count * sz;
    if ((s = gemm__cuda_scratch_pool(fn, gpu->dev, true, &pool)) != GEMM_OK) return s;
    if ((e = cudaMallocFromPoolAsync((void **)&scratch, bytes, pool, stream)) != cudaSuccess)
        return gemm__cuda_fail(fn, "cudaMallocFromPoolAsync (the complex operands' expansion)", e);
    if (pl->bt_elems) Bt = (T *)((char *)scratch + y_bytes);
    if (pl->cs_elems) Cs = (T *)((char *)scratch + y_bytes + bt_bytes);
    runs = gemm__cuda_cruns(pl, mb, stream);
    if (runs < 2 || !gemm__cuda_cpipeline(fn, pl, mb, runs, scratch, Bt, Cs, opt, stream, &s)) {
        s = gemm__cuda_cprepare_operands(fn, pl, mb, 0, mb.count, scratch, Bt, Cs, stream);
        if (s == GEMM_OK) s = gemm__cuda_creal(fn, pl, mb, 0, mb.count, scratch, Bt, Cs, opt, stream);
    }
    if (s == GEMM_OK && Cs) { /* C = the sums, member by member */
        gemm__cuda_cnum<T> one = {T(1), T(0)};
        gemm__cuda_cside in = {NULL, pl->cs_elems};
        s = gemm__cuda_cscale(fn, p, 0, mb.count, one, Cs, pl->ldcs, in, mb.c, p->ldc, mb.sc, stream);
    }
    e = cudaFreeAsync(scratch, stream);
    if (s == GEMM_OK && e != cudaSuccess) return gemm__cuda_fail(fn, "cudaFreeAsync", e);
    return s;
}

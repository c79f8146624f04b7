/* The host-pointer path (the _host calls): which memory can be copied
   straight, the zero-copy path of tiny problems, the plan within the
   device memory the call may take, the pipeline, the timing.

   A call is a pipeline (plan.cuh, pipeline.cuh): A and B are cut into
   panels and C into pieces; a piece is multiplied by the device path (on
   one of two streams) while the next panels arrive and earlier pieces of
   C go back, each direction on a stream of its own. Pageable memory moves
   through page-locked staging chunks (8 MB) that the copy threads
   (options.host_threads; 0: half the host's cores, at most 8) fill and
   empty while the copy engines move them; page-locked, device and managed
   memory is copied straight (cudaPointerGetAttributes tells). When A, B
   and C fit, A and B stay as their panels arrive and C's pieces go in
   growing squares, every panel crossing once; when they do not, a block
   of A's rows (or of B's columns, whichever repeats fewer bytes) stays
   while the other streams past, so matrices larger than the device work.
   Tiny problems (below 96 KB of operands, 1 MB with MAPPED) run
   zero-copy: the kernel reads A and B from page-locked memory over the
   bus, and no copy engine is used. Each device keeps, for the next calls,
   its contexts (staging.cuh: chunks, about 3 x threads + 4 per call
   running at once, copy threads, streams) and the device buffers in its
   scratch pool; two threads may call at once, each in a context of its
   own. */
#pragma once
#include <exception>
#include <new> /* std::bad_alloc */
#include <string.h>
#include "../../core/internal.h" /* gemm__problem, GEMM__HOOK */
#include "choose.cuh" /* gemm__cuda_is_tc */
#include "orders.cuh" /* gemm__cuda_plan_make */
#include "pipeline.cuh"
#include "run.cuh"
#include "scratch.cuh"
#include "staging.cuh"
#include "gate.cuh"

/* Problems whose operands (bytes) are at most this small run zero-copy:
   the kernel reads A and B from page-locked memory over the bus, and no
   copy-engine transfer is issued. MAPPED asks for it up to the larger
   size; the default takes it only where the copies' launch latency would
   dominate. Above them every mode takes the pipeline. */
#define GEMM__CUDA_ZERO_COPY_DEFAULT ((size_t)96 << 10)
#define GEMM__CUDA_ZERO_COPY_MAPPED ((size_t)1 << 20)
/* Staged bytes up to which the calling thread copies alone (waking copy
   threads would cost more than the copies). */
#define GEMM__CUDA_IN_CALLER ((size_t)1 << 20)

#ifdef GEMM__TEST_HOOKS
/* Tests: how this thread's last host call ran: [0] 0 for zero-copy, else
   its plan's order; [1] its direct operands as bits (1 a, 2 b, 4 c). */
static thread_local int gemm__cuda_host_last[2];
#define GEMM__CUDA_HOST_NOTE(order, direct) (gemm__cuda_host_last[0] = (order), gemm__cuda_host_last[1] = (direct))
#else
#define GEMM__CUDA_HOST_NOTE(order, direct) ((void)0)
#endif

/* How each operand can be reached: direct[i] when the copy engine can use
   the caller's memory as it is (page-locked host memory from cudaHostAlloc
   or cudaHostRegister, device or managed memory); mapped[i] is then the
   address a kernel may dereference (NULL if none). */
typedef struct gemm__cuda_reach {
    bool direct[3];
    const void *mapped[3];
} gemm__cuda_reach;

static void gemm__cuda_reach_of(const void *const ptr[3], gemm__cuda_reach *r)
{
    int i;
    for (i = 0; i < 3; i++) {
        cudaPointerAttributes at;
        r->direct[i] = false;
        r->mapped[i] = NULL;
        if (!ptr[i]) continue;
        if (cudaPointerGetAttributes(&at, ptr[i]) != cudaSuccess) {
            cudaGetLastError();
            continue;
        }
        r->direct[i] = at.type != cudaMemoryTypeUnregistered;
        r->mapped[i] = r->direct[i] ? at.devicePointer : NULL;
    }
}

/* Device memory a call may take: what is free (and idle in the scratch
   pool) less a margin for the kernels and other users, or
   options.max_device_bytes when that is less (*capped). */
static gemm_status gemm__cuda_host_budget(const char *fn, int dev, const gemm_cuda_options *opt, size_t *budget,
                                          bool *capped)
{
    size_t free_b = 0, total = 0, margin;
    cudaMemPool_t pool;
    GEMM__CUDA_TRY(fn, cudaMemGetInfo(&free_b, &total));
    if (gemm__cuda_scratch_pool(fn, dev, false, &pool) == GEMM_OK && pool) {
        uint64_t reserved = 0, used = 0;
        if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) == cudaSuccess &&
            cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess && reserved > used)
            free_b += (size_t)(reserved - used);
    }
    margin = free_b / 16 > ((size_t)256 << 20) ? free_b / 16 : ((size_t)256 << 20);
    *budget = free_b > margin ? free_b - margin : 0;
    *capped = opt->max_device_bytes > 0 && opt->max_device_bytes < *budget;
    if (*capped) *budget = opt->max_device_bytes;
    return GEMM_OK;
}

/* The zero-copy path: operands the kernel cannot reach are copied whole
   into mapped staging chunks, the device path reads them over the bus,
   C's window comes back. Returns GEMM_ERR_UNAVAILABLE (no detail) when
   the chunks are not there: the caller takes the pipeline then. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_zero_copy(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                        const gemm_cuda_options *opt, gemm__cuda_context<gemm__cuda_real> *ctx,
                                        const gemm__cuda_reach *r, gemm_timing *t)
{
    size_t na = (size_t)p->a_extent * sizeof(T), nb = (size_t)p->b_extent * sizeof(T);
    gemm__cuda_operands<T, TC, S> y = x;
    cudaStream_t s = ctx->compute[0];
    double t0 = gemm__cuda_now(), t1;
    float ms = 0;
    gemm_status st;
    if (gemm__cuda_context_chunks(ctx, 3) < 3 || gemm__cuda_context_events(ctx, 2) != cudaSuccess) return GEMM_ERR_UNAVAILABLE;
    if (p->work == GEMM__WORK_FULL) {
        y.a = r->mapped[0] ? (const T *)r->mapped[0] : (const T *)memcpy(ctx->chunks[0], x.a, na);
        y.b = r->mapped[1] ? (const T *)r->mapped[1] : (const T *)memcpy(ctx->chunks[1], x.b, nb);
    }
    y.c = r->mapped[2] ? (TC *)r->mapped[2] : (TC *)ctx->chunks[2];
    if (!r->mapped[2] && x.beta != S(0))
        for (int64_t j = 0; j < p->n; j++) memcpy(y.c + j * p->ldc, x.c + j * p->ldc, (size_t)p->m * sizeof(TC));
    t1 = gemm__cuda_now();
    GEMM__CUDA_TRY(fn, cudaEventRecord(ctx->events[0], s));
    if ((st = gemm__cuda_run(fn, p, y, opt, s)) != GEMM_OK) {
        cudaStreamSynchronize(s);
        return st;
    }
    GEMM__CUDA_TRY(fn, cudaEventRecord(ctx->events[1], s));
    GEMM__CUDA_TRY(fn, cudaStreamSynchronize(s));
    GEMM__CUDA_TRY(fn, cudaEventElapsedTime(&ms, ctx->events[0], ctx->events[1]));
    if (t) {
        t->to_device_s = t1 - t0;
        t->compute_s = ms * 1e-3;
        t1 = gemm__cuda_now();
    }
    if (!r->mapped[2])
        for (int64_t j = 0; j < p->n; j++) memcpy(x.c + j * p->ldc, y.c + j * p->ldc, (size_t)p->m * sizeof(TC));
    if (t) t->from_device_s = gemm__cuda_now() - t1;
    return GEMM_OK;
}

/* The plan's inputs for a call: sizes, element bytes, the tile (panels of
   about an eighth of the larger side, 256 to 2048), and the most bytes a
   piece of C may have (half the store chunks' worth, so stores never
   wait for a chunk a piece before them holds). */
template <typename T, typename TC, typename S>
static void gemm__cuda_host_shape(const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                  const gemm_cuda_options *opt, const gemm__cuda_reach *r, int threads, size_t z,
                                  gemm__cuda_shape *sh)
{
    int64_t big = p->m > p->n ? p->m : p->n, t = gemm__cuda_cdiv(gemm__cuda_cdiv(big, 8), 128) * 128;
    sh->m = p->m;
    sh->n = p->n;
    sh->k = p->k;
    sh->trans[0] = p->a_trans;
    sh->trans[1] = p->b_trans;
    sh->trans[2] = 0;
    sh->elem[0] = sh->elem[1] = sizeof(T);
    sh->elem[2] = sizeof(TC);
    sh->reads_ab = p->work == GEMM__WORK_FULL;
    sh->loads_c = x.beta != S(0);
    sh->tc = gemm__cuda_is_tc<T>(opt);
    sh->tile = GEMM__HOOK(cuda_host_tile, t < 256 ? 256 : t > 2048 ? 2048 : t);
    sh->piece_bytes = r->direct[2] ? (size_t)64 << 20 : (size_t)(threads + 2) / 2 * z;
}

/* Bytes the copy threads move for a call (the staged operands). */
static size_t gemm__cuda_staged_bytes(const gemm__problem *p, const gemm__cuda_reach *r, size_t ea, size_t ec, bool loads_c)
{
    size_t bytes = 0;
    if (p->work == GEMM__WORK_FULL) {
        if (!r->direct[0]) bytes += (size_t)p->m * (size_t)p->k * ea;
        if (!r->direct[1]) bytes += (size_t)p->k * (size_t)p->n * ea;
    }
    if (!r->direct[2]) bytes += (size_t)p->m * (size_t)p->n * ec * (loads_c ? 2 : 1);
    return bytes;
}

/* A plan that fits, and its device buffer: when the allocation fails, the
   pool's idle memory goes back and a plan for 3/4 of the budget is tried,
   three times. A call no plan fits is refused before anything moves. */
static gemm_status gemm__cuda_host_plan(const char *fn, gemm__cuda_context<gemm__cuda_real> *ctx, const gemm__cuda_shape *sh,
                                        const gemm_cuda_options *opt, gemm__cuda_plan *pl, char **buf)
{
    size_t budget = 0;
    bool capped = false;
    int attempt;
    gemm_status s = gemm__cuda_host_budget(fn, ctx->dev, opt, &budget, &capped);
    for (attempt = 0; s == GEMM_OK; attempt++) {
        if (!gemm__cuda_plan_make(pl, sh, budget))
            return capped ? gemm__fail(GEMM_ERR_INVALID_ARG, "%s: options.max_device_bytes = %zu is too small for this "
                                       "call (tiles of %d need more)", fn, opt->max_device_bytes, GEMM__CUDA_MIN_TILE)
                          : gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: %zu bytes of device memory are free: too few for "
                                       "tiles of %d", fn, budget, GEMM__CUDA_MIN_TILE);
        s = gemm__cuda_real::device_alloc(fn, (void **)buf, pl->bytes, ctx->dev, ctx->compute[0]);
        if (s != GEMM_ERR_OUT_OF_MEMORY || attempt == 3) return s;
        cudaStreamSynchronize(ctx->compute[0]);
        gemm__cuda_real::device_trim(ctx->dev);
        budget = pl->bytes / 4 * 3;
    }
    return s;
}

/* A call in a context: zero-copy when tiny, else plan and pipeline. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_host_in(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                      const gemm_cuda_options *opt, gemm__cuda_context<gemm__cuda_real> *ctx,
                                      gemm_timing *t, gemm__cuda_gate_ticket *ticket)
{
    const void *ptr[3] = {x.a, x.b, x.c};
    gemm__cuda_reach r;
    gemm__cuda_shape sh;
    gemm__cuda_plan pl;
    char *buf = NULL;
    int threads = gemm__cuda_copy_threads(opt);
    int64_t ld[3] = {p->lda, p->ldb, p->ldc};
    size_t operands, staged, z;
    gemm_status s;
    gemm__cuda_reach_of(ptr, &r);
    GEMM__CUDA_HOST_NOTE(0, (r.direct[0] ? 1 : 0) | (r.direct[1] ? 2 : 0) | (r.direct[2] ? 4 : 0));
    operands = ((size_t)p->a_extent + (size_t)p->b_extent) * sizeof(T) + (size_t)p->c_extent * sizeof(TC);
    if (!ticket && operands <= (opt->mode == GEMM_CUDA_MAPPED ? GEMM__CUDA_ZERO_COPY_MAPPED : GEMM__CUDA_ZERO_COPY_DEFAULT) &&
        (s = gemm__cuda_zero_copy(fn, p, x, opt, ctx, &r, t)) != GEMM_ERR_UNAVAILABLE)
        return s;
    staged = gemm__cuda_staged_bytes(p, &r, sizeof(T), sizeof(TC), x.beta != S(0));
    z = staged / (size_t)(4 * threads);
    z = z < ((size_t)256 << 10) ? (size_t)256 << 10 : z > GEMM__CUDA_CHUNK ? GEMM__CUDA_CHUNK : z;
    z = GEMM__HOOK(cuda_host_chunk_bytes, z);
    if (z > GEMM__CUDA_CHUNK) z = GEMM__CUDA_CHUNK;
    gemm__cuda_host_shape(p, x, opt, &r, threads, z, &sh);
    if ((s = gemm__cuda_host_plan(fn, ctx, &sh, opt, &pl, &buf)) != GEMM_OK) return s;
    if (GEMM__HOOK(cuda_device_refuse, 0) == ctx->dev + 1) {
        gemm__cuda_real::device_free(buf, ctx->compute[0]);
        return gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: device %d refused by the test hook", fn, ctx->dev);
    }
    if (ticket && !gemm__cuda_gate_enter(ticket)) { /* another device could not plan: C stays untouched */
        gemm__cuda_real::device_free(buf, ctx->compute[0]);
        return GEMM_ERR_DEVICE;
    }
    GEMM__CUDA_HOST_NOTE(pl.order, (r.direct[0] ? 1 : 0) | (r.direct[1] ? 2 : 0) | (r.direct[2] ? 4 : 0));
    s = gemm__cuda_pipeline<gemm__cuda_real>(fn, ctx, &sh, &pl, x, ld, r.direct, opt, threads, z,
                                             staged <= GEMM__CUDA_IN_CALLER, buf, t);
    gemm__cuda_real::device_free(buf, ctx->compute[0]);
    return s;
}

/* The host path's internal entry, on the current device: canonical problem
   p (gemm__prepare's), its operands (a, b after the row-major swap), the
   options (mode, max_device_bytes, host_threads; kernel, math, split_k,
   variant for the multiplies), *t filled when not NULL (setup_s and
   total_s left to the caller). Another host-data path (the MPI backend's
   root-held matrices, say) calls it as gemm__cuda_host does. */
template <typename T, typename TC, typename S>
static gemm_status gemm__cuda_host_run(const char *fn, const gemm__problem *p, const gemm__cuda_operands<T, TC, S> &x,
                                       const gemm_cuda_options *opt, gemm_timing *t, gemm__cuda_gate_ticket *ticket)
{
    gemm__cuda_context<gemm__cuda_real> *ctx;
    cudaError_t e = cudaSuccess;
    gemm_status s;
    int dev;
    if ((e = cudaGetDevice(&dev)) != cudaSuccess) {
        if (ticket) gemm__cuda_gate_leave(ticket);
        return gemm__cuda_fail(fn, "cudaGetDevice", e);
    }
    if (dev < 0 || dev >= 64) {
        if (ticket) gemm__cuda_gate_leave(ticket);
        return gemm__fail(GEMM_ERR_UNAVAILABLE, "%s: device %d: only 64 devices are served", fn, dev);
    }
    if ((ctx = gemm__cuda_context_take(dev, &e)) == NULL) {
        if (ticket) gemm__cuda_gate_leave(ticket);
        return gemm__cuda_fail(fn, "cudaStreamCreateWithFlags", e);
    }
    try {
        s = gemm__cuda_host_in(fn, p, x, opt, ctx, t, ticket);
    } catch (const std::bad_alloc &) {
        s = gemm__fail(GEMM_ERR_OUT_OF_MEMORY, "%s: out of host memory for the host path's bookkeeping", fn);
    } catch (const std::exception &ex) {
        s = gemm__fail(GEMM_ERR_DEVICE, "%s: the host path's copy threads: %s", fn, ex.what());
    }
    gemm__cuda_context_give(ctx);
    if (ticket) gemm__cuda_gate_leave(ticket); /* a device that failed before the gate stops the others */
    if (opt->max_device_bytes > 0) { /* the cap also bounds what the pool keeps */
        cudaMemPool_t pool;
        if (gemm__cuda_scratch_pool(fn, dev, false, &pool) == GEMM_OK && pool) cudaMemPoolTrimTo(pool, opt->max_device_bytes);
    }
    return s;
}

/* The host path's pipeline: runs a plan (plan.cuh, orders.cuh) in a context
   (staging.cuh). Loads go host-to-device on one stream, multiplies
   alternate between two compute streams (chained ones stay on one), stores
   go device-to-host on a fourth; events order them as the plan's `after`
   fields say, and a multiply waits for the loads issued before it. The
   caller's pageable memory moves through the staging chunks: copy threads
   fill chunks ahead of the copy engine (as many as there are), and empty
   each store chunk once its copy from the device is done (staging.cuh: no
   copy thread sits waiting for a multiply); page-locked, device or managed
   memory is copied straight. One thread (the caller's) issues everything
   in plan order, so every event it waits on was recorded before.

   Entry for other host-data paths (the MPI backend's root-held data, say):
   gemm__cuda_host_run() (host_path.cuh) with a canonical gemm__problem, its
   operands and options, on the current device: it takes a context, plans
   within options.max_device_bytes, runs, and fills a gemm_timing. */
#pragma once
#include <algorithm> /* std::sort */
#include <atomic>
#include <deque>
#include <exception>
#include <memory> /* std::unique_ptr */
#include <utility> /* std::pair */
#include <vector>
#include "../../core/internal.h" /* gemm__prepare */
#include "call.cuh" /* gemm__cuda_operands */
#include "plan.cuh"
#include "staging.cuh"

/* A 2D block of bytes moved between the caller's memory and the device:
   `rows` runs of `width` bytes, hpitch and dpitch apart. */
typedef struct gemm__cuda_region {
    char *host, *dev;
    size_t hpitch, dpitch, width, rows;
} gemm__cuda_region;

/* A store's piece waiting for a staging chunk. */
typedef struct gemm__cuda_outgoing {
    gemm__cuda_region r;
    int store, multiply; /* its store; the last multiply issued before it */
    bool first, last;
} gemm__cuda_outgoing;

/* Cuts a region into pieces of at most z bytes (whole runs where a run
   fits; a contiguous region counts as one run). */
static void gemm__cuda_split(gemm__cuda_region g, size_t z, std::vector<gemm__cuda_region> *out)
{
    size_t r, off;
    if (g.width == 0 || g.rows == 0) return;
    if (g.hpitch == g.width && g.dpitch == g.width) {
        g.width *= g.rows;
        g.rows = 1;
        g.hpitch = g.dpitch = g.width;
    }
    if (g.width <= z) {
        size_t per = z / g.width;
        for (r = 0; r < g.rows; r += per) {
            gemm__cuda_region p = g;
            p.host += r * g.hpitch;
            p.dev += r * g.dpitch;
            p.rows = g.rows - r < per ? g.rows - r : per;
            out->push_back(p);
        }
        return;
    }
    for (r = 0; r < g.rows; r++)
        for (off = 0; off < g.width; off += z) {
            gemm__cuda_region p = g;
            p.host += r * g.hpitch + off;
            p.dev += r * g.dpitch + off;
            p.width = g.width - off < z ? g.width - off : z;
            p.rows = 1;
            out->push_back(p);
        }
}

/* One call's run. Events (ctx->events): e_h2d (the loads so far), e_start,
   then per chunk, per multiply its end (and its start when timed), per
   store its end. */
template <class Dev, typename T, typename TC, typename S> struct gemm__cuda_pipe {
    const char *fn;
    const gemm__cuda_shape *sh;
    const gemm__cuda_plan *pl;
    const gemm__cuda_operands<T, TC, S> *x;
    const gemm_cuda_options *opt;
    gemm__cuda_context<Dev> *ctx;
    char *buf, *host[3];
    int64_t ld[3];
    bool direct[3], in_caller, timed;
    size_t z, s_in, s_out, e_h2d, e_start, e_chunk, e_end, e_begin, e_store;
    std::vector<gemm__cuda_region> in;
    std::vector<int> in_op, stream_of, other_of;
    std::unique_ptr<std::atomic<int>[]> in_done, out_done;
    size_t fill_next, dma_next, out_seq;
    std::deque<gemm__cuda_outgoing> out;
    int last_on[2], multiplies, stores, stores_recorded;
    cudaError_t err;
    const char *what;
    gemm_status status;
};

#define GEMM__CUDA_PIPE_TRY(q, call)                                                               \
    do {                                                                                           \
        cudaError_t gemm__e = (call);                                                              \
        if (gemm__e != cudaSuccess) {                                                              \
            (q)->err = gemm__e;                                                                    \
            (q)->what = #call;                                                                     \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

/* Byte offset of operand `which`'s element (r, c) in area `at`. */
static size_t gemm__cuda_area_offset(const gemm__cuda_shape *sh, int which, const gemm__cuda_area *at, int64_t r, int64_t c)
{
    int tr = sh->trans[which];
    int64_t sr = tr ? c - at->c0 : r - at->r0, sc = tr ? r - at->r0 : c - at->c0;
    return (size_t)(sr + sc * at->ld) * sh->elem[which];
}

/* The caller's memory and the device slot of an operand's rectangle. */
template <class P>
static gemm__cuda_region gemm__cuda_region_of(const P *q, int which, const gemm__cuda_area *at, int64_t r0, int64_t r1,
                                              int64_t c0, int64_t c1)
{
    const gemm__cuda_shape *sh = q->sh;
    int tr = sh->trans[which];
    size_t e = sh->elem[which];
    int64_t sr0 = tr ? c0 : r0, sr1 = tr ? c1 : r1, sc0 = tr ? r0 : c0, sc1 = tr ? r1 : c1;
    gemm__cuda_region g;
    g.host = q->host[which] + (size_t)(sr0 + sc0 * q->ld[which]) * e;
    g.dev = q->buf + q->pl->slot_offset[at->slot] + gemm__cuda_area_offset(sh, which, at, r0, c0);
    g.hpitch = (size_t)q->ld[which] * e;
    g.dpitch = (size_t)at->ld * e;
    g.width = (size_t)(sr1 - sr0) * e;
    g.rows = (size_t)(sc1 - sc0);
    return g;
}

/* Hands piece i's fill to the copy threads: it first waits until the copy
   engine is done with the chunk's previous piece (i - s_in, queued). */
template <class Dev, class P> static void gemm__cuda_pipe_fill(P *q, size_t i)
{
    size_t c = i % q->s_in;
    gemm__cuda_job j;
    j.dst = (char *)q->ctx->chunks[c];
    j.dpitch = q->in[i].width;
    j.src = q->in[i].host;
    j.spitch = q->in[i].hpitch;
    j.width = q->in[i].width;
    j.rows = q->in[i].rows;
    j.wait = i >= q->s_in ? Dev::sync_event : NULL;
    j.event = (void *)q->ctx->events[q->e_chunk + c];
    j.done = &q->in_done[i];
    gemm__cuda_workers_submit(&q->ctx->workers, &j, q->in_caller, false);
}

/* Keeps the copy threads filling every chunk the copy engine is not using. */
template <class Dev, class P> static void gemm__cuda_pipe_top_up(P *q)
{
    if (q->in_caller) return; /* fills run as each piece is due */
    while (q->fill_next < q->in.size() && q->fill_next < q->dma_next + q->s_in) gemm__cuda_pipe_fill<Dev>(q, q->fill_next++);
}

template <class Dev, class P> static bool gemm__cuda_pipe_out(P *q, bool block);

/* Waits until a job's flag is set; meanwhile (`progress`) queues stores
   whose chunks came free. */
template <class Dev, class P> static bool gemm__cuda_pipe_wait(P *q, std::atomic<int> *flag, bool progress)
{
    while (!flag->load()) {
        unsigned long long seen = gemm__cuda_workers_seen(&q->ctx->workers);
        if (progress && !gemm__cuda_pipe_out<Dev>(q, false)) return false;
        if (flag->load()) break;
        gemm__cuda_workers_wait(&q->ctx->workers, seen);
    }
    if (flag->load() == 1) return true;
    q->err = cudaErrorUnknown; /* the event wait of a copy thread failed: the device's error follows at the next sync */
    q->what = "cudaEventSynchronize (a copy thread waiting for the copy engine)";
    return false;
}

/* Makes `stream` wait for multiply g and every multiply before it (g and
   the last one issued before it on the other compute stream). */
template <class Dev, class P> static bool gemm__cuda_pipe_after(P *q, typename Dev::stream stream, int g)
{
    if (g < 0) return true; /* no multiply before it */
    GEMM__CUDA_PIPE_TRY(q, Dev::wait(stream, q->ctx->events[q->e_end + (size_t)g]));
    if (q->other_of[(size_t)g] >= 0) GEMM__CUDA_PIPE_TRY(q, Dev::wait(stream, q->ctx->events[q->e_end + (size_t)q->other_of[(size_t)g]]));
    return true;
}

/* Queues the waiting store pieces whose chunks are free (`block`: all of
   them, waiting for chunks). */
template <class Dev, class P> static bool gemm__cuda_pipe_out(P *q, bool block)
{
    while (!q->out.empty()) {
        const gemm__cuda_outgoing *o = &q->out.front();
        size_t c = q->out_seq % q->s_out;
        char *chunk = (char *)q->ctx->chunks[q->s_in + c];
        typename Dev::event ev = q->ctx->events[q->e_chunk + q->s_in + c];
        gemm__cuda_job j;
        if (!q->out_done[c].load() && !block) break;
        if (!gemm__cuda_pipe_wait<Dev>(q, &q->out_done[c], false)) return false;
        if (o->first && !gemm__cuda_pipe_after<Dev>(q, q->ctx->d2h, o->multiply)) return false;
        GEMM__CUDA_PIPE_TRY(q, Dev::copy(chunk, o->r.width, o->r.dev, o->r.dpitch, o->r.width, o->r.rows, q->ctx->d2h));
        GEMM__CUDA_PIPE_TRY(q, Dev::record(ev, q->ctx->d2h));
        if (o->last) {
            GEMM__CUDA_PIPE_TRY(q, Dev::record(q->ctx->events[q->e_store + (size_t)o->store], q->ctx->d2h));
            q->stores_recorded = o->store + 1;
        }
        j.dst = o->r.host;
        j.dpitch = o->r.hpitch;
        j.src = chunk;
        j.spitch = o->r.width;
        j.width = o->r.width;
        j.rows = o->r.rows;
        j.wait = Dev::sync_event;
        j.event = (void *)ev;
        j.done = &q->out_done[c];
        q->out_done[c].store(0);
        q->out.pop_front();
        q->out_seq++;
        gemm__cuda_workers_submit(&q->ctx->workers, &j, q->in_caller, true);
    }
    return true;
}

/* Makes sure store s's event is recorded (its pieces queued). A plan
   that waits for a store it has not issued is an error, never a spin. */
template <class Dev, class P> static bool gemm__cuda_pipe_flush(P *q, int s)
{
    while (q->stores_recorded <= s) {
        if (q->out.empty() || s >= q->stores) {
            q->err = cudaErrorInvalidValue;
            q->what = "the host path's plan (a step waits for a store not issued before it)";
            return false;
        }
        if (!gemm__cuda_pipe_out<Dev>(q, true)) return false;
    }
    return true;
}

template <class Dev, class P> static bool gemm__cuda_pipe_load(P *q, const gemm__cuda_op *o, int index)
{
    typename Dev::stream h2d = q->ctx->h2d;
    if (o->after >= 0 && o->which == 2) {
        if (!gemm__cuda_pipe_flush<Dev>(q, o->after)) return false;
        GEMM__CUDA_PIPE_TRY(q, Dev::wait(h2d, q->ctx->events[q->e_store + (size_t)o->after]));
    } else if (o->after >= 0 && !gemm__cuda_pipe_after<Dev>(q, h2d, o->after)) {
        return false;
    }
    if (q->direct[o->which]) {
        gemm__cuda_region g = gemm__cuda_region_of(q, o->which, &o->at[o->which], o->r0, o->r1, o->c0, o->c1);
        GEMM__CUDA_PIPE_TRY(q, Dev::copy(g.dev, g.dpitch, g.host, g.hpitch, g.width, g.rows, h2d));
        return true;
    }
    while (q->dma_next < q->in.size() && q->in_op[q->dma_next] == index) {
        size_t i = q->dma_next, c = i % q->s_in;
        const gemm__cuda_region *g = &q->in[i];
        if (q->in_caller) gemm__cuda_pipe_fill<Dev>(q, q->fill_next++);
        else gemm__cuda_pipe_top_up<Dev>(q);
        if (!gemm__cuda_pipe_wait<Dev>(q, &q->in_done[i], true)) return false;
        GEMM__CUDA_PIPE_TRY(q, Dev::copy(g->dev, g->dpitch, q->ctx->chunks[c], g->width, g->width, g->rows, h2d));
        GEMM__CUDA_PIPE_TRY(q, Dev::record(q->ctx->events[q->e_chunk + c], h2d));
        q->dma_next++;
    }
    gemm__cuda_pipe_top_up<Dev>(q);
    return true;
}

/* A multiply's canonical sub-problem on the device slots, through the
   device-pointer path (its kernels, its checks) on stream s. */
template <class Dev, class P> static gemm_status gemm__cuda_pipe_gemm(P *q, const gemm__cuda_op *o, typename Dev::stream s)
{
    typedef decltype(q->x->a) APtr;
    typedef decltype(q->x->c) CPtr;
    const gemm__cuda_shape *sh = q->sh;
    int64_t m = o->r1 - o->r0, n = o->c1 - o->c0, k = o->p1 - o->p0;
    int64_t lda = sh->trans[0] ? (k > 1 ? k : 1) : (m > 1 ? m : 1), ldb = sh->trans[1] ? (n > 1 ? n : 1) : (k > 1 ? k : 1);
    auto y = *q->x; /* alpha; beta on K's first part, then 1 */
    gemm__problem sub = {};
    gemm_status st;
    y.a = NULL;
    y.b = NULL;
    if (sh->reads_ab) {
        y.a = (APtr)(q->buf + q->pl->slot_offset[o->at[0].slot] + gemm__cuda_area_offset(sh, 0, &o->at[0], o->r0, o->p0));
        y.b = (APtr)(q->buf + q->pl->slot_offset[o->at[1].slot] + gemm__cuda_area_offset(sh, 1, &o->at[1], o->p0, o->c0));
        lda = o->at[0].ld;
        ldb = o->at[1].ld;
    }
    y.c = (CPtr)(q->buf + q->pl->slot_offset[o->at[2].slot] + gemm__cuda_area_offset(sh, 2, &o->at[2], o->r0, o->c0));
    if (o->p0 > 0) y.beta = 1;
    st = gemm__prepare(q->fn, GEMM_COL_MAJOR, sh->trans[0] ? GEMM_TRANS : GEMM_NO_TRANS,
                       sh->trans[1] ? GEMM_TRANS : GEMM_NO_TRANS, m, n, k, y.alpha == 0, y.a != NULL, lda, y.b != NULL,
                       ldb, y.beta == 1, 1, o->at[2].ld, &sub);
    if (st != GEMM_OK || sub.work == GEMM__WORK_NONE) return st;
    return Dev::multiply(q->fn, &sub, y, q->opt, s);
}

template <class Dev, class P> static bool gemm__cuda_pipe_multiply(P *q, const gemm__cuda_op *o)
{
    int g = q->multiplies, prev = g > 0 ? q->stream_of[(size_t)g - 1] : 1, st = o->chain ? prev : 1 - prev;
    typename Dev::stream s = q->ctx->compute[st];
    GEMM__CUDA_PIPE_TRY(q, Dev::record(q->ctx->events[q->e_h2d], q->ctx->h2d));
    GEMM__CUDA_PIPE_TRY(q, Dev::wait(s, q->ctx->events[q->e_h2d]));
    if (o->after >= 0) {
        if (!gemm__cuda_pipe_flush<Dev>(q, o->after)) return false;
        GEMM__CUDA_PIPE_TRY(q, Dev::wait(s, q->ctx->events[q->e_store + (size_t)o->after]));
    }
    if (q->timed) GEMM__CUDA_PIPE_TRY(q, Dev::record(q->ctx->events[q->e_begin + (size_t)g], s));
    if ((q->status = gemm__cuda_pipe_gemm<Dev>(q, o, s)) != GEMM_OK) return false;
    GEMM__CUDA_PIPE_TRY(q, Dev::record(q->ctx->events[q->e_end + (size_t)g], s));
    q->stream_of[(size_t)g] = st;
    q->other_of[(size_t)g] = q->last_on[1 - st];
    q->last_on[st] = g;
    q->multiplies++;
    return true;
}

template <class Dev, class P> static bool gemm__cuda_pipe_store(P *q, const gemm__cuda_op *o)
{
    gemm__cuda_region g = gemm__cuda_region_of(q, 2, &o->at[2], o->r0, o->r1, o->c0, o->c1);
    int s = q->stores++;
    if (q->direct[2] || g.width == 0 || g.rows == 0) { /* straight (or nothing to copy: only its event) */
        if (!gemm__cuda_pipe_after<Dev>(q, q->ctx->d2h, q->multiplies - 1)) return false;
        if (g.width && g.rows) GEMM__CUDA_PIPE_TRY(q, Dev::copy(g.host, g.hpitch, g.dev, g.dpitch, g.width, g.rows, q->ctx->d2h));
        GEMM__CUDA_PIPE_TRY(q, Dev::record(q->ctx->events[q->e_store + (size_t)s], q->ctx->d2h));
        q->stores_recorded = s + 1;
        return true;
    }
    {
        std::vector<gemm__cuda_region> pieces;
        size_t i;
        gemm__cuda_split(g, q->z, &pieces);
        for (i = 0; i < pieces.size(); i++) {
            gemm__cuda_outgoing w = {pieces[i], s, q->multiplies - 1, i == 0, i + 1 == pieces.size()};
            q->out.push_back(w);
        }
    }
    return gemm__cuda_pipe_out<Dev>(q, false);
}

template <class Dev, class P> static bool gemm__cuda_pipe_steps(P *q)
{
    size_t i;
    for (i = 0; i < q->pl->ops.size(); i++) {
        const gemm__cuda_op *o = &q->pl->ops[i];
        bool ok = o->kind == GEMM__CUDA_LOAD       ? gemm__cuda_pipe_load<Dev>(q, o, (int)i)
                  : o->kind == GEMM__CUDA_MULTIPLY ? gemm__cuda_pipe_multiply<Dev>(q, o)
                                                   : gemm__cuda_pipe_store<Dev>(q, o);
        if (!ok) return false;
    }
    return gemm__cuda_pipe_out<Dev>(q, true);
}

/* Waits for a job without queueing anything (the end of a call). */
template <class P> static void gemm__cuda_pipe_settle(P *q, std::atomic<int> *flag)
{
    while (!flag->load()) {
        unsigned long long seen = gemm__cuda_workers_seen(&q->ctx->workers);
        if (flag->load()) break;
        gemm__cuda_workers_wait(&q->ctx->workers, seen);
    }
}

/* The end of every call, after a failure too: every job finished (no copy
   thread touches a chunk or the caller's memory after the call returns),
   every stream idle. Keeps the first error. */
template <class Dev, class P> static void gemm__cuda_pipe_drain(P *q)
{
    typename Dev::stream streams[4] = {q->ctx->compute[0], q->ctx->compute[1], q->ctx->h2d, q->ctx->d2h};
    bool ok = q->err == cudaSuccess && q->status == GEMM_OK;
    size_t i;
    for (i = q->dma_next; i < q->fill_next; i++) gemm__cuda_pipe_settle(q, &q->in_done[i]);
    for (i = 0; i < q->s_out; i++) {
        gemm__cuda_pipe_settle(q, &q->out_done[i]);
        if (ok && q->out_done[i].load() != 1) {
            q->err = cudaErrorUnknown;
            q->what = "cudaEventSynchronize (a copy thread waiting for a staged piece of C)";
            ok = false;
        }
    }
    for (i = 0; i < 4; i++) {
        cudaError_t e = Dev::sync_stream(streams[i]);
        if (ok && e != cudaSuccess) {
            q->err = e;
            q->what = "cudaStreamSynchronize (the end of a host call)";
            ok = false;
        }
    }
}

/* The staged pieces, chunks, events and threads of a run; then its start. */
template <class Dev, class P> static bool gemm__cuda_pipe_setup(P *q, int threads)
{
    gemm__cuda_context<Dev> *ctx = q->ctx;
    size_t i, need_in, need_out = 0, have, m = (size_t)q->pl->multiplies;
    std::vector<gemm__cuda_region> outgoing;
    for (i = 0; i < q->pl->ops.size(); i++) {
        const gemm__cuda_op *o = &q->pl->ops[i];
        if (q->direct[o->which] || o->kind == GEMM__CUDA_MULTIPLY) continue;
        if (o->kind == GEMM__CUDA_STORE) { /* only counted: a call needs no more store chunks than pieces */
            if (need_out < (size_t)threads + 2)
                gemm__cuda_split(gemm__cuda_region_of(q, 2, &o->at[2], o->r0, o->r1, o->c0, o->c1), q->z, &outgoing);
            need_out = outgoing.size() < (size_t)threads + 2 ? outgoing.size() : (size_t)threads + 2;
            continue;
        }
        gemm__cuda_split(gemm__cuda_region_of(q, o->which, &o->at[o->which], o->r0, o->r1, o->c0, o->c1), q->z, &q->in);
        q->in_op.resize(q->in.size(), (int)i);
    }
    need_in = q->in.size() < (size_t)(2 * threads + 2) ? q->in.size() : (size_t)(2 * threads + 2);
    have = gemm__cuda_context_chunks(ctx, need_in + need_out);
    if (have < need_in + need_out) { /* page-locked memory ran short: fewer chunks */
        need_out = need_out == 0 ? 0 : need_in == 0 ? have : (have / 3 > 0 ? have / 3 : 1);
        need_in = need_in == 0 ? 0 : have - need_out;
        if ((q->in.size() && need_in == 0) || (q->pl->stores && !q->direct[2] && need_out == 0)) {
            q->err = cudaErrorMemoryAllocation;
            q->what = "cudaHostAlloc (the staging chunks)";
            return false;
        }
    }
    q->in_done.reset(new std::atomic<int>[q->in.size() + 1]());
    q->out_done.reset(new std::atomic<int>[need_out + 1]());
    for (i = 0; i < need_out; i++) q->out_done[i].store(1); /* free */
    q->s_in = need_in; /* set last: the drain reads them */
    q->s_out = need_out;
    q->stream_of.assign(m, 0);
    q->other_of.assign(m, -1);
    q->e_h2d = 0;
    q->e_start = 1;
    q->e_chunk = 2;
    q->e_end = q->e_chunk + q->s_in + q->s_out;
    q->e_begin = q->e_end + m;
    q->e_store = q->e_begin + (q->timed ? m : 0);
    GEMM__CUDA_PIPE_TRY(q, gemm__cuda_context_events(ctx, q->e_store + (size_t)q->pl->stores));
    if (!q->in_caller) gemm__cuda_workers_resize<Dev>(&ctx->workers, threads, ctx->dev);
    GEMM__CUDA_PIPE_TRY(q, Dev::record(ctx->events[q->e_start], ctx->compute[0])); /* after the buffer's allocation */
    GEMM__CUDA_PIPE_TRY(q, Dev::wait(ctx->compute[1], ctx->events[q->e_start]));
    GEMM__CUDA_PIPE_TRY(q, Dev::wait(ctx->h2d, ctx->events[q->e_start]));
    GEMM__CUDA_PIPE_TRY(q, Dev::wait(ctx->d2h, ctx->events[q->e_start]));
    return true;
}

/* Where the time of a run went (run_s: wall clock from its start): the
   multiplies' busy time (the union of their intervals on both compute
   streams), the time before and between them (waiting for loads, or for a
   C slot's store), and the time after the last one. */
template <class Dev, class P> static void gemm__cuda_pipe_times(P *q, double run_s, gemm_timing *t)
{
    std::vector<std::pair<float, float>> iv;
    typename Dev::event start = q->ctx->events[q->e_start];
    float b, e, busy = 0, lo, hi, last = 0;
    size_t g;
    for (g = 0; g < (size_t)q->multiplies; g++) {
        if (Dev::elapsed(&b, start, q->ctx->events[q->e_begin + g]) != cudaSuccess ||
            Dev::elapsed(&e, start, q->ctx->events[q->e_end + g]) != cudaSuccess)
            return;
        iv.push_back(std::make_pair(b, e));
        if (e > last) last = e;
    }
    if (iv.empty()) return;
    std::sort(iv.begin(), iv.end());
    lo = iv[0].first;
    hi = iv[0].second;
    for (g = 1; g < iv.size(); g++) {
        if (iv[g].first > hi) {
            busy += hi - lo;
            lo = iv[g].first;
        }
        if (iv[g].second > hi) hi = iv[g].second;
    }
    busy += hi - lo;
    t->compute_s = busy * 1e-3;
    t->to_device_s = (last - busy) * 1e-3;
    t->from_device_s = run_s > last * 1e-3 ? run_s - last * 1e-3 : 0;
}

/* Runs plan `pl` of shape `sh` in context `ctx` on device buffer `buf`
   (allocated on ctx->compute[0]): the caller's canonical a, b, c with
   leading dimensions ld[], direct[i] when operand i is copied straight,
   `threads` copy threads (in_caller: the calling thread copies), staged
   pieces of at most z bytes. Fills *t (when not NULL) with the run's
   to_device_s, compute_s, from_device_s. */
template <class Dev, typename T, typename TC, typename S>
static gemm_status gemm__cuda_pipeline(const char *fn, gemm__cuda_context<Dev> *ctx, const gemm__cuda_shape *sh,
                                       const gemm__cuda_plan *pl, const gemm__cuda_operands<T, TC, S> &x,
                                       const int64_t ld[3], const bool direct[3], const gemm_cuda_options *opt,
                                       int threads, size_t z, bool in_caller, char *buf, gemm_timing *t)
{
    gemm__cuda_pipe<Dev, T, TC, S> q;
    double t0 = gemm__cuda_now();
    int i;
    q.fn = fn;
    q.sh = sh;
    q.pl = pl;
    q.x = &x;
    q.opt = opt;
    q.ctx = ctx;
    q.buf = buf;
    q.host[0] = (char *)x.a;
    q.host[1] = (char *)x.b;
    q.host[2] = (char *)x.c;
    for (i = 0; i < 3; i++) {
        q.ld[i] = ld[i];
        q.direct[i] = direct[i];
    }
    q.in_caller = in_caller;
    q.timed = t != NULL;
    q.z = z;
    q.s_in = q.s_out = 0;
    q.fill_next = q.dma_next = q.out_seq = 0;
    q.last_on[0] = q.last_on[1] = -1;
    q.multiplies = q.stores = q.stores_recorded = 0;
    q.err = cudaSuccess;
    q.what = "";
    q.status = GEMM_OK;
    try { /* whatever happens, the drain below runs: copy threads hold pointers into q */
        if (gemm__cuda_pipe_setup<Dev>(&q, threads)) {
            t0 = gemm__cuda_now();
            gemm__cuda_pipe_steps<Dev>(&q);
        }
    } catch (const std::exception &) {
        q.err = cudaErrorMemoryAllocation;
        q.what = "the pipeline's bookkeeping (host memory, or a copy thread that could not start)";
    }
    gemm__cuda_pipe_drain<Dev>(&q);
    if (q.status != GEMM_OK) return q.status;
    if (q.err != cudaSuccess) return gemm__cuda_fail(fn, q.what, q.err);
    if (t) gemm__cuda_pipe_times<Dev>(&q, gemm__cuda_now() - t0, t);
    return GEMM_OK;
}
